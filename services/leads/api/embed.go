// Package api embeds the leads OpenAPI document, so tests check real responses against it.
package api

import _ "embed"

//go:embed openapi.yaml
var OpenAPI []byte
