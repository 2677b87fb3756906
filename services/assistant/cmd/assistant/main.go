// Command assistant serves the chat assistant and the agent-brain public feed.
package main

import (
	"context"

	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/assistant/internal/service"
)

func main() {
	svc.Main(service.Name, map[string]svc.Command{
		"serve":   {Summary: "serve the HTTP API, the outbox relay and the event consumer", Run: serve},
		"migrate": {Summary: "apply database migrations", Run: migrate},
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
