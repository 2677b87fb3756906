// Command integrations serves the webhook routes and delivers outbound webhooks.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

func main() {
	svc.Main("integrations", map[string]svc.Command{
		"serve":   {Summary: "serve HTTP, deliver webhooks, relay and consume events (default)", Run: serve},
		"migrate": {Summary: "apply database migrations (service, events outbox, River)", Run: migrate},
		"secrets": {Summary: "secrets rotate --email E: print a new inbound webhook secret for an owner", Run: secrets},
	})
}

func serve(ctx context.Context, _ []string) error {
	var cfg service.Config
	if err := svc.LoadConfig(&cfg); err != nil {
		return err
	}
	s, err := service.New(ctx, cfg)
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
	var cfg pgkit.Config
	if err := svc.LoadConfig(&cfg); err != nil {
		return err
	}
	pool, err := pgkit.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	return service.Migrate(ctx, pool, cfg.Schema)
}

func secrets(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "rotate" {
		return svc.Usagef("usage: secrets rotate --email E [--wait 60s]")
	}
	fs := flag.NewFlagSet("secrets rotate", flag.ContinueOnError)
	email := fs.String("email", "", "owner account email")
	wait := fs.Duration("wait", 0, "how long to wait for the account to arrive from identity")
	if err := fs.Parse(args[1:]); err != nil || *email == "" {
		return svc.Usagef("usage: secrets rotate --email E [--wait 60s]")
	}
	var cfg pgkit.Config
	if err := svc.LoadConfig(&cfg); err != nil {
		return err
	}
	pool, err := pgkit.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	secret, err := service.RotateSecretByEmail(ctx, pool, *email, time.Now().Add(*wait))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(os.Stdout, secret)
	return err
}
