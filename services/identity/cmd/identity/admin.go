package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
	"github.com/bizassist/bizassist/services/identity/internal/domain/apikey"
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

// verb is one operator command (`identity accounts create`, `identity keys rotate`, ...): it
// parses its own arguments and calls the service's use cases.
type verb func(ctx context.Context, s *service.Service, args []string) error

const accountVerbNames = "create, list, set-plan, set-password, disable, invite or keys"

var accountVerbs = map[string]verb{
	"create":       createAccount,
	"list":         listAccounts,
	"set-plan":     setPlan,
	"set-password": setPassword,
	"disable":      disableAccount,
	"invite":       inviteClient,
	"keys":         apiKeys,
}

var keyVerbs = map[string]verb{
	"rotate": rotateSigningKey,
	"list":   listSigningKeys,
	"reseal": resealSigningKeys,
	"revoke": withdrawSigningKey,
}

var apiKeyVerbs = map[string]verb{
	"create": createAPIKey,
	"list":   listAPIKeys,
	"delete": deleteAPIKey,
}

func accounts(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return svc.Usagef("accounts needs a verb: %s", accountVerbNames)
	}
	v, ok := accountVerbs[args[0]]
	if !ok {
		return svc.Usagef("unknown verb %q: want %s", args[0], accountVerbNames)
	}
	return withService(ctx, v, args[1:])
}

func keys(ctx context.Context, args []string) error {
	if len(args) == 0 || keyVerbs[args[0]] == nil || (args[0] == "revoke") != (len(args) == 2) || len(args) > 2 {
		return svc.Usagef("usage: keys rotate|list|reseal|revoke KID")
	}
	return withService(ctx, keyVerbs[args[0]], args[1:])
}

// apiKeys dispatches `accounts keys create|list|delete`, an account's API keys.
func apiKeys(ctx context.Context, s *service.Service, args []string) error {
	if len(args) == 0 || apiKeyVerbs[args[0]] == nil {
		return svc.Usagef("usage: accounts keys create <id|email> --name NAME | list <id|email> | delete <id|email> <key id>")
	}
	return apiKeyVerbs[args[0]](ctx, s, args[1:])
}

// withService builds the service as serve would and runs v with it.
func withService(ctx context.Context, v verb, args []string) error {
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	return v(ctx, s, args)
}

func createAccount(ctx context.Context, s *service.Service, args []string) error {
	fs := flag.NewFlagSet("accounts create", flag.ContinueOnError)
	email := fs.String("email", "", "owner email (required)")
	plan := fs.String("plan", "free", "free, growth or full_stack")
	business := fs.String("business", "", "business name")
	ifMissing := fs.Bool("if-missing", false, "succeed without changes when the email exists (for seeding)")
	if err := fs.Parse(args); err != nil {
		return svc.Usagef("%v", err)
	}
	if *email == "" {
		return svc.Usagef("--email is required; the password is read from standard input")
	}
	password, err := readPassword(os.Stdin)
	if err != nil {
		return err
	}
	acc, err := s.App.CreateAccount.Handle(ctx, app.CreateAccountCommand{Email: *email, Password: password, Plan: *plan, BusinessName: *business})
	if *ifMissing && apperr.CodeOf(err) == "email_taken" {
		fmt.Printf("account %s exists; left unchanged\n", *email)
		return nil
	}
	if err != nil {
		return explain(err)
	}
	fmt.Printf("created %s %s (%s)\n", acc.ID(), acc.Email(), acc.Plan())
	return nil
}

func listAccounts(ctx context.Context, s *service.Service, args []string) error {
	fs := flag.NewFlagSet("accounts list", flag.ContinueOnError)
	owner := fs.String("clients-of", "", "list the clients of this owner (id or email) instead of owners")
	if err := fs.Parse(args); err != nil {
		return svc.Usagef("%v", err)
	}
	list, err := s.App.ListAccounts.Handle(ctx, *owner)
	if err != nil {
		return explain(err)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tROLE\tSTATUS\tBUSINESS\tCREATED")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID(), a.Email(), a.Plan(), a.Role(), a.Status(), a.BusinessName(), a.CreatedAt().Format(time.RFC3339))
	}
	return tw.Flush()
}

func setPlan(ctx context.Context, s *service.Service, args []string) error {
	if len(args) != 2 {
		return svc.Usagef("usage: accounts set-plan <id|email> <plan>")
	}
	acc, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	if _, err := s.App.SetPlan.Handle(ctx, acc.ID(), args[1]); err != nil {
		return explain(err)
	}
	fmt.Printf("%s is now on %s\n", acc.Email(), args[1])
	return nil
}

func setPassword(ctx context.Context, s *service.Service, args []string) error {
	if len(args) < 1 {
		return svc.Usagef("usage: accounts set-password <id|email>")
	}
	acc, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	password, err := readPassword(os.Stdin)
	if err != nil {
		return err
	}
	if err := s.App.SetPassword.Handle(ctx, acc.ID(), password); err != nil {
		return explain(err)
	}
	fmt.Printf("password of %s changed\n", acc.Email())
	return nil
}

func disableAccount(ctx context.Context, s *service.Service, args []string) error {
	if len(args) < 1 {
		return svc.Usagef("usage: accounts disable <id|email>")
	}
	acc, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	if err := s.App.Disable.Handle(ctx, acc.ID()); err != nil {
		return explain(err)
	}
	fmt.Printf("%s disabled\n", acc.Email())
	return nil
}

