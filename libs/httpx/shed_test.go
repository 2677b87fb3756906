package httpx_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
)

// Past its limit a process sheds at once, in the envelope with Retry-After, and serves again as
// soon as a slot frees; nothing waits longer than the queue wait.
func TestShedRefusesPastTheLimitAndRecovers(t *testing.T) {
	t.Parallel()
	release, started := make(chan struct{}), make(chan struct{}, 2)
	h := httpx.Shed(2, 50*time.Millisecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			started <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	done := make(chan int, 2)
	for range 2 {
		go func() {
			resp, err := http.Get(srv.URL + "/slow")
			if err == nil {
				resp.Body.Close()
				done <- resp.StatusCode
			} else {
				done <- 0
			}
		}()
	}
	<-started
	<-started

	resp, err := http.Get(srv.URL + "/fast")
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "1", resp.Header.Get("Retry-After"))
	require.Equal(t, "overloaded", body["code"])
	require.Equal(t, false, body["ok"])

	close(release)
	require.Equal(t, http.StatusNoContent, <-done)
	require.Equal(t, http.StatusNoContent, <-done)
	resp, err = http.Get(srv.URL + "/fast")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "served again once the slots are free")
}

// A request that finds no slot at once but gets one within the wait is served, not refused.
func TestShedLetsAShortWaitThrough(t *testing.T) {
	t.Parallel()
	release, started, arrived := make(chan struct{}), make(chan struct{}), make(chan struct{})
	shed := httpx.Shed(1, 5*time.Second)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fast" {
			close(arrived) // the slow request holds the only slot: this one waits for it
		}
		shed.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	go func() {
		if resp, err := http.Get(srv.URL + "/slow"); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	go func() { <-arrived; close(release) }()
	resp, err := http.Get(srv.URL + "/fast")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
}

func TestShedWithoutALimitServesEverything(t *testing.T) {
	t.Parallel()
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	w := httptest.NewRecorder()
	httpx.Shed(0, time.Second)(next).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusNoContent, w.Code)
}
