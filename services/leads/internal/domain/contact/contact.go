// Package contact parses the two ways to reach a business: an email address and a phone number.
package contact

import (
	"errors"
	"net/mail"
	"regexp"
	"slices"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Email is a syntactically valid address split into its parts; Domain is lower case.
type Email struct {
	Local  string
	Domain string
}

func (e Email) String() string { return e.Local + "@" + e.Domain }

var (
	// ErrBadEmail says an address is not a plain addr-spec a mail server would accept.
	ErrBadEmail = errors.New("is not a valid email address")
	// ErrBadPhone says a number is not a valid phone number for any region.
	ErrBadPhone = errors.New("is not a valid phone number")

	localPattern = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_` + "`" + `{|}~-]+)*$`)
	labelPattern = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
	tldPattern   = regexp.MustCompile(`^[a-z]{2,63}$|^xn--[a-z0-9-]{1,59}$`)
)

// ParseEmail accepts a bare address (no display name, no comments, no quoted local part, no IP
// literal) whose domain has at least two DNS labels and an alphabetic top-level domain: stricter
// than net/mail, which accepts forms no real mailbox uses.
func ParseEmail(s string) (Email, error) {
	s = strings.TrimSpace(s)
	if len(s) > 254 {
		return Email{}, ErrBadEmail
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s {
		return Email{}, ErrBadEmail
	}
	at := strings.LastIndexByte(s, '@')
	local, domain := s[:at], strings.ToLower(s[at+1:])
	if len(local) > 64 || !localPattern.MatchString(local) {
		return Email{}, ErrBadEmail
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 || !tldPattern.MatchString(labels[len(labels)-1]) {
		return Email{}, ErrBadEmail
	}
	for _, l := range labels {
		if !labelPattern.MatchString(l) {
			return Email{}, ErrBadEmail
		}
	}
	return Email{Local: local, Domain: domain}, nil
}

// Phone is a valid number in E.164 form with the region it belongs to and, apart, the extension
// it was written with (E.164 has no place for one).
type Phone struct {
	E164      string
	Extension string
	Region    string
}

// fallbackRegion is tried last, and only for numbers dialled with its "00" international prefix:
// most of the world dials abroad with 00, so "0049 30 1234567" is German wherever it was written.
const fallbackRegion = "DE"

// ParsePhone reads a number written in international form ("+49 …", or with the international
// prefix of a candidate region: "0049 …" where 00 is dialled abroad, "011 49 …" from the US) or as
// a national number of the first candidate region it is valid in. Candidates are the given
// regions (ISO 3166-1 alpha-2, e.g. the lead's country, then the account's) and then US. A
// number is accepted only when libphonenumber's metadata says it is valid; an extension
// ("ext. 12", "x12") is kept apart.
func ParsePhone(s string, regions ...string) (Phone, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Phone{}, ErrBadPhone
	}
	for _, r := range candidateRegions(regions) {
		// Each region's own prefixes decide: "0113 496 0000" is a Leeds number in GB and "011 …"
		// is the international prefix in the US.
		if num, err := phonenumbers.Parse(s, r); err == nil && phonenumbers.IsValidNumber(num) {
			return phoneOf(num), nil
		}
	}
	num, err := phonenumbers.ParseAndKeepRawInput(s, fallbackRegion)
	if err != nil || num.GetCountryCodeSource() != phonenumbers.PhoneNumber_FROM_NUMBER_WITH_IDD ||
		!phonenumbers.IsValidNumber(num) {
		return Phone{}, ErrBadPhone
	}
	return phoneOf(num), nil
}

// candidateRegions keeps the known region codes among hints, in order and once, then US.
func candidateRegions(hints []string) []string {
	out := make([]string, 0, len(hints)+1)
	for _, h := range append(hints, "US") {
		h = strings.ToUpper(strings.TrimSpace(h))
		if phonenumbers.GetCountryCodeForRegion(h) != 0 && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

func phoneOf(num *phonenumbers.PhoneNumber) Phone {
	return Phone{
		E164:      phonenumbers.Format(num, phonenumbers.E164),
		Extension: num.GetExtension(),
		Region:    phonenumbers.GetRegionCodeForNumber(num),
	}
}

// DomainOfURL returns the lower-case host of a website written with or without a scheme,
// without a leading "www.", or "" when s is empty or has no plausible host.
func DomainOfURL(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	if i := strings.IndexAny(s, "/?#:"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "www.")
	if _, err := ParseEmail("x@" + s); err != nil {
		return ""
	}
	return s
}
