package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestMonitoringOptions(t *testing.T) {
	t.Setenv("DEVSTACK_MONITORING", "1")
	t.Setenv("DEVSTACK_ALERT_WEBHOOK", "http://127.0.0.1:5001/alerts")
	t.Setenv("DEVSTACK_ALERT_FOR", "BizassistRateLimitFallback=5s, BizassistTargetDown=1m")
	m, err := monitoringOptionsFromEnv()
	require.NoError(t, err)
	require.Equal(t, monitoringOptions{on: true, webhook: "http://127.0.0.1:5001/alerts",
		forOverrides: map[string]string{"BizassistRateLimitFallback": "5s", "BizassistTargetDown": "1m"}}, m)

	t.Setenv("DEVSTACK_ALERT_FOR", "BizassistTargetDown")
	_, err = monitoringOptionsFromEnv()
	require.ErrorContains(t, err, `"BizassistTargetDown" is not Alert=duration`)
	t.Setenv("DEVSTACK_ALERT_FOR", "")
	t.Setenv("DEVSTACK_MONITORING", "yes")
	_, err = monitoringOptionsFromEnv()
	require.ErrorContains(t, err, `MONITORING="yes"`)
}

// The rule file is the rendered PrometheusRule's spec, whatever else the manifest holds.
func TestRuleFile(t *testing.T) {
	manifest := []byte(`---
# Source: bizassist/templates/other.yaml
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
# Source: bizassist/templates/prometheusrule.yaml
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: bizassist
spec:
  groups:
    - name: bizassist-http
      rules:
        - alert: BizassistHighErrorRate
          expr: vector(1) > 0
          for: 10m
`)
	b, err := ruleFile(manifest)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, yaml.Unmarshal(b, &got))
	require.Equal(t, map[string]any{"groups": []any{map[string]any{"name": "bizassist-http", "rules": []any{
		map[string]any{"alert": "BizassistHighErrorRate", "expr": "vector(1) > 0", "for": "10m"},
	}}}}, got)

	_, err = ruleFile([]byte("kind: ConfigMap\n"))
	require.ErrorContains(t, err, "no PrometheusRule")
}

// Every process is a target with the labels its pod's ServiceMonitor gives it in a cluster.
func TestPrometheusConfig(t *testing.T) {
	p := &plan{running: []*service{{name: "leads", port: 8082, replicas: 2, env: serviceEnv{}}}}
	var cfg struct {
		Global        map[string]string `yaml:"global"`
		RuleFiles     []string          `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			HonorLabels   bool   `yaml:"honor_labels"`
			StaticConfigs []struct {
				Targets []string          `yaml:"targets"`
				Labels  map[string]string `yaml:"labels"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	require.NoError(t, yaml.Unmarshal(prometheusConfig(p), &cfg))
	require.Equal(t, scrapeInterval, cfg.Global["evaluation_interval"])
	require.Equal(t, []string{"rules.yaml"}, cfg.RuleFiles)
	require.Len(t, cfg.ScrapeConfigs, 1)
	sc := cfg.ScrapeConfigs[0]
	require.Equal(t, "bizassist-leads", sc.JobName)
	require.True(t, sc.HonorLabels)
	require.Len(t, sc.StaticConfigs, 2)
	require.Equal(t, []string{"127.0.0.1:8182"}, sc.StaticConfigs[1].Targets)
	require.Equal(t, map[string]string{"cluster": "local", "namespace": "bizassist", "service": "leads",
		"pod": "bizassist-leads-2", "container": "leads", "endpoint": "http"}, sc.StaticConfigs[1].Labels)
}

func TestAlertmanagerConfig(t *testing.T) {
	var cfg struct {
		Route     map[string]any   `yaml:"route"`
		Receivers []map[string]any `yaml:"receivers"`
	}
	require.NoError(t, yaml.Unmarshal(alertmanagerConfig("http://127.0.0.1:5001/alerts"), &cfg))
	require.Equal(t, "stack", cfg.Route["receiver"])
	require.Equal(t, []any{map[string]any{"url": "http://127.0.0.1:5001/alerts", "send_resolved": true}}, cfg.Receivers[0]["webhook_configs"])

	require.NoError(t, yaml.Unmarshal(alertmanagerConfig(""), &cfg))
	require.Equal(t, []map[string]any{{"name": "stack"}}, cfg.Receivers)
}
