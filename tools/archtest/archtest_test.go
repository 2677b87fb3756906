package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServicesKeepTheirLayers(t *testing.T) {
	dirs, err := filepath.Glob("../../services/*/go.mod")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, gomod := range dirs {
		dir := filepath.Dir(gomod)
		module, pkgs := list(t, dir)
		require.True(t, slices.ContainsFunc(pkgs, func(p Package) bool { return strings.Contains(p.Path, "/internal/domain") }),
			"%s: no domain package listed; the check would see nothing", dir)
		for _, v := range Check(module, pkgs) {
			t.Error(v)
		}
	}
}

func TestCheckFindsABrokenLayer(t *testing.T) {
	const m = "example.com/svc"
	pkgs := []Package{
		{Path: m + "/internal/domain/lead", Imports: []string{"strings", m + "/internal/adapters/postgres"}},
		{Path: m + "/internal/app", Imports: []string{m + "/internal/domain/lead", "github.com/redis/go-redis/v9"}},
		{Path: m + "/internal/ports", Imports: []string{m + "/internal/app", "github.com/gorilla/mux"}},
	}
	got := Check(m, pkgs)
	require.Len(t, got, 2)
	require.Contains(t, got[0], "internal/domain must not depend on internal/adapters")
	require.Contains(t, got[1], "internal/app must not depend on github.com/redis/go-redis")
}

// Each rule fails on one planted violation of it, and only on it.
func TestCheckFindsEachPlantedViolation(t *testing.T) {
	const m = "example.com/svc"
	clean := []Package{
		{Path: m + "/internal/domain/lead", Imports: []string{"time", "github.com/bizassist/bizassist/libs/apperr"}},
		{Path: m + "/internal/app", Imports: []string{m + "/internal/domain/lead", "github.com/bizassist/bizassist/libs/isotime",
			"github.com/bizassist/bizassist/libs/contracts/leadsevents"}},
		{Path: m + "/internal/ports", Imports: []string{m + "/internal/app", "github.com/gorilla/mux",
			"github.com/bizassist/bizassist/libs/events", "github.com/bizassist/bizassist/libs/httpx"}},
		{Path: m + "/internal/adapters/postgres", Imports: []string{m + "/internal/app", "github.com/jackc/pgx/v5",
			"github.com/bizassist/bizassist/libs/pgkit"}},
		{Path: m + "/internal/adapters/dnsserver/dnstest", Imports: []string{"net"}},
		{Path: m + "/internal/service", Imports: []string{m + "/internal/ports", m + "/internal/adapters/postgres"}},
		{Path: m + "/cmd/svc", Imports: []string{m + "/internal/service"}},
	}
	require.Empty(t, Check(m, clean), "the clean layout passes")

	for name, c := range map[string]struct {
		plant Package
		want  string
	}{
		"app imports pgx itself": {Package{Path: m + "/internal/app", Imports: []string{"github.com/jackc/pgx/v5"}},
			"internal/app must not depend on github.com/jackc/pgx"},
		"app imports a pgx subpackage": {Package{Path: m + "/internal/app/command", Imports: []string{"github.com/jackc/pgx/v5/pgconn"}},
			"internal/app must not depend on github.com/jackc/pgx"},
		"app imports httpx": {Package{Path: m + "/internal/app", Imports: []string{"github.com/bizassist/bizassist/libs/httpx"}},
			"internal/app must not depend on github.com/bizassist/bizassist/libs/httpx"},
		"domain imports httpx": {Package{Path: m + "/internal/domain/lead", Imports: []string{"github.com/bizassist/bizassist/libs/httpx"}},
			"internal/domain must not depend on github.com/bizassist/bizassist/libs/httpx"},
		"app imports the events envelope": {Package{Path: m + "/internal/app", Imports: []string{"github.com/bizassist/bizassist/libs/events"}},
			"internal/app must not depend on github.com/bizassist/bizassist/libs/events"},
		"app imports pgkit": {Package{Path: m + "/internal/app", Imports: []string{"github.com/bizassist/bizassist/libs/pgkit"}},
			"internal/app must not depend on github.com/bizassist/bizassist/libs/pgkit"},
		"app reaches httpx through a library": {Package{Path: m + "/internal/app", Imports: []string{"github.com/bizassist/bizassist/libs/allowance"},
			Deps: []string{"github.com/bizassist/bizassist/libs/allowance", "github.com/bizassist/bizassist/libs/httpx"}},
			"internal/app depends, through its imports, on github.com/bizassist/bizassist/libs/httpx"},
		"a package outside every layer": {Package{Path: m + "/internal/dnsserver", Imports: []string{"net"}},
			"example.com/svc/internal/dnsserver is in no layer"},
		"a package right under internal": {Package{Path: m + "/internal", Imports: nil},
			"example.com/svc/internal is in no layer"},
	} {
		got := Check(m, append(slices.Clone(clean), c.plant))
		require.Len(t, got, 1, name)
		require.Contains(t, got[0], c.want, name)
	}
}

