package domain

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// A label is one value a template puts into a sentence: a lead's source, a business's vertical, a
// reminder's channel, a booked service, a contact form's subject. There is nothing in a label to
// scrub: it either is a known value of its fixed vocabulary, shown in the vocabulary's own words,
// or it is dropped. What a sender typed is never echoed, so a name, a business or an email in a
// label field cannot reach the public feed.

// vocabulary maps a normalised label to what the feed shows.
type vocabulary map[string]string

// newVocabulary builds a vocabulary from shown values and the other spellings that mean them.
func newVocabulary(values map[string][]string) vocabulary {
	v := vocabulary{}
	for shown, aliases := range values {
		for _, a := range append([]string{shown}, aliases...) {
			v[normalLabel(a)] = shown
		}
	}
	return v
}

// lookup returns what the feed shows for a label, or "" when the label is not in the vocabulary.
func (v vocabulary) lookup(label string) string { return v[normalLabel(label)] }

// normalLabel folds case, width and separators: "Google_Ads", "google-ads" and "GOOGLE ADS" are
// one label.
func normalLabel(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

// leadSources are where a lead came from, including what our services set: "catalog" (the lead
// finder) and "webhook" (an inbound lead without a source).
var leadSources = newVocabulary(leadSourceValues)

var leadSourceValues = map[string][]string{
	"website":      {"web", "site", "online", "landing page"},
	"web form":     {"form", "webform", "contact form", "online form"},
	"referral":     {"referred", "referrals", "word of mouth", "recommendation"},
	"google":       {"google search", "google maps", "google business", "google business profile", "gmb"},
	"google ads":   {"adwords", "google adwords", "ppc", "paid search"},
	"facebook":     {"fb", "meta"},
	"facebook ads": {"fb ads", "meta ads"},
	"instagram":    {"ig"},
	"linkedin":     nil,
	"tiktok":       nil,
	"youtube":      nil,
	"nextdoor":     nil,
	"yelp":         nil,
	"angi":         {"angies list", "angi leads"},
	"thumbtack":    nil,
	"homeadvisor":  {"home advisor"},
	"houzz":        nil,
	"bing":         nil,
	"ads":          {"ad", "advertising", "paid", "paid ads", "online ads"},
	"organic":      {"organic search", "seo", "search"},
	"email":        {"e mail", "email campaign", "newsletter"},
	"phone":        {"call", "calls", "phone call", "inbound call"},
	"text":         {"sms", "text message"},
	"chat":         {"live chat", "web chat", "chatbot"},
	"walk in":      {"walkin", "in person", "in store"},
	"event":        {"events", "trade show", "expo"},
	"direct mail":  {"mail", "flyer", "postcard"},
	"partner":      {"partners", "affiliate"},
	"import":       {"csv", "spreadsheet", "upload"},
	"api":          nil,
	"zapier":       nil,
	"webhook":      {"integration"},
	"catalog":      {"lead finder", "lead search"},
	"assistant":    nil,
}

// verticals are the kinds of business, after the catalog's verticals (services/leads), in words
// that read after "a ... business".
var verticals = newVocabulary(verticalValues)

var verticalValues = map[string][]string{
	"accounting":       {"accountant", "accountants", "bookkeeping", "bookkeeper", "cpa", "tax preparation"},
	"auto repair":      {"mechanic", "mechanics", "car repair", "auto shop", "body shop"},
	"bakery":           {"baker", "bakeries"},
	"barber":           {"barbers", "barbershop", "barber shop"},
	"beauty salon":     {"salon", "hair salon", "nail salon", "beauty"},
	"cafe":             {"coffee", "coffee shop"},
	"chiropractic":     {"chiropractor", "chiropractors"},
	"cleaning":         {"cleaners", "janitorial", "maid service", "house cleaning"},
	"construction":     {"contractor", "contractors", "general contractor", "builder", "remodeling"},
	"dental":           {"dentist", "dentists", "dentistry", "orthodontist"},
	"electrical":       {"electrician", "electricians", "electric"},
	"florist":          {"florists", "flowers", "flower shop"},
	"fitness":          {"gym", "gyms", "personal trainer", "yoga", "pilates"},
	"hvac":             {"heating", "air conditioning", "ac repair", "furnace"},
	"insurance":        {"insurance agent", "insurance agency"},
	"landscaping":      {"landscaper", "lawn care", "gardening", "tree service"},
	"legal":            {"law firm", "lawyer", "lawyers", "attorney", "attorneys"},
	"marketing":        {"marketing agency", "advertising", "digital agency"},
	"medical":          {"medical clinic", "clinic", "doctor", "physician", "urgent care"},
	"moving":           {"movers", "moving company"},
	"pest control":     {"exterminator", "termite"},
	"pet care":         {"pet services", "pet grooming", "groomer", "dog grooming", "pet sitting", "dog walking", "kennel"},
	"photography":      {"photographer", "photographers", "photo studio"},
	"physical therapy": {"physiotherapy", "physical therapist"},
	"plumbing":         {"plumber", "plumbers"},
	"real estate":      {"realtor", "realtors", "real estate agent", "property management"},
	"restaurant":       {"restaurants", "diner", "bistro", "pizza"},
	"roofing":          {"roofer", "roofers", "roof repair"},
	"spa":              {"massage", "day spa", "wellness"},
	"veterinary":       {"vet", "vets", "veterinarian", "animal hospital"},
}

// channels are how a reminder or a review request went out.
var channels = newVocabulary(channelValues)

var channelValues = map[string][]string{
	"text":              {"sms", "text message", "texts"},
	"email":             {"e mail", "emails"},
	"phone":             {"call", "phone call", "voice"},
	"voicemail":         nil,
	"whatsapp":          nil,
	"messenger":         {"facebook messenger"},
	"chat":              {"live chat", "web chat"},
	"letter":            {"mail", "post", "postcard"},
	"push notification": {"push", "app notification"},
}

// services are what an appointment was booked for, shown after "for".
var services = newVocabulary(serviceValues)

var serviceValues = map[string][]string{
	"a consultation":     {"consultation", "consult"},
	"an estimate":        {"estimate", "quote", "a quote", "an estimate"},
	"an inspection":      {"inspection"},
	"a repair":           {"repair"},
	"an installation":    {"installation", "install"},
	"maintenance":        {"tune up", "service", "servicing"},
	"a cleaning":         {"cleaning"},
	"a deep cleaning":    {"deep cleaning", "deep clean"},
	"a dental cleaning":  {"dental cleaning", "teeth cleaning"},
	"a checkup":          {"checkup", "check up", "exam", "physical"},
	"an eye exam":        {"eye exam"},
	"teeth whitening":    {"whitening"},
	"a haircut":          {"haircut", "hair cut", "cut"},
	"hair color":         {"color", "colour", "highlights"},
	"a beard trim":       {"beard trim", "shave"},
	"a manicure":         {"manicure", "nails"},
	"a pedicure":         {"pedicure"},
	"a massage":          {"massage"},
	"a facial":           {"facial"},
	"an oil change":      {"oil change"},
	"a tire rotation":    {"tire rotation", "tires"},
	"a vaccination":      {"vaccination", "vaccine", "shots"},
	"grooming":           {"pet grooming", "dog grooming"},
	"a lesson":           {"lesson", "class"},
	"personal training":  {"training", "training session"},
	"a photo session":    {"photo session", "photoshoot", "photo shoot"},
	"tax preparation":    {"taxes", "tax return"},
	"a showing":          {"showing", "viewing", "house tour"},
	"a service call":     {"service call", "call out", "callout"},
	"a follow-up":        {"follow up", "followup"},
	"drain cleaning":     {"drain"},
	"a roof inspection":  {"roof inspection"},
	"a pest inspection":  {"pest inspection"},
	"lawn care":          {"lawn", "mowing"},
	"a move":             {"moving", "move"},
	"an AC repair":       {"ac repair", "air conditioning repair"},
	"a furnace tune-up":  {"furnace tune up", "furnace service"},
	"a water heater fix": {"water heater", "water heater repair"},
}

// subjects are what a contact form is about.
var subjects = newVocabulary(subjectValues)

var subjectValues = map[string][]string{
	"quote request":    {"quote", "estimate", "estimate request", "request a quote", "pricing", "price"},
	"booking":          {"appointment", "book", "booking request", "schedule", "scheduling"},
	"question":         {"general inquiry", "inquiry", "enquiry", "general question", "info", "information"},
	"support":          {"help", "technical support", "customer support"},
	"billing":          {"invoice", "payment", "billing question"},
	"complaint":        {"complaints"},
	"feedback":         {"review", "suggestion"},
	"cancellation":     {"cancel"},
	"reschedule":       {"change appointment", "rescheduling"},
	"emergency":        {"urgent"},
	"callback request": {"call back", "callback"},
	"partnership":      {"partner"},
	"careers":          {"job", "jobs", "employment", "hiring"},
}

// plainKinds are the event kinds without a template: they take no fields, and their summary is
// the kind in words ("No show prevented").
var plainKinds = map[string][]string{
	"Voice":       {"CallForwarded", "CallbackScheduled", "VoicemailReceived", "SpamCallBlocked", "AfterHoursCallAnswered"},
	"Recall":      {"CampaignSent", "ReminderScheduled", "CustomerOptedOut"},
	"Confirm":     {"NoShowPrevented", "AppointmentCancelled", "AppointmentReminderSent", "WaitlistSlotFilled"},
	"Stars":       {"ReviewReplied", "ReviewShared"},
	"the service": {"LeadQualified", "LeadContacted", "LeadConverted", "IntegrationConnected"},
	"Chat":        {"ChatHandedOver"},
	"Invoicing":   {"InvoiceOverdue", "EstimateSent", "EstimateAccepted", "RefundIssued"},
}