func inviteClient(ctx context.Context, s *service.Service, args []string) error {
	if len(args) < 1 || strings.HasPrefix(args[0], "-") {
		return svc.Usagef("usage: accounts invite <owner id|email> --email EMAIL --business NAME [--owner-name NAME] [--phone PHONE] [--plan PLAN]")
	}
	fs := flag.NewFlagSet("accounts invite", flag.ContinueOnError)
	email := fs.String("email", "", "the client's email (required)")
	business := fs.String("business", "", "the client's business name (required)")
	ownerName := fs.String("owner-name", "", "the client's owner's name")
	phone := fs.String("phone", "", "the client's phone")
	plan := fs.String("plan", "", "the client's plan (default free)")
	if err := fs.Parse(args[1:]); err != nil {
		return svc.Usagef("%v", err)
	}
	owner, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	inv, err := s.App.InviteClient.Handle(ctx, app.InviteClientCommand{OwnerID: owner.ID(), ClientDetails: account.ClientDetails{
		Email: *email, BusinessName: *business, OwnerName: *ownerName, Phone: *phone, Plan: *plan}})
	if err != nil {
		return explain(err)
	}
	// The token goes to standard output only, for the operator to pass on; it is never logged.
	fmt.Printf("invited %s %s; invitation token (valid until %s):\n%s\n", inv.Client.ID(), inv.Client.Email(),
		inv.ExpiresAt.Format(time.RFC3339), inv.Token)
	return nil
}

func createAPIKey(ctx context.Context, s *service.Service, args []string) error {
	if len(args) < 1 || strings.HasPrefix(args[0], "-") {
		return svc.Usagef("usage: accounts keys create <id|email> --name NAME")
	}
	fs := flag.NewFlagSet("accounts keys create", flag.ContinueOnError)
	name := fs.String("name", "", "what the key is for (required)")
	if err := fs.Parse(args[1:]); err != nil {
		return svc.Usagef("%v", err)
	}
	acc, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	k, secret, err := s.App.CreateKey.Handle(ctx, acc.ID(), *name)
	if err != nil {
		return explain(err)
	}
	// The key goes to standard output only, once; it is never logged or stored.
	fmt.Printf("created API key %s (%s) for %s; it is shown only now:\n%s\n", k.ID(), k.Name(), acc.Email(), secret)
	return nil
}

func listAPIKeys(ctx context.Context, s *service.Service, args []string) error {
	if len(args) != 1 {
		return svc.Usagef("usage: accounts keys list <id|email>")
	}
	acc, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	list, err := s.App.ListKeys.Handle(ctx, acc.ID())
	if err != nil {
		return explain(err)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tCREATED\tLAST USED")
	for _, k := range list {
		used := "-"
		if !k.LastUsedAt().IsZero() {
			used = k.LastUsedAt().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID(), k.Name(), k.Prefix(), k.CreatedAt().Format(time.RFC3339), used)
	}
	return tw.Flush()
}

func deleteAPIKey(ctx context.Context, s *service.Service, args []string) error {
	if len(args) != 2 {
		return svc.Usagef("usage: accounts keys delete <id|email> <key id>")
	}
	acc, err := find(ctx, s, args[0])
	if err != nil {
		return err
	}
	if err := s.App.DeleteKey.Handle(ctx, acc.ID(), args[1]); err != nil {
		return explain(err)
	}
	fmt.Printf("API key %s deleted; every service refuses it within seconds\n", args[1])
	return nil
}

// find resolves the account a verb's first argument names, by id or email.
func find(ctx context.Context, s *service.Service, idOrEmail string) (*account.Account, error) {
	acc, err := s.App.FindAccount.Handle(ctx, idOrEmail)
	if err != nil {
		return nil, explain(err)
	}
	return acc, nil
}

func rotateSigningKey(ctx context.Context, s *service.Service, _ []string) error {
	kid, err := s.App.RotateSigningKey.Handle(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("new signing key %s; older keys stay published until their tokens expire\n", kid)
	return nil
}

func withdrawSigningKey(ctx context.Context, s *service.Service, args []string) error {
	if err := s.App.WithdrawSigningKey.Handle(ctx, args[0]); err != nil {
		return explain(err)
	}
	fmt.Printf("signing key %s withdrawn: no longer published; tokens it signed stop verifying as verifiers refetch the JWKS (within a minute)\n", args[0])
	return nil
}

func resealSigningKeys(ctx context.Context, s *service.Service, _ []string) error {
	n, err := s.App.ResealSigningKeys.Handle(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("resealed %d signing keys; every key is sealed with ENCRYPTION_KEY_ID now\n", n)
	return nil
}

func listSigningKeys(ctx context.Context, s *service.Service, _ []string) error {
	ring, err := s.App.ListSigningKeys.Handle(ctx)
	if err != nil {
		return err
	}
	active, _ := ring.Active()
	tw := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "KID\tCREATED\tRETIRED\tSIGNING")
	for _, k := range ring {
		retired := "-"
		if k.RetiredAt != nil {
			retired = k.RetiredAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\n", k.Kid, k.CreatedAt.Format(time.RFC3339), retired, k.Kid == active.Kid)
	}
	return tw.Flush()
}

// readPassword takes the first line of r, so passwords never appear in argument lists.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password from stdin: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", svc.Usagef("the password is read from standard input, and it was empty")
	}
	return line, nil
}

// explain turns domain errors into the message an operator needs.
func explain(err error) error {
	if errors.Is(err, account.ErrNotFound) {
		return svc.Usagef("no such account")
	}
	if errors.Is(err, apikey.ErrNotFound) {
		return svc.Usagef("no such API key")
	}
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Kind != apperr.KindInternal {
		return svc.Usagef("%s", ae.Message)
	}
	return err
}
