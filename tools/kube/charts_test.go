// Package kube checks the Helm charts: lint, golden renders, schema refusals, every rendered object
// against a real kube-apiserver (server-side dry run, strict field validation), an install, upgrade
// and rollback, and the alert rules with promtool. Run through `make test-k8s`, which builds the
// tools (build.sh), starts the API server (apiserver.sh) and sets KUBE_BIN and KUBECONFIG.
package kube

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current charts")

const (
	chartsDir = "../../charts"
	umbrella  = chartsDir + "/bizassist"
	release   = "bizassist"
)

var services = []string{"identity", "leads", "assistant", "analytics", "integrations", "console"}

// monitoringAPIs is what a cluster with the Prometheus operator serves; renders that pass it get
// the ServiceMonitors and the PrometheusRule.
var monitoringAPIs = []string{"monitoring.coreos.com/v1/ServiceMonitor", "monitoring.coreos.com/v1/PrometheusRule"}

// renderCase is one point of the values matrix; its render is kept in testdata/golden/<name>.yaml.
type renderCase struct {
	name        string
	values      []string
	apiVersions []string
}

var matrix = []renderCase{
	{name: "defaults"},
	{name: "hpa", values: []string{"testdata/values/hpa.yaml"}, apiVersions: monitoringAPIs},
	{name: "tls", values: []string{"testdata/values/tls.yaml"}},
	{name: "external-databases", values: []string{"testdata/values/external-databases.yaml"}},
	{name: "kind", values: []string{umbrella + "/values-kind.yaml"}},
	{name: "node", values: []string{umbrella + "/values-node.yaml"}},
	{name: "node-e2e", values: []string{umbrella + "/values-node.yaml", umbrella + "/values-node-e2e.yaml"}},
	// No --api-versions: the monitoring objects are forced on, as a GitOps render needs.
	{name: "gitops", values: []string{"testdata/values/gitops.yaml"}},
}

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("KUBE_BIN") == "" {
		fmt.Fprintln(os.Stderr, "KUBE_BIN is not set: run these tests with `make test-k8s`")
		os.Exit(2)
	}
	// Service charts first: the umbrella packages them with their library dependency inside.
	for _, chart := range append(append([]string{}, services...), "bizassist") {
		if out, err := helm("dependency", "build", "--skip-refresh", filepath.Join(chartsDir, chart)); err != nil {
			fmt.Fprintf(os.Stderr, "helm dependency build %s: %v\n%s", chart, err, out)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

func helm(args ...string) (string, error) {
	return run(filepath.Join(os.Getenv("KUBE_BIN"), "helm"), args...)
}

func run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func render(t *testing.T, c renderCase, extra ...string) string {
	t.Helper()
	args := []string{"template", release, umbrella, "--namespace", release}
	for _, v := range c.values {
		args = append(args, "--values", v)
	}
	for _, a := range c.apiVersions {
		args = append(args, "--api-versions", a)
	}
	out, err := helm(append(args, extra...)...)
	require.NoError(t, err, out)
	return out
}

func TestLintStrict(t *testing.T) {
	for _, chart := range append(append([]string{}, services...), "bizassist") {
		out, err := helm("lint", "--strict", filepath.Join(chartsDir, chart))
		require.NoError(t, err, "%s:\n%s", chart, out)
	}
	out, err := helm("lint", "--strict", umbrella, "--values", umbrella+"/values-kind.yaml")
	require.NoError(t, err, out)
}

func TestGoldenRenders(t *testing.T) {
	for _, c := range matrix {
		t.Run(c.name, func(t *testing.T) {
			got := render(t, c)
			path := filepath.Join("testdata/golden", c.name+".yaml")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden render: go test -run TestGoldenRenders -update (make k8s-golden)")
			require.Equal(t, string(want), got, "render of %s changed: review it, then make k8s-golden", c.name)
		})
	}
}

// TestMatrixShape pins the properties each matrix point exists for, so a golden file updated
// without reading it still cannot lose them.
func TestMatrixShape(t *testing.T) {
	byCase := map[string][]*unstructured.Unstructured{}
	for _, c := range matrix {
		byCase[c.name] = decode(t, render(t, c))
	}
	count := func(objs []*unstructured.Unstructured, kind string) int {
		n := 0
		for _, o := range objs {
			if o.GetKind() == kind {
				n++
			}
		}
		return n
	}
	for _, o := range byCase["defaults"] {
		if o.GetKind() == "Deployment" {
			_, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "replicas")
			require.True(t, found, "%s: replicas without an HPA", o.GetName())
		}
	}
	require.Zero(t, count(byCase["defaults"], "ServiceMonitor"), "ServiceMonitor without the CRD")
	require.Equal(t, 6, count(byCase["defaults"], "Job"), "a migration Job per service")
	require.Equal(t, 12, count(byCase["defaults"], "NetworkPolicy"), "deny + allow per service")

	hpa := byCase["hpa"]
	require.Equal(t, 6, count(hpa, "HorizontalPodAutoscaler"))
	require.Equal(t, 6, count(hpa, "ServiceMonitor"))
	require.Equal(t, 1, count(hpa, "PrometheusRule"))
	for _, o := range hpa {
		if o.GetKind() == "Deployment" {
			_, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "replicas")
			require.False(t, found, "%s: replicas set although the HPA owns them", o.GetName())
		}
	}

	gitops := byCase["gitops"]
	require.Equal(t, 6, count(gitops, "ServiceMonitor"), "forced on without .Capabilities")
	require.Equal(t, 1, count(gitops, "PrometheusRule"), "forced on without .Capabilities")
	for _, o := range gitops {
		switch o.GetKind() {
		case "ServiceMonitor", "PrometheusRule":
			require.Equal(t, "monitoring", o.GetLabels()["release"], o.GetName())
		case "ConfigMap":
			if o.GetLabels()["grafana_dashboard"] == "1" {
				require.Equal(t, map[string]string{"grafana_folder": "Shop"}, o.GetAnnotations(), o.GetName())
			}
		}
	}

	// The scale-out settings reach every service: Redis Cluster seeds in the ConfigMaps, the read
	// replica's URL from the Secrets of the services that read lag-tolerant data.
	for _, o := range byCase["external-databases"] {
		switch o.GetKind() {
		case "ConfigMap":
			if data, _, _ := unstructured.NestedStringMap(o.Object, "data"); data["DATABASE_SCHEMA"] != "" {
				require.Equal(t, "10.10.1.2:6380,10.10.1.3:6380,10.10.1.4:6380", data["REDIS_CLUSTER_ADDRS"], o.GetName())
			}
		case "Deployment":
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			env, _, _ := unstructured.NestedSlice(containers[0].(map[string]any), "env")
			replica := false
			for _, e := range env {
				replica = replica || e.(map[string]any)["name"] == "DATABASE_REPLICA_URL"
			}
			name := strings.TrimPrefix(o.GetName(), release+"-")
			require.Equal(t, name == "leads" || name == "analytics" || name == "integrations", replica, o.GetName())
		}
	}

	// Deliveries reach a private address only where a chart test names one, and only that one.
	opening := func(name string) map[string]string {
		got := map[string]string{}
		for _, o := range byCase[name] {
			if data, _, _ := unstructured.NestedStringMap(o.Object, "data"); o.GetKind() == "ConfigMap" && data["DATABASE_SCHEMA"] == "integrations" {
				for _, k := range []string{"INTEGRATIONS_DEV_MODE", "INTEGRATIONS_TARGET_ALLOW_CIDRS", "INTEGRATIONS_TARGET_ALLOW_HTTP"} {
					if v, ok := data[k]; ok {
						got[k] = v
					}
				}
			}
		}
		return got
	}
	require.Empty(t, opening("node"))
	require.Equal(t, map[string]string{"INTEGRATIONS_DEV_MODE": "true", "INTEGRATIONS_TARGET_ALLOW_CIDRS": "10.244.0.1/32",
		"INTEGRATIONS_TARGET_ALLOW_HTTP": "true"}, opening("node-e2e"))

	// HTTPS by default: every render has TLS on the Ingress and redirects plain HTTP.
	for name, objs := range byCase {
		// The second Ingress keeps the probes and metrics off the route for / (ingress.unroutedPaths).
		require.Equal(t, 2, count(objs, "Ingress"), name)
		for _, o := range objs {
			if o.GetKind() == "Ingress" {
				require.Equal(t, "true", o.GetAnnotations()["nginx.ingress.kubernetes.io/force-ssl-redirect"], name)
				tls, _, _ := unstructured.NestedSlice(o.Object, "spec", "tls")
				require.Len(t, tls, 1, name)
				require.Equal(t, "bizassist-tls", tls[0].(map[string]any)["secretName"], name)
			}
		}
	}
	issuers := map[string]string{"defaults": "", "tls": "letsencrypt", "kind": "bizassist-selfsigned"}
	for name, issuer := range issuers {
		for _, o := range byCase[name] {
			if o.GetKind() == "Ingress" && o.GetName() == release+"-unrouted" {
				require.Empty(t, o.GetAnnotations()["cert-manager.io/cluster-issuer"], "%s: one Certificate, the main Ingress's", name)
			} else if o.GetKind() == "Ingress" {
				require.Equal(t, issuer, o.GetAnnotations()["cert-manager.io/cluster-issuer"], name)
			}
		}
	}
}

