package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// routesExempt are the services whose inbound HTTP port takes no platform.Middleware: the
// console serves pages, and the limits that count a person are the API's own (its calls forward
// the browser's address).
var routesExempt = map[string]bool{"console": true}

// CheckWiring returns one line per way the service in dir is wired differently from the others
// (docs/conventions.md): its command is platform.Commands(service.New) in cmd/<name>/main.go, with
// New(ctx context.Context, cfg Config) (*Service, error) checking its use cases with
// platform.Wired; its Config in internal/service/config.go, its migrations one pgkit.Source named
// Source, its use cases in one app.Application, its HTTP routes registered by
// Routes(*mux.Router, platform.Middleware), its adapters in packages named for what they hold, and
// its storage interfaces in app, not domain.
func CheckWiring(dir string) []string {
	name := filepath.Base(dir)
	var out []string
	if !calls(filepath.Join(dir, "cmd", name, "main.go"), "platform.Commands(service.New)") {
		out = append(out, name+": cmd/"+name+"/main.go does not call platform.Commands(service.New)")
	}
	if !anyFile(filepath.Join(dir, "internal/service"), hasNew) {
		out = append(out, name+": internal/service has no func New(ctx context.Context, cfg Config) (*Service, error)")
	}
	if !anyFile(filepath.Join(dir, "internal/service"), func(f *ast.File) bool { return callsFunc(f, "platform.Wired") }) {
		out = append(out, name+": internal/service does not check its use cases with platform.Wired")
	}
	if !declaresVar(filepath.Join(dir, "migrations/embed.go"), "Source") {
		out = append(out, name+": migrations/embed.go does not declare var Source (a pgkit.Source of the embedded files)")
	}
	if !declares(filepath.Join(dir, "internal/service/config.go"), "Config") {
		out = append(out, name+": internal/service/config.go does not declare type Config")
	}
	if !anyFile(filepath.Join(dir, "internal/app"), func(f *ast.File) bool { return hasType(f, "Application") }) {
		out = append(out, name+": internal/app declares no type Application (the service's use cases, one field each)")
	}
	if !routesExempt[name] && !anyFile(filepath.Join(dir, "internal/ports"), hasRoutes) {
		out = append(out, name+": internal/ports has no method (h *HTTP) Routes(*mux.Router, platform.Middleware)")
	}
	if f := parse(filepath.Join(dir, "internal/ports/events.go")); f != nil && !hasEventHandlers(f) {
		out = append(out, name+": internal/ports/events.go has no func EventHandlers(a app.Application) map[string]events.Handler")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "internal/adapters/*.go")); len(files) > 0 {
		out = append(out, fmt.Sprintf("%s: internal/adapters holds Go files directly (%s); put each adapter in a package named for what it holds",
			name, filepath.Base(files[0])))
	}
	_ = filepath.WalkDir(filepath.Join(dir, "internal/domain"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && goSource(path) {
			if f := parse(path); f != nil && hasType(f, "Repository") {
				out = append(out, name+": "+strings.TrimPrefix(path, dir+"/")+" declares a Repository; storage interfaces are app's ports")
			}
		}
		return nil
	})
	return out
}

func goSource(path string) bool {
	return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
}

func parse(path string) *ast.File {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	return f
}

// anyFile says whether some non-test Go file directly in dir satisfies ok.
func anyFile(dir string, ok func(*ast.File) bool) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, path := range files {
		if f := parse(path); goSource(path) && f != nil && ok(f) {
			return true
		}
	}
	return false
}

func declares(path, typeName string) bool {
	f := parse(path)
	return f != nil && hasType(f, typeName)
}

func hasType(f *ast.File, name string) bool {
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if s.(*ast.TypeSpec).Name.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// hasRoutes finds func (h *HTTP) Routes(r *mux.Router, mw platform.Middleware).
func hasRoutes(f *ast.File) bool {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Name.Name != "Routes" || fieldTypes(fn.Recv) != "*HTTP" {
			continue
		}
		if fieldTypes(fn.Type.Params) == "*mux.Router, platform.Middleware" {
			return true
		}
	}
	return false
}

// hasEventHandlers finds func EventHandlers(a app.Application) map[string]events.Handler.
func hasEventHandlers(f *ast.File) bool {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "EventHandlers" {
			return fieldTypes(fn.Type.Params) == "app.Application" && fieldTypes(fn.Type.Results) == "map[string]events.Handler"
		}
	}
	return false
}

// hasNew finds func New(ctx context.Context, cfg Config) (*Service, error).
func hasNew(f *ast.File) bool {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "New" {
			return fieldTypes(fn.Type.Params) == "context.Context, Config" && fieldTypes(fn.Type.Results) == "*Service, error"
		}
	}
	return false
}

func fieldTypes(l *ast.FieldList) string {
	if l == nil {
		return ""
	}
	var types []string
	for _, p := range l.List {
		for range max(len(p.Names), 1) {
			types = append(types, exprString(p.Type))
		}
	}
	return strings.Join(types, ", ")
}

func declaresVar(path, name string) bool {
	f := parse(path)
	if f == nil {
		return false
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// callsFunc says whether f calls fn, written as "pkg.Fn".
func callsFunc(f *ast.File, fn string) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && exprString(c.Fun) == fn {
			found = true
		}
		return !found
	})
	return found
}

// calls says whether the file at path has the call fn(arg), written as "pkg.Fn(pkg.Arg)".
func calls(path, call string) bool {
	f := parse(path)
	found := false
	if f != nil {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 1 && exprString(c.Fun)+"("+exprString(c.Args[0])+")" == call {
				found = true
			}
			return !found
		})
	}
	return found
}

func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.MapType:
		return "map[" + exprString(t.Key) + "]" + exprString(t.Value)
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return fmt.Sprintf("%T", e)
}
