package app

import (
	"context"

	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// Chat is one assistant turn that keeps the conversation in the session, so it survives reloads.
type Chat struct {
	Assistant Assistant
	Sessions  Sessions
}

// Handle sends message in the session's conversation and records the exchange.
func (h Chat) Handle(ctx context.Context, secret session.Secret, sess *session.Session, message string) error {
	r, err := h.Assistant.Chat(ctx, sess.Token, message, sess.ChatSession)
	if err != nil {
		return err
	}
	sess.AddTurn(r.SessionID, session.Turn{Message: message, Reply: r.Reply})
	return h.Sessions.SaveChat(ctx, secret, *sess)
}
