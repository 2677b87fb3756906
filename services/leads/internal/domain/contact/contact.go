// Package contact parses an email address and a website's domain (phones: libs/phone).
package contact

import (
	"errors"
	"net/mail"
	"regexp"
	"strings"
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
