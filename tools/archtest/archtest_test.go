package archtest

import (
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

// list runs go list in a service module and returns its module path and non-test imports.
func list(t *testing.T, dir string) (string, []Package) {
	t.Helper()
	out, err := exec.Command("go", "list", "-C", dir, "-m").Output()
	require.NoError(t, err, "go list -m in %s", dir)
	module := strings.TrimSpace(string(out))
	out, err = exec.Command("go", "list", "-C", dir, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	require.NoError(t, err, "go list in %s", dir)
	var pkgs []Package
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkgs = append(pkgs, Package{Path: fields[0], Imports: fields[1:]})
	}
	return module, pkgs
}
