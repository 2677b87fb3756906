// Package qualify turns the facts gathered about one lead into a fit score with the reasons for it.
// Gathering the facts (DNS, catalog) is the application's job; this package only weighs them.
package qualify

import (
	"fmt"
	"strings"

	"github.com/bizassist/bizassist/libs/phone"
	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
)

// Outcome is the result of one check that needs the outside world.
type Outcome int

const (
	Unknown Outcome = iota // the check could not run (no DNS answer); it moves nothing
	Yes
	No
)

// Facts are what is known about a lead. Email is valid only when EmailErr is nil; PhoneGiven
// with PhoneErr nil means Phone is valid.
type Facts struct {
	Email          contact.Email
	EmailErr       error
	MX             Outcome // the email's domain publishes MX records
	DomainResolves Outcome // the email's domain has A/AAAA records (not asked for free-mail domains)
	PhoneGiven     bool
	Phone          phone.Number
	PhoneErr       error
	Listed         bool // a catalog business matches the domain, phone or business name
	ListedWebsite  bool // that business lists a website
}

// Result is the assessment of one lead.
type Result struct {
	Score     int
	Qualified bool
	Reasoning string
	Signals   []string
}

// Weights of the score. A lead starts at Base; each check adds or removes its points; the sum is
// clamped to 0..100 and a lead with at least QualifiedAt is qualified.
const (
	Base              = 30
	QualifiedAt       = 60
	PointsSyntax      = 5
	PointsBadSyntax   = -30
	PointsMX          = 20
	PointsNoMX        = -20
	PointsDisposable  = -30
	PointsFreeMail    = -5
	PointsBusinessDom = 10
	PointsRole        = -5
	PointsPhone       = 10
	PointsBadPhone    = -10
	PointsWebsite     = 15
	PointsListed      = 20
)

// Signal labels, reported when the signal holds.
const (
	SignalValidSyntax = "valid_email_syntax"
	SignalVerified    = "verified_email"
	SignalBusinessDom = "business_email"
	SignalFreeMail    = "free_email"
	SignalDisposable  = "disposable_email"
	SignalRole        = "role_address"
	SignalPhone       = "valid_phone"
	SignalWebsite     = "has_website"
	SignalListed      = "local_business"
)

type assessment struct {
	score   int
	reasons []string
	signals []string
}

func (a *assessment) add(points int, signal, reason string) {
	a.score += points
	if signal != "" {
		a.signals = append(a.signals, signal)
	}
	a.reasons = append(a.reasons, fmt.Sprintf("%s (%+d)", reason, points))
}

func (a *assessment) unknown(reason string) {
	a.reasons = append(a.reasons, reason+" (unknown, +0)")
}

// Assess weighs the facts.
func Assess(f Facts) Result {
	a := assessment{score: Base}
	if f.EmailErr != nil {
		a.add(PointsBadSyntax, "", "email is not a valid address; domain checks not run")
	} else {
		assessEmail(&a, f)
	}
	switch {
	case !f.PhoneGiven:
	case f.PhoneErr != nil:
		a.add(PointsBadPhone, "", "phone is not a valid number")
	default:
		a.add(PointsPhone, SignalPhone, "phone is a valid "+f.Phone.Region+" number")
	}
	if f.Listed {
		a.add(PointsListed, SignalListed, "matches a business in the local catalog")
	} else {
		a.add(0, "", "no business in the local catalog matches")
	}
	score := min(max(a.score, 0), 100)
	return Result{
		Score:     score,
		Qualified: score >= QualifiedAt,
		Reasoning: strings.Join(a.reasons, "; ") + fmt.Sprintf(". Base %d, total %d.", Base, score),
		Signals:   append([]string{}, a.signals...),
	}
}

func assessEmail(a *assessment, f Facts) {
	d := f.Email.Domain
	a.add(PointsSyntax, SignalValidSyntax, "email syntax is valid")
	switch f.MX {
	case Yes:
		a.add(PointsMX, SignalVerified, d+" accepts mail (MX records found)")
	case No:
		a.add(PointsNoMX, "", d+" has no MX records")
	default:
		a.unknown("MX lookup for " + d + ": DNS did not answer")
	}
	free := IsFreeMail(d)
	switch {
	case IsDisposable(d):
		a.add(PointsDisposable, SignalDisposable, d+" is a disposable-mailbox domain")
	case free:
		a.add(PointsFreeMail, SignalFreeMail, d+" is a free-mail provider")
	default:
		a.add(PointsBusinessDom, SignalBusinessDom, d+" is a business domain")
	}
	if IsRoleAddress(f.Email.Local) {
		a.add(PointsRole, SignalRole, f.Email.Local+"@ is a role address, not a person")
	}
	switch {
	case f.ListedWebsite:
		a.add(PointsWebsite, SignalWebsite, "the catalog lists a website")
	case free:
		a.add(0, "", "no website known (free-mail domain, none in the catalog)")
	case f.DomainResolves == Yes:
		a.add(PointsWebsite, SignalWebsite, d+" resolves (website present)")
	case f.DomainResolves == No:
		a.add(0, "", d+" does not resolve (no website)")
	default:
		a.unknown("website lookup for " + d + ": DNS did not answer")
	}
}
