package geo

import "math"

// Point is a coordinate in degrees.
type Point struct{ Lat, Lng float64 }

// EarthRadiusMiles is the mean radius used for distances.
const EarthRadiusMiles = 3958.8

// DistanceMiles is the great-circle distance between two points.
func DistanceMiles(a, b Point) float64 {
	const rad = math.Pi / 180
	dLat, dLng := (b.Lat-a.Lat)*rad, (b.Lng-a.Lng)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * EarthRadiusMiles * math.Asin(math.Min(1, math.Sqrt(h)))
}