// TestSchemaRefuses shows that the mistakes people make in values files stop the install with a
// message that names what to fix.
func TestSchemaRefuses(t *testing.T) {
	// No commas in the names: each names a temporary directory whose path goes to helm's
	// --values, which splits its argument on them.
	cases := []struct {
		name, values string
		want         []string
	}{
		{"typo in a key", "leads:\n  replica: 3\n", []string{"leads:", "Additional property replica is not allowed"}},
		{"typo at the top", "ingres:\n  enabled: false\n", []string{"Additional property ingres is not allowed"}},
		{"string for a number", "analytics:\n  replicas: three\n", []string{"analytics:", "replicas: Invalid type. Expected: integer, given: string"}},
		{"HPA without limits", "integrations:\n  autoscaling: {enabled: true}\n  resources: {limits: null}\n", []string{"integrations:", "resources: limits is required"}},
		{"a certificate issuer without a host", "ingress:\n  tls: {enabled: true, clusterIssuer: letsencrypt}\n", []string{"ingress.host: String length must be greater than or equal to 1"}},
		{"secret in the ConfigMap", "identity:\n  env: {DATABASE_URL: postgres://x}\n", []string{"identity:", `Property name of "DATABASE_URL" does not match`}},
		{"encryption key in the ConfigMap", "identity:\n  env: {ENCRYPTION_KEYS: k1:abc}\n", []string{"identity:", `Property name of "ENCRYPTION_KEYS" does not match`}},
		{"webhook development mode", "integrations:\n  env: {INTEGRATIONS_DEV_MODE: \"true\"}\n", []string{"integrations:", `Property name of "INTEGRATIONS_DEV_MODE" does not match`}},
		{"private targets through global config", "global:\n  config: {INTEGRATIONS_TARGET_ALLOW_CIDRS: 10.0.0.0/8}\n", []string{"is a local-development setting"}},
		{"a test receiver range instead of an address", "integrations:\n  testReceiverAddresses: [10.0.0.0/8]\n", []string{"integrations:", "testReceiverAddresses.0: Does not match pattern"}},
		{"a test receiver for another service", "leads:\n  testReceiverAddresses: [10.244.0.1]\n", []string{"leads: testReceiverAddresses is integrations'"}},
		{"monitoring switch neither bool nor auto", "leads:\n  serviceMonitor: {enabled: \"yes\"}\n", []string{"leads:", `serviceMonitor.enabled must be one of the following: true, false, "auto"`}},
		{"runbook base that is not a URL", "global:\n  monitoring: {runbookBaseUrl: docs/runbooks}\n", []string{"global.monitoring.runbookBaseUrl: Does not match pattern"}},
		{"image digest without its algorithm", "leads:\n  image: {digest: abc123}\n", []string{"leads:", "image.digest: Does not match pattern"}},
		{"drain delay through env", "leads:\n  env: {HTTP_DRAIN_DELAY: 1s}\n", []string{"leads:", `Property name of "HTTP_DRAIN_DELAY" does not match`}},
		{"memory limit GOMEMLIMIT cannot follow", "leads:\n  resources: {limits: {cpu: \"1\", memory: 0.5Gi}}\n", []string{"resources.limits.memory", "whole number"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "values.yaml")
			require.NoError(t, os.WriteFile(path, []byte(c.values), 0o644))
			out, err := helm("template", release, umbrella, "--values", path)
			require.Error(t, err, "accepted:\n%s", c.values)
			for _, w := range c.want {
				require.Contains(t, out, w)
			}
		})
	}
}

