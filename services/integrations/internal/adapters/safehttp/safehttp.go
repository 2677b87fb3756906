// Package safehttp builds the HTTP client that delivers webhooks to integrator URLs without
// letting those URLs reach the platform's own network: every address is checked when it is
// dialled (after DNS, so rebinding and names resolving to loopback are caught), proxies from the
// environment are ignored, and redirects are never followed.
package safehttp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// ErrRedirect is returned for a response that asks to be redirected.
var ErrRedirect = errors.New("redirects are not followed")

// NewClient returns a client that dials only addresses policy permits and gives up on a
// request after timeout.
func NewClient(policy domain.TargetPolicy, timeout time.Duration, maxConnsPerHost int) *http.Client {
	dialer := &net.Dialer{
		Timeout:   timeout,
		KeepAlive: 30 * time.Second,
		Control:   control(policy),
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf, past the address check
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   maxConnsPerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("%w (to %s)", ErrRedirect, req.URL.Redacted())
		},
	}
}

// control runs on the socket about to connect, with the resolved address, for every address
// the dialer tries.
func control(policy domain.TargetPolicy) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if network != "tcp4" && network != "tcp6" {
			return fmt.Errorf("network %s is not allowed", network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("unexpected dial address %q: %w", address, err)
		}
		return policy.Permit(ap.Addr())
	}
}

// Describe names what went wrong with a request made by the client, in the generic words an
// account may see; err itself carries addresses and is for operators only.
func Describe(err error) domain.Failure {
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		alert   tls.AlertError
		record  tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, domain.ErrForbiddenAddress):
		return domain.FailureAddressNotAllowed
	case errors.Is(err, ErrRedirect):
		return domain.FailureRedirect
	case errors.As(err, &dnsErr):
		return domain.FailureHostNotFound
	case errors.Is(err, syscall.ECONNREFUSED):
		return domain.FailureConnectionRefused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return domain.FailureTimeout
	case errors.As(err, &certErr), errors.As(err, &alert), errors.As(err, &record):
		return domain.FailureTLS
	default:
		return domain.FailureConnection
	}
}
