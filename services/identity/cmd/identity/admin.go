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
)

func accounts(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return svc.Usagef("accounts needs a verb: create, list, set-plan, set-password or disable")
	}
	verb, args := args[0], args[1:]
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()

	switch verb {
	case "create":
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
		acc, err := s.CreateAccount.Handle(ctx, app.CreateAccountCommand{Email: *email, Password: password, Plan: *plan, BusinessName: *business})
		if *ifMissing && apperr.CodeOf(err) == "email_taken" {
			fmt.Printf("account %s exists; left unchanged\n", *email)
			return nil
		}
		if err != nil {
			return explain(err)
		}
		fmt.Printf("created %s %s (%s)\n", acc.ID(), acc.Email(), acc.Plan())
		return nil
	case "list":
		fs := flag.NewFlagSet("accounts list", flag.ContinueOnError)
		owner := fs.String("clients-of", "", "list the clients of this owner (id or email) instead of owners")
		if err := fs.Parse(args); err != nil {
			return svc.Usagef("%v", err)
		}
		filter := account.ListFilter{}
		if *owner != "" {
			o, err := app.ResolveAccount(ctx, s.Accounts, *owner)
			if err != nil {
				return explain(err)
			}
			filter.OwnerID = o.ID()
		}
		list, err := s.Accounts.List(ctx, filter)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tROLE\tSTATUS\tBUSINESS\tCREATED")
		for _, a := range list {
			st := "active"
			if !a.Active() {
				st = "disabled"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID(), a.Email(), a.Plan(), a.Role(), st, a.BusinessName(), a.CreatedAt().Format(time.RFC3339))
		}
		return tw.Flush()
	case "set-plan", "set-password", "disable":
		if len(args) < 1 || (verb == "set-plan" && len(args) != 2) {
			return svc.Usagef("usage: accounts %s <id|email>%s", verb, map[bool]string{true: " <plan>", false: ""}[verb == "set-plan"])
		}
		acc, err := app.ResolveAccount(ctx, s.Accounts, args[0])
		if err != nil {
			return explain(err)
		}
		switch verb {
		case "set-plan":
			if _, err := s.SetPlan.Handle(ctx, acc.ID(), args[1]); err != nil {
				return explain(err)
			}
			fmt.Printf("%s is now on %s\n", acc.Email(), args[1])
		case "set-password":
			password, err := readPassword(os.Stdin)
			if err != nil {
				return err
			}
			if err := s.SetPassword.Handle(ctx, acc.ID(), password); err != nil {
				return explain(err)
			}
			fmt.Printf("password of %s changed\n", acc.Email())
		case "disable":
			if err := s.Disable.Handle(ctx, acc.ID()); err != nil {
				return explain(err)
			}
			fmt.Printf("%s disabled\n", acc.Email())
		}
		return nil
	default:
		return svc.Usagef("unknown verb %q: want create, list, set-plan, set-password or disable", verb)
	}
}

func keys(ctx context.Context, args []string) error {
	if len(args) != 1 || (args[0] != "rotate" && args[0] != "list" && args[0] != "reseal") {
		return svc.Usagef("usage: keys rotate|list|reseal")
	}
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	switch args[0] {
	case "rotate":
		kid, err := s.Keys.Rotate(ctx, time.Now().UTC())
		if err != nil {
			return err
		}
		fmt.Printf("new signing key %s; older keys stay published until their tokens expire\n", kid)
		return nil
	case "reseal":
		n, err := s.Keys.Reseal(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("resealed %d signing keys; every key is sealed with ENCRYPTION_KEY_ID now\n", n)
		return nil
	}
	ring, err := s.Keys.Ring(ctx)
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
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Kind != apperr.KindInternal {
		return svc.Usagef("%s", ae.Message)
	}
	return err
}
