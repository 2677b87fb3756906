// Command analytics serves usage logging, the PQL check, health scores and churn prediction, and
// seeds demo data for the local stack.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/service"
)

func main() {
	svc.Main(service.Name, map[string]svc.Command{
		"serve":   {Summary: "serve the HTTP API, the event consumer, the outbox relay and the health worker", Run: serve},
		"migrate": {Summary: "apply database migrations", Run: migrate},
		"demo":    {Summary: "seed: give the demo owners of make up clients with varied histories (idempotent)", Run: demo},
		"churn":   {Summary: "fit: refit the churn model from observed cancellations (used from the next recompute)", Run: churn},
	})
}

func open(ctx context.Context) (*service.Service, error) {
	var cfg service.Config
	if err := svc.LoadConfig(&cfg); err != nil {
		return nil, err
	}
	return service.New(ctx, cfg)
}

func serve(ctx context.Context, _ []string) error {
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := s.Runtime.Listen()
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

func migrate(ctx context.Context, _ []string) error {
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Migrate(ctx)
}

// demoWait bounds how long `demo seed` waits for identity's account.created events to arrive.
const demoWait = 90 * time.Second

func demo(ctx context.Context, args []string) error {
	if len(args) != 1 || args[0] != "seed" {
		return svc.Usagef("usage: analytics demo seed")
	}
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(ctx, demoWait)
	defer cancel()
	for _, email := range app.DemoOwnerEmails {
		for {
			n, err := s.SeedDemo.Handle(ctx, email)
			if errors.Is(err, app.ErrDemoOwnerUnknown) {
				select {
				case <-ctx.Done():
					return fmt.Errorf("demo owner %s did not reach the projection within %s (is identity seeded and the consumer running?)", email, demoWait)
				case <-time.After(500 * time.Millisecond):
					continue
				}
			}
			if err != nil {
				return err
			}
			slog.Info("demo clients", "owner", email, "added", n)
			break
		}
	}
	return nil
}

func churn(ctx context.Context, args []string) error {
	if len(args) != 1 || args[0] != "fit" {
		return svc.Usagef("usage: analytics churn fit")
	}
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	fitted, err := s.FitChurn.Handle(ctx)
	if errors.Is(err, health.ErrTooFewChurnSamples) {
		slog.Info("churn model kept", "reason", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	slog.Info("churn model fitted", "churned", fitted.Churned, "retained", fitted.Retained,
		"intercept", fitted.Model.Intercept, "coefficients", fitted.Model.Coefficients)
	return nil
}
