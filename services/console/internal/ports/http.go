// Package ports is the console's inbound side: the web pages, their forms and the static files.
// ("Ports" means inbound transport here; the API and session store it uses are app's ports.)
package ports

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// Cookie names. __Host- makes the browser insist on Secure, Path=/ and no Domain, so no other
// host (a sibling subdomain) can set or shadow them.
const (
	sessionCookie = "__Host-bza_session"
	// preCookie carries the secret whose CSRF token protects the forms used before signing in.
	preCookie = "__Host-bza_pre"
)

// maxForm bounds a form body.
const maxForm = 64 << 10

// CSP allows only the console's own script, style and images; inline script and style are
// refused, so injected markup cannot run.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Web serves the console's pages. A page decodes its form or link, calls its use case in App
// and renders the answer; what a page loads and how is app's.
type Web struct {
	App app.Application
	// ClientIP is the browser's address (honouring TRUSTED_PROXIES), forwarded to the API.
	ClientIP  func(*http.Request) netip.Addr
	templates *templates
}

// Routes registers the pages on r.
func (h *Web) Routes(r *mux.Router) {
	h.templates = mustParse()
	r.Use(h.headers, h.origin)
	// /api belongs to the services: a path the ingress sent here by its catch-all gets the API's
	// own 404 envelope, not a page.
	r.PathPrefix("/api/").Handler(httpx.NotFoundHandler())
	r.PathPrefix("/static/").Handler(static())
	r.NotFoundHandler = h.headers(http.HandlerFunc(h.notFound))

	r.HandleFunc("/sign-in", h.signInPage).Methods(http.MethodGet)
	r.HandleFunc("/sign-in", h.anon(h.signIn)).Methods(http.MethodPost)
	r.HandleFunc("/sign-up", h.signUpPage).Methods(http.MethodGet)
	r.HandleFunc("/sign-up", h.anon(h.signUp)).Methods(http.MethodPost)
	r.HandleFunc("/invitations/accept", h.acceptPage).Methods(http.MethodGet)
	r.HandleFunc("/invitations/accept", h.anon(h.accept)).Methods(http.MethodPost)

	r.HandleFunc("/", h.authed(h.overview)).Methods(http.MethodGet)
	r.HandleFunc("/sign-out", h.authedPost(h.signOut)).Methods(http.MethodPost)
	r.HandleFunc("/keys", h.authed(h.keys)).Methods(http.MethodGet)
	r.HandleFunc("/keys", h.authedPost(h.createKey)).Methods(http.MethodPost)
	r.HandleFunc("/keys/{id}/revoke", h.authedPost(h.revokeKey)).Methods(http.MethodPost)
	r.HandleFunc("/webhooks", h.authed(h.webhooks)).Methods(http.MethodGet)
	r.HandleFunc("/webhooks/secret", h.authedPost(h.rotateSecret)).Methods(http.MethodPost)
	r.HandleFunc("/webhooks/subscriptions", h.authedPost(h.subscribe)).Methods(http.MethodPost)
	r.HandleFunc("/webhooks/subscriptions/{id}", h.authed(h.subscription)).Methods(http.MethodGet)
	r.HandleFunc("/webhooks/subscriptions/{id}/delete", h.authedPost(h.unsubscribe)).Methods(http.MethodPost)
	r.HandleFunc("/webhooks/deliveries/{id}/replay", h.authedPost(h.replay)).Methods(http.MethodPost)
	r.HandleFunc("/webhooks/payments", h.authedPost(h.optInPayments)).Methods(http.MethodPost)
	r.HandleFunc("/clients", h.authed(h.clients)).Methods(http.MethodGet)
	r.HandleFunc("/clients", h.authedPost(h.invite)).Methods(http.MethodPost)
	r.HandleFunc("/clients/{id}", h.authed(h.client)).Methods(http.MethodGet)
	r.HandleFunc("/leads", h.authed(h.leads)).Methods(http.MethodGet)
	r.HandleFunc("/leads/export.csv", h.authed(h.exportCSV)).Methods(http.MethodGet)
	r.HandleFunc("/leads/find", h.authedPost(h.findLeads)).Methods(http.MethodPost)
	r.HandleFunc("/leads/qualify", h.authedPost(h.qualify)).Methods(http.MethodPost)
	r.HandleFunc("/assistant", h.authed(h.assistant)).Methods(http.MethodGet)
	r.HandleFunc("/assistant", h.authedPost(h.chat)).Methods(http.MethodPost)
	r.HandleFunc("/account", h.authed(h.account)).Methods(http.MethodGet)
	r.HandleFunc("/account/password", h.authedPost(h.changePassword)).Methods(http.MethodPost)
}

// headers sets what every console answer carries.
func (h *Web) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", CSP)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		next.ServeHTTP(w, r)
	})
}

