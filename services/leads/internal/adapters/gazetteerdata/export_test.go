package gazetteerdata

import "testing"

func Raw(testing.TB) string { return data }
