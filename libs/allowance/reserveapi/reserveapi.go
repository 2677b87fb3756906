// Package reserveapi is the allowance.Reserver over analytics' internal routes, POST
// /internal/usage/reserve and /internal/usage/release (services/analytics/README.md).
package reserveapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/libs/apiclient"
)

// Client is the allowance.Reserver over analytics' internal routes.
type Client struct{ api *apiclient.Client }

var _ allowance.Reserver = (*Client)(nil)

// New returns a Client calling analytics through api.
func New(api *apiclient.Client) *Client { return &Client{api: api} }

// Reserve implements allowance.Reserver: 200 with an id is granted, 402 is *LimitReached,
// anything else is an error the caller must treat as unknown, never as allowed.
func (c *Client) Reserve(ctx context.Context, token string, r allowance.Request) (allowance.Reservation, error) {
	var res allowance.Reservation
	err := c.api.Do(ctx, apiclient.Request{Method: http.MethodPost, Path: "/internal/usage/reserve", Token: token, Body: r}, &res)
	var refused *apiclient.Error
	switch {
	case err == nil && res.ID == "":
		return allowance.Reservation{}, errors.New("analytics granted a reservation without an id")
	case err == nil:
		return res, nil
	case errors.As(err, &refused) && refused.Status == http.StatusPaymentRequired:
		spent := &allowance.LimitReached{Feature: r.Feature}
		if derr := refused.Decode(spent); derr != nil {
			return allowance.Reservation{}, fmt.Errorf("analytics' 402 does not decode: %w", derr)
		}
		return allowance.Reservation{}, spent
	default:
		return allowance.Reservation{}, err
	}
}

// Release implements allowance.Reserver; analytics answering released:false (already gone) is
// fine.
func (c *Client) Release(ctx context.Context, token, reservationID string) error {
	return c.api.Do(ctx, apiclient.Request{Method: http.MethodPost, Path: "/internal/usage/release", Token: token,
		Body: map[string]string{"reservationId": reservationID}}, nil)
}
