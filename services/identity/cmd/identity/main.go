// Command identity serves accounts, sign-in and token verification, and administers accounts and
// signing keys from the command line.
package main

import (
	"context"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

func main() {
	cmds := platform.Commands(service.New)
	cmds["accounts"] = svc.Command{Summary: "create|list|set-plan|set-password|disable|invite accounts; keys create|list|delete their API keys (passwords on stdin)", Run: accounts}
	cmds["keys"] = svc.Command{Summary: "rotate|list|revoke KID token signing keys; reseal them with ENCRYPTION_KEY_ID", Run: keys}
	svc.Main(service.Name, cmds)
}

func open(ctx context.Context) (*service.Service, error) { return platform.Load(ctx, service.New) }
