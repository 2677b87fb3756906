package domain_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		status     int
		retryAfter string
		outcome    domain.Outcome
		wait       time.Duration
	}{
		{200, "", domain.Delivered, 0},
		{204, "", domain.Delivered, 0},
		{410, "", domain.Gone, 0},
		{429, "7", domain.Throttled, 7 * time.Second},
		{503, now.Add(90 * time.Second).Format(http.TimeFormat), domain.Throttled, 90 * time.Second},
		{503, "999999", domain.Throttled, domain.MaxRetryAfter},
		{429, "", domain.Failed, 0},
		{429, "soon", domain.Failed, 0},
		{500, "5", domain.Failed, 0},
		{302, "", domain.Failed, 0},
		{0, "", domain.Failed, 0},
	}
	for _, tc := range cases {
		outcome, wait := domain.Judge(tc.status, tc.retryAfter, now)
		require.Equal(t, tc.outcome, outcome, "%d %q", tc.status, tc.retryAfter)
		require.Equal(t, tc.wait, wait, "%d %q", tc.status, tc.retryAfter)
	}
}

func TestBackoffGrowsWithJitterUpToTheCap(t *testing.T) {
	t.Parallel()
	p := domain.DefaultRetryPolicy
	for failures := 1; failures <= 40; failures++ {
		full := ceiling(p, failures)
		d := p.Backoff(failures)
		require.GreaterOrEqual(t, d, full/2, "failure %d", failures)
		require.LessOrEqual(t, d, full, "failure %d", failures)
	}
}

func TestDefaultPolicyRetriesForAboutThreeDays(t *testing.T) {
	t.Parallel()
	p := domain.DefaultRetryPolicy
	var longest time.Duration
	attempts := 1
	for longest < p.GiveUpAfter {
		longest += ceiling(p, attempts)
		attempts++
	}
	require.Greater(t, attempts, 15, "retries are spread over the window, not bunched")
	require.Less(t, attempts, 40)
	require.True(t, p.ShouldDisable(time.Unix(0, 0), time.Unix(0, 0).Add(72*time.Hour)))
	require.False(t, p.ShouldDisable(time.Unix(0, 0), time.Unix(0, 0).Add(71*time.Hour)))
}

// ceiling is the delay before jitter: Base doubled per earlier failure, at most Cap.
func ceiling(p domain.RetryPolicy, failures int) time.Duration {
	d := p.Base
	for i := 1; i < failures; i++ {
		if d >= p.Cap {
			return p.Cap
		}
		d *= 2
	}
	return min(d, p.Cap)
}
