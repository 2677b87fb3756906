// Package app is the console's use cases: signing in and out, and what each page loads and does.
// Everything but the console's own sessions comes from the public API, through the ports in
// api.go (implemented by adapters/api); the sessions are behind Sessions (adapters/postgres).
// The pages (package ports) call only these use cases, never the API.
package app

import (
	"errors"
	"net/http"
	"time"
)

// Application is every use case, by page or area, wired by the service package.
type Application struct {
	Accounts Accounts
	Overview LoadOverview
	Keys     KeysPage
	Webhooks WebhooksPage
	Clients  ClientsPage
	Leads    LeadsPage
	Chat     Chat
}

// New wires every use case to the API and the session store; sessions last at most maxAge.
func New(api API, sessions Sessions, maxAge time.Duration, now Clock) Application {
	return Application{
		Accounts: Accounts{Identity: api.Identity, Sessions: sessions, MaxAge: maxAge, Now: now},
		Overview: LoadOverview{API: api, Now: now},
		Keys:     KeysPage{Identity: api.Identity},
		Webhooks: WebhooksPage{Integrations: api.Integrations},
		Clients:  ClientsPage{Identity: api.Identity, Analytics: api.Analytics, Now: now},
		Leads:    LeadsPage{Leads: api.Leads},
		Chat:     Chat{Assistant: api.Assistant, Sessions: sessions},
	}
}

// ErrNotFound is a page's subject (a client, a subscription) that the API does not list for the
// caller.
var ErrNotFound = errors.New("not found")

// Unauthenticated reports a refusal of the session's token: the session is over.
func Unauthenticated(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusUnauthorized
}