// TestChartRefusesMaxReplicasBelowMin covers what the schema cannot say: a comparison of two values.
func TestChartRefusesMaxReplicasBelowMin(t *testing.T) {
	out, err := helm("template", "x", filepath.Join(chartsDir, "leads"),
		"--set", "autoscaling.enabled=true", "--set", "autoscaling.minReplicas=4", "--set", "autoscaling.maxReplicas=2")
	require.Error(t, err)
	require.Contains(t, out, "autoscaling.maxReplicas (2) is below autoscaling.minReplicas (4)")
}

// TestChartRefusesPoolsOverTheConnectionBudget: pods whose pools the server cannot hold fail
// with "too many clients" once running; the budget counts a surging pod per service and the
// autoscaler's maximum, and is checked only against a declared postgresql.maxConnections.
func TestChartRefusesPoolsOverTheConnectionBudget(t *testing.T) {
	out, err := helm("template", release, umbrella, "--set", "postgresql.maxConnections=97")
	require.Error(t, err)
	require.Contains(t, out, "the services' PostgreSQL pools need up to 216 connections, over postgresql.maxConnections (97)")
	require.Contains(t, out, "integrations 61 = (2 + 1 surging) pods x 20 + 1 migration")
	out, err = helm("template", release, umbrella, "--set", "postgresql.maxConnections=216")
	require.NoError(t, err, out)
	out, err = helm("template", release, umbrella, "--set", "postgresql.maxConnections=216", "--set", "integrations.autoscaling.enabled=true")
	require.Error(t, err)
	require.Contains(t, out, "integrations 141 = (6 + 1 surging) pods x 20 + 1 migration")
	out, err = helm("template", release, umbrella, "--values", umbrella+"/values-node.yaml", "--set", "postgresql.maxConnections=69")
	require.NoError(t, err, "make kube-up's pools fit the machine's default PostgreSQL: %s", out)
}

