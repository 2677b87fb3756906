package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bizassist/bizassist/libs/httpx"
)

// Spec is one service's OpenAPI document.
type Spec struct {
	Service string
	Doc     map[string]any
}

// LoadSpecs reads services/*/api/openapi.yaml under root, sorted by service name.
func LoadSpecs(root string) ([]Spec, error) {
	paths, err := filepath.Glob(filepath.Join(root, "services", "*", "api", "openapi.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	specs := make([]Spec, 0, len(paths))
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		specs = append(specs, Spec{Service: filepath.Base(filepath.Dir(filepath.Dir(p))), Doc: doc})
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("no services/*/api/openapi.yaml under %s", root)
	}
	return specs, nil
}

// Merge joins the services' documents into one. Paths must not overlap. A component that every
// defining service spells the same way is shared; otherwise each service's version is renamed
// <service>.<Name> and that service's references follow it. Every operation is tagged with its
// service.
func Merge(specs []Spec, version string) (map[string]any, error) {
	// renamed[service] holds the component refs ("#/components/schemas/Error") that service
	// renames; it grows until the rewritten components agree (a shared response may point at a
	// schema that turned out to differ).
	renamed := map[string]map[string]bool{}
	for _, s := range specs {
		renamed[s.Service] = map[string]bool{}
	}
	var docs map[string]map[string]any
	for {
		docs = map[string]map[string]any{}
		for _, s := range specs {
			doc := rewrite(s.Doc, s.Service, renamed[s.Service]).(map[string]any)
			renameComponents(doc, s.Service, renamed[s.Service])
			docs[s.Service] = doc
		}
		if !markConflicts(specs, docs, renamed) {
			break
		}
	}

	paths := map[string]any{}
	webhooks := map[string]any{}
	components := map[string]any{}
	tags := []any{}
	for _, s := range specs {
		doc := docs[s.Service]
		info, _ := doc["info"].(map[string]any)
		tags = append(tags, map[string]any{"name": s.Service, "description": info["description"]})
		// A service's x-webhooks (3.0 has no webhooks) are what it sends: the 3.1 webhooks here.
		docWebhooks, _ := doc["x-webhooks"].(map[string]any)
		for name, item := range docWebhooks {
			if _, dup := webhooks[name]; dup {
				return nil, fmt.Errorf("webhook %s is in more than one service (second: %s)", name, s.Service)
			}
			for k, op := range item.(map[string]any) {
				if op, ok := op.(map[string]any); ok && isMethod(k) {
					op["tags"] = []any{s.Service}
				}
			}
			webhooks[name] = item
		}
		docPaths, _ := doc["paths"].(map[string]any)
		for path, item := range docPaths {
			if _, dup := paths[path]; dup {
				return nil, fmt.Errorf("path %s is in more than one service (second: %s)", path, s.Service)
			}
			public := publicOperations(item.(map[string]any))
			if len(public) == 0 {
				continue
			}
			for k, op := range public {
				if op, ok := op.(map[string]any); ok && isMethod(k) {
					op["tags"] = []any{s.Service}
					// The merged document has no top-level security: one service's default must
					// not become another's, so an operation that relies on its service's default
					// carries it itself.
					if _, own := op["security"]; !own && doc["security"] != nil {
						op["security"] = doc["security"]
					}
				}
			}
			paths[path] = public
		}
		docComponents, _ := doc["components"].(map[string]any)
		for section, entries := range docComponents {
			merged, _ := components[section].(map[string]any)
			if merged == nil {
				merged = map[string]any{}
				components[section] = merged
			}
			for name, body := range entries.(map[string]any) {
				merged[name] = body
			}
		}
	}
	describeVersionHeader(paths, components)
	for _, part := range []any{paths, webhooks, components} {
		nullableToTypes(part)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "bizassist API",
			"version": version,
			"description": "Every public route of the bizassist services, merged from services/*/api/openapi.yaml by tools/apidocs. Operations are tagged with the service that answers them. " +
				"Request bodies are strict JSON: Content-Type application/json (415 otherwise), member names exactly as documented, none given twice (duplicate_field), none unknown (unknown_field). " +
				"Every string (body members and names, path and query parameters) is UTF-8 text without U+0000, which no PostgreSQL text holds; null is a value only where a member is documented nullable (or takes any JSON); an empty Idempotency-Key is refused: each is 400 naming the field or parameter. " +
				"Every GET route answers HEAD; OPTIONS on a documented path answers 204 with Allow; another method answers 405 method_not_allowed with an Allow header. " +
				"POSTs that create, spend or send honour an Idempotency-Key header (per caller, kept 7 days): a retry with the same key and body gets the first answer with Idempotent-Replayed: true and no second effect; the same key with another body is 409 idempotency_key_reused. " +
				"A secret shown once (an API key, an invitation token, a signing or inbound webhook secret) is never replayed: such a retry is 409 idempotency_secret_withheld, with withheld naming the members left out and answer the rest of the first answer. " +
				"The public read-only routes (feed, scout-stats, webhook samples, JWKS, this document) allow any origin (CORS, no credentials); authenticated routes send no CORS headers. " +
				"Under webhooks: every event a subscription receives, as POSTed to its hookUrl with the Standard Webhooks signature headers.",
			"license": map[string]any{"name": "Proprietary", "url": "https://api.example.com/license"},
		},
		"servers": []any{map[string]any{
			"url":         "https://{host}",
			"description": "The install's ingress (the local stack answers on https://127.0.0.1:8443).",
			"variables": map[string]any{"host": map[string]any{
				"default": "api.example.com", "description": "Host name of the install's ingress",
			}},
		}},
		"tags":       tags,
		"paths":      paths,
		"webhooks":   webhooks,
		"components": components,
	}, nil
}

