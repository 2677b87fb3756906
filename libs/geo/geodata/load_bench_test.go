package geodata

import (
	"testing"

	"github.com/bizassist/bizassist/libs/geo"
)

// BenchmarkLoad is the start-up cost of the place data: parse both files and join them.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		zips, err := ParseZIPs(zipData)
		if err != nil {
			b.Fatal(err)
		}
		towns, err := ParseTowns(placeData)
		if err != nil {
			b.Fatal(err)
		}
		geo.NewGazetteer(zips, towns)
	}
}
