// Package svc runs a service binary: subcommands (serve, migrate, CLI verbs) with a context that
// ends on SIGINT/SIGTERM, typed configuration from the environment validated before anything
// starts, and JSON logs from the first line.
package svc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/caarlos0/env/v11"
)

// Command is one subcommand of a service binary.
type Command struct {
	Summary string
	Run     func(ctx context.Context, args []string) error
}

// UsageError marks a mistake in how a command was called; Main exits 2 for it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// Main runs the subcommand named by os.Args[1] ("serve" when absent) and exits.
func Main(name string, commands map[string]Command) {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("service", name))
	os.Exit(run(name, commands, os.Args[1:], os.Stderr))
}

func run(name string, commands map[string]Command, args []string, stderr io.Writer) int {
	cmdName := "serve"
	if len(args) > 0 {
		cmdName, args = args[0], args[1:]
	}
	if cmdName == "help" || cmdName == "-h" || cmdName == "--help" {
		usage(name, commands, stderr)
		return 0
	}
	cmd, ok := commands[cmdName]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", name, cmdName)
		usage(name, commands, stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd.Run(ctx, args); err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "%s %s: %s\n", name, cmdName, ue.Msg)
			return 2
		}
		slog.Error("command failed", "command", cmdName, "error", err)
		return 1
	}
	return 0
}

func usage(name string, commands map[string]Command, w io.Writer) {
	fmt.Fprintf(w, "usage: %s <command> [args]\n\ncommands:\n", name)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].Summary)
	}
}

// Validator is implemented by config structs that can check themselves.
type Validator interface{ Validate() error }

// LoadConfig fills cfg from the environment and validates it, so a bad setting stops the
// process before it serves anything.
func LoadConfig(cfg any) error {
	return LoadConfigFrom(cfg, nil)
}

// LoadConfigFrom is LoadConfig reading environ instead of the process environment when environ
// is not nil; tests use it to start a service with defaults plus a few settings of their own.
func LoadConfigFrom(cfg any, environ map[string]string) error {
	if err := env.ParseWithOptions(cfg, env.Options{Environment: environ}); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if v, ok := cfg.(Validator); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}
