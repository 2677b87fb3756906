// Package svctest checks a service's configuration against the Helm chart that ships it.
package svctest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/caarlos0/env/v11"
	"go.yaml.in/yaml/v3"
)

// globalChoices are the settings of global.config that every deployment chooses for itself.
var globalChoices = map[string]string{
	"TRUSTED_PROXIES": "in a cluster the ingress controller's pods forward requests; a process started by hand trusts loopback only",
}

// ChartDefaultsAgree fails t for every setting the service's chart gives (its env over the
// umbrella chart's global.config) that the code also defaults, to another value, unless choices
// names it with the reason a deployment differs from a process started by hand; and for every
// choice that no longer differs or that the chart no longer sets. cfg points to the service's
// Config; service names its chart under charts/.
func ChartDefaultsAgree(t testing.TB, cfg any, service string, choices map[string]string) {
	t.Helper()
	params, err := env.GetFieldParams(cfg)
	if err != nil {
		t.Fatalf("svctest: read %T's settings: %v", cfg, err)
	}
	defaults := map[string]string{}
	for _, p := range params {
		if p.HasDefaultValue {
			defaults[p.Key] = p.DefaultValue
		}
	}
	charts := os.DirFS(filepath.Join(repoRoot(t), "charts"))
	set := chartEnv(t, charts, "bizassist/values.yaml", "global", "config")
	for k, v := range chartEnv(t, charts, service+"/values.yaml", "env") {
		set[k] = v
	}
	for key, val := range set {
		def, defaulted := defaults[key]
		why, chosen := choices[key]
		if global, ok := globalChoices[key]; ok && !chosen {
			why, chosen = global, true
		}
		switch {
		case defaulted && def != val && !chosen:
			t.Errorf("%s: the chart sets %q, the code defaults to %q: make them one, or name why a deployment differs", key, val, def)
		case chosen && (!defaulted || def == val):
			t.Errorf("%s: no longer a deployment choice (%s): the code defaults to %q and the chart sets %q", key, why, def, val)
		}
	}
	for key := range choices {
		if _, ok := set[key]; !ok {
			t.Errorf("%s: named as a deployment choice, but the chart does not set it", key)
		}
	}
}

// chartEnv reads the map at path (keys) of a values file of charts, each value as its text.
func chartEnv(t testing.TB, charts fs.FS, file string, path ...string) map[string]string {
	t.Helper()
	raw, err := fs.ReadFile(charts, file)
	if err != nil {
		t.Fatalf("svctest: %v", err)
	}
	var node any
	if err := yaml.Unmarshal(raw, &node); err != nil {
		t.Fatalf("svctest: %s: %v", file, err)
	}
	for _, k := range path {
		m, _ := node.(map[string]any)
		node = m[k]
	}
	out := map[string]string{}
	m, _ := node.(map[string]any)
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// repoRoot is the nearest directory above the test's holding go.work.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("svctest: %v", err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("svctest: no go.work above the test")
		}
	}
}
