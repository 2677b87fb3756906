package service_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 31: one failing subscriber (a host that hangs until the timeout) took every delivery slot
// of its account, and the account's healthy subscriber got nothing until the hanging attempts
// timed out. With two slots per account, the hanging subscription now holds one, and every
// delivery to the healthy one arrives while the hanging ones are still held. Nothing here is
// timed: the hanging receiver answers only when the test ends, and the test counts who got in.
func TestAHangingSubscriberLeavesItsAccountsOtherSubscribersTheirSlots(t *testing.T) {
	t.Parallel()
	s := newStackWith(t, map[string]string{
		"INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY": "2",
		"INTEGRATIONS_DELIVERY_TIMEOUT":             "1m", // longer than the test waits
	})
	token := s.owner(t, "acc_fair", "fair@example.com")

	var mu sync.Mutex
	var hanging, maxHanging, healthy int
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hanging++
		maxHanging = max(maxHanging, hanging)
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		hanging--
		mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		healthy++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(ok.Close)
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs first: the held attempts end

	for _, url := range []string{hang.URL + "/hook", ok.URL + "/hook"} {
		r := s.subscribe(t, token, url, "new_lead")
		require.Equal(t, http.StatusCreated, r.status, r.body)
	}
	const leads = 6
	for i := range leads {
		s.publish(t, "lead.written", "acc_fair", map[string]string{
			"leadId": fmt.Sprintf("lead_fair_%d", i), "name": "Jane Doe", "email": fmt.Sprintf("jane%d@example.com", i),
		})
	}
	got := func() (int, int) { mu.Lock(); defer mu.Unlock(); return healthy, maxHanging }
	require.Eventually(t, func() bool { n, _ := got(); return n == leads }, 30*time.Second, 20*time.Millisecond,
		"every delivery to the healthy subscriber arrives while the hanging one holds its attempts")
	_, most := got()
	require.Equal(t, 1, most, "the hanging subscription held one of its account's two slots at most")
}
