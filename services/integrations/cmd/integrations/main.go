// Command integrations serves the webhook routes and delivers outbound webhooks.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

func main() {
	cmds := platform.Commands(service.New)
	cmds["secrets"] = svc.Command{Summary: "secrets rotate --email E: print a new inbound webhook secret for an owner", Run: secrets}
	svc.Main(service.Name, cmds)
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
	pool, err := platform.OpenPool(ctx)
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
