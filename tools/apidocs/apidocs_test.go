package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestCommittedDocsAreFresh fails when a service's api/openapi.yaml changed and libs/apidocs was
// not regenerated (go run ./tools/apidocs).
func TestCommittedDocsAreFresh(t *testing.T) {
	files, err := Generate("../..")
	require.NoError(t, err)
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("../../libs/apidocs", name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "libs/apidocs/%s is stale: run go run ./tools/apidocs", name)
	}
}

func spec(t *testing.T, service, doc string) Spec {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &m))
	return Spec{Service: service, Doc: m}
}

const alpha = `
info: {description: alpha things}
paths:
  /api/a:
    get:
      responses:
        "200": {$ref: "#/components/responses/Error"}
components:
  responses:
    Error: {description: err, content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
  schemas:
    Error: {type: object, properties: {code: {type: string}}}
    Shared: {type: string}
`

const beta = `
info: {description: beta things}
paths:
  /api/b:
    post:
      responses:
        "200": {$ref: "#/components/responses/Error"}
components:
  responses:
    Error: {description: err, content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
  schemas:
    Error: {type: object, properties: {code: {type: string}, field: {type: string}}}
    Shared: {type: string}
`

// A schema two services spell differently is kept per service, and so is the response that
// points at it although its own text is the same; identical components are shared.
func TestMergeRenamesConflictsAndTheirReferrers(t *testing.T) {
	doc, err := Merge([]Spec{spec(t, "alpha", alpha), spec(t, "beta", beta)}, "9")
	require.NoError(t, err)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	require.Contains(t, schemas, "alpha.Error")
	require.Contains(t, schemas, "beta.Error")
	require.Contains(t, schemas, "Shared")
	require.NotContains(t, schemas, "Error")
	responses := doc["components"].(map[string]any)["responses"].(map[string]any)
	require.Contains(t, responses, "alpha.Error")
	require.Contains(t, responses, "beta.Error")

	get := doc["paths"].(map[string]any)["/api/a"].(map[string]any)["get"].(map[string]any)
	require.Equal(t, []any{"alpha"}, get["tags"])
	require.Equal(t, "#/components/responses/alpha.Error", get["responses"].(map[string]any)["200"].(map[string]any)["$ref"])
}

func TestMergeRefusesAPathInTwoServices(t *testing.T) {
	_, err := Merge([]Spec{spec(t, "alpha", alpha), spec(t, "gamma", strings.ReplaceAll(beta, "/api/b", "/api/a"))}, "9")
	require.ErrorContains(t, err, "path /api/a is in more than one service")
}

func TestPageListsEveryOperation(t *testing.T) {
	doc, err := Merge([]Spec{spec(t, "alpha", alpha), spec(t, "beta", beta)}, "9")
	require.NoError(t, err)
	page, err := RenderHTML(doc)
	require.NoError(t, err)
	html := string(page)
	require.Contains(t, html, `<span class="method">get</span> <span class="path">/api/a</span>`)
	require.Contains(t, html, `<span class="method">post</span> <span class="path">/api/b</span>`)
	require.Contains(t, html, `id="schema-beta.Error"`)
	require.Contains(t, html, `<code>field</code>`)
}

// Service-to-service routes (x-internal) are never served by the ingress, so the public reference
// leaves them out; a path keeps its public operations.
func TestMergeLeavesOutInternalOperations(t *testing.T) {
	internal := `
info: {description: internal things}
paths:
  /internal/usage/reserve:
    post: {x-internal: true, responses: {"200": {description: ok}}}
  /api/mixed:
    get: {responses: {"200": {description: ok}}}
    post: {x-internal: true, responses: {"200": {description: ok}}}
`
	doc, err := Merge([]Spec{spec(t, "alpha", alpha), spec(t, "delta", internal)}, "9")
	require.NoError(t, err)
	paths := doc["paths"].(map[string]any)
	require.NotContains(t, paths, "/internal/usage/reserve")
	require.Contains(t, paths["/api/mixed"], "get")
	require.NotContains(t, paths["/api/mixed"], "post")
}

// An operation that relies on its service's top-level security keeps it in the merged document,
// which has no top-level security; an operation's own security (public: []) wins.
func TestMergeKeepsEachServicesSecurity(t *testing.T) {
	guarded := `
info: {description: guarded things}
security: [{bearer: []}]
paths:
  /api/guarded:
    get: {responses: {"200": {description: ok}}}
  /api/open:
    get: {security: [], responses: {"200": {description: ok}}}
`
	doc, err := Merge([]Spec{spec(t, "alpha", alpha), spec(t, "delta", guarded)}, "9")
	require.NoError(t, err)
	require.NotContains(t, doc, "security")
	paths := doc["paths"].(map[string]any)
	op := func(path string) map[string]any { return paths[path].(map[string]any)["get"].(map[string]any) }
	require.Equal(t, []any{map[string]any{"bearer": []any{}}}, op("/api/guarded")["security"])
	require.Equal(t, []any{}, op("/api/open")["security"])
	require.NotContains(t, op("/api/a"), "security", "alpha has no default to copy")
}

