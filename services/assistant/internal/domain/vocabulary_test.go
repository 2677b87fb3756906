package domain

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every spelling names one value: a spelling claimed by two values would be shown as either,
// depending on map order.
func TestVocabulariesAreUnambiguous(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string][]string{
		"sources": leadSourceValues, "verticals": verticalValues, "channels": channelValues,
		"services": serviceValues, "subjects": subjectValues,
	} {
		owner := map[string]string{}
		for shown, aliases := range values {
			for _, a := range append([]string{shown}, aliases...) {
				key := normalLabel(a)
				require.NotEmpty(t, key, "%s: %q", name, a)
				if prev, ok := owner[key]; ok {
					require.Equal(t, prev, shown, "%s: %q means both %q and %q", name, a, prev, shown)
				}
				owner[key] = shown
			}
		}
	}
}
