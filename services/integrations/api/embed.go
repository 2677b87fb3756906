// Package api embeds the integrations OpenAPI contract so tests can check real responses
// against it.
package api

import _ "embed"

// OpenAPI is api/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
