package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// MaxSeedEvents bounds one agent-brain-seed call.
const MaxSeedEvents = 100

// maxClockSkew is how far in the future a seeded timestamp may lie.
const maxClockSkew = 5 * time.Minute

// SeedEvent is one platform event an administrator records.
type SeedEvent struct {
	Module    string         `json:"module"`
	EventType string         `json:"event_type"`
	TS        *string        `json:"ts"` // absent: now
	Fields    map[string]any `json:"fields"`
}

// SeedFeed is POST /api/agent-brain-seed. The batch is all or nothing.
type SeedFeed struct {
	Store FeedStore
	Cache FeedCache
	Now   Clock
}

func (h *SeedFeed) Handle(ctx context.Context, in []SeedEvent) (int, error) {
	switch {
	case in == nil:
		return 0, apperr.MissingField("events")
	case len(in) == 0:
		return 0, apperr.InvalidField("events", "must hold at least one event")
	case len(in) > MaxSeedEvents:
		return 0, apperr.InvalidField("events", fmt.Sprintf("must hold at most %d events", MaxSeedEvents))
	}
	now := h.Now()
	evs := make([]SourcedEvent, 0, len(in))
	for i, e := range in {
		at := now
		if e.TS != nil {
			ts, err := time.Parse(time.RFC3339Nano, *e.TS)
			switch {
			case err != nil:
				return 0, apperr.InvalidField(fmt.Sprintf("events[%d].ts", i), "must be an ISO 8601 timestamp such as 2026-01-02T15:04:05.000Z")
			case ts.After(now.Add(maxClockSkew)):
				return 0, apperr.InvalidField(fmt.Sprintf("events[%d].ts", i), "must not be in the future")
			}
			at = ts
		}
		ev, err := domain.NewFeedEvent(e.Module, e.EventType, at, e.Fields)
		if err != nil {
			var fe *domain.FieldError
			if errors.As(err, &fe) {
				return 0, apperr.InvalidField(fmt.Sprintf("events[%d].%s", i, fe.Field), fe.Msg)
			}
			return 0, err
		}
		evs = append(evs, SourcedEvent{Event: ev})
	}
	n, err := h.Store.Add(ctx, evs)
	if err != nil {
		return 0, fmt.Errorf("store feed events: %w", err)
	}
	h.Cache.Invalidate(ctx) // the administrator should see what was seeded at once
	return n, nil
}

// maxEventText bounds each field taken from another service's event before it is scrubbed.
const maxEventText = 2000

// FeedEventCommand is an event of another of our services as the feed sees it: the source
// event's id (recording is idempotent by it), the feed module and event type, when it happened,
// and its allow-listed fields (customer text included; the templates scrub it).
type FeedEventCommand struct {
	SourceID  string
	AccountID string
	Module    string
	EventType string
	At        time.Time
	Fields    map[string]string
}

// RecordFeedEvent turns an event of our own services into a feed event, once per source event.
type RecordFeedEvent struct {
	Store    FeedStore
	Accounts Accounts
}

// An event that cannot be rendered is dropped with a log line: retrying would not change it.
// Empty fields are left out, so that an absent field renders as absent. Customer text is quoted
// only from an account in good standing; from any other the summary is the event kind alone.
func (h *RecordFeedEvent) Handle(ctx context.Context, cmd FeedEventCommand) error {
	fields := map[string]any{}
	for k, v := range cmd.Fields {
		if strings.TrimSpace(v) != "" {
			fields[k] = clip(v)
		}
	}
	standing, err := h.Accounts.Standing(ctx, cmd.AccountID)
	if err != nil {
		return fmt.Errorf("account standing: %w", err)
	}
	if !standing.MayQuote(cmd.At) {
		fields = domain.WithoutCustomerText(cmd.Module, cmd.EventType, fields)
	}
	ev, err := domain.NewFeedEvent(cmd.Module, cmd.EventType, cmd.At, fields)
	if err != nil {
		slog.WarnContext(ctx, "feed event dropped", "source_id", cmd.SourceID, "error", err)
		return nil
	}
	_, err = h.Store.Add(ctx, []SourcedEvent{{SourceID: cmd.SourceID, AccountID: cmd.AccountID, Event: ev}})
	return err
}

// AccountCommand is identity's news of an account: its plan as of At and when it was created
// (zero for a plan change), or that it was disabled.
type AccountCommand struct {
	AccountID string
	Plan      string
	At        time.Time
	CreatedAt time.Time
	Disabled  bool
}

// RecordAccount keeps the standing of accounts from identity's account.created,
// account.plan_changed and account.revoked (a disabled account).
type RecordAccount struct {
	Accounts Accounts
}

func (h *RecordAccount) Handle(ctx context.Context, cmd AccountCommand) error {
	switch {
	case cmd.AccountID == "":
		return nil // nothing to attach it to; retrying would not change it
	case cmd.Disabled:
		return h.Accounts.Disable(ctx, cmd.AccountID)
	default:
		return h.Accounts.Save(ctx, cmd.AccountID, cmd.Plan, cmd.At, cmd.CreatedAt)
	}
}

func clip(s string) string {
	if len(s) <= maxEventText {
		return s
	}
	return strings.ToValidUTF8(s[:maxEventText], "")
}

// PublicFeed is GET /api/agent-brain-public-feed: the rendered body, from cache when fresh.
type PublicFeed struct {
	Store FeedStore
	Cache FeedCache
	Now   Clock

	// flight makes concurrent requests share one cache read or render instead of stampeding.
	flight singleflight.Group
}

type feedItem struct {
	Module    string `json:"module"`
	EventType string `json:"event_type"`
	Summary   string `json:"summary"`
	TS        string `json:"ts"`
}

type feedBody struct {
	Events []feedItem `json:"events"`
	Demo   bool       `json:"demo"`
}

func (h *PublicFeed) Handle(ctx context.Context) ([]byte, error) {
	v, err, _ := h.flight.Do("feed", func() (any, error) { return h.load(context.WithoutCancel(ctx)) })
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

func (h *PublicFeed) load(ctx context.Context) ([]byte, error) {
	if body, ok := h.Cache.Get(ctx); ok {
		return body, nil
	}
	now := h.Now()
	evs, err := h.Store.Recent(ctx, now.Add(-domain.FeedWindow), domain.FeedSize, domain.FeedShare)
	if err != nil {
		return nil, fmt.Errorf("read feed: %w", err)
	}
	demo := len(evs) == 0
	if demo {
		evs = domain.DemoFeed(now)
	}
	out := feedBody{Events: make([]feedItem, len(evs)), Demo: demo}
	for i, e := range evs {
		out.Events[i] = feedItem{Module: e.Module, EventType: e.EventType, Summary: e.Summary, TS: isotime.Format(e.At)}
	}
	body, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	h.Cache.Set(ctx, body)
	return body, nil
}
