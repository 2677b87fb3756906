package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Monitoring beside the stack (make up MONITORING=1, and the fault suite always): Prometheus and
// Alertmanager, the distribution's packages unpacked by tools/monitoring/install.sh, on fixed
// loopback ports.
const (
	prometheusPort   = 9090
	alertmanagerPort = 9093
	// scrapeInterval is also the rules' evaluation interval: short, so a test sees an alert
	// become pending within seconds of its expression turning true.
	scrapeInterval = "2s"
	// The labels every series gets, as the charts' ServiceMonitors give them in a cluster: the
	// install's namespace, cluster as platforms set it, job the Kubernetes Service's name.
	monitoringNamespace = "bizassist"
	monitoringCluster   = "local"
)

// monitoringOptions are make up's monitoring knobs.
type monitoringOptions struct {
	on bool // DEVSTACK_MONITORING=1 (make up MONITORING=1)
	// webhook is where Alertmanager sends alerts (DEVSTACK_ALERT_WEBHOOK); empty: nowhere, they
	// are only listed by its API.
	webhook string
	// forOverrides is the chart value prometheusRule.forOverrides (DEVSTACK_ALERT_FOR,
	// "Alert=10s,Other=30s"): alerts that fire after a shorter wait than the chart's.
	forOverrides map[string]string
}

func monitoringOptionsFromEnv() (monitoringOptions, error) {
	var m monitoringOptions
	switch v := os.Getenv("DEVSTACK_MONITORING"); v {
	case "", "0":
	case "1":
		m.on = true
	default:
		return m, fmt.Errorf("MONITORING=%q: want 1, or nothing for no monitoring", v)
	}
	m.webhook = os.Getenv("DEVSTACK_ALERT_WEBHOOK")
	if v := os.Getenv("DEVSTACK_ALERT_FOR"); v != "" {
		m.forOverrides = map[string]string{}
		for _, pair := range strings.Split(v, ",") {
			name, d, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if _, err := time.ParseDuration(d); !ok || name == "" || err != nil {
				return m, fmt.Errorf("DEVSTACK_ALERT_FOR: %q is not Alert=duration", pair)
			}
			m.forOverrides[name] = d
		}
	}
	return m, nil
}

func (s *stack) monitoringDir() string { return filepath.Join(s.dir, "monitoring") }

// prepareMonitoring unpacks Prometheus and Alertmanager, renders the chart's rules and writes
// both configurations for the plan's processes, before anything is stopped, so a failure here
// leaves the running stack as it was. It returns the binaries' directory.
func (s *stack) prepareMonitoring(ctx context.Context, p *plan, m monitoringOptions) (string, error) {
	dir := s.monitoringDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s.say("unpacking Prometheus and Alertmanager (tools/monitoring/install.sh; cached after the first time)")
	bins, err := s.toolDir(ctx, "tools/monitoring/install.sh")
	if err != nil {
		return "", err
	}
	rules, err := s.renderRules(ctx, m.forOverrides)
	if err != nil {
		return "", err
	}
	files := map[string][]byte{
		"rules.yaml":        rules,
		"prometheus.yaml":   prometheusConfig(p),
		"alertmanager.yaml": alertmanagerConfig(m.webhook),
	}
	for name, b := range files {
		if err := writeFileAtomic(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", err
		}
	}
	return bins, nil
}

// startMonitoring starts Prometheus and Alertmanager from bins with what prepareMonitoring wrote
// and waits until they are ready.
func (s *stack) startMonitoring(ctx context.Context, bins string) error {
	dir := s.monitoringDir()
	for name, args := range map[string][]string{
		"prometheus": {
			"--config.file=" + filepath.Join(dir, "prometheus.yaml"),
			"--storage.tsdb.path=" + filepath.Join(dir, "prometheus-data"),
			"--storage.tsdb.retention.time=2d",
			fmt.Sprintf("--web.listen-address=127.0.0.1:%d", prometheusPort),
			// Resolved and still-firing alerts reach Alertmanager within seconds, not a minute.
			"--rules.alert.resend-delay=2s",
		},
		"alertmanager": {
			"--config.file=" + filepath.Join(dir, "alertmanager.yaml"),
			"--storage.path=" + filepath.Join(dir, "alertmanager-data"),
			fmt.Sprintf("--web.listen-address=127.0.0.1:%d", alertmanagerPort),
			"--cluster.listen-address=", // one instance: no gossip port
		},
	} {
		port := prometheusPort
		if name == "alertmanager" {
			port = alertmanagerPort
		}
		if err := s.freePort(ctx, port, name); err != nil {
			return err
		}
		// Run through a link in bin/, so make down finds it like the services even without its pid file.
		link := filepath.Join(s.bin, name)
		_ = os.Remove(link)
		if err := os.Symlink(filepath.Join(bins, name), link); err != nil {
			return err
		}
		s.say("starting %s on http://127.0.0.1:%d", name, port)
		err := s.start(ctx, proc{
			pidfile: s.pidfile(name),
			log:     filepath.Join(s.logs, name+".log"),
			env:     []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")},
			args:    append([]string{link}, args...),
		})
		if err != nil {
			return err
		}
	}
	for name, port := range map[string]int{"prometheus": prometheusPort, "alertmanager": alertmanagerPort} {
		url := fmt.Sprintf("http://127.0.0.1:%d/-/ready", port)
		if err := s.waitReady(ctx, url, []string{s.pidfile(name)}, 60*time.Second); err != nil {
			s.tail(filepath.Join(s.logs, name+".log"), 20)
			return fmt.Errorf("%s is not ready on %s: %w; see %s", name, url, err, filepath.Join(s.logs, name+".log"))
		}
	}
	s.note("Prometheus: http://127.0.0.1:%d (API: /api/v1/query, /api/v1/alerts)   Alertmanager: http://127.0.0.1:%d", prometheusPort, alertmanagerPort)
	return nil
}

