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

	c.usage(t, "", "accounts needs a verb: create, list, set-plan, set-password, disable, invite or keys", "accounts")
	c.usage(t, "", `unknown verb "frob": want create, list, set-plan, set-password, disable, invite or keys`, "accounts", "frob")
}

// TestInviteAndAPIKeyVerbs pins the operators' client invitation and API key verbs: secrets go
// to standard output once and never into arguments or standard error.
func TestInviteAndAPIKeyVerbs(t *testing.T) {
	t.Parallel()
	bin, env := buildAndMigrate(t, platformtest.Env(t, service.Name, "http://127.0.0.1:1/jwks.json"))
	c := cli{bin, env}
	c.ok(t, password, "accounts", "create", "--email", "ann@example.com", "--plan", "growth")

	out, errOut, code := c.run(t, "", "accounts", "invite", "ann@example.com", "--email", "Shop@Example.com", "--business", "Shop")
	require.Zero(t, code, errOut)
	require.Regexp(t, `^invited acc_\w+ shop@example.com; invitation token \(valid until \S+\):\nbzi_[\w-]{43}\n$`, out)
	require.NotContains(t, errOut, "bzi_")
	rows := table(c.ok(t, "", "accounts", "list", "--clients-of", "ann@example.com"))
	require.Equal(t, []string{"shop@example.com", "free", "client", "invited", "Shop"}, rows[1][1:6])
	c.usage(t, "", "usage: accounts invite <owner id|email> --email EMAIL --business NAME [--owner-name NAME] [--phone PHONE] [--plan PLAN]", "accounts", "invite")
	c.usage(t, "", "no such account", "accounts", "invite", "nobody@example.com", "--email", "x@example.com", "--business", "X")

	out, errOut, code = c.run(t, "", "accounts", "keys", "create", "ann@example.com", "--name", "zapier")
	require.Zero(t, code, errOut)
	require.Regexp(t, `^created API key apk_\w+ \(zapier\) for ann@example.com; it is shown only now:\nbza_[0-9A-Za-z]{36}\n$`, out)
	require.NotContains(t, errOut, "bza_")
	keyID := strings.Fields(out)[3]
	secret := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])

	rows = table(c.ok(t, "", "accounts", "keys", "list", "ann@example.com"))
	require.Equal(t, []string{"ID", "NAME", "PREFIX", "CREATED", "LAST USED"}, rows[0])
	require.Equal(t, []string{keyID, "zapier", secret[:8]}, rows[1][:3])
	require.Equal(t, "-", rows[1][4])
	c.usage(t, "", "name is required", "accounts", "keys", "create", "ann@example.com")

	require.Equal(t, "API key "+keyID+" deleted; every service refuses it within seconds\n", c.ok(t, "", "accounts", "keys", "delete", "ann@example.com", keyID))
	c.usage(t, "", "no such API key", "accounts", "keys", "delete", "ann@example.com", keyID)
	require.Len(t, table(c.ok(t, "", "accounts", "keys", "list", "ann@example.com")), 1)
	c.usage(t, "", "usage: accounts keys create <id|email> --name NAME | list <id|email> | delete <id|email> <key id>", "accounts", "keys")
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

	require.Equal(t, "signing key "+kid+" withdrawn: no longer published; tokens it signed stop verifying as verifiers refetch the JWKS (within a minute)\n",
		c.ok(t, "", "keys", "revoke", kid))
	rows = table(c.ok(t, "", "keys", "list"))
	require.Len(t, rows, 3, "the withdrawn key is gone and a new one signs")
	for _, r := range rows[1:] {
		require.NotEqual(t, kid, r[0])
	}
	c.usage(t, "", "no such signing key (or it was withdrawn already)", "keys", "revoke", kid)
	for _, args := range [][]string{{"keys"}, {"keys", "frob"}, {"keys", "list", "extra"}, {"keys", "revoke"}} {
		c.usage(t, "", "usage: keys rotate|list|reseal|revoke KID", args...)
	}
}
