package catalog

import (
	"sort"
	"strings"
)

// verticalSynonyms lists, for each vertical slug the catalog uses, the words a searcher may type
// for it. An industry matches a vertical when it is the slug, one of these words, or contains one
// of them as a whole word.
var verticalSynonyms = map[string][]string{
	"accounting":       {"accountant", "accountants", "bookkeeping", "bookkeeper", "cpa", "tax preparation", "tax"},
	"auto_repair":      {"auto repair", "mechanic", "mechanics", "car repair", "auto shop", "garage", "body shop"},
	"bakery":           {"bakery", "bakeries", "baker", "pastry", "cakes"},
	"barber":           {"barber", "barbers", "barbershop", "barber shop"},
	"beauty_salon":     {"salon", "hair salon", "beauty salon", "hairdresser", "nail salon", "beauty"},
	"cafe":             {"cafe", "coffee", "coffee shop", "espresso"},
	"chiropractor":     {"chiropractor", "chiropractors", "chiropractic"},
	"cleaning":         {"cleaning", "cleaners", "janitorial", "maid service", "house cleaning"},
	"construction":     {"construction", "contractor", "contractors", "general contractor", "builder", "remodeling"},
	"dentist":          {"dentist", "dentists", "dental", "dentistry", "orthodontist"},
	"electrician":      {"electrician", "electricians", "electrical", "electric"},
	"florist":          {"florist", "florists", "flowers", "flower shop"},
	"fitness":          {"gym", "gyms", "fitness", "personal trainer", "yoga", "pilates", "crossfit"},
	"hvac":             {"hvac", "heating", "air conditioning", "ac repair", "furnace"},
	"insurance":        {"insurance", "insurance agent", "insurance agency"},
	"landscaping":      {"landscaping", "landscaper", "lawn care", "gardening", "tree service"},
	"law_firm":         {"lawyer", "lawyers", "attorney", "attorneys", "law firm", "legal"},
	"marketing_agency": {"marketing", "marketing agency", "advertising", "seo", "digital agency"},
	"medical_clinic":   {"clinic", "medical", "doctor", "physician", "urgent care", "family practice"},
	"moving":           {"movers", "moving", "moving company", "relocation"},
	"pest_control":     {"pest control", "exterminator", "termite"},
	"pet_services":     {"pet grooming", "groomer", "dog grooming", "pet sitting", "dog walking", "kennel"},
	"photography":      {"photographer", "photographers", "photography", "photo studio"},
	"physical_therapy": {"physical therapy", "physiotherapy", "physical therapist"},
	"plumbing":         {"plumber", "plumbers", "plumbing"},
	"real_estate":      {"real estate", "realtor", "realtors", "real estate agent", "property management"},
	"restaurant":       {"restaurant", "restaurants", "diner", "bistro", "eatery", "pizza", "grill"},
	"roofing":          {"roofer", "roofers", "roofing", "roof repair"},
	"spa":              {"spa", "massage", "day spa", "wellness"},
	"veterinary":       {"vet", "vets", "veterinarian", "veterinary", "animal hospital"},
}

// Verticals returns every known vertical slug in order.
func Verticals() []string {
	out := make([]string, 0, len(verticalSynonyms))
	for v := range verticalSynonyms {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// MatchVerticals returns the verticals an industry phrase names, in order; none when the phrase
// names no known vertical (the search then relies on full text alone).
func MatchVerticals(industry string) []string {
	phrase := " " + strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "_", " ", "&", " ", "/", " ").Replace(industry))), " ") + " "
	var out []string
	for _, v := range Verticals() {
		if strings.Contains(phrase, " "+strings.ReplaceAll(v, "_", " ")+" ") {
			out = append(out, v)
			continue
		}
		for _, syn := range verticalSynonyms[v] {
			if strings.Contains(phrase, " "+syn+" ") {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// TextTerms are the phrases a full-text search for industry looks for: the industry itself and
// the synonyms of the verticals it names, so "plumbers" also finds "Plumbing Supply".
func TextTerms(industry string) []string {
	terms := []string{industry}
	for _, v := range MatchVerticals(industry) {
		terms = append(terms, verticalSynonyms[v]...)
	}
	return terms
}
