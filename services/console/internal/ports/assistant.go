package ports

import (
	"net/http"
	"strings"
)

func (h *Web) assistant(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "Assistant", "Assistant")
	v.D = s.sess.Chat
	h.page(w, r, http.StatusOK, "assistant", v)
}

func (h *Web) chat(w http.ResponseWriter, r *http.Request, s *signedIn) {
	msg := strings.TrimSpace(r.PostForm.Get("message"))
	err := h.App.Chat.Handle(r.Context(), s.secret, &s.sess, msg)
	if err == nil {
		// Post/redirect/get: a reload shows the chat instead of sending the message again.
		http.Redirect(w, r, "/assistant#latest", http.StatusSeeOther)
		return
	}
	if h.ended(w, r, s, err) {
		return
	}
	v := signedView(s, "Assistant", "Assistant")
	v.Forms["chat"] = refused(r.PostForm, err, "message")
	v.D = s.sess.Chat
	h.page(w, r, statusOf(err), "assistant", v)
}
