package openloop

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Search bounds a capacity search: FindCapacity's seed, rate bound and number of probes, each
// probe held Long(Probe, rate, ProbeSamples), sent with Options.
type Search struct {
	Seed, MaxRate, MaxSteps int
	Probe                   time.Duration
	Options
}

// Capacity is the highest rate at which tgt, sent through hc, holds aim with check's answers;
// each, when not nil, sees every probe's run in order.
func (s Search) Capacity(ctx context.Context, hc *http.Client, tgt vegeta.Target, aim time.Duration, check Check, each func(Run)) int {
	return FindCapacity(s.Seed, s.MaxRate, s.MaxSteps, func(rate int) bool {
		if ctx.Err() != nil {
			return false
		}
		run := Attack(ctx, hc, tgt, rate, Long(s.Probe, rate, ProbeSamples), s.Options, check, nil)
		if each != nil {
			each(run)
		}
		return run.Held(aim)
	})
}

// Ceiling is the generator's own capacity for tgt: the same search against a server that does
// nothing (in this process, over TLS, HTTP/2 when hc's transport asks for it, answering 204 once
// it has read the body), reached with that transport's settings and tgt's method, path, headers
// and body. The generator and the server it measures share this machine's cores, so a capacity
// near the ceiling is the generator's figure, not the server's (issue 41).
func (s Search) Ceiling(ctx context.Context, hc *http.Client, tgt vegeta.Target, aim time.Duration) (int, error) {
	srv, client, err := nullServer(hc)
	if err != nil {
		return 0, err
	}
	defer srv.Close()
	defer client.CloseIdleConnections()
	if tgt.URL, err = retarget(tgt.URL, srv.URL); err != nil {
		return 0, err
	}
	return s.Capacity(ctx, client, tgt, aim, Status(http.StatusNoContent), nil), nil
}

// nullServer starts the server of Ceiling and a client like hc that trusts it.
func nullServer(hc *http.Client) (*httptest.Server, *http.Client, error) {
	tr, ok := hc.Transport.(*http.Transport)
	if !ok {
		return nil, nil, fmt.Errorf("openloop: the client's transport is a %T, not an *http.Transport", hc.Transport)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.EnableHTTP2 = tr.ForceAttemptHTTP2
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes cut off when a probe ends
	srv.StartTLS()
	trusting := tr.Clone() // its TLS config too: hc's own is left as it was
	if trusting.TLSClientConfig == nil {
		trusting.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	trusting.TLSClientConfig.RootCAs = x509.NewCertPool()
	trusting.TLSClientConfig.RootCAs.AddCert(srv.Certificate())
	return srv, &http.Client{Transport: trusting, Timeout: hc.Timeout}, nil
}

// retarget is target's path and query at base.
func retarget(target, base string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	return base + u.RequestURI(), nil
}
