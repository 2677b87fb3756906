// Command analytics serves usage logging, the PQL check, health scores and churn prediction, and
// seeds demo data for the local stack.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/service"
)

func main() {
	cmds := platform.Commands(service.New)
	cmds["demo"] = svc.Command{Summary: "seed: give the demo owners of make up clients with varied histories (idempotent)", Run: demo}
	cmds["churn"] = svc.Command{Summary: "fit: refit the churn model from observed cancellations (used from the next recompute)", Run: churn}
	svc.Main(service.Name, cmds)
}

// open is the service of a command, its settings from the environment.
func open(ctx context.Context) (*service.Service, error) { return platform.Load(ctx, service.New) }

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
			n, err := s.App.SeedDemo.Handle(ctx, email)
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
	fitted, err := s.App.FitChurn.Handle(ctx)
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
