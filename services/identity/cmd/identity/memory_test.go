package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

// burst is the number of simultaneous sign-ins from distinct clients that once took identity
// from 165 MiB to 5.9 GiB resident (issue 10, item 1).
const burst = 48

// maxGrowth bounds how far the burst may raise identity's peak resident memory.
const maxGrowth = 320 << 20

// TestSignInBurstKeepsMemoryBounded runs the real binary with its production defaults against
// the real PostgreSQL and Redis, fires the burst with unknown emails (every attempt still
// hashes), and reads the kernel's record of the process's peak resident memory.
func TestSignInBurstKeepsMemoryBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads peak resident memory from /proc/<pid>/status, which only Linux has")
	}
	t.Parallel()
	addr := platformtest.ClosedAddr(t)
	base := "http://" + addr
	environ := platformtest.Env(t, service.Name, base+"/api/auth/jwks.json")
	environ["HTTP_ADDR"] = addr // TRUSTED_PROXIES keeps its default, which trusts 127.0.0.1
	bin, env := buildAndMigrate(t, environ)

	// One writer for both pipes: exec then writes from one goroutine, and it is read after Wait.
	var logs bytes.Buffer
	serve := exec.Command(bin, "serve")
	serve.Env, serve.Stdout, serve.Stderr = env, &logs, &logs
	require.NoError(t, serve.Start())
	t.Cleanup(func() {
		_ = serve.Process.Signal(os.Interrupt)
		_ = serve.Wait()
		if t.Failed() {
			t.Logf("identity output:\n%s", logs.String())
		}
	})
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/readyz") //nolint:noctx // test
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "identity becomes ready")

	// One sign-in first, so that what every request needs once (pools, the dummy hash) is in the
	// baseline rather than counted as growth.
	require.Equal(t, http.StatusUnauthorized, signIn(t, base, "10.10.255.1"))
	before := procStatus(t, serve.Process.Pid, "VmRSS")

	statuses := make([]int, burst)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range burst {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			statuses[i] = signIn(t, base, fmt.Sprintf("10.10.%d.%d", i/200, 1+i%200))
		}()
	}
	start.Done()
	done.Wait()

	peak := procStatus(t, serve.Process.Pid, "VmHWM")
	growth := peak - before
	t.Logf("resident memory: %d MiB before the burst, peak %d MiB, growth %d MiB; answers %v",
		before>>20, peak>>20, growth>>20, statuses)
	hashed := 0
	for _, st := range statuses {
		require.Contains(t, []int{http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusServiceUnavailable}, st)
		if st == http.StatusUnauthorized {
			hashed++
		}
	}
	require.Positive(t, hashed, "some attempts were answered after hashing, so the burst measured hashing")
	require.Less(t, growth, int64(maxGrowth), "the burst raised peak resident memory by %d MiB", growth>>20)
}

// signIn posts a sign-in with a random unknown email on behalf of client and returns the status;
// a 503 must say when to come back.
func signIn(t *testing.T, base, client string) int {
	buf := make([]byte, 8)
	_, _ = rand.Read(buf)
	body := fmt.Sprintf(`{"email":"burst-%s@example.com","password":"not the password"}`, hex.EncodeToString(buf))
	req, err := http.NewRequest(http.MethodPost, base+"/api/auth", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", client)
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
		t.Errorf("503 from %s without Retry-After", client)
	}
	return resp.StatusCode
}

// procStatus reads a memory field of /proc/<pid>/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		require.NoError(t, err, "%s: %q", field, value)
		return kib << 10
	}
	require.NoError(t, sc.Err())
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
