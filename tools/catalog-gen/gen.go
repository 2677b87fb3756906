package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nyaruka/phonenumbers"
)

// Business is one generated catalog row, in the leads catalog file schema (services/leads README).
type Business struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Owner      string    `json:"owner"`
	Email      string    `json:"email,omitempty"`
	Phone      string    `json:"phone,omitempty"`
	Website    string    `json:"website,omitempty"`
	Vertical   string    `json:"vertical"`
	Categories []string  `json:"categories"`
	Street     string    `json:"street"`
	City       string    `json:"city"`
	State      string    `json:"state"`
	ZIP        string    `json:"zip"`
	Lat        float64   `json:"lat"`
	Lng        float64   `json:"lng"`
	Source     string    `json:"source"`
	GapScore   int       `json:"gapScore"`
	ListedAt   time.Time `json:"listedAt"`
}

// Shares of the catalog; the rest of each pair is the complement.
const (
	websiteShare = 0.6  // businesses with a website (and a mailbox on its domain)
	noEmailShare = 0.03 // businesses with no listed email
	noPhoneShare = 0.02 // businesses with no listed phone
	recentShare  = 0.01 // businesses listed in the last 7 days
	listingDays  = 730  // everything else was listed within two years
)

var sources = []string{"organic", "organic", "organic", "directory", "referral", "partner"}

// Generator produces the same catalog for the same seed and asOf date.
type Generator struct {
	rng     *rand.Rand
	seed    uint64
	asOf    time.Time
	cityW   []int
	vertW   []int
	domains map[string]int // website domains handed out, so every business's domain is its own
}

func NewGenerator(seed uint64, asOf time.Time) *Generator {
	g := &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed: seed, asOf: asOf,
		domains: map[string]int{}}
	for _, c := range cities {
		g.cityW = append(g.cityW, c.Weight)
	}
	for _, v := range verticals {
		g.vertW = append(g.vertW, v.Weight)
	}
	return g
}

func (g *Generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *Generator) weighted(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.rng.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// Next returns business number i.
func (g *Generator) Next(i int) Business {
	c := cities[g.weighted(g.cityW)]
	v := verticals[g.weighted(g.vertW)]
	first, last := g.pick(firstNames), g.pick(lastNames)
	b := Business{
		ID:       fmt.Sprintf("gen%d-%07d", g.seed, i),
		Name:     g.businessName(c, v, last),
		Owner:    first + " " + last,
		Vertical: v.Slug,
		Street:   fmt.Sprintf("%d %s %s", 100+g.rng.IntN(9800), g.pick(streetNames), g.pick(streetSuffixes)),
		City:     c.Name,
		State:    c.State,
		ZIP:      g.pick(c.ZIPs),
		Source:   g.pick(sources),
	}
	// At its ZIP code's point (the place data's), spread over about a mile.
	p := zipPoints[b.ZIP]
	b.Lat = round(p.Lat+(g.rng.Float64()-0.5)*0.02, 5)
	b.Lng = round(p.Lng+(g.rng.Float64()-0.5)*0.02, 5)
	n := 2 + g.rng.IntN(2)
	for _, k := range g.rng.Perm(len(v.Categories))[:min(n, len(v.Categories))] {
		b.Categories = append(b.Categories, v.Categories[k])
	}
	hasWebsite := g.rng.Float64() < websiteShare
	if hasWebsite {
		domain := g.domain(b.Name, c.Name)
		b.Website = "https://www." + domain
		b.Email = g.mailbox(first, last) + "@" + domain
	} else {
		b.Email = fmt.Sprintf("%s.%s%d@%s", strings.ToLower(first), strings.ToLower(last), g.rng.IntN(1000), g.pick(freeMailDomains))
	}
	if g.rng.Float64() < noEmailShare {
		b.Email = ""
	}
	if g.rng.Float64() >= noPhoneShare {
		b.Phone = g.phone(c)
	}
	b.GapScore = g.gapScore(hasWebsite, b.Email != "", b.Phone != "")
	days := listingDays
	if g.rng.Float64() < recentShare {
		days = 7
	}
	b.ListedAt = g.asOf.Add(-time.Duration(g.rng.Int64N(int64(days) * int64(24*time.Hour)))).Truncate(time.Second)
	return b
}

func (g *Generator) businessName(c city, v vertical, last string) string {
	noun := g.pick(v.Nouns)
	switch g.rng.IntN(5) {
	case 0:
		return last + " " + noun
	case 1:
		return c.Name + " " + noun
	case 2:
		return g.pick(nameAdjectives) + " " + noun
	case 3:
		return last + " & Sons " + noun
	default:
		return g.pick(nameAdjectives) + " " + c.Name + " " + noun
	}
}

// domain slugs the name into a .com domain, adding the city and then a number until it is unused.
func (g *Generator) domain(name, cityName string) string {
	base := slug(name)
	d := base + ".com"
	if g.domains[d] > 0 {
		d = base + slug(cityName) + ".com"
	}
	if n := g.domains[d]; n > 0 {
		g.domains[d] = n + 1
		d = fmt.Sprintf("%s%d.com", strings.TrimSuffix(d, ".com"), n+1)
	}
	g.domains[d]++
	return d
}

func (g *Generator) mailbox(first, last string) string {
	switch g.rng.IntN(4) {
	case 0:
		return "info"
	case 1:
		return "contact"
	case 2:
		return strings.ToLower(first)
	default:
		return strings.ToLower(first) + "." + strings.ToLower(last)
	}
}

// phone draws a number in one of the city's area codes that libphonenumber accepts as valid:
// an exchange of 2-9 then two digits, never N11 or the fictional 555.
func (g *Generator) phone(c city) string {
	for {
		area := g.pick(c.AreaCodes)
		exchange := 200 + g.rng.IntN(800)
		if exchange%100 == 11 || exchange == 555 {
			continue
		}
		raw := fmt.Sprintf("+1%s%03d%04d", area, exchange, g.rng.IntN(10000))
		num, err := phonenumbers.Parse(raw, "US")
		if err == nil && phonenumbers.IsValidNumber(num) {
			return raw
		}
	}
}

// gapScore mirrors the leads service's derivation (no website 60, no email 20, no phone 20)
// with noise, standing in for the signals a real catalog source would score.
func (g *Generator) gapScore(website, email, phone bool) int {
	gap := 0
	if !website {
		gap += 60
	}
	if !email {
		gap += 20
	}
	if !phone {
		gap += 20
	}
	return max(0, min(100, gap+g.rng.IntN(31)-5))
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func round(f float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(f*p) / p
}
