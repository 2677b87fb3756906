package routegen

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var devstackVars = map[string]string{
	"Prefix": "/x/.devstack/nginx", "LogDir": "/x/.devstack/logs", "HTTPPort": "8080",
	"HTTPSPort": "8443", "IPv6": "on", "CertFile": "/x/server.crt", "KeyFile": "/x/server.key",
	"ExemptCIDR": "127.0.0.9/32",
}

// The real values file and the real nginx template: every route appears with the location form
// its pathType needs and proxies to its service's upstream.
func TestRenderNginxFromChartValues(t *testing.T) {
	f, err := os.Open("../../charts/bizassist/values.yaml")
	require.NoError(t, err)
	defer f.Close()
	table, err := LoadTable(f)
	require.NoError(t, err)
	tmpl, err := os.ReadFile("../devstack/nginx.conf.tmpl")
	require.NoError(t, err)

	out, err := Render(string(tmpl), table, devstackVars)
	require.NoError(t, err)
	conf := string(out)

	require.NotEmpty(t, table.Routes)
	for _, r := range table.Routes {
		if r.Path == "/" {
			require.Contains(t, conf, "location / {\n            proxy_pass http://"+r.Service+";", "the route for /")
			continue
		}
		exact := "location = " + r.Path + " {\n            proxy_pass http://" + r.Service + ";"
		require.Contains(t, conf, exact, "route %s", r.Path)
		prefix := "location " + r.Path + "/ {\n            proxy_pass http://" + r.Service + ";"
		if r.PathType == "Prefix" {
			require.Contains(t, conf, prefix, "route %s", r.Path)
		} else {
			require.NotContains(t, conf, prefix, "route %s", r.Path)
		}
	}
	for _, u := range []string{"identity 8081", "leads 8082", "assistant 8083", "analytics 8084", "integrations 8085", "console 8086"} {
		name, port, _ := strings.Cut(u, " ")
		require.Contains(t, conf, "upstream "+name+" {\n        server 127.0.0.1:"+port+" max_fails=0;")
	}
	require.Contains(t, conf, "location /api/ {\n            return 404 '{\"ok\":false,\"error\":\"no route\",\"code\":\"not_found\"}\\n';")
	require.Contains(t, conf, "listen [::1]:8443 ssl http2")
	require.Contains(t, conf, "gzip on;\n    gzip_comp_level 5;\n    gzip_min_length 1024;", "answers over 1 KiB go compressed")

	require.Contains(t, conf, "limit_conn per_address "+strconv.Itoa(table.Limits.ConnectionsPerAddress)+";")
	require.Contains(t, conf, "127.0.0.9/32 1;", "the bench source is exempt")
	require.Contains(t, conf, "client_body_timeout 10s;")
	require.Contains(t, conf, "client_header_timeout 10s;")
	require.NotEmpty(t, table.UnroutedPaths)
	for _, p := range table.UnroutedPaths {
		require.Contains(t, conf, "location = "+p+" {\n            return 404 ", "unrouted %s", p)
	}
}

func TestLoadTableRejects(t *testing.T) {
	const ports = "  localPorts: {identity: 8081}\n  limits: {connectionsPerAddress: 8}\n"
	cases := []struct {
		name, routes, want string
	}{
		{"unknown service", "  - {path: /api/x, pathType: Exact, service: billing}\n", `unknown service "billing"`},
		{"bad pathType", "  - {path: /api/x, pathType: ImplementationSpecific, service: identity}\n", "must be Exact or Prefix"},
		{"relative path", "  - {path: api/x, pathType: Exact, service: identity}\n", "must start with /"},
		{"injection", "  - {path: '/api/x { return 200; }', pathType: Exact, service: identity}\n", "must start with /"},
		{"trailing slash", "  - {path: /api/x/, pathType: Prefix, service: identity}\n", "must not end with /"},
		{"duplicate", "  - {path: /api/x, pathType: Exact, service: identity}\n  - {path: /api/x, pathType: Prefix, service: identity}\n", "listed twice"},
		{"empty", "", "ingress.routes is empty"},
		{"unrouted injection", "  - {path: /api/x, pathType: Exact, service: identity}\n  unroutedPaths: ['/x { return 200; }']\n", "ingress.unroutedPaths[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadTable(strings.NewReader("ingress:\n  routes:\n" + tc.routes + ports))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestRenderMissingVariableIsAnError(t *testing.T) {
	table, err := LoadTable(strings.NewReader("ingress:\n  routes:\n  - {path: /api/auth, pathType: Prefix, service: identity}\n  localPorts: {identity: 8081}\n  limits: {connectionsPerAddress: 8}\n"))
	require.NoError(t, err)
	_, err = Render("listen {{.Vars.HTTPSPort}};", table, map[string]string{})
	require.ErrorContains(t, err, "HTTPSPort")
}
