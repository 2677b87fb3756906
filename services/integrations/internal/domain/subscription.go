package domain

import (
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/idna"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/ids"
)

// Outbound event types an integrator may subscribe to (spec 6.1). Payment types are the
// processor's own names, forwarded as they come.
const (
	OutboundNewLead        = "new_lead"
	OutboundHealthCritical = "health_score.critical"
)

// PaymentEventTypes are the Stripe event types we forward, and publish as the payment events of
// our contract (integrationsevents); others are acknowledged and ignored.
var PaymentEventTypes = processorTypes(integrationsevents.PaymentTypes())

func processorTypes(eventTypes []string) []string {
	out := make([]string, len(eventTypes))
	for i, t := range eventTypes {
		out[i] = integrationsevents.ProcessorType(t)
	}
	return out
}

// OutboundEventTypes lists every type a subscription may name.
func OutboundEventTypes() []string {
	return append([]string{OutboundNewLead, OutboundHealthCritical}, PaymentEventTypes...)
}

// SubscriptionStatus is active until the endpoint fails for too long.
type SubscriptionStatus string

const (
	SubscriptionActive   SubscriptionStatus = "active"
	SubscriptionDisabled SubscriptionStatus = "disabled"
)

// MaxHookURLLength keeps hook URLs to what every HTTP stack accepts.
const MaxHookURLLength = 2048

// Subscription is a REST hook: deliver events of one type for one account to a URL, signed with
// the subscription's own secret.
type Subscription struct {
	id           string
	accountID    string
	event        string
	hookURL      string
	secret       string
	status       SubscriptionStatus
	createdAt    time.Time
	failingSince *time.Time
}

// NewSubscription validates the request and creates a subscription with a fresh signing secret.
func NewSubscription(accountID, event, hookURL string, policy TargetPolicy, now time.Time) (Subscription, error) {
	if event == "" {
		return Subscription{}, apperr.MissingField("event")
	}
	if !slices.Contains(OutboundEventTypes(), event) {
		return Subscription{}, apperr.InvalidField("event", "must be one of "+strings.Join(OutboundEventTypes(), ", "))
	}
	if err := ValidateHookURL(hookURL, policy); err != nil {
		return Subscription{}, err
	}
	hookURL, err := CanonicalHookURL(hookURL)
	if err != nil {
		return Subscription{}, err
	}
	return Subscription{
		id: ids.New("hook"), accountID: accountID, event: event, hookURL: hookURL,
		secret: NewSigningSecret(), status: SubscriptionActive, createdAt: now.UTC(),
	}, nil
}

// ValidateHookURL accepts an absolute https URL (http too when the policy allows it) with a host,
// no credentials and no fragment. A literal IP is checked against the policy now; names are
// checked when they are dialled, because what they resolve to can change.
func ValidateHookURL(raw string, policy TargetPolicy) error {
	if raw == "" {
		return apperr.MissingField("hookUrl")
	}
	if len(raw) > MaxHookURLLength {
		return apperr.InvalidField("hookUrl", "must be at most 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return apperr.InvalidField("hookUrl", "must be an absolute URL such as https://example.com/hooks/bizassist")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && policy.AllowHTTP:
	default:
		return apperr.InvalidField("hookUrl", "must use https")
	}
	if u.User != nil {
		return apperr.InvalidField("hookUrl", "must not carry credentials")
	}
	if u.Fragment != "" {
		return apperr.InvalidField("hookUrl", "must not have a fragment")
	}
	if u.Hostname() == "" {
		return apperr.InvalidField("hookUrl", "must name a host")
	}
	// The host as it is stored and dialled: IDNA maps full-width digits and letters to ASCII, so
	// "１２７.０.０.１" is checked as the 127.0.0.1 it becomes, not passed as a name.
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return err
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if policy.Permit(addr) != nil {
			return apperr.InvalidField("hookUrl", "must point at a public address")
		}
	} else if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") && policy.Permit(netip.MustParseAddr("127.0.0.1")) != nil {
		return apperr.InvalidField("hookUrl", "must point at a public address")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return apperr.InvalidField("hookUrl", "has an invalid port")
		}
	}
	return nil
}

// CanonicalHookURL is the one spelling of a valid hook URL, so that spellings of one target are
// one subscription: scheme and host in lower case, an international name in its ASCII (IDNA)
// form, an IPv6 literal in its RFC 5952 form, no default or empty port, no dot segments, an
// empty path as /, unreserved characters unescaped and no empty query.
func CanonicalHookURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "", apperr.InvalidField("hookUrl", "must be an absolute URL such as https://example.com/hooks/bizassist")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return "", err
	}
	if port := u.Port(); port != "" && port != map[string]string{"https": "443", "http": "80"}[u.Scheme] {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	u.Host = host
	// Resolving the escaped path as a reference removes its dot segments (RFC 3986, 5.2.4).
	path := u.ResolveReference(&url.URL{Path: cmp.Or(u.Path, "/"), RawPath: u.RawPath})
	u.Path, u.RawPath = path.Path, ""
	if strings.Contains(strings.ToLower(path.EscapedPath()), "%2f") {
		u.RawPath = path.RawPath // an escaped slash belongs to its segment: it stays escaped
	}
	u.ForceQuery = false
	return u.String(), nil
}

// canonicalHost is a host name in lower-case ASCII, or an IP literal in its canonical form.
func canonicalHost(host string) (string, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr.WithZone("").String(), nil
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		if !isASCII(host) {
			return "", apperr.InvalidField("hookUrl", "must name a valid host")
		}
		ascii = host // a name IDNA's rules refuse (an underscore) but DNS serves
	}
	return strings.ToLower(ascii), nil
}

func isASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r > 0x7f })
}

// NewSigningSecret returns a Standard Webhooks secret: "whsec_" and 32 random bytes in base64.
func NewSigningSecret() string {
	return "whsec_" + base64.StdEncoding.EncodeToString(randomBytes(32))
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return b
}

// RehydrateSubscription rebuilds a subscription from storage.
func RehydrateSubscription(id, accountID, event, hookURL, secret string, status SubscriptionStatus, createdAt time.Time, failingSince *time.Time) Subscription {
	return Subscription{id: id, accountID: accountID, event: event, hookURL: hookURL, secret: secret,
		status: status, createdAt: createdAt, failingSince: failingSince}
}

// SameTarget reports whether o delivers the same account's same events to the same URL, which
// makes it the same subscription.
func (s Subscription) SameTarget(o Subscription) bool {
	return s.accountID == o.accountID && s.event == o.event && s.hookURL == o.hookURL
}

// Host is the host name or address the subscription delivers to, without the port.
func (s Subscription) Host() string {
	u, err := url.Parse(s.hookURL)
	if err != nil {
		return s.hookURL
	}
	return strings.ToLower(u.Hostname())
}

func (s Subscription) ID() string                 { return s.id }
func (s Subscription) AccountID() string          { return s.accountID }
func (s Subscription) Event() string              { return s.event }
func (s Subscription) HookURL() string            { return s.hookURL }
func (s Subscription) Secret() string             { return s.secret }
func (s Subscription) Status() SubscriptionStatus { return s.status }
func (s Subscription) CreatedAt() time.Time       { return s.createdAt }
func (s Subscription) FailingSince() *time.Time   { return s.failingSince }
