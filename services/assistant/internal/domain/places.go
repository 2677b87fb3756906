package domain

import (
	"regexp"
	"strings"
)

// Gazetteer says whether a phrase names a place. A phrase is taken as a place only when it
// resolves, so "what about reviews?" is never searched as a city. The leads service's gazetteer
// will implement it; until then KnownPlaces does.
type Gazetteer interface {
	// Resolve returns the place as the lead finder should be given it, and whether the phrase is
	// one.
	Resolve(phrase string) (string, bool)
}

// KnownPlaces resolves US states (names and USPS codes), ZIP codes, the larger US cities and
// "City, ST" with a known state.
type KnownPlaces struct{}

var (
	zipOnlyRe  = regexp.MustCompile(`^\d{5}(?:-\d{4})?$`)
	cityNameRe = regexp.MustCompile(`^\p{L}[\p{L} .'-]{0,59}$`)
)

func (KnownPlaces) Resolve(phrase string) (string, bool) {
	p := strings.Join(strings.Fields(strings.Trim(phrase, " ,.?!;:")), " ")
	if p == "" {
		return "", false
	}
	if zipOnlyRe.MatchString(p) {
		return p[:5], true
	}
	lower := strings.ToLower(p)
	if city, state, ok := strings.Cut(p, ","); ok {
		city, state = strings.TrimSpace(city), strings.ToLower(strings.TrimSpace(state))
		_, known := usStates[state]
		if !known || !cityNameRe.MatchString(city) || notPlaceWord(strings.ToLower(city)) || len(strings.Fields(city)) > 3 {
			return "", false
		}
		return p, true
	}
	if _, ok := usStates[lower]; ok && (len(lower) > 2 || p == strings.ToUpper(p)) {
		return p, true // a two-letter code counts only in capitals: "in" and "me" are words
	}
	if usCities[lower] {
		return p, true
	}
	return "", false
}

func notPlaceWord(s string) bool {
	for _, w := range strings.Fields(s) {
		if notPlace[w] {
			return true
		}
	}
	return false
}

var notPlace = setOf(`my the this that it general total month week plan score health usage leads why more
	detail details order short case use future fact time mind you me reviews review in near for of
	and or to with at from leads`)

// usStates maps state names and codes (lower case) to the code.
var usStates = map[string]string{}

// usCities are the larger US cities and the ones people name most in the demo data.
var usCities = pipeSet(`new york|los angeles|chicago|houston|phoenix|philadelphia|san antonio|san diego|dallas|
	san jose|austin|jacksonville|fort worth|columbus|charlotte|san francisco|indianapolis|seattle|denver|
	washington|boston|el paso|nashville|detroit|oklahoma city|portland|las vegas|memphis|louisville|
	baltimore|milwaukee|albuquerque|tucson|fresno|mesa|sacramento|atlanta|kansas city|colorado springs|
	omaha|raleigh|miami|long beach|virginia beach|oakland|minneapolis|tulsa|tampa|arlington|new orleans|
	wichita|bakersfield|cleveland|aurora|anaheim|honolulu|santa ana|riverside|corpus christi|lexington|
	henderson|stockton|saint paul|st. paul|st paul|cincinnati|st. louis|st louis|saint louis|pittsburgh|
	greensboro|lincoln|anchorage|plano|orlando|irvine|newark|durham|chula vista|toledo|fort wayne|
	st. petersburg|laredo|jersey city|chandler|madison|lubbock|scottsdale|reno|buffalo|gilbert|glendale|
	north las vegas|winston-salem|chesapeake|norfolk|fremont|garland|irving|hialeah|richmond|boise|
	spokane|baton rouge|tacoma|san bernardino|modesto|fontana|des moines|moreno valley|santa clarita|
	fayetteville|birmingham|oxnard|rochester|port st. lucie|grand rapids|huntsville|salt lake city|
	frisco|yonkers|amarillo|glendale|huntington beach|mckinney|montgomery|augusta|akron|little rock|
	tempe|overland park|grand prairie|tallahassee|cape coral|mobile|knoxville|shreveport|worcester|
	ontario|vancouver|sioux falls|chattanooga|brownsville|fort lauderdale|providence|newport news|
	rancho cucamonga|santa rosa|peoria|oceanside|elk grove|salem|pembroke pines|eugene|garden grove|
	cary|fort collins|corona|springfield|jackson|alexandria|hayward|clarksville|lakewood|lancaster|
	salinas|palmdale|hollywood|springfield|sunnyvale|macon|pasadena|pomona|escondido|killeen|naperville|
	joliet|bellevue|rockford|savannah|paterson|torrance|bridgeport|mcallen|mesquite|syracuse|midland|
	murfreesboro|miramar|dayton|fullerton|olathe|orange|thornton|roseville|denton|waco|surprise|
	charleston|round rock|boulder|ann arbor|berkeley|cambridge|santa fe|santa monica|palo alto|
	brooklyn|queens|manhattan|the bronx|bronx|staten island|hartford|burlington|portland|bozeman|
	missoula|cheyenne|billings|fargo|asheville|savannah|key west|napa|tahoe|aspen|sedona|flagstaff|
	galveston|san marcos|georgetown|pflugerville|cedar park|katy|sugar land|the woodlands|boerne|
	new braunfels|college station|tyler|beaumont|abilene|odessa|el cajon|carlsbad|pensacola|
	gainesville|ocala|sarasota|naples|fort myers|west palm beach|boca raton|daytona beach|
	kalamazoo|lansing|flint|toledo|erie|allentown|scranton|wilmington|dover|trenton|concord|
	manchester|nashua|portland|bangor|montpelier|albany|ithaca|harrisburg|annapolis|columbia|
	greenville|spartanburg|myrtle beach|wilmington|chapel hill|athens|marietta|decatur|knoxville|
	bloomington|evansville|south bend|ames|iowa city|cedar rapids|topeka|lawrence|provo|ogden|
	st. george|bend|medford|olympia|everett|tacoma|yakima|redmond|kirkland|juneau|hilo`)

func init() {
	for code, name := range map[string]string{
		"AL": "alabama", "AK": "alaska", "AZ": "arizona", "AR": "arkansas", "CA": "california",
		"CO": "colorado", "CT": "connecticut", "DE": "delaware", "FL": "florida", "GA": "georgia",
		"HI": "hawaii", "ID": "idaho", "IL": "illinois", "IN": "indiana", "IA": "iowa", "KS": "kansas",
		"KY": "kentucky", "LA": "louisiana", "ME": "maine", "MD": "maryland", "MA": "massachusetts",
		"MI": "michigan", "MN": "minnesota", "MS": "mississippi", "MO": "missouri", "MT": "montana",
		"NE": "nebraska", "NV": "nevada", "NH": "new hampshire", "NJ": "new jersey", "NM": "new mexico",
		"NY": "new york state", "NC": "north carolina", "ND": "north dakota", "OH": "ohio", "OK": "oklahoma",
		"OR": "oregon", "PA": "pennsylvania", "RI": "rhode island", "SC": "south carolina",
		"SD": "south dakota", "TN": "tennessee", "TX": "texas", "UT": "utah", "VT": "vermont",
		"VA": "virginia", "WA": "washington state", "WV": "west virginia", "WI": "wisconsin", "WY": "wyoming",
		"DC": "district of columbia",
	} {
		usStates[strings.ToLower(code)] = code
		usStates[name] = code
	}
}

// pipeSet is a set of the "|"-separated phrases of list.
func pipeSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Split(list, "|") {
		if w = strings.TrimSpace(w); w != "" {
			m[w] = true
		}
	}
	return m
}
