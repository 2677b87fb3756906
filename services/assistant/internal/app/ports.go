// Package app holds the assistant's use cases and the outbound interfaces they consume.
package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Clock returns the current time; tests pass a fixed one.
type Clock func() time.Time

// Sessions stores conversations, keyed by account and session id. Load returns
// domain.ErrSessionNotFound when the account has no session of that id.
type Sessions interface {
	Load(ctx context.Context, accountID, sessionID string, maxMessages int) (*domain.Session, []domain.Message, error)
	// Save stores the session's state, the new messages and the exchange's feed events in one
	// transaction.
	Save(ctx context.Context, s *domain.Session, created bool, msgs []domain.Message, feed ...SourcedEvent) error
}

// ToolsFor gives the tools of one caller, acting with that caller's own credentials.
type ToolsFor interface {
	For(bearerToken string) Tools
}

// Tools read the caller's business from the services that own it. They are scoped to the caller
// by construction: they carry only the caller's token, so no argument can reach another account.
type Tools interface {
	FindLeads(ctx context.Context, q LeadSearch) (LeadResults, error)
	RecentLeads(ctx context.Context, limit int) ([]SheetLead, error)
	Health(ctx context.Context) (Health, error)
	Usage(ctx context.Context) (Usage, error)
	ChurnRisks(ctx context.Context, threshold, limit int) (Churn, error)
}

// LeadScoring is the lead-quality tools (leads' lead-qualify and lead-quality-batch), for tools
// that have them: the actions that need them are given to a brain only when the caller's tools
// implement it.
type LeadScoring interface {
	QualifyLead(ctx context.Context, l LeadInput) (Qualification, error)
	// ScoreLeads scores up to 25 leads, each one use of the lead_scoring allowance.
	ScoreLeads(ctx context.Context, leads []LeadInput) (BatchScores, error)
}

// Model writes the reply of one turn; the offline advisor and language-model adapters implement
// it. tools are the caller's tools as the turn permits them (guardedTools).
type Model interface {
	Reply(ctx context.Context, c Conversation, tools Tools) (Answer, error)
	// CallsTools reports a model that fetches figures through tools itself. For one that does not,
	// the chat reads what the recognised message needs first and gives it in Conversation.Findings.
	CallsTools() bool
}

// Conversation is what a model is given for one turn.
type Conversation struct {
	AccountID string
	Plan      string
	History   []domain.Message // oldest first, trimmed to the token budget
	Message   string
	Context   json.RawMessage // the client's context object, if any
	Hints     domain.Slots    // slot values found in the client's context
	State     domain.State    // what the session remembers from the previous turn
	// Turn is the message as the chat recognised it; its Permission is what the tools enforce.
	Turn domain.Turn
	// Findings are what the chat read for the turn, for a model that calls no tools (else nil).
	Findings *Findings
}

// Answer is a model's reply. Tokens is the provider's reported usage, 0 when it has none (the
// offline advisor), in which case the tokenizer counts the exchange.
type Answer struct {
	Text   string
	Tokens int
	// Facts are the figures the reply quotes, which a "why?" next turn is answered from.
	Facts map[string]string
	Topic domain.Intent
}

// Tokenizer counts tokens the way the models do.
type Tokenizer interface {
	Count(text string) int
}

// FeedStore keeps public feed events.
type FeedStore interface {
	// Add stores events; an event whose sourceID was stored before is skipped. It returns how
	// many were stored.
	Add(ctx context.Context, evs []SourcedEvent) (int, error)
	// Recent returns the newest events since the given time, newest first, at most perAccount of
	// any one account (events seeded by hand belong to none).
	Recent(ctx context.Context, since time.Time, limit, perAccount int) ([]domain.FeedEvent, error)
}

// SourcedEvent is a feed event with the id of what caused it and the account whose event it is
// (both "" when seeded by hand).
type SourcedEvent struct {
	SourceID  string
	AccountID string
	Event     domain.FeedEvent
}

// Accounts keeps what the feed knows of each account's standing.
type Accounts interface {
	Standing(ctx context.Context, accountID string) (domain.Standing, error)
	// Save records an account's plan as of planAt, unless a later plan is known, and its creation
	// time when created is not zero.
	Save(ctx context.Context, accountID, plan string, planAt, created time.Time) error
	Disable(ctx context.Context, accountID string) error
}

// FeedCache holds the rendered public feed for a short while.
type FeedCache interface {
	Get(ctx context.Context) ([]byte, bool)
	Set(ctx context.Context, body []byte)
	Invalidate(ctx context.Context)
}
