package app

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

// Auth is what a sign-in, sign-up or accepted invitation gives.
type Auth struct {
	Token, Email, Plan string
	ExpiresAt          time.Time // zero until verified
}

// APIKey is a key as listed; the key itself is never listed.
type APIKey struct {
	ID, Name, Prefix string
	CreatedAt        time.Time
	LastUsedAt       *time.Time
}

// NewAPIKey is a key just made: the one time the key is shown.
type NewAPIKey struct {
	ID, Name, Key string
}

// ClientAccount is an owner's client as identity lists it.
type ClientAccount struct {
	ID, Email, BusinessName, Status, Tier string
	LastLogin                             *time.Time
	HealthScore                           *int
}

// Invite is an owner's invitation of a client.
type Invite struct {
	Email, BusinessName, OwnerName, Phone, Plan string
}

// Invitation is what an invite returns: the token the client accepts with, and the plan the
// client was given (identity lowers one above the owner's to the owner's).
type Invitation struct {
	ID, Plan, InviteToken string
	ExpiresAt             time.Time
}

// Identity is the identity service's public API.
type Identity interface {
	SignIn(ctx context.Context, email, password string) (Auth, error)
	SignUp(ctx context.Context, email, password, businessName string) (Auth, error)
	// Verify fills in the token's email, current plan and expiry.
	Verify(ctx context.Context, token string) (Auth, error)
	ChangePassword(ctx context.Context, token, current, next string) error
	AcceptInvitation(ctx context.Context, inviteToken, password string) (Auth, error)
	Keys(ctx context.Context, token string) ([]APIKey, error)
	CreateKey(ctx context.Context, token, name string) (NewAPIKey, error)
	DeleteKey(ctx context.Context, token, id string) error
	Clients(ctx context.Context, token string) ([]ClientAccount, error)
	InviteClient(ctx context.Context, token string, in Invite) (Invitation, error)
}

// Usage is the PQL check.
type Usage struct {
	NearLimit  bool
	UpgradeURL string
	Meters     []dashboard.Meter
}

// Health is an account's health score.
type Health struct {
	Score     int
	Tier      string
	Signals   map[string]int
	UpdatedAt time.Time
}

// AtRiskClient is a churn prediction.
type AtRiskClient struct {
	Email, BusinessName, Recommendation string
	ChurnProbability, HealthScore       int
}

// Analytics is the analytics service's public API.
type Analytics interface {
	Usage(ctx context.Context, token string) (Usage, error)
	Health(ctx context.Context, token string) (Health, error)
	HealthHistory(ctx context.Context, token string, days int) ([]dashboard.ScorePoint, error)
	// ClientHealth is one of the caller's clients' history and latest signals.
	ClientHealth(ctx context.Context, token, clientID string, days int) ([]dashboard.ScorePoint, map[string]int, error)
	AtRisk(ctx context.Context, token string) ([]AtRiskClient, error)
}

// SheetPage is one page of the leads sheet as the API lists it, newest first.
type SheetPage struct {
	Leads      []sheet.Lead
	NextCursor string
}

// Find is a lead-finder search.
type Find struct {
	Industry, Location string
	Limit              int
}

// Qualification is a qualify-a-lead answer.
type Qualification struct {
	Score     int
	Qualified bool
	Reasoning string
	Signals   []string
}

// Leads is the leads service's public API.
type Leads interface {
	Sheet(ctx context.Context, token string, limit int, cursor string) (SheetPage, error)
	ExportCSV(ctx context.Context, token string) (io.ReadCloser, error)
	Find(ctx context.Context, token string, in Find) ([]sheet.Lead, error)
	Qualify(ctx context.Context, token, email, businessName, phone string) (Qualification, error)
}

// Reply is an assistant's answer.
type Reply struct {
	Reply, SessionID string
}

// Assistant is the assistant's public API.
type Assistant interface {
	Chat(ctx context.Context, token, message, sessionID string) (Reply, error)
}

// Subscription is a REST hook.
type Subscription struct {
	ID, HookURL, Event, Status string
	CreatedAt                  time.Time
	Secret                     string // only when just created
}

// Attempt is one delivery attempt of a subscription.
type Attempt struct {
	DeliveryID, Event, Error string
	AttemptedAt              time.Time
	StatusCode               *int
	LatencyMs                int
}

// Integrations is the integrations service's public API.
type Integrations interface {
	Subscriptions(ctx context.Context, token string) ([]Subscription, error)
	Subscribe(ctx context.Context, token, hookURL, event string) (Subscription, error)
	Unsubscribe(ctx context.Context, token, id string) error
	Attempts(ctx context.Context, token, subscriptionID string) ([]Attempt, error)
	Replay(ctx context.Context, token, deliveryID string) error
	RotateSecret(ctx context.Context, token string) (string, error)
}

// API is the whole public API as the console uses it.
type API struct {
	Identity     Identity
	Analytics    Analytics
	Leads        Leads
	Assistant    Assistant
	Integrations Integrations
}

// Sessions stores signed-in browsers, keyed by their secret's ID.
type Sessions interface {
	Create(ctx context.Context, s session.Secret, sess session.Session) error
	// Get returns ErrNoSession for an unknown or expired secret.
	Get(ctx context.Context, s session.Secret) (session.Session, error)
	SaveChat(ctx context.Context, s session.Secret, sess session.Session) error
	Delete(ctx context.Context, s session.Secret) error
}

// ErrNoSession is a cookie with no live session behind it.
var ErrNoSession = fmt.Errorf("no session")

// APIError is a refusal by the API, kept whole so the page can say it in words.
type APIError struct {
	Status     int
	Code       string
	Message    string
	Field      string
	UpgradeURL string
	RetryAfter int
}

func (e *APIError) Error() string {
	return fmt.Sprintf("api %d %s: %s", e.Status, e.Code, e.Message)
}

type originKey struct{}

// WithOrigin records the browser's address, which the adapters forward so per-address limits
// apply to the person, not to the console.
func WithOrigin(ctx context.Context, ip netip.Addr) context.Context {
	return context.WithValue(ctx, originKey{}, ip)
}

// Origin is the browser's address recorded by WithOrigin.
func Origin(ctx context.Context) (netip.Addr, bool) {
	ip, ok := ctx.Value(originKey{}).(netip.Addr)
	return ip, ok && ip.IsValid()
}
