// Package delivery is the outbound side of delivering webhooks: the sender that signs and POSTs
// them, and River in PostgreSQL, where delivery jobs are queued (Queue, app.JobQueue) and counted
// (DepthSampler). The workers that run the jobs are an inbound port (ports.NewJobWorkers).
package delivery

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/bizassist/bizassist/services/integrations/internal/adapters/safehttp"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// UserAgent identifies our deliveries to receivers.
const UserAgent = "bizassist-webhooks/1.0"

// maxResponseDrain is how much of a response body we read so the connection can be reused.
const maxResponseDrain = 64 << 10

// Sender POSTs messages with Standard Webhooks headers, signed with the subscription's secret.
type Sender struct {
	Client *http.Client
	Now    func() time.Time
}

// Send implements app.Sender.
func (s Sender) Send(ctx context.Context, sub domain.Subscription, messageID string, payload []byte) app.SendResult {
	start := time.Now()
	res := s.send(ctx, sub, messageID, payload)
	res.Latency = time.Since(start)
	attempts.WithLabelValues(statusClass(res.StatusCode)).Inc()
	attemptSeconds.Observe(res.Latency.Seconds())
	return res
}

func (s Sender) send(ctx context.Context, sub domain.Subscription, messageID string, payload []byte) app.SendResult {
	wh, err := standardwebhooks.NewWebhook(sub.Secret())
	if err != nil {
		return app.SendResult{Err: fmt.Errorf("subscription secret: %w", err)}
	}
	ts := s.Now()
	sig, err := wh.Sign(messageID, ts, payload)
	if err != nil {
		return app.SendResult{Err: fmt.Errorf("sign: %w", err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.HookURL(), bytes.NewReader(payload))
	if err != nil {
		return app.SendResult{Err: fmt.Errorf("build request: %w", err)}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set("webhook-id", messageID)
	h.Set("webhook-timestamp", fmt.Sprint(ts.Unix()))
	h.Set("webhook-signature", sig)
	resp, err := s.Client.Do(req)
	if resp != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseDrain))
		_ = resp.Body.Close()
	}
	if err != nil {
		res := app.SendResult{Err: err, Failure: safehttp.Describe(err)}
		if resp != nil {
			res.StatusCode = resp.StatusCode
		}
		return res
	}
	return app.SendResult{StatusCode: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
}
