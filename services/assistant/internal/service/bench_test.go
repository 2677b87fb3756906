package service_test

import (
	"bytes"
	"net/http"
	"testing"
)

// In-process benchmarks on a real socket, without the ingress: one offline chat turn (allowance
// reservation and health score from the fake analytics, the turn stored with its feed event) and
// the public feed from cache. make bench measures the same through the ingress.

func BenchmarkChatOffline(b *testing.B) {
	s := newStack(b, map[string]string{"RATELIMIT_EXEMPT_CIDRS": "10.9.9.0/24"})
	token := s.token("acc_erin", "full_stack")
	body := []byte(`{"message":"How is my health score?"}`)
	client := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest(http.MethodPost, s.base+"/api/chat", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", "10.9.9.9")
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("chat: %v %v", err, resp)
		}
		resp.Body.Close()
	}
}

func BenchmarkPublicFeedCached(b *testing.B) {
	s := newStack(b, map[string]string{"RATELIMIT_EXEMPT_CIDRS": "10.9.9.0/24"})
	client := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, s.base+"/api/agent-brain-public-feed", nil)
			req.Header.Set("X-Forwarded-For", "10.9.9.9")
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Errorf("feed: %v %v", err, resp)
				return
			}
			resp.Body.Close()
		}
	})
}