// TestChartRefusesGraceBelowShutdown: the kubelet would kill requests still in flight.
func TestChartRefusesGraceBelowShutdown(t *testing.T) {
	out, err := helm("template", "x", filepath.Join(chartsDir, "leads"), "--set", "terminationGracePeriodSeconds=30")
	require.Error(t, err)
	require.Contains(t, out, "terminationGracePeriodSeconds (30) is below the shutdown budget (35")
	out, err = helm("template", "x", filepath.Join(chartsDir, "leads"), "--set", "terminationGracePeriodSeconds=35", "--set", "image.digest=sha256:"+strings.Repeat("ab", 32))
	require.NoError(t, err, out)
	require.Contains(t, out, "terminationGracePeriodSeconds: 35")
	require.Contains(t, out, "image: bizassist/leads@sha256:"+strings.Repeat("ab", 32))
}

func TestAlertRules(t *testing.T) {
	out, err := run(filepath.Join(os.Getenv("KUBE_BIN"), "promtool"), "check", "rules", umbrella+"/rules/alerts.yaml", umbrella+"/rules/slos.yaml")
	require.NoError(t, err, out)
	out, err = run(filepath.Join(os.Getenv("KUBE_BIN"), "promtool"), "test", "rules", "testdata/alerts_test.yaml", "testdata/slos_test.yaml")
	require.NoError(t, err, out)
}

