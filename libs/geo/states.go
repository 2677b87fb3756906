package geo

import "strings"

// usStates maps each USPS state code (50 states and DC) to its name.
var usStates = map[string]string{
	"AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
	"CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia",
	"FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois",
	"IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
	"ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
	"MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
	"NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York",
	"NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon",
	"PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota",
	"TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia",
	"WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}

// stateByName is the reverse of usStates, keyed by lower-case name.
var stateByName = func() map[string]string {
	m := make(map[string]string, len(usStates))
	for code, name := range usStates {
		m[strings.ToLower(name)] = code
	}
	return m
}()

// StateCode resolves a USPS code or a state name, in any case, to the USPS code.
func StateCode(s string) (string, bool) {
	if len(s) == 2 {
		code := strings.ToUpper(s)
		if _, ok := usStates[code]; ok {
			return code, true
		}
		return "", false
	}
	code, ok := stateByName[strings.ToLower(collapseSpaces(s))]
	return code, ok
}

// StateName is the name of a USPS state code ("TX" → "Texas").
func StateName(code string) (string, bool) {
	name, ok := usStates[code]
	return name, ok
}
