package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// chatAction labels a chat reservation: the topic is known only once the model has answered.
const chatAction = "send_message"

// Chat is POST /api/chat: one turn of a conversation grounded in the caller's business.
type Chat struct {
	Sessions  Sessions
	Tools     ToolsFor
	Allowance allowance.Reserver
	Model     Model
	Tokenizer Tokenizer
	Now       Clock
	// HistoryBudget is how many tokens of earlier messages a model is given.
	HistoryBudget int
	// UpgradeURL is sent with a refusal when analytics did not say where to upgrade.
	UpgradeURL string
	// Places decides what is a place in a message (the product's gazetteer; nil: none is).
	Places domain.Gazetteer
}

// maxHistoryMessages bounds what is read back before trimming to the budget.
const maxHistoryMessages = 40

// ChatCommand is one chat request of an authenticated caller.
type ChatCommand struct {
	AccountID string
	Plan      string
	Token     string // the caller's bearer token, which the tools and the reservation act with
	Message   string
	SessionID string
	Context   json.RawMessage
}

type ChatResult struct {
	Reply     string `json:"reply"`
	SessionID string `json:"sessionId"`
	Tokens    int    `json:"tokens"`
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

	now := h.Now()
	session, history, created, err := h.session(ctx, cmd.AccountID, cmd.SessionID, now)
	if err != nil {
		return ChatResult{}, err
	}
	reservation, err := h.reserve(ctx, cmd.Token)
	if err != nil {
		return ChatResult{}, err
	}
	res, err := h.turn(ctx, cmd.Token, Conversation{
		AccountID: cmd.AccountID, Plan: cmd.Plan, Message: message, Context: clientContext, Hints: hints,
		History: domain.TrimToBudget(history, h.HistoryBudget), State: session.State(),
		Turn: domain.Recognizer{Places: h.Places}.Recognize(message, session.State(), hints),
	}, session, created, reservation.ID, now)
	if err != nil {
		allowance.Release(ctx, h.Allowance, cmd.Token, reservation)
		return ChatResult{}, err
	}
	return res, nil
}

// turn asks the model and stores the exchange with its feed event.
func (h *Chat) turn(ctx context.Context, token string, conv Conversation, session *domain.Session, created bool,
	reservation string, now time.Time) (ChatResult, error) {
	// The side-effect rule is enforced here, not left to the model: whatever it asks for, an
	// action that spends, writes or sends runs only as the recognised turn permits.
	tools := &guardedTools{Tools: h.Tools.For(token), perm: conv.Turn.Permission()}
	if !h.Model.CallsTools() {
		found, err := find(ctx, conv, tools)
		if err != nil {
			return ChatResult{}, err
		}
		conv.Findings = found
	}
	answer, err := h.Model.Reply(ctx, conv, tools)
	if err != nil {
		return ChatResult{}, err
	}
	facts := answer.Facts
	if conv.Findings != nil {
		facts = conv.Findings.facts
	}
	next := remember(conv, facts, tools)
	userTokens, replyTokens := h.Tokenizer.Count(conv.Message), h.Tokenizer.Count(answer.Text)
	tokens := answer.Tokens
	if tokens <= 0 {
		tokens = userTokens + replyTokens
	}
	session.Advance(next)
	feed, err := domain.ChatExchanged(answer.Topic, now)
	if err != nil {
		return ChatResult{}, err
	}
	msgs := []domain.Message{
		{Role: domain.RoleUser, Content: conv.Message, Tokens: userTokens, At: now},
		{Role: domain.RoleAssistant, Content: answer.Text, Tokens: replyTokens, At: h.Now()},
	}
	// The reservation id names the exchange in the feed, so it is recorded once.
	if err := h.Sessions.Save(ctx, session, created, msgs, SourcedEvent{SourceID: reservation, AccountID: session.AccountID(), Event: feed}); err != nil {
		return ChatResult{}, fmt.Errorf("save chat turn: %w", err)
	}
	return ChatResult{Reply: answer.Text, SessionID: session.ID(), Tokens: tokens}, nil
}

// reserve takes one chat unit from the caller's monthly allowance before the model is asked.
// Analytics owns the limits and the reservation is atomic there, so concurrent turns cannot
// overshoot. It fails closed: when the answer is unknown (analytics refusing, failing, slow or
// down) nothing is answered, or the allowance could be bypassed by making that call fail.
func (h *Chat) reserve(ctx context.Context, token string) (allowance.Reservation, error) {
	return allowance.Reserve(ctx, h.Allowance, token, allowance.Request{Feature: allowance.FeatureChat, Count: 1, Action: chatAction},
		func(spent *allowance.LimitReached) error {
			return spent.Refusal("chat_limit_reached",
				fmt.Sprintf("this month's chat allowance of %d messages is used up; upgrade for more", spent.Limit), h.UpgradeURL)
		})
}

// session continues the caller's session id, or starts one: under our own id when none is
// given, under the client's when it is new to this account (ids are per account, so another
// account's session of that id is neither seen nor touched).
func (h *Chat) session(ctx context.Context, accountID, id string, now time.Time) (*domain.Session, []domain.Message, bool, error) {
	if id == "" {
		s, err := domain.NewSession(accountID, "", now)
		return s, nil, true, err
	}
	s, history, err := h.Sessions.Load(ctx, accountID, id, maxHistoryMessages)
	if errors.Is(err, domain.ErrSessionNotFound) {
		s, err := domain.NewSession(accountID, id, now)
		return s, nil, true, err
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("load session: %w", err)
	}
	return s, history, false, nil
}

// remember is the state the turn leaves: the chat, not the model, keeps what the owner told us,
// what a search found and what was offered instead of run, and the figures the reply quoted.
// Without new figures, explaining or staying on the subject keeps the last ones.
func remember(conv Conversation, facts map[string]string, tools *guardedTools) domain.State {
	tools.mu.Lock()
	defer tools.mu.Unlock()
	prev := conv.State
	next := prev.After(conv.Turn, tools.ran, append([]domain.LeadRef(nil), tools.leads...))
	switch {
	case facts != nil:
		next.Facts = facts
	case conv.Turn.Why || next.Intent == prev.Intent:
		next.Facts = prev.Facts
	}
	if tools.refused != nil && !tools.ran && next.Offer == nil {
		// A model tried a search the message did not ask for, and we had nothing to offer: a
		// "yes" now runs exactly that search.
		next.Offer = tools.refused
	}
	return next
}
