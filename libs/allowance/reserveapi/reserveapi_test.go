package reserveapi_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/libs/allowance/allowancetest"
	"github.com/bizassist/bizassist/libs/allowance/reserveapi"
	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
	"github.com/bizassist/bizassist/libs/ids"
)

func setup(t *testing.T) (*reserveapi.Client, *allowancetest.Server, *jwttest.Issuer) {
	t.Helper()
	iss := jwttest.NewIssuer(t)
	fake := allowancetest.New(t, iss.Config(), allowancetest.Limits{"free": allowancetest.Free})
	api := apiclient.New("analytics", fake.URL, 5*time.Second)
	t.Cleanup(api.Close)
	return reserveapi.New(api), fake, iss
}

func TestReserveAndRelease(t *testing.T) {
	t.Parallel()
	c, fake, iss := setup(t)
	ctx := context.Background()
	account := ids.New("acc")
	tok := iss.Token(authjwt.Caller{AccountID: account, Plan: "free", TokenID: ids.New("tok")})

	res, err := c.Reserve(ctx, tok, allowance.Request{Feature: allowance.FeatureLeadScoring, Action: "batch", Count: 20})
	require.NoError(t, err)
	require.NotEmpty(t, res.ID)
	require.Equal(t, allowance.Reservation{ID: res.ID, Used: 20, Limit: 25, Remaining: 5}, res)

	_, err = c.Reserve(ctx, tok, allowance.Request{Feature: allowance.FeatureLeadScoring, Count: 6})
	var limit *allowance.LimitReached
	require.ErrorAs(t, err, &limit)
	require.Equal(t, allowance.LimitReached{Feature: "lead_scoring", Used: 20, Limit: 25, Remaining: 5,
		UpgradeURL: allowancetest.UpgradeURL}, *limit)

	require.NoError(t, c.Release(ctx, tok, res.ID))
	require.Zero(t, fake.Used(account, "lead_scoring"))

	growth := iss.Token(authjwt.Caller{AccountID: ids.New("acc"), Plan: "growth", TokenID: ids.New("tok")})
	res, err = c.Reserve(ctx, growth, allowance.Request{Feature: allowance.FeatureLeadFinder, Count: 1})
	require.NoError(t, err)
	require.Equal(t, allowance.Reservation{ID: res.ID, Used: 1, Unlimited: true}, res)
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
			_, err := c.Reserve(context.Background(), tok, allowance.Request{Feature: allowance.FeatureLeadFinder, Count: 1})
			mu.Lock()
			defer mu.Unlock()
			var limit *allowance.LimitReached
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
	req := allowance.Request{Feature: allowance.FeatureLeadFinder, Count: 1}
	notRefusal := func(err error) {
		t.Helper()
		require.Error(t, err)
		var limit *allowance.LimitReached
		require.False(t, errors.As(err, &limit), "%v", err)
	}

	_, err := c.Reserve(ctx, "not-a-token", req)
	notRefusal(err)
	for _, status := range []int{http.StatusTooManyRequests, http.StatusBadRequest, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		fake.FailWith(status)
		_, err := c.Reserve(ctx, tok, req)
		notRefusal(err)
		var refused *apiclient.Error
		require.ErrorAs(t, err, &refused)
		require.Equal(t, status, refused.Status)
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
	hung := reserveapi.New(apiclient.New("analytics", "http://"+ln.Addr().String(), 100*time.Millisecond))
	_, err = hung.Reserve(ctx, tok, req)
	notRefusal(err)
}

// The policy: a spent allowance is the service's own 402, anything unknown refuses the work (503),
// a canceled caller gets its cancellation, and a release runs even after the caller left.
func TestReserveFailsClosedAndReleaseOutlivesTheCaller(t *testing.T) {
	t.Parallel()
	c, fake, iss := setup(t)
	account := ids.New("acc")
	tok := iss.Token(authjwt.Caller{AccountID: account, Plan: "free", TokenID: ids.New("tok")})
	refused := func(l *allowance.LimitReached) error {
		return l.Refusal("lead_finder_limit_reached", "no searches left", "https://bizassist.test/pricing")
	}
	req := allowance.Request{Feature: allowance.FeatureLeadFinder, Count: 20}

	res, err := allowance.Reserve(context.Background(), c, tok, req, refused)
	require.NoError(t, err)
	_, err = allowance.Reserve(context.Background(), c, tok, allowance.Request{Feature: allowance.FeatureLeadFinder, Count: 1}, refused)
	var ae *apperr.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, apperr.KindQuotaExceeded, ae.Kind)
	require.Equal(t, "lead_finder_limit_reached", ae.Code)
	require.Equal(t, map[string]any{"remaining": 0, "limit": 20, "upgradeUrl": allowancetest.UpgradeURL}, ae.Details,
		"analytics' own pricing page wins over the service's")

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	allowance.Release(canceled, c, tok, res)
	require.Zero(t, fake.Used(account, allowance.FeatureLeadFinder), "released although the caller had gone")
	_, err = allowance.Reserve(canceled, c, tok, req, refused)
	require.ErrorIs(t, err, context.Canceled)

	fake.FailWith(http.StatusInternalServerError)
	_, err = allowance.Reserve(context.Background(), c, tok, req, refused)
	require.ErrorAs(t, err, &ae)
	require.Equal(t, apperr.KindUnavailable, ae.Kind)
	require.Equal(t, allowance.CodeUnavailable, ae.Code)
}
