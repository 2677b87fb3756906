package main

// vertical is a catalog vertical with the words its business names and categories use. The
// slugs match the verticals the leads service maps industries to.
type vertical struct {
	Slug       string
	Nouns      []string // the trade word in a business name
	Categories []string
	Weight     int
}

var verticals = []vertical{
	{"accounting", []string{"Accounting", "Tax Services", "CPA Group", "Bookkeeping"}, []string{"accountant", "tax preparation", "bookkeeping", "payroll"}, 5},
	{"auto_repair", []string{"Auto Repair", "Automotive", "Garage", "Auto Care", "Collision Center"}, []string{"mechanic", "brakes", "oil change", "body shop"}, 7},
	{"bakery", []string{"Bakery", "Bake Shop", "Pastries", "Bread Co"}, []string{"bakery", "cakes", "pastry", "bread"}, 3},
	{"barber", []string{"Barbershop", "Barber Co", "Cuts"}, []string{"barber", "haircut", "shave"}, 3},
	{"beauty_salon", []string{"Salon", "Hair Studio", "Nail Bar", "Beauty Lounge"}, []string{"hair salon", "nails", "coloring", "beauty"}, 6},
	{"cafe", []string{"Coffee", "Cafe", "Espresso Bar", "Roasters"}, []string{"coffee", "espresso", "breakfast", "wifi"}, 5},
	{"chiropractor", []string{"Chiropractic", "Spine Center", "Chiropractic Clinic"}, []string{"chiropractor", "back pain", "adjustment"}, 2},
	{"cleaning", []string{"Cleaning", "Maids", "Janitorial", "Cleaners"}, []string{"house cleaning", "janitorial", "maid service", "deep cleaning"}, 4},
	{"construction", []string{"Construction", "Builders", "Contracting", "Remodeling"}, []string{"general contractor", "remodeling", "additions", "framing"}, 6},
	{"dentist", []string{"Dental", "Family Dentistry", "Smiles", "Dental Care"}, []string{"dentist", "teeth cleaning", "orthodontics", "implants"}, 5},
	{"electrician", []string{"Electric", "Electrical Services", "Electricians"}, []string{"electrician", "wiring", "panel upgrade", "lighting"}, 5},
	{"florist", []string{"Florist", "Flowers", "Floral Design"}, []string{"florist", "bouquets", "wedding flowers"}, 2},
	{"fitness", []string{"Fitness", "Gym", "Yoga Studio", "CrossFit", "Pilates"}, []string{"gym", "personal training", "yoga", "classes"}, 4},
	{"hvac", []string{"Heating & Air", "HVAC", "Air Conditioning", "Comfort Systems"}, []string{"hvac", "air conditioning", "furnace repair", "heat pumps"}, 5},
	{"insurance", []string{"Insurance", "Insurance Agency", "Insurance Group"}, []string{"auto insurance", "home insurance", "life insurance"}, 4},
	{"landscaping", []string{"Landscaping", "Lawn Care", "Tree Service", "Gardens"}, []string{"landscaping", "lawn care", "irrigation", "tree trimming"}, 5},
	{"law_firm", []string{"Law Firm", "Law Group", "Attorneys", "Legal"}, []string{"attorney", "personal injury", "family law", "estate planning"}, 5},
	{"marketing_agency", []string{"Marketing", "Digital", "Media", "Creative Agency"}, []string{"marketing", "seo", "social media", "advertising"}, 3},
	{"medical_clinic", []string{"Medical Clinic", "Family Medicine", "Urgent Care", "Health Center"}, []string{"doctor", "urgent care", "primary care", "physicals"}, 4},
	{"moving", []string{"Movers", "Moving", "Moving & Storage"}, []string{"movers", "packing", "storage", "relocation"}, 2},
	{"pest_control", []string{"Pest Control", "Exterminators", "Termite & Pest"}, []string{"pest control", "termites", "rodents", "exterminator"}, 2},
	{"pet_services", []string{"Pet Grooming", "Dog Spa", "Pet Care", "Kennels"}, []string{"dog grooming", "pet sitting", "boarding", "dog walking"}, 3},
	{"photography", []string{"Photography", "Photo Studio", "Portraits"}, []string{"photographer", "weddings", "portraits", "headshots"}, 2},
	{"physical_therapy", []string{"Physical Therapy", "Rehab", "Sports Therapy"}, []string{"physical therapy", "rehabilitation", "sports injury"}, 2},
	{"plumbing", []string{"Plumbing", "Plumbing & Drain", "Rooter", "Pipe Works"}, []string{"plumber", "drain cleaning", "water heaters", "leak repair"}, 7},
	{"real_estate", []string{"Realty", "Real Estate", "Properties", "Homes"}, []string{"realtor", "home sales", "property management"}, 6},
	{"restaurant", []string{"Grill", "Kitchen", "Bistro", "Diner", "Pizzeria", "Taqueria", "Eatery"}, []string{"restaurant", "dinner", "takeout", "catering"}, 10},
	{"roofing", []string{"Roofing", "Roofers", "Roof & Gutter"}, []string{"roofer", "roof repair", "gutters", "shingles"}, 3},
	{"spa", []string{"Day Spa", "Massage", "Wellness Spa"}, []string{"massage", "facials", "spa", "wellness"}, 2},
	{"veterinary", []string{"Animal Hospital", "Veterinary Clinic", "Vet Care", "Pet Hospital"}, []string{"veterinarian", "vaccinations", "pet surgery"}, 3},
}

var nameAdjectives = []string{"Premier", "Elite", "Reliable", "Quality", "Family", "Pro", "Golden", "Blue Sky",
	"Summit", "Evergreen", "Lone Star", "Northside", "Southside", "Metro", "Precision", "Bright", "Trusty", "Classic"}