// The committed reference tells the truth about every operation: an explicit security
// requirement naming a defined scheme, a unique operationId, and servers that are not loopback.
func TestMergedDocumentDescribesEveryOperation(t *testing.T) {
	specs, err := LoadSpecs("../..")
	require.NoError(t, err)
	doc, err := Merge(specs, Version)
	require.NoError(t, err)
	require.NotEmpty(t, doc["info"].(map[string]any)["license"])
	for _, s := range doc["servers"].([]any) {
		url := s.(map[string]any)["url"].(string)
		require.NotRegexp(t, `127\.0\.0\.1|localhost|\[::1\]`, url)
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	ids := map[string]string{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if !isMethod(method) {
				continue
			}
			op := op.(map[string]any)
			where := method + " " + path
			id, _ := op["operationId"].(string)
			require.Regexp(t, `^[a-z][A-Za-z0-9]*$`, id, "%s: operationId (camelCase)", where)
			require.NotContains(t, ids, id, "%s: operationId %s is also %s", where, id, ids[id])
			ids[id] = where
			security, ok := op["security"].([]any)
			require.True(t, ok, "%s: no explicit security", where)
			var bearer, apiKey bool
			for _, req := range security {
				for name := range req.(map[string]any) {
					require.Contains(t, schemes, name, "%s: security scheme %s", where, name)
					bearer, apiKey = bearer || name == "bearer", apiKey || name == "apiKey"
				}
			}
			// The verifier takes an API key wherever it takes a token, but the routes that manage
			// credentials refuse keys (authjwt.SignedIn) and say so; SDKs send what is declared.
			if bearer && !apiKey {
				require.Contains(t, op["description"], "api_key_not_allowed", "%s: a token without an API key, but no word why", where)
			} else {
				require.Equal(t, bearer, apiKey, "%s: a token and an API key are declared together", where)
			}
			require.Contains(t, op["parameters"], map[string]any{"$ref": "#/components/parameters/ApiVersion"}, "%s: API-Version", where)
			for code, resp := range op["responses"].(map[string]any) {
				if r := resp.(map[string]any); r["$ref"] == nil {
					require.Contains(t, r["headers"], "API-Version", "%s %s: API-Version header", where, code)
				}
			}
		}
	}
	require.NotEmpty(t, ids)
}

// An operationId is an SDK method name: a path may change, the id may not, unless
// operation-ids.txt is edited on purpose (new operations are added to it the same way).
func TestOperationIDsAreStable(t *testing.T) {
	specs, err := LoadSpecs("../..")
	require.NoError(t, err)
	doc, err := Merge(specs, Version)
	require.NoError(t, err)
	var got []string
	for _, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if isMethod(method) {
				id, _ := op.(map[string]any)["operationId"].(string)
				got = append(got, id)
			}
		}
	}
	sort.Strings(got)
	raw, err := os.ReadFile("operation-ids.txt")
	require.NoError(t, err)
	var want []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	require.Equal(t, want, got, "operationIds changed: SDK method names would change (edit tools/apidocs/operation-ids.txt only on purpose)")
}

// Generators name an operation's answer type <OperationId>Response (oapi-codegen, and others
// alike); a component with that name makes the generated client fail to compile.
func TestNoComponentTakesAGeneratedTypesName(t *testing.T) {
	specs, err := LoadSpecs("../..")
	require.NoError(t, err)
	doc, err := Merge(specs, Version)
	require.NoError(t, err)
	components := doc["components"].(map[string]any)
	for _, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if !isMethod(method) {
				continue
			}
			id := op.(map[string]any)["operationId"].(string)
			wrapper := strings.ToUpper(id[:1]) + id[1:] + "Response"
			for section, names := range components {
				require.NotContains(t, names, wrapper, "components.%s.%s collides with the generated answer type of %s", section, wrapper, id)
			}
		}
	}
}

// Every event a subscription can name is described under webhooks, with the Standard Webhooks
// signature headers, so receivers get types and know how to verify.
func TestEveryOutboundEventIsAWebhook(t *testing.T) {
	specs, err := LoadSpecs("../..")
	require.NoError(t, err)
	doc, err := Merge(specs, Version)
	require.NoError(t, err)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	events := schemas["OutboundEventType"].(map[string]any)["enum"].([]any)
	webhooks := doc["webhooks"].(map[string]any)
	require.Len(t, webhooks, len(events))
	for _, e := range events {
		item, ok := webhooks[e.(string)].(map[string]any)
		require.True(t, ok, "no webhook for %s", e)
		post := item["post"].(map[string]any)
		var headers []string
		for _, p := range post["parameters"].([]any) {
			headers = append(headers, p.(map[string]any)["name"].(string))
		}
		require.ElementsMatch(t, []string{"webhook-id", "webhook-timestamp", "webhook-signature"}, headers, "%s", e)
		require.NotNil(t, post["requestBody"], "%s", e)
	}
}
