package e2e

import (
	"bufio"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Security of the local ingress (issue 10, item 8). Source addresses: 127.0.0.1 on purpose (the
// address nginx itself proxies from, hence a trusted proxy of the services) and 127.0.7.x.

// A client on 127.0.0.1 names the benchmark's rate-limit-exempt address in X-Forwarded-For. The
// ingress must replace that header, so the client is limited by its own address like anyone.
func TestSecurityForwardedForCannotClaimTheExemptAddress(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.0.1")
	spoof := http.Header{"X-Forwarded-For": {s.Get(t, "BENCH_SOURCE_IP")}}
	// scout-stats allows 30 a minute per address; 40 requests must meet a refusal.
	refused := 0
	for range 40 {
		if c.Do(t, http.MethodGet, "/api/scout-stats", "", nil, spoof).Status == http.StatusTooManyRequests {
			refused++
		}
	}
	require.Positive(t, refused, "40 statistics requests from 127.0.0.1 claiming %s were all answered: the exempt address was believed", spoof.Get("X-Forwarded-For"))
}

// Query strings carry customer emails and phone numbers (lead-qualify); the access log keeps
// the path only.
func TestSecurityAccessLogKeepsNoQueryStrings(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.7.1")
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	marker := "e2e-log-" + time.Now().UTC().Format("150405.000000000")
	requestID := strings.ReplaceAll(marker, ".", "-")
	c.Do(t, http.MethodGet, "/api/lead-qualify?email="+marker+"%40example.com&phone=%2B15125550199", token, nil,
		http.Header{"X-Request-Id": {requestID}})

	logPath := s.accessLogPath()
	var line string
	require.Eventually(t, func() bool {
		line = findLine(t, logPath, requestID)
		return line != ""
	}, 10*time.Second, 50*time.Millisecond, "no access-log line for request %s in %s", requestID, logPath)
	require.Contains(t, line, `"/api/lead-qualify"`)
	require.NotContains(t, line, marker, "the email in the query string reached the access log")
	require.NotContains(t, line, "5125550199", "the phone number in the query string reached the access log")
}

func findLine(t *testing.T, path, needle string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), needle) {
			return sc.Text()
		}
	}
	require.NoError(t, sc.Err())
	return ""
}