// list runs go list in a service module and returns its module path and its packages' non-test
// imports and dependencies.
func list(t *testing.T, dir string) (string, []Package) {
	t.Helper()
	out, err := exec.Command("go", "list", "-C", dir, "-m").Output()
	require.NoError(t, err, "go list -m in %s", dir)
	module := strings.TrimSpace(string(out))
	out, err = exec.Command("go", "list", "-C", dir, "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "./...").Output()
	require.NoError(t, err, "go list in %s", dir)
	var pkgs []Package
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		pkgs = append(pkgs, Package{Path: f[0], Imports: strings.Fields(f[1]), Deps: strings.Fields(f[2])})
	}
	return module, pkgs
}

func TestServicesAreWiredOneWay(t *testing.T) {
	dirs, err := filepath.Glob("../../services/*/go.mod")
	require.NoError(t, err)
	for _, gomod := range dirs {
		for _, v := range CheckWiring(filepath.Dir(gomod)) {
			t.Error(v)
		}
	}
}

// A service wired another way is reported, once per difference.
func TestCheckWiringFindsEachDifference(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "svc")
	write := func(path, src string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(src), 0o644))
	}
	write("internal/service/service.go", "package service\n\ntype Config struct{}\n")
	write("internal/app/app.go", "package app\n\ntype UseCase struct{}\n")
	write("internal/ports/http.go", "package ports\n\ntype HTTP struct{}\n\nfunc (h HTTP) Routes(r *mux.Router, limit mux.MiddlewareFunc) {}\n")
	write("internal/adapters/store.go", "package adapters\n")
	write("internal/domain/lead/lead.go", "package lead\n\ntype Repository interface{}\n")
	write("cmd/svc/main.go", "package main\n\nfunc main() { svc.Main(service.Name, platform.Commands(build)) }\n")
	write("internal/service/new.go", "package service\n\nfunc New(ctx context.Context, cfg Config, opts ...Option) (*Service, error) { return nil, nil }\n")
	write("migrations/embed.go", "package migrations\n\nvar FS embed.FS\n")
	write("internal/ports/events.go", "package ports\n\nfunc EventHandlers(p app.Projections) map[string]events.Handler { return nil }\n")
	got := CheckWiring(dir)
	require.Len(t, got, 10, "%v", got)
	for i, want := range []string{"does not call platform.Commands(service.New)", "no func New(ctx context.Context, cfg Config)",
		"does not check its use cases with platform.Wired", "does not declare var Source", "config.go does not declare type Config", "no type Application", "no method (h *HTTP) Routes",
		"no func EventHandlers(a app.Application)", "adapters holds Go files directly", "declares a Repository"} {
		require.Contains(t, got[i], want)
	}

	write("cmd/svc/main.go", "package main\n\nfunc main() { svc.Main(service.Name, platform.Commands(service.New)) }\n")
	write("internal/service/new.go", "package service\n\nfunc New(ctx context.Context, cfg Config) (*Service, error) {\n"+
		"\treturn nil, platform.Wired(app.Application{})\n}\n")
	write("migrations/embed.go", "package migrations\n\nvar Source = pgkit.Source{Name: \"svc\", FS: files}\n")

	write("internal/service/config.go", "package service\n\ntype Config struct{}\n")
	write("internal/app/app.go", "package app\n\ntype Application struct{}\n")
	write("internal/ports/http.go", "package ports\n\ntype HTTP struct{}\n\nfunc (h *HTTP) Routes(r *mux.Router, mw platform.Middleware) {}\n")
	write("internal/ports/events.go", "package ports\n\nfunc EventHandlers(a app.Application) map[string]events.Handler { return nil }\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "internal/adapters/store.go")))
	write("internal/domain/lead/lead.go", "package lead\n\ntype Lead struct{}\n")
	require.Empty(t, CheckWiring(dir))
}
