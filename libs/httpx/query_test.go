package httpx_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

func TestQueryIntKeepsTheDefaultOnlyWhenAbsent(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]int{"": 30, "days=7": 7, "days=-1": -1} {
		q, err := url.ParseQuery(query)
		require.NoError(t, err)
		n := 30
		require.NoError(t, httpx.QueryInt(q, "days", &n), query)
		require.Equal(t, want, n, query)
	}
	for _, query := range []string{"days=", "days=7&days=8", "days=seven", "days=7.5"} {
		q, err := url.ParseQuery(query)
		require.NoError(t, err)
		n := 30
		err = httpx.QueryInt(q, "days", &n)
		var e *apperr.Error
		require.ErrorAs(t, err, &e, query)
		require.Equal(t, "days", e.Field, query)
		require.Equal(t, apperr.KindInvalid, e.Kind, query)
		require.Equal(t, 30, n, "a refused value leaves the default: %s", query)
	}
}

func TestOptionalRefusesAnEmptyValueGiven(t *testing.T) {
	t.Parallel()
	v, err := httpx.Optional("plan", nil)
	require.NoError(t, err)
	require.Empty(t, v)
	given := "growth"
	v, err = httpx.Optional("plan", &given)
	require.NoError(t, err)
	require.Equal(t, "growth", v)
	empty := ""
	_, err = httpx.Optional("plan", &empty)
	var e *apperr.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "plan", e.Field)
}
