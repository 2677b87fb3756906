package main

// city is a real US city with real ZIP codes and telephone area codes, weighted roughly by
// population so that big cities get more businesses. Its name and ZIP codes are the leads
// service's place data's (TestCitiesAreInThePlaceData), where a business's coordinate comes from
// (zips_gen.go), so every city of a generated catalog resolves in lead-finder.
type city struct {
	Name, State string
	ZIPs        []string
	AreaCodes   []string
	Weight      int
}

// cities covers every state and DC.
var cities = []city{
	{"Austin", "TX", []string{"78701", "78702", "78703", "78704", "78705", "78717", "78723", "78731", "78745", "78750"}, []string{"512", "737"}, 10},
	{"Dallas", "TX", []string{"75201", "75204", "75206", "75214", "75219", "75225", "75230", "75240"}, []string{"214", "469", "972"}, 13},
	{"Houston", "TX", []string{"77002", "77003", "77004", "77006", "77007", "77019", "77024", "77056", "77098"}, []string{"713", "281", "832"}, 23},
	{"San Antonio", "TX", []string{"78201", "78205", "78209", "78212", "78216", "78230", "78240"}, []string{"210", "726"}, 15},
	{"Fort Worth", "TX", []string{"76102", "76104", "76107", "76109", "76116"}, []string{"817", "682"}, 9},
	{"El Paso", "TX", []string{"79901", "79902", "79912", "79925"}, []string{"915"}, 7},
	{"Phoenix", "AZ", []string{"85003", "85004", "85006", "85012", "85016", "85018", "85022"}, []string{"602", "480", "623"}, 16},
	{"Tucson", "AZ", []string{"85701", "85705", "85711", "85716", "85719"}, []string{"520"}, 5},
	{"Los Angeles", "CA", []string{"90012", "90015", "90026", "90027", "90036", "90045", "90064"}, []string{"213", "323", "310"}, 38},
	{"San Diego", "CA", []string{"92101", "92103", "92104", "92107", "92109", "92117"}, []string{"619", "858"}, 14},
	{"San Francisco", "CA", []string{"94102", "94103", "94107", "94110", "94114", "94117", "94122"}, []string{"415", "628"}, 8},
	{"San Jose", "CA", []string{"95110", "95112", "95116", "95125", "95128"}, []string{"408", "669"}, 10},
	{"Sacramento", "CA", []string{"95814", "95816", "95818", "95819", "95822"}, []string{"916"}, 5},
	{"Fresno", "CA", []string{"93701", "93704", "93710", "93711", "93720"}, []string{"559"}, 5},
	{"Denver", "CO", []string{"80202", "80203", "80205", "80206", "80210", "80211", "80220"}, []string{"303", "720"}, 7},
	{"Colorado Springs", "CO", []string{"80903", "80905", "80907", "80909", "80918"}, []string{"719"}, 5},
	{"Miami", "FL", []string{"33125", "33127", "33130", "33131", "33133", "33137", "33145"}, []string{"305", "786"}, 5},
	{"Orlando", "FL", []string{"32801", "32803", "32804", "32806", "32807", "32819"}, []string{"407", "689"}, 3},
	{"Tampa", "FL", []string{"33602", "33603", "33606", "33609", "33611", "33629"}, []string{"813"}, 4},
	{"Jacksonville", "FL", []string{"32202", "32204", "32205", "32207", "32210", "32256"}, []string{"904"}, 9},
	{"Atlanta", "GA", []string{"30303", "30305", "30306", "30307", "30308", "30309", "30318"}, []string{"404", "470", "678"}, 5},
	{"Savannah", "GA", []string{"31401", "31404", "31405", "31406"}, []string{"912"}, 2},
	{"Chicago", "IL", []string{"60601", "60605", "60607", "60610", "60614", "60618", "60622", "60647"}, []string{"312", "773", "872"}, 27},
	{"Springfield", "IL", []string{"62701", "62702", "62703", "62704"}, []string{"217"}, 1},
	{"Indianapolis", "IN", []string{"46202", "46203", "46204", "46205", "46220"}, []string{"317"}, 9},
	{"Louisville", "KY", []string{"40202", "40203", "40204", "40205", "40207"}, []string{"502"}, 6},
	{"New Orleans", "LA", []string{"70112", "70113", "70115", "70116", "70119", "70130"}, []string{"504"}, 4},
	{"Boston", "MA", []string{"02108", "02109", "02110", "02115", "02116", "02118", "02127"}, []string{"617", "857"}, 7},
	{"Baltimore", "MD", []string{"21201", "21202", "21211", "21218", "21224", "21230"}, []string{"410", "443"}, 6},
	{"Detroit", "MI", []string{"48201", "48202", "48207", "48208", "48226"}, []string{"313"}, 6},
	{"Grand Rapids", "MI", []string{"49503", "49504", "49505", "49506"}, []string{"616"}, 2},
	{"Minneapolis", "MN", []string{"55401", "55403", "55404", "55405", "55408", "55414"}, []string{"612"}, 4},
	{"Kansas City", "MO", []string{"64105", "64106", "64108", "64111", "64112"}, []string{"816"}, 5},
	{"Saint Louis", "MO", []string{"63101", "63103", "63104", "63108", "63110", "63118"}, []string{"314"}, 3},
	{"Omaha", "NE", []string{"68102", "68104", "68105", "68106", "68114"}, []string{"402", "531"}, 5},
	{"Las Vegas", "NV", []string{"89101", "89102", "89104", "89109", "89117", "89123"}, []string{"702", "725"}, 6},
	{"Albuquerque", "NM", []string{"87102", "87104", "87106", "87108", "87110"}, []string{"505"}, 5},
	{"New York", "NY", []string{"10001", "10002", "10003", "10011", "10014", "10016", "10019", "10024", "10128"}, []string{"212", "646", "917"}, 40},
	{"Brooklyn", "NY", []string{"11201", "11211", "11215", "11217", "11222", "11238"}, []string{"718", "347"}, 25},
	{"Buffalo", "NY", []string{"14201", "14202", "14209", "14213", "14222"}, []string{"716"}, 3},
	{"Charlotte", "NC", []string{"28202", "28203", "28204", "28205", "28207", "28209"}, []string{"704", "980"}, 9},
	{"Raleigh", "NC", []string{"27601", "27603", "27604", "27605", "27607", "27608"}, []string{"919", "984"}, 5},
	{"Columbus", "OH", []string{"43201", "43202", "43205", "43206", "43215"}, []string{"614", "380"}, 9},
	{"Cleveland", "OH", []string{"44102", "44103", "44113", "44114", "44115"}, []string{"216"}, 4},
	{"Cincinnati", "OH", []string{"45202", "45203", "45206", "45208", "45219"}, []string{"513"}, 3},
	{"Oklahoma City", "OK", []string{"73102", "73103", "73104", "73106", "73112"}, []string{"405"}, 7},
	{"Tulsa", "OK", []string{"74103", "74104", "74105", "74112", "74120"}, []string{"918"}, 4},
	{"Portland", "OR", []string{"97201", "97202", "97205", "97209", "97210", "97214", "97217"}, []string{"503", "971"}, 6},
	{"Philadelphia", "PA", []string{"19102", "19103", "19106", "19107", "19123", "19130", "19147"}, []string{"215", "267"}, 16},
	{"Pittsburgh", "PA", []string{"15203", "15206", "15213", "15217", "15222"}, []string{"412"}, 3},
	{"Providence", "RI", []string{"02903", "02904", "02906", "02908", "02909"}, []string{"401"}, 2},
	{"Charleston", "SC", []string{"29401", "29403", "29407", "29412"}, []string{"843"}, 2},
	{"Nashville", "TN", []string{"37201", "37203", "37204", "37206", "37208", "37212"}, []string{"615", "629"}, 7},
	{"Memphis", "TN", []string{"38103", "38104", "38105", "38111", "38117"}, []string{"901"}, 6},
	{"Salt Lake City", "UT", []string{"84101", "84102", "84103", "84105", "84111"}, []string{"801", "385"}, 2},
	{"Richmond", "VA", []string{"23219", "23220", "23221", "23223", "23224"}, []string{"804"}, 2},
	{"Virginia Beach", "VA", []string{"23451", "23452", "23454", "23455", "23462"}, []string{"757"}, 4},
	{"Seattle", "WA", []string{"98101", "98102", "98103", "98104", "98107", "98109", "98115", "98122"}, []string{"206"}, 7},
	{"Spokane", "WA", []string{"99201", "99202", "99203", "99205", "99207"}, []string{"509"}, 2},
	{"Milwaukee", "WI", []string{"53202", "53203", "53204", "53207", "53211", "53212"}, []string{"414"}, 5},
	{"Madison", "WI", []string{"53703", "53704", "53705", "53711", "53715"}, []string{"608"}, 2},
	{"Washington", "DC", []string{"20001", "20002", "20003", "20005", "20009", "20036"}, []string{"202"}, 6},
	{"Birmingham", "AL", []string{"35203", "35205", "35209", "35222", "35233"}, []string{"205"}, 2},
	{"Little Rock", "AR", []string{"72201", "72202", "72204", "72205", "72207"}, []string{"501"}, 2},
	{"Hartford", "CT", []string{"06103", "06105", "06106", "06112", "06114"}, []string{"860"}, 1},
	{"Wilmington", "DE", []string{"19801", "19802", "19805", "19806"}, []string{"302"}, 1},
	{"Honolulu", "HI", []string{"96813", "96814", "96815", "96816", "96822"}, []string{"808"}, 3},
	{"Boise", "ID", []string{"83702", "83704", "83705", "83706", "83709"}, []string{"208"}, 2},
	{"Des Moines", "IA", []string{"50309", "50310", "50311", "50312", "50314"}, []string{"515"}, 2},
	{"Wichita", "KS", []string{"67202", "67203", "67208", "67211", "67214"}, []string{"316"}, 3},
	{"Portland", "ME", []string{"04101", "04102", "04103"}, []string{"207"}, 1},
	{"Jackson", "MS", []string{"39201", "39202", "39206", "39211", "39216"}, []string{"601", "769"}, 1},
	{"Billings", "MT", []string{"59101", "59102", "59105", "59106"}, []string{"406"}, 1},
	{"Manchester", "NH", []string{"03101", "03102", "03103", "03104"}, []string{"603"}, 1},
	{"Newark", "NJ", []string{"07102", "07103", "07104", "07105", "07107"}, []string{"973", "862"}, 3},
	{"Fargo", "ND", []string{"58102", "58103", "58104"}, []string{"701"}, 1},
	{"Sioux Falls", "SD", []string{"57103", "57104", "57105", "57106"}, []string{"605"}, 1},
	{"Burlington", "VT", []string{"05401", "05408"}, []string{"802"}, 1},
	{"Charleston", "WV", []string{"25301", "25302", "25311", "25314"}, []string{"304", "681"}, 1},
	{"Cheyenne", "WY", []string{"82001", "82007", "82009"}, []string{"307"}, 1},
	{"Anchorage", "AK", []string{"99501", "99503", "99504", "99507", "99508"}, []string{"907"}, 2},
}

