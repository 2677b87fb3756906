package app

import (
	"context"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// DemoOwnerEmails are the demo accounts of `make up` that get demo clients.
var DemoOwnerEmails = []string{"demo-growth@bizassist.local", "demo-fullstack@bizassist.local"}

// DemoClient is one made-up client account with a made-up history, stored as demo data.
type DemoClient struct {
	AccountID    string
	Email        string
	BusinessName string
	CreatedAt    time.Time
	Logins       []time.Time
	Uses         []DemoUse
	Leads        []time.Time
	Payment      health.Payment
}

// DemoUse is one day's use of one feature.
type DemoUse struct {
	Day     time.Time
	Feature string
	Uses    int
}

// DemoStore writes demo data; every row it writes is marked as demo.
type DemoStore interface {
	// OwnerByEmail finds an owner account in the projection; false until its account.created
	// event has been consumed.
	OwnerByEmail(ctx context.Context, email string) (string, bool, error)
	// AddDemoClients stores the clients under ownerID unless it already has demo clients, and
	// says whether it stored them.
	AddDemoClients(ctx context.Context, ownerID string, clients []DemoClient) (bool, error)
}

// ErrDemoOwnerUnknown means the owner has not reached the projection yet; try again shortly.
var ErrDemoOwnerUnknown = apperr.NotFound("demo_owner_unknown", "demo owner not in the account projection yet")

// SeedDemo gives a demo owner a set of clients with varied histories, active to gone quiet, and
// scores them, so tiers and churn rankings show a spread from the first minute.
type SeedDemo struct {
	Store     DemoStore
	Recompute Recompute
	Now       Clock
}

// Handle seeds the owner with email; it returns how many clients it added (0 when the owner
// already had them).
func (h SeedDemo) Handle(ctx context.Context, email string) (int, error) {
	owner, ok, err := h.Store.OwnerByEmail(ctx, email)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, ErrDemoOwnerUnknown
	}
	clients := DemoClients(owner, h.Now())
	added, err := h.Store.AddDemoClients(ctx, owner, clients)
	if err != nil || !added {
		return 0, err
	}
	ids := make([]string, len(clients))
	for i, c := range clients {
		ids[i] = c.AccountID
	}
	return len(clients), h.Recompute.Handle(ctx, ids)
}

// demoProfile describes a history: active every `every` days between fromDaysAgo and toDaysAgo
// (inclusive), with the given uses per active day.
type demoProfile struct {
	slug, business         string
	tenureDays             int
	fromDaysAgo, toDaysAgo int
	every                  int
	perDay                 map[string]int
	leadEvery              int // a lead every n active days; 0 for none
	payment                health.Payment
}

var demoProfiles = []demoProfile{
	{slug: "harbor-dental", business: "Harbor Dental", tenureDays: 400, fromDaysAgo: 30, toDaysAgo: 0, every: 1,
		perDay: map[string]int{"chat": 3, "lead_finder": 2, "lead_scoring": 2, "audit_tool": 1}, leadEvery: 1,
		payment: health.Payment{Status: health.PaymentActive}},
	{slug: "summit-roofing", business: "Summit Roofing", tenureDays: 200, fromDaysAgo: 30, toDaysAgo: 1, every: 2,
		perDay: map[string]int{"chat": 2, "lead_finder": 1, "lead_scoring": 1}, leadEvery: 2,
		payment: health.Payment{Status: health.PaymentActive}},
	{slug: "brightside-plumbing", business: "Brightside Plumbing", tenureDays: 150, fromDaysAgo: 30, toDaysAgo: 2, every: 3,
		perDay: map[string]int{"chat": 1, "lead_finder": 1}, leadEvery: 3,
		payment: health.Payment{Status: health.PaymentPastDue, Failures: 2}},
	{slug: "maple-street-bakery", business: "Maple Street Bakery", tenureDays: 120, fromDaysAgo: 45, toDaysAgo: 12, every: 3,
		perDay: map[string]int{"chat": 2, "lead_finder": 1}, leadEvery: 4,
		payment: health.Payment{Status: health.PaymentActive}},
	{slug: "lumen-yoga", business: "Lumen Yoga Studio", tenureDays: 5, fromDaysAgo: 4, toDaysAgo: 1, every: 3,
		perDay: map[string]int{"chat": 2}, payment: health.Payment{Status: health.PaymentActive}},
	{slug: "cedar-law", business: "Cedar Law Group", tenureDays: 300, fromDaysAgo: 60, toDaysAgo: 26, every: 4,
		perDay: map[string]int{"chat": 1}, leadEvery: 8, payment: health.Payment{Status: health.PaymentCanceling}},
	{slug: "northwind-fitness", business: "Northwind Fitness", tenureDays: 250, fromDaysAgo: 90, toDaysAgo: 70, every: 5,
		perDay: map[string]int{"chat": 1}, payment: health.Payment{Status: health.PaymentActive}},
	{slug: "oak-iron-furniture", business: "Oak & Iron Furniture", tenureDays: 120, every: 0,
		payment: health.Payment{Status: health.PaymentUnknown}},
}

// DemoClients builds the demo clients of owner as of now. Ids derive from the owner, so each
// owner has its own set.
func DemoClients(owner string, now time.Time) []DemoClient {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	out := make([]DemoClient, 0, len(demoProfiles))
	for _, p := range demoProfiles {
		c := DemoClient{
			AccountID:    fmt.Sprintf("%s_demo_%s", owner, p.slug),
			Email:        "owner@" + p.slug + ".example",
			BusinessName: p.business,
			CreatedAt:    today.AddDate(0, 0, -p.tenureDays),
			Payment:      p.payment,
		}
		for n, ago := 0, p.fromDaysAgo; p.every > 0 && ago >= p.toDaysAgo; n, ago = n+1, ago-p.every {
			day := today.AddDate(0, 0, -ago)
			c.Logins = append(c.Logins, day.Add(10*time.Hour))
			for f, uses := range p.perDay {
				c.Uses = append(c.Uses, DemoUse{Day: day, Feature: f, Uses: uses})
			}
			if p.leadEvery > 0 && n%p.leadEvery == 0 {
				c.Leads = append(c.Leads, day.Add(11*time.Hour))
			}
		}
		out = append(out, c)
	}
	return out
}