// publicOperations drops the operations marked x-internal (service-to-service routes the ingress
// never serves) from a path item; path-level fields stay only when an operation does.
func publicOperations(item map[string]any) map[string]any {
	out := map[string]any{}
	ops := 0
	for k, v := range item {
		if op, ok := v.(map[string]any); ok && isMethod(k) {
			if internal, _ := op["x-internal"].(bool); internal {
				continue
			}
			ops++
		}
		out[k] = v
	}
	if ops == 0 {
		return nil
	}
	return out
}

func isMethod(k string) bool {
	switch k {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

// markConflicts renames, in every service that has it, a component whose rewritten body is not
// the same in all of them. It reports whether anything new was renamed.
func markConflicts(specs []Spec, docs map[string]map[string]any, renamed map[string]map[string]bool) bool {
	type variant struct {
		service string
		body    any
	}
	byRef := map[string][]variant{}
	for _, s := range specs {
		components, _ := docs[s.Service]["components"].(map[string]any)
		for section, entries := range components {
			for name, body := range entries.(map[string]any) {
				if strings.HasPrefix(name, s.Service+".") {
					continue
				}
				ref := "#/components/" + section + "/" + name
				byRef[ref] = append(byRef[ref], variant{s.Service, body})
			}
		}
	}
	changed := false
	for ref, vs := range byRef {
		same := true
		for _, v := range vs[1:] {
			same = same && reflect.DeepEqual(v.body, vs[0].body)
		}
		if same {
			continue
		}
		for _, v := range vs {
			renamed[v.service][ref] = true
		}
		changed = true
	}
	return changed
}

// renameComponents moves the renamed components of a (rewritten) document to <service>.<Name>.
func renameComponents(doc map[string]any, service string, renames map[string]bool) {
	components, _ := doc["components"].(map[string]any)
	for section, entries := range components {
		entries, ok := entries.(map[string]any)
		if !ok {
			continue
		}
		var names []string
		for name := range entries {
			if renames["#/components/"+section+"/"+name] {
				names = append(names, name)
			}
		}
		for _, name := range names {
			entries[service+"."+name] = entries[name]
			delete(entries, name)
		}
	}
}

// rewrite deep-copies a document, pointing the refs to renamed components at their new names.
func rewrite(node any, service string, renames map[string]bool) any {
	switch n := node.(type) {
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, v := range n {
			if k == "$ref" {
				if ref, ok := v.(string); ok && renames[ref] {
					i := strings.LastIndex(ref, "/")
					v = ref[:i+1] + service + "." + ref[i+1:]
				}
			}
			out[k] = rewrite(v, service, renames)
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			out[i] = rewrite(v, service, renames)
		}
		return out
	default:
		return n
	}
}

// describeVersionHeader documents API-Version once for every operation: a request may pin a
// served version, and every answer names the version it speaks (docs/decisions.md, "Versioning").
func describeVersionHeader(paths, components map[string]any) {
	set := func(section, name string, body any) {
		m, _ := components[section].(map[string]any)
		if m == nil {
			m = map[string]any{}
			components[section] = m
		}
		m[name] = body
	}
	set("parameters", "ApiVersion", map[string]any{
		"name": "API-Version", "in": "header", "required": false,
		"description": "The dated API version the client was written against; the current one when absent. A version this deployment does not serve is 400 unsupported_api_version.",
		"schema":      map[string]any{"type": "string", "enum": []any{httpx.APIVersion, httpx.LenientJSONVersion}},
	})
	set("headers", "ApiVersion", map[string]any{
		"description": "The dated API version of this answer: the one the request pinned, or the current one.",
		"schema":      map[string]any{"type": "string"},
	})
	param := map[string]any{"$ref": "#/components/parameters/ApiVersion"}
	header := map[string]any{"$ref": "#/components/headers/ApiVersion"}
	addHeader := func(resp any) {
		r, ok := resp.(map[string]any)
		if !ok || r["$ref"] != nil {
			return // a shared response gets it where it is defined
		}
		h, _ := r["headers"].(map[string]any)
		if h == nil {
			h = map[string]any{}
			r["headers"] = h
		}
		h["API-Version"] = header
	}
	for _, item := range paths {
		for method, op := range item.(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok || !isMethod(method) {
				continue
			}
			params, _ := op["parameters"].([]any)
			op["parameters"] = append(params, param)
			responses, _ := op["responses"].(map[string]any)
			for _, resp := range responses {
				addHeader(resp)
			}
		}
	}
	shared, _ := components["responses"].(map[string]any)
	for _, resp := range shared {
		addHeader(resp)
	}
}

// nullableToTypes rewrites OpenAPI 3.0's nullable (what the services' documents say) as OpenAPI
// 3.1's JSON Schema: {type: T, nullable: true} is {type: [T, "null"]}, with null in its enum.
func nullableToTypes(node any) {
	switch n := node.(type) {
	case map[string]any:
		if n["nullable"] == true {
			delete(n, "nullable")
			if t, ok := n["type"].(string); ok {
				n["type"] = []any{t, "null"}
			}
			if enum, ok := n["enum"].([]any); ok {
				n["enum"] = append(enum, nil)
			}
		}
		for _, v := range n {
			nullableToTypes(v)
		}
	case []any:
		for _, v := range n {
			nullableToTypes(v)
		}
	}
}
