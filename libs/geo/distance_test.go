package geo_test

import (
	"testing"

	"github.com/bizassist/bizassist/libs/geo"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	austin, dallas := geo.Point{Lat: 30.2672, Lng: -97.7431}, geo.Point{Lat: 32.7767, Lng: -96.7970}
	if d := geo.DistanceMiles(austin, dallas); d < 175 || d > 190 {
		t.Fatalf("Austin to Dallas is %.1f miles", d)
	}
}
