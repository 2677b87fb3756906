// Package allowancetest stands in for analytics' allowance reservation routes in tests, on a real
// loopback socket: POST /internal/usage/reserve and /internal/usage/release as
// services/analytics/api/openapi.yaml describes them. It verifies the caller's bearer token, keeps
// a count per account and feature, reserves atomically, refuses a reservation over the limit with
// analytics' 402 body (recording nothing), and can be made to fail or stop. A test that fakes
// more of analytics mounts the same routes on its own mux (Mount).
package allowancetest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/ids"
)

// UpgradeURL is the pricing page the double names in its refusals.
const UpgradeURL = "https://analytics.test/pricing"

// Unlimited marks a feature without a cap in Limits (analytics stores such a row as NULL).
const Unlimited = -1

// Limits are the monthly limits per plan and feature; a feature a plan does not list is unlimited.
type Limits map[string]map[string]int

// Free is analytics' free plan: 50 chats, 25 lead scores and 20 lead searches a month.
var Free = map[string]int{allowance.FeatureChat: 50, allowance.FeatureLeadScoring: 25, allowance.FeatureLeadFinder: 20}

// Server is the double. Its zero value is not usable; call New.
type Server struct {
	URL string

	srv      *httptest.Server
	verifier *authjwt.Verifier
	limits   Limits

	mu       sync.Mutex
	plans    map[string]string // account -> the plan analytics knows; else the token's
	used     map[usageKey]int
	held     map[string]reservation
	reserves int // answered, granted or not
	granted  int
	released int
	failWith int
}

type usageKey struct{ account, feature string }

type reservation struct {
	usageKey
	count int
}

// New serves the double until the test ends. auth verifies tokens as the services do (use the
// test issuer's Config); limits are per plan.
func New(t testing.TB, auth authjwt.Config, limits Limits) *Server {
	t.Helper()
	mux := http.NewServeMux()
	s := Mount(t, mux, auth, limits)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Mount serves the double's two routes on mux, for a test server that fakes more of analytics;
// URL and Stop are then that server's.
func Mount(t testing.TB, mux *http.ServeMux, auth authjwt.Config, limits Limits) *Server {
	t.Helper()
	v, err := authjwt.NewVerifier(auth)
	if err != nil {
		t.Fatalf("allowancetest: %v", err)
	}
	s := &Server{verifier: v, limits: limits, plans: map[string]string{}, used: map[usageKey]int{}, held: map[string]reservation{}}
	mux.HandleFunc("POST /internal/usage/reserve", s.reserve)
	mux.HandleFunc("POST /internal/usage/release", s.release)
	return s
}

// SetPlan makes analytics know the account on plan, whatever its tokens claim (an upgrade or a
// downgrade it has projected).
func (s *Server) SetPlan(accountID, plan string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plans[accountID] = plan
}

// Used is what the account has reserved of feature and not released.
func (s *Server) Used(accountID, feature string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used[usageKey{accountID, feature}]
}

// Spend records n units of feature as already used by the account this month.
func (s *Server) Spend(accountID, feature string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used[usageKey{accountID, feature}] += n
}

// Granted and Released count the reservations granted and given back so far.
func (s *Server) Granted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.granted
}

// Released: see Granted.
func (s *Server) Released() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.released
}

// Reserves counts reservation requests answered so far, granted or not.
func (s *Server) Reserves() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reserves
}

// FailWith makes every later call answer status with an error envelope (0 restores service).
func (s *Server) FailWith(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failWith = status
}

// Stop closes the socket New opened: later calls are refused connections.
func (s *Server) Stop() { s.srv.Close() }

// caller authenticates r and decodes its body into req. It answers a failure itself (an injected
// one first) and then reports false.
func (s *Server) caller(w http.ResponseWriter, r *http.Request, req any) (authjwt.Caller, bool) {
	s.mu.Lock()
	status := s.failWith
	s.mu.Unlock()
	if status != 0 {
		httpx.Fail(w, r, apperr.New(httpx.KindOf(status), "injected", fmt.Sprintf("injected failure %d", status)))
		return authjwt.Caller{}, false
	}
	token, err := authjwt.BearerToken(r)
	if err == nil {
		var c authjwt.Caller
		if c, err = s.verifier.Verify(r.Context(), token); err == nil {
			if err = httpx.Decode(w, r, req, 4<<10); err == nil {
				return c, true
			}
		}
	}
	httpx.Fail(w, r, err)
	return authjwt.Caller{}, false
}

func (s *Server) reserve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Feature string `json:"feature"`
		Count   int    `json:"count"`
		Action  string `json:"action"`
	}
	c, ok := s.caller(w, r, &req)
	if !ok {
		return
	}
	if _, known := Free[req.Feature]; !known {
		httpx.Fail(w, r, apperr.InvalidField("feature", "must be one of chat, lead_scoring, lead_finder"))
		return
	}
	if req.Count < 1 || req.Count > 1000 {
		httpx.Fail(w, r, apperr.InvalidField("count", "must be an integer from 1 to 1000"))
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserves++
	plan, known := s.plans[c.AccountID]
	if !known {
		plan = c.Plan
	}
	key := usageKey{c.AccountID, req.Feature}
	limit, capped := s.limits[plan][req.Feature]
	if capped && limit == Unlimited {
		capped = false
	}
	used := s.used[key]
	if capped && used+req.Count > limit {
		httpx.Fail(w, r, apperr.QuotaExceeded(req.Feature+"_limit_reached",
			fmt.Sprintf("the monthly %s allowance has %d left; %d asked", req.Feature, max(limit-used, 0), req.Count)).
			With("feature", req.Feature).With("used", used).With("limit", limit).
			With("remaining", max(limit-used, 0)).With("upgradeUrl", UpgradeURL))
		return
	}
	s.used[key] = used + req.Count
	s.granted++
	id := ids.New("evt")
	s.held[id] = reservation{key, req.Count}
	var limitJSON, remaining any // null when unlimited, as analytics answers
	if capped {
		limitJSON, remaining = limit, limit-s.used[key]
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"reservationId": id, "feature": req.Feature,
		"used": s.used[key], "limit": limitJSON, "remaining": remaining, "unlimited": !capped})
}

func (s *Server) release(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ReservationID string `json:"reservationId"`
	}
	c, ok := s.caller(w, r, &req)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res, found := s.held[req.ReservationID]
	released := found && res.account == c.AccountID
	if released {
		s.used[res.usageKey] -= res.count
		delete(s.held, req.ReservationID)
		s.released++
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"released": released})
}
