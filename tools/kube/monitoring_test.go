package kube

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	runbooksDir     = "../../docs/runbooks"
	runbookBase     = "https://github.com/bizassist/bizassist/blob/main/docs/runbooks"
	kubePromRelease = "kube-prometheus-stack"
)

// runbookSections are the headings every runbook page has.
var runbookSections = []string{"## What it means", "## How to confirm", "## How to mitigate"}

// alertsOf lists (alert name, runbook_url) of every alert in the PrometheusRules among objs.
func alertsOf(objs []*unstructured.Unstructured) map[string]string {
	alerts := map[string]string{}
	for _, o := range objs {
		if o.GetKind() != "PrometheusRule" {
			continue
		}
		groups, _, _ := unstructured.NestedSlice(o.Object, "spec", "groups")
		for _, g := range groups {
			rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
			for _, r := range rules {
				rule := r.(map[string]any)
				name, _ := rule["alert"].(string)
				if name == "" {
					continue
				}
				url, _, _ := unstructured.NestedString(rule, "annotations", "runbook_url")
				alerts[name] = url
			}
		}
	}
	return alerts
}

// runbookProblems says what is wrong with the runbook links of the given alerts: no runbook_url,
// one not pointing at base/<alert>.md, or no page in dir with the three sections.
func runbookProblems(alerts map[string]string, base, dir string) []string {
	var problems []string
	for name, url := range alerts {
		if url == "" {
			problems = append(problems, name+": no runbook_url annotation")
			continue
		}
		if want := base + "/" + name + ".md"; url != want {
			problems = append(problems, fmt.Sprintf("%s: runbook_url %s, want %s", name, url, want))
		}
		page, err := os.ReadFile(filepath.Join(dir, name+".md"))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: no docs/runbooks/%s.md", name, name))
			continue
		}
		for _, s := range runbookSections {
			if !strings.Contains(string(page), "\n"+s+"\n") {
				problems = append(problems, fmt.Sprintf("%s: docs/runbooks/%s.md has no %q", name, name, s))
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// Every alert the umbrella chart ships links to its runbook page, and the page exists with what it
// means, how to confirm and how to mitigate; every page belongs to a shipped alert.
func TestRunbooks(t *testing.T) {
	alerts := alertsOf(decode(t, render(t, renderCase{name: "runbooks", apiVersions: monitoringAPIs})))
	require.Contains(t, alerts, "BizassistSLOBurnRatePage")
	require.Contains(t, alerts, "BizassistTargetDown")
	require.Empty(t, runbookProblems(alerts, runbookBase, runbooksDir))

	pages, err := filepath.Glob(filepath.Join(runbooksDir, "*.md"))
	require.NoError(t, err)
	for _, p := range pages {
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		if name != "README" {
			require.Contains(t, alerts, name, "%s documents an alert the charts do not ship", p)
		}
	}

	// A planted alert without a page, one with a foreign runbook_url and one without any fail.
	planted := render(t, renderCase{name: "planted", apiVersions: monitoringAPIs}, "--set-json",
		`prometheusRule.extraRules=[{"name":"planted","rules":[{"alert":"BizassistPlanted","expr":"vector(1)"},`+
			`{"alert":"BizassistHighErrorRate","expr":"vector(1)","annotations":{"runbook_url":"https://example.com/x"}}]}]`)
	alerts = alertsOf(decode(t, planted))
	alerts["BizassistBare"] = ""
	require.Equal(t, []string{
		"BizassistBare: no runbook_url annotation",
		"BizassistHighErrorRate: runbook_url https://example.com/x, want " + runbookBase + "/BizassistHighErrorRate.md",
		"BizassistPlanted: no docs/runbooks/BizassistPlanted.md",
	}, runbookProblems(alerts, runbookBase, runbooksDir))

	// The base URL is the chart's to set.
	moved := render(t, renderCase{name: "moved", apiVersions: monitoringAPIs}, "--set", "global.monitoring.runbookBaseUrl=https://runbooks.example.com/ops/")
	require.Empty(t, runbookProblems(alertsOf(decode(t, moved)), "https://runbooks.example.com/ops", runbooksDir))
}

func kinds(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// forceOn sets every monitoring switch to v.
func forceOn(v string) []string {
	args := []string{"--set", "prometheusRule.enabled=" + v}
	for _, s := range services {
		args = append(args, "--set", s+".serviceMonitor.enabled="+v)
	}
	return args
}

// GitOps renders with `helm template`, which knows no cluster: enabled=true renders the
// ServiceMonitors and the PrometheusRule without .Capabilities, auto (the default) needs them,
// false drops them even when the cluster has the API. Every one carries the label
// kube-prometheus-stack selects, or the one set.
func TestMonitoringObjectsForcedOn(t *testing.T) {
	none := decode(t, render(t, renderCase{name: "auto-without-api"}))
	require.Empty(t, kinds(none, "ServiceMonitor"))
	require.Empty(t, kinds(none, "PrometheusRule"))

	off := decode(t, render(t, renderCase{name: "off", apiVersions: monitoringAPIs}, forceOn("false")...))
	require.Empty(t, kinds(off, "ServiceMonitor"))
	require.Empty(t, kinds(off, "PrometheusRule"))

	for name, objs := range map[string][]*unstructured.Unstructured{
		"forced without api": decode(t, render(t, renderCase{name: "forced"}, forceOn("true")...)),
		"auto with api":      decode(t, render(t, renderCase{name: "auto", apiVersions: monitoringAPIs})),
	} {
		sms, prs := kinds(objs, "ServiceMonitor"), kinds(objs, "PrometheusRule")
		require.Len(t, sms, len(services), name)
		require.Len(t, prs, 1, name)
		for _, o := range append(sms, prs...) {
			require.Equal(t, kubePromRelease, o.GetLabels()["release"], "%s: %s %s", name, o.GetKind(), o.GetName())
		}
	}

	relabelled := decode(t, render(t, renderCase{name: "relabelled"}, append(forceOn("true"),
		"--set", "global.monitoring.labels.release=prom", "--set", "leads.serviceMonitor.labels.team=sales")...))
	for _, o := range append(kinds(relabelled, "ServiceMonitor"), kinds(relabelled, "PrometheusRule")...) {
		require.Equal(t, "prom", o.GetLabels()["release"], o.GetName())
		if o.GetName() == release+"-leads" && o.GetKind() == "ServiceMonitor" {
			require.Equal(t, "sales", o.GetLabels()["team"])
		}
	}
}

// Dashboard ConfigMaps carry the Grafana sidecar's label and the folder annotation.
func TestDashboardFolder(t *testing.T) {
	check := func(objs []*unstructured.Unstructured, key, folder string) {
		n := 0
		for _, o := range kinds(objs, "ConfigMap") {
			if o.GetLabels()["grafana_dashboard"] != "1" {
				continue
			}
			n++
			if folder == "" {
				require.Empty(t, o.GetAnnotations(), o.GetName())
			} else {
				require.Equal(t, map[string]string{key: folder}, o.GetAnnotations(), o.GetName())
			}
		}
		require.NotZero(t, n)
	}
	check(decode(t, render(t, renderCase{name: "folder"})), "k8s-sidecar-target-directory", "bizassist")
	check(decode(t, render(t, renderCase{name: "folder-set"}, "--set", "global.monitoring.dashboards.folderAnnotation=grafana_folder",
		"--set", "global.monitoring.dashboards.folder=Shop")), "grafana_folder", "Shop")
	check(decode(t, render(t, renderCase{name: "no-folder"}, "--set", "global.monitoring.dashboards.folder=")), "", "")
}

// A service chart ships its own rules/*.yaml and dashboards/*.json (and prometheusRule.extraRules
// from values): a copy of identity with one of each renders them, runbook links and labels included.
func TestServiceChartShipsRulesAndDashboards(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "identity")
	out, err := exec.Command("cp", "-r", filepath.Join(chartsDir, "identity"), dir).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rules"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dashboards"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules", "own.yaml"),
		[]byte("groups:\n  - name: own\n    rules:\n      - alert: BizassistIdentityOwn\n        expr: vector(1)\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dashboards", "own.json"), []byte(`{"uid":"identity-own","panels":[]}`), 0o644))

	rendered, err := helm("template", release, dir, "--set", "prometheusRule.enabled=true", "--set-json",
		`prometheusRule.extraRules=[{"name":"extra","rules":[{"alert":"BizassistIdentityExtra","expr":"vector(1)"}]}]`)
	require.NoError(t, err, rendered)
	objs := decode(t, rendered)
	prs := kinds(objs, "PrometheusRule")
	require.Len(t, prs, 1)
	require.Equal(t, release+"-identity", prs[0].GetName())
	require.Equal(t, kubePromRelease, prs[0].GetLabels()["release"])
	require.Equal(t, map[string]string{
		"BizassistIdentityOwn":   runbookBase + "/BizassistIdentityOwn.md",
		"BizassistIdentityExtra": runbookBase + "/BizassistIdentityExtra.md",
	}, alertsOf(objs))
	var dashboards []string
	for _, o := range kinds(objs, "ConfigMap") {
		if o.GetLabels()["grafana_dashboard"] == "1" {
			dashboards = append(dashboards, o.GetName())
			require.Equal(t, "bizassist", o.GetAnnotations()["k8s-sidecar-target-directory"])
		}
	}
	require.Equal(t, []string{release + "-identity-dashboard-own"}, dashboards)

	// The shipped service charts have no rules of their own: no empty PrometheusRule.
	plain, err := helm("template", release, filepath.Join(chartsDir, "identity"), "--set", "prometheusRule.enabled=true")
	require.NoError(t, err, plain)
	require.Empty(t, kinds(decode(t, plain), "PrometheusRule"))
}