var streetNames = []string{"Main", "Oak", "Maple", "Cedar", "Elm", "Pine", "Washington", "Lake", "Hill", "Park",
	"Church", "Mill", "River", "Spring", "Walnut", "Lincoln", "Jackson", "Highland", "Sunset", "Franklin",
	"Chestnut", "Madison", "Broadway", "Market", "Jefferson", "Center", "Union", "Congress", "Lamar", "Grand"}

var streetSuffixes = []string{"St", "Ave", "Blvd", "Rd", "Dr", "Ln", "Way", "Pkwy"}

var firstNames = []string{"James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
	"Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Carlos",
	"Karen", "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Betty", "Mark", "Sandra", "Luis", "Ashley",
	"Steven", "Kimberly", "Andrew", "Emily", "Kevin", "Donna", "Brian", "Michelle", "Jose", "Carol", "Wei",
	"Amanda", "Ahmed", "Melissa", "Ryan", "Deborah", "Jacob", "Stephanie", "Nguyen", "Rebecca", "Raj", "Maria",
	"Omar", "Priya", "Diego", "Aisha", "Kenji", "Fatima", "Ivan", "Grace"}

var lastNames = []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
	"Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson",
	"Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams",
	"Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Patel", "Kim", "Chen",
	"Singh", "Murphy", "Cook", "Rogers", "Morgan", "Cooper", "Reed", "Bailey", "Bell", "Kelly", "Howard", "Ward",
	"Cox", "Diaz", "Richardson", "Wood", "Watson", "Brooks", "Bennett", "Gray", "James", "Reyes", "Cruz",
	"Hughes", "Price", "Myers", "Long"}

var freeMailDomains = []string{"gmail.com", "gmail.com", "gmail.com", "yahoo.com", "outlook.com", "hotmail.com", "icloud.com", "aol.com"}
