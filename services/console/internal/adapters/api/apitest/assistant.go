package apitest

import (
	"net/http"
	"strings"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/ids"
)

// assistant: a chat turn that echoes the message.

func (a *API) chat(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		Message   string `json:"message"`
		SessionID string `json:"sessionId"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if strings.TrimSpace(in.Message) == "" {
		httpx.Fail(w, r, apperr.MissingField("message"))
		return
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"reply": "You said: " + in.Message,
		"sessionId": cmpOr(in.SessionID, ids.New("ses")), "tokens": 5})
}
