package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/analytics"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/analytics/analyticstest"
	"github.com/bizassist/bizassist/services/leads/internal/app"
)

func setup(t *testing.T) (*analytics.Client, *analyticstest.Server, *jwttest.Issuer) {
	t.Helper()
	iss := jwttest.NewIssuer(t)
	fake := analyticstest.New(t, iss.Config(), analyticstest.Limits{"free": analyticstest.Free})
	c := analytics.New(analytics.Config{URL: fake.URL, Timeout: 5 * time.Second})
	t.Cleanup(c.Close)
	return c, fake, iss
}

func TestReserveAndRelease(t *testing.T) {
	t.Parallel()
	c, fake, iss := setup(t)
	ctx := context.Background()
	account := ids.New("acc")
	tok := iss.Token(authjwt.Caller{AccountID: account, Plan: "free", TokenID: ids.New("tok")})

	res, err := c.Reserve(ctx, tok, app.AllowanceRequest{Feature: app.FeatureLeadScoring, Action: "batch", Count: 20})
	require.NoError(t, err)
	require.NotEmpty(t, res.ID)
	require.Equal(t, app.Reservation{ID: res.ID, Used: 20, Limit: 25, Remaining: 5}, res)

	_, err = c.Reserve(ctx, tok, app.AllowanceRequest{Feature: app.FeatureLeadScoring, Count: 6})
	var limit *app.LimitReachedError
	require.ErrorAs(t, err, &limit)
	require.Equal(t, app.LimitReachedError{Feature: "lead_scoring", Used: 20, Limit: 25, Remaining: 5,
		UpgradeURL: analyticstest.UpgradeURL}, *limit)

	require.NoError(t, c.Release(ctx, tok, res.ID))
	require.Zero(t, fake.Used(account, "lead_scoring"))

	growth := iss.Token(authjwt.Caller{AccountID: ids.New("acc"), Plan: "growth", TokenID: ids.New("tok")})
	res, err = c.Reserve(ctx, growth, app.AllowanceRequest{Feature: app.FeatureLeadFinder, Count: 1})
	require.NoError(t, err)
	require.Equal(t, app.Reservation{ID: res.ID, Used: 1, Unlimited: true}, res)
}

func TestReservationsHoldUnderConcurrency(t *testing.T) {
	t.Parallel()
	c, fake, iss := setup(t)
	account := ids.New("acc")
	tok := iss.Token(authjwt.Caller{AccountID: account, Plan: "free", TokenID: ids.New("tok")})
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		granted, refused int
	)
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Reserve(context.Background(), tok, app.AllowanceRequest{Feature: app.FeatureLeadFinder, Count: 1})
			mu.Lock()
			defer mu.Unlock()
			var limit *app.LimitReachedError
			switch {
			case err == nil:
				granted++
			case errors.As(err, &limit):
				refused++
			default:
				t.Errorf("unexpected: %v", err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 20, granted)
	require.Equal(t, 10, refused)
	require.Equal(t, 20, fake.Used(account, "lead_finder"))
}

// Everything but a grant or a 402 is an error that is not a refusal: the app fails closed on it.
func TestFailuresAreNotRefusals(t *testing.T) {
	t.Parallel()
	c, fake, iss := setup(t)
	ctx := context.Background()
	tok := iss.Token(authjwt.Caller{AccountID: ids.New("acc"), Plan: "free", TokenID: ids.New("tok")})
	req := app.AllowanceRequest{Feature: app.FeatureLeadFinder, Count: 1}
	notRefusal := func(err error) {
		t.Helper()
		require.Error(t, err)
		var limit *app.LimitReachedError
		require.False(t, errors.As(err, &limit), "%v", err)
	}

	_, err := c.Reserve(ctx, "not-a-token", req)
	notRefusal(err)
	for _, status := range []int{http.StatusTooManyRequests, http.StatusBadRequest, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		fake.FailWith(status)
		_, err := c.Reserve(ctx, tok, req)
		notRefusal(err)
		require.Contains(t, err.Error(), fmt.Sprintf("status %d", status))
	}
	fake.Stop()
	_, err = c.Reserve(ctx, tok, req)
	notRefusal(err)

	// A peer that accepts and never answers: the timeout ends the call.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // read the request, never answer; done when the client gives up
				_, _ = io.Copy(io.Discard, conn)
				conn.Close()
			}()
		}
	}()
	hung := analytics.New(analytics.Config{URL: "http://" + ln.Addr().String(), Timeout: 100 * time.Millisecond})
	_, err = hung.Reserve(ctx, tok, req)
	notRefusal(err)
}

func TestConfig(t *testing.T) {
	t.Parallel()
	require.NoError(t, analytics.Config{URL: "http://analytics:8080", Timeout: time.Second}.Validate())
	for _, bad := range []analytics.Config{
		{Timeout: time.Second},
		{URL: "analytics:8080", Timeout: time.Second},
		{URL: "ftp://analytics", Timeout: time.Second},
		{URL: "http://analytics"},
	} {
		require.Error(t, bad.Validate(), "%+v", bad)
	}
}
