package openapitest

import (
	"fmt"
	"slices"
)

// Known is a finding another branch fixes. Probe logs it instead of failing until then, and fails
// once it no longer occurs, so an entry cannot outlive its finding: the lead removes it on merging.
type Known struct {
	// Why names the issue item that fixes it.
	Why string
	// Tag is the class of probe (a Tag constant) and Problem the problem (a Problem constant).
	Tag, Problem string
	// Operations are the operationIds it occurs on.
	Operations []string
}

func (k Known) String() string { return fmt.Sprintf("%s %s on %v", k.Tag, k.Problem, k.Operations) }

// KnownFindings are the findings of the property test that are fixed elsewhere (issue 37). The
// lead removes an entry when the branch that fixes it merges; the test then says if one is stale.
var KnownFindings = []Known{}

func knownIndex(f Finding) int {
	return slices.IndexFunc(KnownFindings, func(k Known) bool {
		return k.Tag == f.Tag && k.Problem == f.Problem && slices.Contains(k.Operations, f.Operation)
	})
}
