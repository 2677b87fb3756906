// Package api embeds the assistant's OpenAPI document, so tests check real responses against it.
package api

import _ "embed"

//go:embed openapi.yaml
var OpenAPI []byte
