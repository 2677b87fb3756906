package ports

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// The pages before signing in (sign in, sign up, accept an invitation), signing out and the
// Account page.

// safeNext keeps a post-sign-in redirect on this site: a local path of printable ASCII with no
// scheme, host, leading // or backslash, also once decoded. Browsers drop tabs and newlines and
// read \ as /, so "/<TAB>/evil.example" would leave the site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		strings.ContainsFunc(next, func(c rune) bool { return c <= ' ' || c > '~' || c == '\\' }) ||
		!strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(u.Path, "//") || strings.Contains(u.Path, "\\") {
		return "/"
	}
	return next
}

func (h *Web) anonView(w http.ResponseWriter, r *http.Request, title string) *view {
	return &view{Title: title, CSRF: preSecret(w, r).CSRF(), Forms: map[string]*form{}}
}

func (h *Web) signInPage(w http.ResponseWriter, r *http.Request) {
	v := h.anonView(w, r, "Sign in")
	v.Forms["signin"] = &form{Values: url.Values{"next": {safeNext(r.URL.Query().Get("next"))}}}
	h.page(w, r, http.StatusOK, "signin", v)
}

func (h *Web) signIn(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	secret, err := h.App.Accounts.SignIn(r.Context(), strings.TrimSpace(f.Get("email")), f.Get("password"))
	if err != nil {
		v := h.anonView(w, r, "Sign in")
		f.Del("password")
		v.Forms["signin"] = refused(f, err, "email")
		h.page(w, r, statusOf(err), "signin", v)
		return
	}
	h.signedIn(w, r, secret, safeNext(f.Get("next")))
}

func (h *Web) signedIn(w http.ResponseWriter, r *http.Request, secret session.Secret, next string) {
	sess, err := h.App.Accounts.Resume(r.Context(), secret)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	setSession(w, secret, sess.ExpiresAt)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Web) signUpPage(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusOK, "signup", h.anonView(w, r, "Sign up"))
}

func (h *Web) signUp(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	secret, err := h.App.Accounts.SignUp(r.Context(), strings.TrimSpace(f.Get("email")), f.Get("password"), strings.TrimSpace(f.Get("businessName")))
	if err != nil {
		v := h.anonView(w, r, "Sign up")
		f.Del("password")
		v.Forms["signup"] = refused(f, err, "email", "password", "businessName")
		h.page(w, r, statusOf(err), "signup", v)
		return
	}
	h.signedIn(w, r, secret, "/")
}

func (h *Web) acceptPage(w http.ResponseWriter, r *http.Request) {
	v := h.anonView(w, r, "Accept your invitation")
	v.Forms["accept"] = &form{Values: url.Values{"token": {r.URL.Query().Get("token")}}}
	h.page(w, r, http.StatusOK, "accept", v)
}

func (h *Web) accept(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	secret, err := h.App.Accounts.AcceptInvitation(r.Context(), f.Get("token"), f.Get("password"))
	if err != nil {
		v := h.anonView(w, r, "Accept your invitation")
		f.Del("password")
		v.Forms["accept"] = refused(f, err, "password")
		h.page(w, r, statusOf(err), "accept", v)
		return
	}
	h.signedIn(w, r, secret, "/")
}

func (h *Web) signOut(w http.ResponseWriter, r *http.Request, s *signedIn) {
	if err := h.App.Accounts.SignOut(detach(r.Context()), s.secret); err != nil {
		h.fail(w, r, err)
		return
	}
	h.toSignIn(w, r, "signed-out")
}

func (h *Web) account(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.page(w, r, http.StatusOK, "account", signedView(s, "Account", "Account"))
}

func (h *Web) changePassword(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	v := signedView(s, "Account", "Account")
	keep := url.Values{} // passwords are never echoed back
	if f.Get("newPassword") != f.Get("confirmPassword") {
		v.Forms["password"] = &form{Values: keep, Field: map[string]string{"confirmPassword": "The two new passwords differ."}}
		h.page(w, r, http.StatusBadRequest, "account", v)
		return
	}
	err := h.App.Accounts.ChangePassword(r.Context(), s.secret, s.sess, f.Get("currentPassword"), f.Get("newPassword"))
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		// A wrong current password is identity's 403 naming the field currentPassword.
		v.Forms["password"] = refused(keep, err, "currentPassword", "newPassword")
		h.page(w, r, statusOf(err), "account", v)
		return
	}
	h.toSignIn(w, r, "password-changed")
}
