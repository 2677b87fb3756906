package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const ingressesJSON = `{"items": [
 {"metadata": {"name": "bizassist", "annotations": {"nginx.ingress.kubernetes.io/limit-connections": "64",
   "nginx.ingress.kubernetes.io/limit-whitelist": "127.0.0.9/32,10.1.0.0/16", "nginx.ingress.kubernetes.io/force-ssl-redirect": "true"}},
  "spec": {"rules": [{"http": {"paths": [
   {"path": "/api/auth", "pathType": "Prefix", "backend": {"service": {"name": "bizassist-identity"}}},
   {"path": "/api/chat", "pathType": "Exact", "backend": {"service": {"name": "bizassist-assistant"}}},
   {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "bizassist-console"}}}]}}]}},
 {"metadata": {"name": "bizassist-unrouted", "annotations": {"nginx.ingress.kubernetes.io/rewrite-target": "/api/unrouted",
   "nginx.ingress.kubernetes.io/limit-whitelist": "127.0.0.9/32"}},
  "spec": {"rules": [{"http": {"paths": [
   {"path": "/livez", "pathType": "Exact", "backend": {"service": {"name": "bizassist-console"}}}]}}]}}]}`

const servicesJSON = `{"items": [
 {"metadata": {"name": "bizassist-identity"}, "spec": {"type": "ClusterIP", "ports": [{"name": "http"}]}},
 {"metadata": {"name": "bizassist-identity-edge"}, "spec": {"type": "NodePort", "ports": [{"name": "http", "nodePort": 30001}]}},
 {"metadata": {"name": "bizassist-assistant-edge"}, "spec": {"type": "NodePort", "ports": [{"name": "http", "nodePort": 30002}]}},
 {"metadata": {"name": "bizassist-console-edge"}, "spec": {"type": "NodePort", "ports": [{"name": "http", "nodePort": 30003}]}}]}`

var edgeVars = map[string]string{"Dir": "/tmp/edge", "HTTPSAddr": "127.0.0.1:9443", "HTTPAddr": "127.0.0.1:9080",
	"HTTPSPort": "9443", "Cert": "/tmp/c", "Key": "/tmp/k", "BridgeAddr": "10.244.0.1"}

func TestEdgeServesTheIngressPaths(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, renderEdge(&b, []byte(ingressesJSON), []byte(servicesJSON), edgeVars))
	conf := b.String()
	for _, want := range []string{
		"server 10.244.0.1:30001 max_fails=0;",
		// Prefix: the path itself and whole segments below it; Exact: the path only.
		"location = /api/auth {\n            proxy_pass http://bizassist-identity;",
		"location /api/auth/ {\n            proxy_pass http://bizassist-identity;",
		"location = /api/chat {\n            proxy_pass http://bizassist-assistant;",
		// The unrouted paths go to the console's 404 (rewrite-target), / to the console.
		"location = /livez {\n            proxy_pass http://bizassist-console/api/unrouted;",
		"location / {\n            proxy_pass http://bizassist-console;",
		"limit_conn per_address 64;",
		// The limit-whitelist's addresses are not counted (once each, from every Ingress).
		"default 0;\n        127.0.0.9/32 1;\n        10.1.0.0/16 1;\n    }",
		"limit_conn_zone $conn_limit_key zone=per_address:1m;",
		"listen 127.0.0.1:9443 ssl http2 default_server;",
		"return 308 https://$https_host:9443$request_uri;",
	} {
		require.Contains(t, conf, want)
	}
	require.NotContains(t, conf, "location /api/chat/")
}

func TestEdgeRefusesABackendWithoutNodePort(t *testing.T) {
	svcs := strings.Replace(servicesJSON, `"bizassist-assistant-edge"`, `"bizassist-assistant-other"`, 1)
	err := renderEdge(&bytes.Buffer{}, []byte(ingressesJSON), []byte(svcs), edgeVars)
	require.ErrorContains(t, err, "bizassist-assistant has no NodePort Service")
}

func TestEdgeRefusesAMalformedLimitWhitelist(t *testing.T) {
	ings := strings.Replace(ingressesJSON, "127.0.0.9/32,", "127.0.0.9/33,", 1)
	err := renderEdge(&bytes.Buffer{}, []byte(ings), []byte(servicesJSON), edgeVars)
	require.ErrorContains(t, err, "limit-whitelist")
}
