package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// ChatFeature is the usage feature a chat exchange counts against.
const ChatFeature = "chat"

// Chat is POST /api/chat: one turn of a conversation grounded in the caller's business.
type Chat struct {
	Sessions  Sessions
	Tools     ToolsFor
	Model     Model
	Tokenizer Tokenizer
	Now       Clock
	// HistoryBudget is how many tokens of earlier messages a model is given.
	HistoryBudget int
	// UpgradeURL is sent with a refusal when analytics did not say where to upgrade.
	UpgradeURL string
}

// maxHistoryMessages bounds what is read back before trimming to the budget.
const maxHistoryMessages = 40

// ChatCommand is one chat request of an authenticated caller.
type ChatCommand struct {
	AccountID string
	Plan      string
	Token     string // the caller's bearer token, which the tools act with
	ClientIP  string
	Message   string
	SessionID string
	Context   json.RawMessage
}

type ChatResult struct {
	Reply     string `json:"reply"`
	SessionID string `json:"sessionId"`
	Tokens    int    `json:"tokens"`
}

// UsageRecorded is the payload of usage.recorded.
type UsageRecorded struct {
	EventID string    `json:"eventId"`
	Feature string    `json:"feature"`
	Action  string    `json:"action,omitempty"`
	Count   int       `json:"count"`
	At      time.Time `json:"at"`
}

func (h *Chat) Handle(ctx context.Context, cmd ChatCommand) (ChatResult, error) {
	message, err := domain.ValidateMessage(cmd.Message)
	if err != nil {
		return ChatResult{}, err
	}
	if err := domain.ValidateSessionID(cmd.SessionID); err != nil {
		return ChatResult{}, err
	}
	clientContext, hints, err := domain.ParseContext(cmd.Context)
	if err != nil {
		return ChatResult{}, err
	}

	// The session first: another account's session id is "not found" whatever the allowance.
	now := h.Now()
	session, history, created, err := h.session(ctx, cmd.AccountID, cmd.SessionID, now)
	if err != nil {
		return ChatResult{}, err
	}
	tools := h.Tools.For(cmd.Token, cmd.ClientIP)
	if err := h.checkAllowance(ctx, tools); err != nil {
		return ChatResult{}, err
	}
	answer, err := h.Model.Reply(ctx, Conversation{
		AccountID: cmd.AccountID, Plan: cmd.Plan, Message: message, Context: clientContext, Hints: hints,
		History: domain.TrimToBudget(history, h.HistoryBudget), State: session.State(),
	}, tools)
	if err != nil {
		return ChatResult{}, err
	}

	userTokens, replyTokens := h.Tokenizer.Count(message), h.Tokenizer.Count(answer.Text)
	tokens := answer.Tokens
	if tokens <= 0 {
		tokens = userTokens + replyTokens
	}
	session.Advance(answer.State)
	env, err := events.New(ctx, "usage.recorded", cmd.AccountID, UsageRecorded{
		EventID: ids.New("evt"), Feature: ChatFeature, Action: string(answer.Topic), Count: 1, At: now,
	})
	if err != nil {
		return ChatResult{}, err
	}
	msgs := []domain.Message{
		{Role: domain.RoleUser, Content: message, Tokens: userTokens, At: now},
		{Role: domain.RoleAssistant, Content: answer.Text, Tokens: replyTokens, At: h.Now()},
	}
	if err := h.Sessions.Save(ctx, session, created, msgs, env); err != nil {
		return ChatResult{}, fmt.Errorf("save chat turn: %w", err)
	}
	return ChatResult{Reply: answer.Text, SessionID: session.ID(), Tokens: tokens}, nil
}

// checkAllowance refuses a caller whose monthly chat allowance is spent. Analytics owns the
// limits; when it cannot answer, chat fails open (the exchange is still recorded and counted),
// because the assistant going dark with analytics is worse than a few messages over a limit.
func (h *Chat) checkAllowance(ctx context.Context, tools Tools) error {
	usage, err := tools.Usage(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		slog.WarnContext(ctx, "chat allowance unknown, answering anyway", "error", err)
		return nil
	}
	chat, ok := usage.Features[ChatFeature]
	if !ok || !chat.Exhausted() {
		return nil
	}
	url := usage.UpgradeURL
	if url == "" {
		url = h.UpgradeURL
	}
	return apperr.QuotaExceeded("chat_limit_reached",
		fmt.Sprintf("this month's chat allowance of %d messages is used up; upgrade for more", chat.Limit)).
		With("upgradeUrl", url)
}

func (h *Chat) session(ctx context.Context, accountID, id string, now time.Time) (*domain.Session, []domain.Message, bool, error) {
	if id == "" {
		s, err := domain.NewSession(accountID, now)
		return s, nil, true, err
	}
	s, history, err := h.Sessions.Load(ctx, accountID, id, maxHistoryMessages)
	if errors.Is(err, domain.ErrSessionNotFound) {
		return nil, nil, false, domain.ErrSessionNotFound
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("load session: %w", err)
	}
	return s, history, false, nil
}
