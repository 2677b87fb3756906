package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform/platformtest"
	"github.com/bizassist/bizassist/libs/sealbox/sealboxtest"
	"github.com/bizassist/bizassist/services/identity/internal/service"
)

// buildAndMigrate compiles the identity binary and migrates the database environ names; it
// returns the binary and environ, with a sealing key added, as a process environment.
func buildAndMigrate(t *testing.T, environ map[string]string) (bin string, env []string) {
	t.Helper()
	bin = filepath.Join(t.TempDir(), "identity")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	sealing := sealboxtest.Config(t)
	environ["ENCRYPTION_KEYS"], environ["ENCRYPTION_KEY_ID"] = sealing.Keys, sealing.KeyID
	for k, v := range environ {
		env = append(env, k+"="+v)
	}
	migrate := exec.Command(bin, "migrate")
	migrate.Env = env
	out, err = migrate.CombinedOutput()
	require.NoError(t, err, "identity migrate: %s", out)
	return bin, env
}

// cli runs identity's command line as operators and the local stack's seed do.
type cli struct {
	bin string
	env []string
}

// run runs the binary with args and stdin, and returns its standard output, its standard error
// and its exit code.
func (c cli) run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(c.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = c.env, strings.NewReader(stdin), &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return stdout.String(), stderr.String(), 0
}

// ok runs a command that must succeed and returns its standard output.
func (c cli) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := c.run(t, stdin, args...)
	require.Zero(t, code, "identity %s: %s", strings.Join(args, " "), errOut)
	return out
}

// usage runs a command that must be refused as a usage error (exit 2) with message.
func (c cli) usage(t *testing.T, stdin, message string, args ...string) {
	t.Helper()
	out, errOut, code := c.run(t, stdin, args...)
	require.Equal(t, 2, code, "identity %s: %s", strings.Join(args, " "), errOut)
	require.Contains(t, errOut, "identity "+args[0]+": "+message+"\n")
	require.Empty(t, out)
}

// table splits tabwriter output into rows of fields.
func table(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1))
	}
	return rows
}

const password = "correct horse battery\n"

// TestAccountVerbs pins every accounts verb, flag, message and exit code that operators, the
// README and dev-seed.sh rely on.
func TestAccountVerbs(t *testing.T) {
	t.Parallel()
	bin, env := buildAndMigrate(t, platformtest.Env(t, service.Name, "http://127.0.0.1:1/jwks.json"))
	c := cli{bin, env}

	out := c.ok(t, password, "accounts", "create", "--email", "Ann@Example.com", "--plan", "growth", "--business", "Ann's Bakery")
	require.Regexp(t, `^created acc_[0-9A-Z]{26} ann@example.com \(growth\)\n$`, out)
	id := strings.Fields(out)[1]
	require.Equal(t, "account ann@example.com exists; left unchanged\n",
		c.ok(t, password, "accounts", "create", "--email", "ann@example.com", "--plan", "growth", "--business", "Ann's Bakery", "--if-missing"))
	c.usage(t, password, "an account with this email exists", "accounts", "create", "--email", "ann@example.com")
	c.usage(t, password, "--email is required; the password is read from standard input", "accounts", "create")
	c.usage(t, "", "the password is read from standard input, and it was empty", "accounts", "create", "--email", "bob@example.com")
	require.Regexp(t, `^created acc_\w+ bob@example.com \(free\)\n$`, c.ok(t, password, "accounts", "create", "--email", "bob@example.com"))

	rows := table(c.ok(t, "", "accounts", "list"))
	require.Equal(t, []string{"ID", "EMAIL", "PLAN", "ROLE", "STATUS", "BUSINESS", "CREATED"}, rows[0])
	require.Len(t, rows, 3)
	var ann []string
	for _, r := range rows[1:] {
		if r[1] == "ann@example.com" {
			ann = r
		}
	}
	require.Equal(t, []string{id, "ann@example.com", "growth", "owner", "active", "Ann's Bakery"}, ann[:6])
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, ann[6])
	require.Equal(t, [][]string{{"ID", "EMAIL", "PLAN", "ROLE", "STATUS", "BUSINESS", "CREATED"}},
		table(c.ok(t, "", "accounts", "list", "--clients-of", "ann@example.com")))
	c.usage(t, "", "no such account", "accounts", "list", "--clients-of", "nobody@example.com")

	require.Equal(t, "ann@example.com is now on full_stack\n", c.ok(t, "", "accounts", "set-plan", "ann@example.com", "full_stack"))
	require.Equal(t, "ann@example.com is now on growth\n", c.ok(t, "", "accounts", "set-plan", id, "growth"), "by id too")
	c.usage(t, "", "usage: accounts set-plan <id|email> <plan>", "accounts", "set-plan", "ann@example.com")
	c.usage(t, "", "no such account", "accounts", "set-plan", "nobody@example.com", "growth")

	require.Equal(t, "password of ann@example.com changed\n", c.ok(t, "another long password\n", "accounts", "set-password", "ann@example.com"))
	c.usage(t, "", "usage: accounts set-password <id|email>", "accounts", "set-password")
	c.usage(t, "", "the password is read from standard input, and it was empty", "accounts", "set-password", "ann@example.com")

	require.Equal(t, "bob@example.com disabled\n", c.ok(t, "", "accounts", "disable", "bob@example.com"))
	c.usage(t, "", "usage: accounts disable <id|email>", "accounts", "disable")
	c.usage(t, "", "no such account", "accounts", "disable", "nobody@example.com")
	for _, r := range table(c.ok(t, "", "accounts", "list"))[1:] {
		require.Equal(t, map[string]string{"ann@example.com": "active", "bob@example.com": "disabled"}[r[1]], r[4])
	}

	c.usage(t, "", "accounts needs a verb: create, list, set-plan, set-password or disable", "accounts")
	c.usage(t, "", `unknown verb "frob": want create, list, set-plan, set-password or disable`, "accounts", "frob")
}

// TestKeyVerbs pins the keys verbs the README documents.
func TestKeyVerbs(t *testing.T) {
	t.Parallel()
	bin, env := buildAndMigrate(t, platformtest.Env(t, service.Name, "http://127.0.0.1:1/jwks.json"))
	c := cli{bin, env}

	rows := table(c.ok(t, "", "keys", "list"))
	require.Equal(t, []string{"KID", "CREATED", "RETIRED", "SIGNING"}, rows[0])
	require.Len(t, rows, 2, "migrate made the first key")
	require.Equal(t, []string{"-", "true"}, rows[1][2:])
	first := rows[1][0]

	out := c.ok(t, "", "keys", "rotate")
	require.Regexp(t, `^new signing key \S+; older keys stay published until their tokens expire\n$`, out)
	kid := strings.TrimSuffix(strings.Fields(out)[3], ";")
	rows = table(c.ok(t, "", "keys", "list"))
	require.Len(t, rows, 3)
	signing := map[string]string{}
	for _, r := range rows[1:] {
		signing[r[0]] = r[3]
	}
	require.Equal(t, map[string]string{first: "false", kid: "true"}, signing)

	require.Equal(t, "resealed 0 signing keys; every key is sealed with ENCRYPTION_KEY_ID now\n", c.ok(t, "", "keys", "reseal"))
	for _, args := range [][]string{{"keys"}, {"keys", "frob"}, {"keys", "list", "extra"}} {
		c.usage(t, "", "usage: keys rotate|list|reseal", args...)
	}
}
