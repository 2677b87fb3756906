package app

import (
	"context"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// MaxHistoryDays bounds the health history window.
const MaxHistoryDays = 90

// HistoryPoint is one recorded change of an account's score.
type HistoryPoint struct {
	At      time.Time
	Score   int
	Tier    health.Tier
	Signals health.Values
}

// HistoryStore reads score history.
type HistoryStore interface {
	// History returns accountID's recorded scores since since, oldest first, led by the last one
	// recorded before since (the score in effect when the window opens), if any.
	History(ctx context.Context, accountID string, since time.Time) ([]HistoryPoint, error)
	// IsClient reports whether clientID is one of ownerID's clients.
	IsClient(ctx context.Context, ownerID, clientID string) (bool, error)
}

// HistoryQuery asks for the caller's own history, or one of its clients' when ClientID is set.
type HistoryQuery struct {
	Caller   Caller
	ClientID string
	Days     int
}

// GetHealthHistory returns the score history behind a trend chart.
type GetHealthHistory struct {
	Store HistoryStore
	Now   Clock
}

// Handle checks the window and, for a client, that the caller owns it; another account's id
// is not found, exactly like an id that does not exist.
func (h GetHealthHistory) Handle(ctx context.Context, q HistoryQuery) ([]HistoryPoint, error) {
	if q.Days < 1 || q.Days > MaxHistoryDays {
		return nil, apperr.InvalidField("days", fmt.Sprintf("must be an integer from 1 to %d", MaxHistoryDays))
	}
	account := q.Caller.AccountID
	if q.ClientID != "" {
		ok, err := h.Store.IsClient(ctx, q.Caller.AccountID, q.ClientID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, apperr.NotFound("client_not_found", "no such client")
		}
		account = q.ClientID
	}
	return h.Store.History(ctx, account, h.Now().Add(-time.Duration(q.Days)*24*time.Hour))
}
