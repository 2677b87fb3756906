package geodata

// Data is the embedded files, for tests that read the rows themselves.
func Data() (zips, places string) { return zipData, placeData }
