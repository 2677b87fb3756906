package gazetteerdata

import (
	"testing"

	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// BenchmarkLoad is the start-up cost of the place data: parse and index.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		zips, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		catalog.NewGazetteer(zips)
	}
}
