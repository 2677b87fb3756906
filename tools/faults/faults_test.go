package main

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/internal/webhook"
)

func TestSelectFaults(t *testing.T) {
	all, err := selectFaults("")
	require.NoError(t, err)
	require.Len(t, all, len(faults))
	two, err := selectFaults("pg-restart, kill-9")
	require.NoError(t, err)
	require.Equal(t, []string{"postgres restart", "kill -9 integrations"}, []string{two[0].name, two[1].name})
	_, err = selectFaults("nope")
	require.ErrorContains(t, err, "redis-down")
}

// The receiver's record is the suite's judge: one webhook-id per event, the same one before and
// after the receiver failed, and which acknowledged events never came.
func TestHooksJudgeDeliveries(t *testing.T) {
	h := newHooks()
	deliver := func(email, id string) int {
		return h.handle(webhook.Delivery{ID: id, Body: []byte(`{"email":"` + email + `"}`)})
	}
	require.Equal(t, 204, deliver("a@x", "id-a"))
	h.setFailing(true)
	require.Equal(t, 503, deliver("b@x", "id-b"))
	require.Equal(t, 503, deliver("c@x", "id-c"))
	h.setFailing(false)
	require.Equal(t, 204, deliver("b@x", "id-b"))
	require.Equal(t, 204, deliver("b@x", "id-b")) // a retry after a lost answer: same id, fine
	require.Equal(t, 204, deliver("c@x", "id-c2"))
	require.Equal(t, 204, deliver("a@x", "id-a2"))

	c := h.check([]string{"a@x", "b@x", "c@x", "d@x"})
	require.Equal(t, []string{"d@x"}, c.missing)
	require.Equal(t, []string{"a@x"}, c.twice)
	require.Equal(t, []string{"c@x"}, c.idChanged)
	require.Equal(t, 2, h.refusedCount([]string{"a@x", "b@x", "c@x"}))
	require.Equal(t, 400, h.handle(webhook.Delivery{Body: []byte(`{}`)}))
}

func TestTableAndTally(t *testing.T) {
	tl := newTally()
	now := time.Now()
	tl.record(outcome{status: "200", at: now}, "a@x")
	tl.record(outcome{status: "503", at: now.Add(time.Second)}, "")
	tl.record(outcome{status: "503", at: now}, "")
	tl.record(outcome{status: "conn", at: now}, "")
	require.Equal(t, []string{"a@x"}, tl.acked)
	require.Equal(t, now.Add(time.Second), tl.lastFailure)
	require.Equal(t, "503×2 conn×1", errorsText(tl.errors))
	require.Equal(t, "none", errorsText(nil))
	require.Equal(t, "503", statusOf(errors.New("GET /api/x: status 503: {}")))
	require.Equal(t, "conn", statusOf(errors.New("dial tcp: connection refused")))

	var out bytes.Buffer
	bad := result{fault: "pg", acked: 3, lost: 1, errors: tl.errors, recovery: 1234 * time.Millisecond}
	bad.fail("1 acknowledged event not delivered")
	printTable(&out, []result{{fault: "dup", acked: 1, recovery: -1}, bad})
	require.Equal(t, `fault  acknowledged  lost  errors by status  recovery  result
dup    1             0     none              -         ok
pg     3             1     503×2 conn×1      1.2s      FAILED
  pg: 1 acknowledged event not delivered
`, out.String())
}
