// Package routegen renders a proxy config from the ingress route table in the chart values
// (charts/bizassist/values.yaml, ingress.routes and ingress.localPorts), so that the local stack's
// nginx (tools/devstack) and the Kubernetes Ingress route the same paths to the same services.
package routegen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"text/template"

	"gopkg.in/yaml.v3"
)

// Route sends one public path to one service, with Kubernetes Ingress path semantics.
type Route struct {
	Path     string `yaml:"path"`
	PathType string `yaml:"pathType"`
	Service  string `yaml:"service"`
	// Port is where the service listens in the local stack, filled in from localPorts.
	Port int `yaml:"-"`
}

// Upstream is one service that at least one route points at.
type Upstream struct {
	Service string
	Port    int
	// Ports are where its replicas listen in the local stack: Port first (Table.Replicas).
	Ports []int
}

// ReplicaPortStep separates a service's replicas' ports in the local stack: replica i (from 0)
// listens on its port + i*ReplicaPortStep (8081, 8181), clear of the other services' ports and
// of the debug ports a thousand above them.
const ReplicaPortStep = 100

// ReplicaPort is where replica i (from 0) of a service on port listens in the local stack.
func ReplicaPort(port, i int) int { return port + i*ReplicaPortStep }

// Limits are the ingress's bounds per client address.
type Limits struct {
	// ConnectionsPerAddress bounds the connections (with HTTP/2, the requests in flight) of one
	// client address.
	ConnectionsPerAddress int `yaml:"connectionsPerAddress"`
}

// Table is the ingress section of the chart values.
type Table struct {
	Routes     []Route        `yaml:"routes"`
	LocalPorts map[string]int `yaml:"localPorts"`
	// UnroutedPaths are answered 404 by the ingress even where a Prefix route covers them: the
	// probes and metrics every service serves on its HTTP port.
	UnroutedPaths []string `yaml:"unroutedPaths"`
	Limits        Limits   `yaml:"limits"`
	// Replicas is how many processes of each service the local stack runs (0 counts as 1).
	Replicas int `yaml:"-"`
}

// Data is what the template sees: the routes in file order, the upstreams sorted by name, the
// unrouted paths, the limits, and the -set variables.
type Data struct {
	Routes        []Route
	Upstreams     []Upstream
	UnroutedPaths []string
	Limits        Limits
	Vars          map[string]string
}

// nginx takes a location path as a bare token, so only characters that cannot end or split it
// are allowed.
var pathRE = regexp.MustCompile(`^/[A-Za-z0-9._~/-]*$`)

// LoadTable reads the ingress section of a values file and checks every route.
func LoadTable(r io.Reader) (Table, error) {
	var values struct {
		Ingress Table `yaml:"ingress"`
	}
	if err := yaml.NewDecoder(r).Decode(&values); err != nil {
		return Table{}, fmt.Errorf("parse values: %w", err)
	}
	t := values.Ingress
	return t, t.resolve()
}

// resolve validates the table and fills in each route's port.
func (t *Table) resolve() error {
	if len(t.Routes) == 0 {
		return errors.New("ingress.routes is empty")
	}
	if t.Limits.ConnectionsPerAddress < 1 {
		return errors.New("ingress.limits.connectionsPerAddress must be at least 1")
	}
	for i, p := range t.UnroutedPaths {
		if !pathRE.MatchString(p) || p == "/" {
			return fmt.Errorf("ingress.unroutedPaths[%d] (%s): path must start with / and use only letters, digits and ._~/-", i, p)
		}
	}
	seen := make(map[string]bool, len(t.Routes))
	for i := range t.Routes {
		r := &t.Routes[i]
		where := fmt.Sprintf("ingress.routes[%d] (%s)", i, r.Path)
		switch {
		case !pathRE.MatchString(r.Path):
			return fmt.Errorf("%s: path must start with / and use only letters, digits and ._~/-", where)
		case r.PathType == "Prefix" && len(r.Path) > 1 && r.Path[len(r.Path)-1] == '/':
			return fmt.Errorf("%s: a Prefix path must not end with /", where)
		case r.PathType != "Exact" && r.PathType != "Prefix":
			return fmt.Errorf("%s: pathType %q must be Exact or Prefix", where, r.PathType)
		case seen[r.Path]:
			return fmt.Errorf("%s: path listed twice", where)
		}
		seen[r.Path] = true
		port, ok := t.LocalPorts[r.Service]
		if !ok {
			return fmt.Errorf("%s: unknown service %q (not in ingress.localPorts)", where, r.Service)
		}
		if port < 1 || port > 65535 {
			return fmt.Errorf("ingress.localPorts.%s: %d is not a TCP port", r.Service, port)
		}
		r.Port = port
	}
	return nil
}

// upstreams lists each routed service once, sorted by name so the output is stable.
func (t Table) upstreams() []Upstream {
	byName := map[string]int{}
	for _, r := range t.Routes {
		byName[r.Service] = r.Port
	}
	out := make([]Upstream, 0, len(byName))
	for name, port := range byName {
		u := Upstream{Service: name, Port: port}
		for i := range max(t.Replicas, 1) {
			u.Ports = append(u.Ports, ReplicaPort(port, i))
		}
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service < out[j].Service })
	return out
}

// Render executes tmpl over the table. A variable the template uses but vars lacks is an error.
func Render(tmpl string, t Table, vars map[string]string) ([]byte, error) {
	tp, err := template.New("ingress").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}
	var buf bytes.Buffer
	if err := tp.Execute(&buf, Data{Routes: t.Routes, Upstreams: t.upstreams(), UnroutedPaths: t.UnroutedPaths, Limits: t.Limits, Vars: vars}); err != nil {
		return nil, fmt.Errorf("render template: %w", err)
	}
	return buf.Bytes(), nil
}
