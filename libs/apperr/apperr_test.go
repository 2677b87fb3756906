package apperr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
)

func TestKindAndCodeSurviveWrapping(t *testing.T) {
	t.Parallel()
	base := apperr.InvalidField("limit", "must be between 1 and 50")
	wrapped := fmt.Errorf("finding leads: %w", base)

	require.Equal(t, apperr.KindInvalid, apperr.KindOf(wrapped))
	require.Equal(t, apperr.CodeInvalidField, apperr.CodeOf(wrapped))
	require.Equal(t, "limit: must be between 1 and 50", base.Message)
	require.Equal(t, "limit", base.Field)
}

func TestPlainErrorsAreInternal(t *testing.T) {
	t.Parallel()
	err := errors.New("connection reset")
	require.Equal(t, apperr.KindInternal, apperr.KindOf(err))
	require.Equal(t, apperr.CodeInternal, apperr.CodeOf(err))
}

func TestWithDoesNotMutateTheOriginal(t *testing.T) {
	t.Parallel()
	base := apperr.QuotaExceeded("quota_exhausted", "monthly allowance spent")
	withURL := base.With("upgradeUrl", "https://example.test/pricing")

	require.Nil(t, base.Details)
	require.Equal(t, "https://example.test/pricing", withURL.Details["upgradeUrl"])
}

func TestWrapKeepsCauseReachable(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp: refused")
	err := apperr.Unavailable("dns_unavailable", "resolver unreachable").Wrap(cause)
	require.ErrorIs(t, err, cause)
	require.Contains(t, err.Error(), "dial tcp")
}