func decode(t *testing.T, manifests string) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifests), 4096)
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return objs
		}
		require.NoError(t, err)
		if obj != nil {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

// cluster is a client of the API server apiserver.sh started.
type cluster struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

func connect(t *testing.T) *cluster {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	require.NoError(t, err, "KUBECONFIG must point at the test API server")
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return &cluster{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (c *cluster) resource(t *testing.T, obj *unstructured.Unstructured, ns string) dynamic.ResourceInterface {
	t.Helper()
	gvk := obj.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	require.NoError(t, err, "the API server does not serve %s", gvk)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(ns)
	}
	return c.dyn.Resource(m.Resource)
}

// ensureNamespace creates ns with its "default" ServiceAccount, which a cluster's controller
// manager would create (there is none here) and which the admission of a bare Pod, such as a
// helm test Pod, looks up.
func (c *cluster) ensureNamespace(t *testing.T, ns string) {
	t.Helper()
	nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	saObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "default", "namespace": ns}}}
	for _, o := range []*unstructured.Unstructured{nsObj, saObj} {
		_, err := c.resource(t, o, ns).Create(context.Background(), o, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
}

// installMonitoringCRDs gives the API server the Prometheus operator's ServiceMonitor and
// PrometheusRule types (from the operator's published module, path in PROM_OPERATOR_CRDS).
func (c *cluster) installMonitoringCRDs(t *testing.T) {
	t.Helper()
	dir := os.Getenv("PROM_OPERATOR_CRDS")
	require.NotEmpty(t, dir, "PROM_OPERATOR_CRDS must name the operator's CRD directory")
	for _, f := range []string{"monitoring.coreos.com_servicemonitors.yaml", "monitoring.coreos.com_prometheusrules.yaml"} {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		for _, crd := range decode(t, string(raw)) {
			_, err := c.resource(t, crd, "").Create(context.Background(), crd, metav1.CreateOptions{})
			if !apierrors.IsAlreadyExists(err) {
				require.NoError(t, err)
			}
		}
	}
	// Both kinds: the two CRDs become served independently, and waiting for one raced the other.
	require.Eventually(t, func() bool {
		c.mapper.(meta.ResettableRESTMapper).Reset()
		for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
			if _, err := c.mapper.RESTMapping(schema.GroupKind{Group: "monitoring.coreos.com", Kind: kind}, "v1"); err != nil {
				return false
			}
		}
		return true
	}, 30*time.Second, 200*time.Millisecond, "the monitoring CRDs never became served")
}

// TestAPIServerAcceptsEveryObject sends every object of every matrix render, hooks included, to
// the real API server as a dry-run create with strict field validation: an unknown or misplaced
// field, a wrong type or an invalid value is refused there exactly as it would be in a cluster.
func TestAPIServerAcceptsEveryObject(t *testing.T) {
	c := connect(t)
	c.installMonitoringCRDs(t)
	const ns = "render-check"
	c.ensureNamespace(t, ns)
	for _, rc := range matrix {
		t.Run(rc.name, func(t *testing.T) {
			objs := decode(t, render(t, rc))
			require.NotEmpty(t, objs)
			for _, obj := range objs {
				_, err := c.resource(t, obj, ns).Create(context.Background(), obj, metav1.CreateOptions{
					DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
				require.NoError(t, err, "%s %s", obj.GetKind(), obj.GetName())
			}
		})
	}
}

// TestInstallUpgradeRollback runs the README's commands against the real API server. Hooks are
// skipped (there is no controller to run the migration Jobs; they are checked above), so this
// proves the release's objects install, upgrade and roll back.
func TestInstallUpgradeRollback(t *testing.T) {
	c := connect(t)
	c.installMonitoringCRDs(t)
	const ns = "bizassist"
	kube := []string{"--kubeconfig", os.Getenv("KUBECONFIG"), "--namespace", ns}
	out, err := helm(append([]string{"install", release, umbrella, "--create-namespace", "--no-hooks"}, kube...)...)
	require.NoError(t, err, out)
	t.Cleanup(func() { _, _ = helm(append([]string{"uninstall", release, "--no-hooks"}, kube...)...) })

	replicas := func() int64 {
		d, err := c.dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).
			Namespace(ns).Get(context.Background(), release+"-leads", metav1.GetOptions{})
		require.NoError(t, err)
		n, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		return n
	}
	require.EqualValues(t, 2, replicas())
	sms, err := c.dyn.Resource(schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}).
		Namespace(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, sms.Items, len(services), "the install saw the monitoring CRDs through .Capabilities")

	out, err = helm(append([]string{"upgrade", release, umbrella, "--reuse-values", "--set", "leads.replicas=3", "--no-hooks"}, kube...)...)
	require.NoError(t, err, out)
	require.EqualValues(t, 3, replicas())

	out, err = helm(append([]string{"rollback", release, "1", "--no-hooks"}, kube...)...)
	require.NoError(t, err, out)
	require.EqualValues(t, 2, replicas())
}

// TestServiceSchemasAreTheSharedOne keeps the service charts' schemas copies of the one in the
// library chart (Helm reads values.schema.json from each chart's own directory).
func TestServiceSchemasAreTheSharedOne(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(chartsDir, "bizassist-lib", "service.schema.json"))
	require.NoError(t, err)
	for _, svc := range services {
		got, err := os.ReadFile(filepath.Join(chartsDir, svc, "values.schema.json"))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "cp charts/bizassist-lib/service.schema.json charts/%s/values.schema.json", svc)
	}
}
