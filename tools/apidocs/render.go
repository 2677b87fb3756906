package main

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"sort"
	"strings"
)

// The reference page is plain server-rendered HTML: no scripts, no assets from elsewhere.
var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:1rem 2rem;color:#1d2430}
h1{margin-bottom:0}h2{border-bottom:2px solid #d8dee8;padding-bottom:.2rem;margin-top:2.5rem}
.op{border:1px solid #d8dee8;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}
code,.path{font-family:ui-monospace,monospace}.path{font-weight:600}
ul{margin:.2rem 0;padding-left:1.3rem}table{border-collapse:collapse;margin:.3rem 0}
td,th{border:1px solid #d8dee8;padding:.2rem .5rem;text-align:left;vertical-align:top}
.req{color:#a4262c;font-size:.85em}.muted{color:#5b6472}nav a{margin-right:1rem}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="muted">Version {{.Version}} · the same document as JSON: <a href="/api/openapi.json">/api/openapi.json</a></p>
<p>{{.Description}}</p>
<nav>{{range .Services}}<a href="#service-{{.Name}}">{{.Name}}</a>{{end}}<a href="#schemas">schemas</a></nav>
{{range .Services}}
<h2 id="service-{{.Name}}">{{.Name}}</h2>
<p>{{.Description}}</p>
{{range .Ops}}
<div class="op" id="{{.Anchor}}">
<div><span class="method">{{.Method}}</span> <span class="path">{{.Path}}</span> — {{.Summary}}</div>
{{with .Description}}<p>{{.}}</p>{{end}}
<p class="muted">Operation ID: <code>{{.OperationID}}</code> · Authentication: {{if .Auth}}{{range $i, $a := .Auth}}{{if $i}} or {{end}}{{if eq $a ""}}none{{else}}<code>{{$a}}</code>{{end}}{{end}}{{else}}none{{end}}</p>
{{with .Params}}<table><tr><th>parameter</th><th>in</th><th>schema</th><th>description</th></tr>
{{range .}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{.In}}</td><td>{{.Schema}}</td><td>{{.Description}}</td></tr>
{{end}}</table>{{end}}
{{with .Body}}<div><strong>Request body</strong> {{.}}</div>{{end}}
<div><strong>Responses</strong><ul>{{range .Responses}}<li><code>{{.Status}}</code> {{.Description}} {{.Schema}}</li>{{end}}</ul></div>
</div>
{{end}}
{{end}}
<h2 id="schemas">Schemas</h2>
{{range .Schemas}}<div class="op" id="schema-{{.Name}}"><code><strong>{{.Name}}</strong></code> {{.Schema}}</div>
{{end}}
</body>
</html>
`))

type view struct {
	Title, Version, Description string
	Services                    []serviceView
	Schemas                     []namedSchema
}

type serviceView struct {
	Name, Description string
	Ops               []opView
}

type opView struct {
	Method, Path, Anchor, Summary, Description string
	OperationID                                string
	Auth                                       []string
	Params                                     []paramView
	Body                                       template.HTML
	Responses                                  []responseView
}

type paramView struct {
	Name, In, Description string
	Required              bool
	Schema                template.HTML
}

type responseView struct {
	Status, Description string
	Schema              template.HTML
}

type namedSchema struct {
	Name   string
	Schema template.HTML
}

var methods = []string{"get", "put", "post", "patch", "delete", "head", "options"}

// RenderHTML writes the API reference page of a merged document.
func RenderHTML(doc map[string]any) ([]byte, error) {
	info := obj(doc["info"])
	v := view{Title: str(info["title"]), Version: str(info["version"]), Description: str(info["description"])}
	components := obj(doc["components"])
	paths := obj(doc["paths"])
	for _, tag := range list(doc["tags"]) {
		tag := obj(tag)
		sv := serviceView{Name: str(tag["name"]), Description: str(tag["description"])}
		for _, path := range sortedKeys(paths) {
			item := obj(paths[path])
			for _, m := range methods {
				op := obj(item[m])
				if op == nil || !contains(list(op["tags"]), sv.Name) {
					continue
				}
				sv.Ops = append(sv.Ops, operation(m, path, op, item, doc, components))
			}
		}
		v.Services = append(v.Services, sv)
	}
	schemas := obj(components["schemas"])
	for _, name := range sortedKeys(schemas) {
		v.Schemas = append(v.Schemas, namedSchema{Name: name, Schema: schemaHTML(schemas[name], 0)})
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func operation(method, path string, op, item, doc, components map[string]any) opView {
	o := opView{
		Method: method, Path: path, Summary: str(op["summary"]), Description: str(op["description"]),
		OperationID: str(op["operationId"]),
		Anchor:      method + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(path),
	}
	security, ok := op["security"]
	if !ok {
		security = doc["security"]
	}
	for _, req := range list(security) {
		// An empty requirement ({}) makes authentication optional: shown as "none".
		if len(obj(req)) == 0 {
			o.Auth = append(o.Auth, "")
			continue
		}
		o.Auth = append(o.Auth, strings.Join(sortedKeys(obj(req)), " + "))
	}
	for _, p := range append(list(item["parameters"]), list(op["parameters"])...) {
		p := resolve(obj(p), components)
		o.Params = append(o.Params, paramView{Name: str(p["name"]), In: str(p["in"]), Description: str(p["description"]),
			Required: p["required"] == true, Schema: schemaHTML(p["schema"], 0)})
	}
	if body := resolve(obj(op["requestBody"]), components); body != nil {
		o.Body = contentHTML(body)
	}
	responses := obj(op["responses"])
	for _, status := range sortedKeys(responses) {
		r := resolve(obj(responses[status]), components)
		o.Responses = append(o.Responses, responseView{Status: status, Description: str(r["description"]), Schema: contentHTML(r)})
	}
	return o
}

// resolve follows a $ref to a non-schema component (parameter, response, request body).
func resolve(node, components map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
	if len(parts) != 2 {
		return node
	}
	return obj(obj(components[parts[0]])[parts[1]])
}

func contentHTML(node map[string]any) template.HTML {
	var b strings.Builder
	content := obj(node["content"])
	for _, mediaType := range sortedKeys(content) {
		fmt.Fprintf(&b, "<code>%s</code> %s", html.EscapeString(mediaType), schemaHTML(obj(content[mediaType])["schema"], 0))
	}
	return template.HTML(b.String())
}

// schemaHTML describes a schema inline: a link for a $ref, the properties of an object as a
// list, the facts (type, format, enum, bounds) of a scalar.
func schemaHTML(node any, depth int) template.HTML {
	s := obj(node)
	if s == nil {
		return ""
	}
	if ref, ok := s["$ref"].(string); ok {
		name := ref[strings.LastIndex(ref, "/")+1:]
		return template.HTML(fmt.Sprintf(`<a href="#schema-%s"><code>%s</code></a>`, html.EscapeString(name), html.EscapeString(name)))
	}
	if depth > 8 {
		return "…"
	}
	var b strings.Builder
	for _, key := range []string{"allOf", "oneOf", "anyOf"} {
		if alts := list(s[key]); alts != nil {
			fmt.Fprintf(&b, "%s:<ul>", key)
			for _, alt := range alts {
				fmt.Fprintf(&b, "<li>%s</li>", schemaHTML(alt, depth+1))
			}
			b.WriteString("</ul>")
		}
	}
	var facts []string
	if t := str(s["type"]); t != "" {
		facts = append(facts, t)
	}
	for _, key := range []string{"format", "pattern", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "default"} {
		if val, ok := s[key]; ok {
			facts = append(facts, fmt.Sprintf("%s %v", key, val))
		}
	}
	if s["nullable"] == true {
		facts = append(facts, "nullable")
	}
	if enum := list(s["enum"]); enum != nil {
		vals := make([]string, len(enum))
		for i, e := range enum {
			vals[i] = fmt.Sprint(e)
		}
		facts = append(facts, "one of: "+strings.Join(vals, " | "))
	}
	if len(facts) > 0 {
		fmt.Fprintf(&b, `<span class="muted">%s</span>`, html.EscapeString(strings.Join(facts, ", ")))
	}
	if d := str(s["description"]); d != "" && depth > 0 {
		fmt.Fprintf(&b, " — %s", html.EscapeString(d))
	}
	if items, ok := s["items"]; ok {
		fmt.Fprintf(&b, " of %s", schemaHTML(items, depth+1))
	}
	if props := obj(s["properties"]); props != nil {
		required := map[string]bool{}
		for _, r := range list(s["required"]) {
			required[str(r)] = true
		}
		b.WriteString("<ul>")
		for _, name := range sortedKeys(props) {
			req := ""
			if required[name] {
				req = ` <span class="req">required</span>`
			}
			fmt.Fprintf(&b, "<li><code>%s</code>%s %s</li>", html.EscapeString(name), req, schemaHTML(props[name], depth+1))
		}
		b.WriteString("</ul>")
	}
	if extra, ok := s["additionalProperties"].(map[string]any); ok {
		fmt.Fprintf(&b, " values: %s", schemaHTML(extra, depth+1))
	}
	return template.HTML(b.String())
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any         { l, _ := v.([]any); return l }
func str(v any) string         { s, _ := v.(string); return s }

func contains(l []any, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
