package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// The suite runs against one of two installs: make up's processes, or make kube-up's pods (its
// settings file names KUBECONFIG). They differ only where a test reaches past the ingress, as an
// operator would: a service's own command, the services' logs, each replica's /metrics, and
// whether webhook deliveries can reach a receiver on this machine.

// onNode reports whether the install is the single-node cluster's.
func (s *Stack) onNode() bool { return s.Env["KUBECONFIG"] != "" }

// kubectl runs kubectl against the node's install namespace with stdin and returns its output.
func (s *Stack) kubectl(stdin string, args ...string) ([]byte, error) {
	args = append([]string{"--kubeconfig", s.Env["KUBECONFIG"], "--namespace", s.Env["KUBE_NAMESPACE"]}, args...)
	cmd := exec.Command(s.Env["KUBECTL"], args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("kubectl %s: %w: %s", strings.Join(args[4:], " "), err, stderr.Bytes())
	}
	return out, nil
}

// serviceCommand runs one of service's own commands (identity accounts disable ...) where the
// service runs: the stack's binary with its settings, or in the service's pod.
func (s *Stack) serviceCommand(t *testing.T, service string, args ...string) string {
	t.Helper()
	if s.onNode() {
		out, err := s.kubectl("", append([]string{"exec", "deploy/bizassist-" + service, "--", service}, args...)...)
		require.NoError(t, err)
		return string(out)
	}
	out, err := devenv.ServiceCommand(t.Context(), s.Root, service, args...)
	require.NoError(t, err)
	return out
}

// serviceLogs returns what every service process has logged, by process.
func (s *Stack) serviceLogs(t *testing.T) map[string][]byte {
	t.Helper()
	logs := map[string][]byte{}
	if s.onNode() {
		out, err := s.kubectl("", "get", "pods", "-l", "app.kubernetes.io/instance=bizassist", "-o", "name")
		require.NoError(t, err)
		for _, pod := range strings.Fields(string(out)) {
			raw, err := s.kubectl("", "logs", pod, "--all-containers")
			require.NoError(t, err)
			logs[pod] = raw
		}
		return logs
	}
	paths, err := filepath.Glob(filepath.Join(s.Root, ".devstack", "logs", "*.log"))
	require.NoError(t, err)
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		logs[path] = raw
	}
	return logs
}

// accessLogPath is the ingress's access log: the local stack's nginx, or the node's edge
// (ACCESS_LOG of its settings).
func (s *Stack) accessLogPath() string {
	if p := s.Env["ACCESS_LOG"]; p != "" {
		return p
	}
	return filepath.Join(s.Root, ".devstack", "logs", "nginx-access.log")
}

// metricsURLs returns the /metrics URL of every replica of services, by replica: the stack's
// metrics ports, or each Ready pod's address (reached over the node's bridge).
func (s *Stack) metricsURLs(services map[string]int) (map[string]string, error) {
	urls := map[string]string{}
	if !s.onNode() {
		for svc, port := range services {
			urls[svc] = fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
		}
		return urls, nil
	}
	out, err := s.kubectl("", "get", "pods", "-l", "app.kubernetes.io/instance=bizassist,app.kubernetes.io/component=server",
		"--field-selector", "status.phase=Running", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.app\.kubernetes\.io/name} {.status.podIP} {.spec.containers[0].ports[0].containerPort}{"\n"}{end}`)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected pod line %q", line)
		}
		if _, ok := services[f[1]]; ok {
			urls[f[0]] = "http://" + net.JoinHostPort(f[2], f[3]) + "/metrics"
		}
	}
	if len(urls) < len(services) {
		return nil, fmt.Errorf("%d running pods for %d services", len(urls), len(services))
	}
	return urls, nil
}

// hookListener listens where the install's webhook deliveries reach: loopback, which make up's
// integrations may deliver to, or on the node the address its install lets them reach
// (HOOK_LISTEN_ADDR, the bridge's: charts/bizassist/values-node-e2e.yaml). An install without
// one refuses deliveries to every private address, so a test that needs deliveries skips there.
func (s *Stack) hookListener(t *testing.T) net.Listener {
	t.Helper()
	host := "127.0.0.1"
	if s.onNode() {
		if host = s.Env["HOOK_LISTEN_ADDR"]; host == "" {
			t.Skip("deliveries: this install refuses deliveries to private addresses (no HOOK_LISTEN_ADDR: make test-kube-node sets one)")
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	require.NoError(t, err)
	return l
}