// toolDir runs a script that prints the directory of the binaries it built or unpacked.
func (s *stack) toolDir(ctx context.Context, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.root, script), args...)
	cmd.Dir, cmd.Stderr = s.root, s.errOut
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w", script, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// renderRules is the umbrella chart's PrometheusRule as Helm renders it, with forOverrides set,
// as a Prometheus rule file: the rules a cluster's Prometheus would load, not a copy of them.
func (s *stack) renderRules(ctx context.Context, forOverrides map[string]string) ([]byte, error) {
	helmDir, err := s.toolDir(ctx, "tools/kube/build.sh", "helm")
	if err != nil {
		return nil, err
	}
	helm := filepath.Join(helmDir, "helm")
	// The umbrella packages the service charts, which package the library chart.
	for _, c := range append(append([]string{}, serviceOrder...), "bizassist") {
		cmd := exec.CommandContext(ctx, helm, "dependency", "build", "--skip-refresh", filepath.Join("charts", c))
		cmd.Dir = s.root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("helm dependency build charts/%s: %w\n%s", c, err, out)
		}
	}
	args := []string{"template", releaseName, umbrellaChart, "--namespace", monitoringNamespace,
		"--set", "prometheusRule.enabled=true", "--show-only", "templates/prometheusrule.yaml"}
	names := make([]string, 0, len(forOverrides))
	for name := range forOverrides {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		args = append(args, "--set", "prometheusRule.forOverrides."+name+"="+forOverrides[name])
	}
	cmd := exec.CommandContext(ctx, helm, args...)
	cmd.Dir = s.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return ruleFile(out)
}

// ruleFile takes the spec of the PrometheusRule in a rendered manifest: its groups are a
// Prometheus rule file as they stand.
func ruleFile(manifest []byte) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(manifest))
	for {
		var doc struct {
			Kind string    `yaml:"kind"`
			Spec yaml.Node `yaml:"spec"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return nil, errors.New("the rendered chart has no PrometheusRule")
		} else if err != nil {
			return nil, err
		}
		if doc.Kind == "PrometheusRule" {
			return yaml.Marshal(&doc.Spec)
		}
	}
}

// prometheusConfig scrapes every process of the plan as a Kubernetes pod of the chart's
// Deployment, with the labels its ServiceMonitor gives (honorLabels, service = the component),
// evaluates rules.yaml and sends alerts to the local Alertmanager.
func prometheusConfig(p *plan) []byte {
	type staticConfig struct {
		Targets []string          `yaml:"targets"`
		Labels  map[string]string `yaml:"labels"`
	}
	type scrapeConfig struct {
		JobName       string         `yaml:"job_name"`
		MetricsPath   string         `yaml:"metrics_path"`
		HonorLabels   bool           `yaml:"honor_labels"`
		StaticConfigs []staticConfig `yaml:"static_configs"`
	}
	var scrapes []scrapeConfig
	for _, svc := range p.running {
		job := releaseName + "-" + svc.name
		sc := scrapeConfig{JobName: job, MetricsPath: "/metrics", HonorLabels: true}
		for _, r := range svc.replicaList() {
			sc.StaticConfigs = append(sc.StaticConfigs, staticConfig{
				Targets: []string{fmt.Sprintf("127.0.0.1:%d", r.port)},
				Labels: map[string]string{
					"cluster": monitoringCluster, "namespace": monitoringNamespace, "service": svc.name,
					"pod": fmt.Sprintf("%s-%d", job, r.n), "container": svc.name, "endpoint": "http",
				},
			})
		}
		scrapes = append(scrapes, sc)
	}
	cfg := map[string]any{
		"global": map[string]any{
			"scrape_interval": scrapeInterval, "scrape_timeout": scrapeInterval, "evaluation_interval": scrapeInterval,
		},
		"rule_files": []string{"rules.yaml"},
		"alerting": map[string]any{"alertmanagers": []any{map[string]any{
			"static_configs": []any{map[string]any{"targets": []string{fmt.Sprintf("127.0.0.1:%d", alertmanagerPort)}}},
		}}},
		"scrape_configs": scrapes,
	}
	b, _ := yaml.Marshal(cfg) // plain maps, slices and strings: cannot fail
	return b
}

// alertmanagerConfig routes every alert, and its resolution, to webhook at once (no waiting to
// group): tests read the receiver. Without a webhook the route has no receiver configuration and
// alerts are only listed by Alertmanager's API.
func alertmanagerConfig(webhook string) []byte {
	receiver := map[string]any{"name": "stack"}
	if webhook != "" {
		receiver["webhook_configs"] = []any{map[string]any{"url": webhook, "send_resolved": true}}
	}
	cfg := map[string]any{
		"route": map[string]any{
			"receiver": "stack", "group_by": []string{"alertname", "service"},
			"group_wait": "1s", "group_interval": "2s", "repeat_interval": "1h",
		},
		"receivers": []any{receiver},
	}
	b, _ := yaml.Marshal(cfg)
	return b
}
