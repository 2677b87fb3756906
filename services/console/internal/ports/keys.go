package ports

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/services/console/internal/app"
)

// keysData is the API keys page's data.
type keysData struct {
	Keys   []app.APIKey
	Err    error
	NewKey *app.NewAPIKey
}

func (h *Web) keysPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d keysData) {
	d.Keys, d.Err = h.App.Keys.List(r.Context(), s.sess.Token)
	if h.ended(w, r, s, d.Err) {
		return
	}
	v.D = d
	h.page(w, r, status, "keys", v)
}

func (h *Web) keys(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.keysPage(w, r, s, http.StatusOK, signedView(s, "API keys", "API keys"), keysData{})
}

func (h *Web) createKey(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "API keys", "API keys")
	key, err := h.App.Keys.Create(r.Context(), s.sess.Token, strings.TrimSpace(r.PostForm.Get("name")))
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v.Forms["create"] = refused(r.PostForm, err, "name")
		h.keysPage(w, r, s, statusOf(err), v, keysData{})
		return
	}
	// Rendered, not redirected: the key is shown this once and never stored by the console.
	h.keysPage(w, r, s, http.StatusCreated, v, keysData{NewKey: &key})
}

func (h *Web) revokeKey(w http.ResponseWriter, r *http.Request, s *signedIn) {
	err := h.App.Keys.Revoke(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	h.afterAction(w, r, s, err, "/keys", "key-revoked", "revoke", "API keys", func(status int, v *view) {
		h.keysPage(w, r, s, status, v, keysData{})
	})
}