// origin records the browser's address for the API calls made on its behalf.
func (h *Web) origin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(app.WithOrigin(r.Context(), h.ClientIP(r))))
	})
}

// signedIn is the session a request acts in.
type signedIn struct {
	secret session.Secret
	sess   session.Session
}

type authedHandler func(http.ResponseWriter, *http.Request, *signedIn)

// authed runs page for a browser with a live session; others go to the sign-in page.
func (h *Web) authed(page authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.resume(w, r)
		if !ok {
			return
		}
		page(w, r, s)
	}
}

// authedPost is authed plus the CSRF check every state-changing form passes.
func (h *Web) authedPost(action authedHandler) http.HandlerFunc {
	return h.authed(func(w http.ResponseWriter, r *http.Request, s *signedIn) {
		if !h.parseForm(w, r) {
			return
		}
		if !s.secret.CheckCSRF(r.PostForm.Get("csrf")) {
			h.forbidden(w, r)
			return
		}
		action(w, r, s)
	})
}

func (h *Web) resume(w http.ResponseWriter, r *http.Request) (*signedIn, bool) {
	c, err := r.Cookie(sessionCookie)
	if err == nil {
		secret, perr := session.ParseSecret(c.Value)
		if perr == nil {
			sess, gerr := h.App.Accounts.Resume(r.Context(), secret)
			if gerr == nil {
				return &signedIn{secret: secret, sess: sess}, true
			}
			if !errors.Is(gerr, app.ErrNoSession) {
				h.fail(w, r, gerr)
				return nil, false
			}
		}
	}
	h.toSignIn(w, r, "")
	return nil, false
}

// toSignIn sends the browser to sign in, coming back to where it was going (a GET page).
func (h *Web) toSignIn(w http.ResponseWriter, r *http.Request, notice string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
	q := url.Values{}
	if r.Method == http.MethodGet && r.URL.Path != "/" {
		q.Set("next", r.URL.Path)
	}
	if notice != "" {
		q.Set("done", notice)
	}
	target := "/sign-in"
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// ended handles an API refusal of the session's token, when err is one: the session is over and
// the browser is sent to sign in again. It reports whether it was.
func (h *Web) ended(w http.ResponseWriter, r *http.Request, s *signedIn, err error) bool {
	if !app.Unauthenticated(err) {
		return false
	}
	if err := h.App.Accounts.SignOut(r.Context(), s.secret); err != nil {
		slog.WarnContext(r.Context(), "end refused session", "error", err)
	}
	h.toSignIn(w, r, "expired")
	return true
}

func (h *Web) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.page(w, r, http.StatusBadRequest, "error", &view{Title: "Form not accepted",
			Message: "The form could not be read. Go back, reload the page and try again."})
		return false
	}
	return true
}

func (h *Web) forbidden(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusForbidden, "error", &view{Title: "Form expired",
		Message: "This form expired or did not come from this site, so nothing was changed. Reload the page and try again."})
}

func (h *Web) notFound(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusNotFound, "error", &view{Title: "Page not found", Message: "There is no page at this address."})
}

// fail answers an error no form can show: the session store or a page's only data failing.
func (h *Web) fail(w http.ResponseWriter, r *http.Request, err error) {
	slog.ErrorContext(r.Context(), "console request failed", "error", err, "path", r.URL.Path)
	h.page(w, r, http.StatusServiceUnavailable, "error", &view{Title: "Something went wrong",
		Message: "The console could not load this page. Nothing was changed; try again in a moment."})
}

// setSession gives the browser its session cookie.
func setSession(w http.ResponseWriter, secret session.Secret, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: secret.String(), Path: "/", Expires: expires,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
}

// preSecret returns the anonymous forms' secret, setting its cookie the first time.
func preSecret(w http.ResponseWriter, r *http.Request) session.Secret {
	if c, err := r.Cookie(preCookie); err == nil {
		if s, err := session.ParseSecret(c.Value); err == nil {
			return s
		}
	}
	s := session.NewSecret()
	http.SetCookie(w, &http.Cookie{Name: preCookie, Value: s.String(), Path: "/", MaxAge: 12 * 3600,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	return s
}

// anon checks the CSRF token of a form used before signing in.
func (h *Web) anon(action http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.parseForm(w, r) {
			return
		}
		c, err := r.Cookie(preCookie)
		if err != nil {
			h.forbidden(w, r)
			return
		}
		s, err := session.ParseSecret(c.Value)
		if err != nil || !s.CheckCSRF(r.PostForm.Get("csrf")) {
			h.forbidden(w, r)
			return
		}
		action(w, r)
	}
}

// detach keeps work that must finish (ending a session) from being cut by a closed browser.
func detach(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
