// Package metricsdoc keeps docs/metrics.md, the table of every metric bizassist exports, true:
// its test fails when code registers a metric the table lacks, when the table lists one nobody
// registers, or when a row's type or labels differ from the code.
//
// Metrics are found in the Go source, not by gathering a registry: a *Vec collector appears in a
// scrape only after its first label values are used, so a gathered registry would miss metrics
// whose code path had not run yet; and the services' composition roots are internal packages
// that this module cannot import.
package metricsdoc

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Metric is one metric family as the code defines it or the table documents it.
type Metric struct {
	Name   string
	Type   string // counter, gauge, histogram or summary
	Labels []string
	// Where is the file that defines it (code) or the table's source column.
	Where string
}

// optsTypes maps the prometheus option structs to the metric type they define.
var optsTypes = map[string]string{
	"CounterOpts": "counter", "GaugeOpts": "gauge", "HistogramOpts": "histogram", "SummaryOpts": "summary",
}

// Scan parses the non-test Go files under dirs and returns every metric defined with a
// prometheus.<Type>Opts literal, keyed by name. A literal whose Name, Namespace or Subsystem is
// not a string constant, or whose labels are not a []string literal, is an error: the scan must
// not miss a metric silently.
func Scan(root string, dirs ...string) (map[string]Metric, error) {
	out := map[string]Metric{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			return scanFile(file, filepath.ToSlash(rel), fset, out)
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanFile(file *ast.File, rel string, fset *token.FileSet, out map[string]Metric) error {
	var err error
	seen := map[*ast.CompositeLit]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		lit, typ := optsLiteral(call.Args[0])
		if lit == nil {
			return true
		}
		seen[lit] = true
		m := Metric{Type: typ, Where: rel}
		if m.Name, err = fqName(lit); err != nil {
			err = fmt.Errorf("%s: %w", fset.Position(lit.Pos()), err)
			return false
		}
		if strings.HasSuffix(funcName(call), "Vec") {
			if len(call.Args) < 2 {
				err = fmt.Errorf("%s: %s without labels", fset.Position(call.Pos()), funcName(call))
				return false
			}
			if m.Labels, err = stringSlice(call.Args[1]); err != nil {
				err = fmt.Errorf("%s: labels of %s: %w", fset.Position(call.Args[1].Pos()), m.Name, err)
				return false
			}
		}
		if prev, dup := out[m.Name]; dup {
			err = fmt.Errorf("%s: %s is also defined in %s", fset.Position(lit.Pos()), m.Name, prev.Where)
			return false
		}
		out[m.Name] = m
		return true
	})
	if err != nil {
		return err
	}
	// An options literal that is not the first argument of a constructor (built elsewhere and
	// passed in a variable) would escape the scan.
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, typ := optsLiteral(n); lit != nil && !seen[lit] && err == nil {
			err = fmt.Errorf("%s: a prometheus %s options literal outside a constructor call: define metrics inline so tools/metricsdoc can see them", fset.Position(lit.Pos()), typ)
		}
		return true
	})
	return err
}

func optsLiteral(n ast.Node) (*ast.CompositeLit, string) {
	if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
		n = u.X
	}
	lit, ok := n.(*ast.CompositeLit)
	if !ok {
		return nil, ""
	}
	sel, ok := lit.Type.(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "prometheus" {
		return nil, ""
	}
	typ, ok := optsTypes[sel.Sel.Name]
	if !ok {
		return nil, ""
	}
	return lit, typ
}

func funcName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.Ident:
		return f.Name
	}
	return ""
}

// fqName joins Namespace, Subsystem and Name as prometheus.BuildFQName does.
func fqName(lit *ast.CompositeLit) (string, error) {
	parts := map[string]string{}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return "", fmt.Errorf("options literal without field names")
		}
		key := kv.Key.(*ast.Ident).Name
		if key != "Name" && key != "Namespace" && key != "Subsystem" {
			continue
		}
		s, err := stringConst(kv.Value)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		parts[key] = s
	}
	if parts["Name"] == "" {
		return "", fmt.Errorf("metric without a Name")
	}
	var name []string
	for _, k := range []string{"Namespace", "Subsystem", "Name"} {
		if parts[k] != "" {
			name = append(name, parts[k])
		}
	}
	return strings.Join(name, "_"), nil
}

func stringConst(e ast.Expr) (string, error) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", fmt.Errorf("not a string literal")
	}
	return strconv.Unquote(lit.Value)
}

func stringSlice(e ast.Expr) ([]string, error) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("not a []string literal")
	}
	out := make([]string, 0, len(lit.Elts))
	for _, el := range lit.Elts {
		s, err := stringConst(el)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// row is a table row: | `name` | type | `label`, `label` (or —) | meaning | `source` |
var row = regexp.MustCompile("^\\|\\s*`([a-z_:][a-z0-9_:]*)`\\s*\\|\\s*([a-z]+)\\s*\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|\\s*$")

// ReadTable returns the metrics documented in the markdown file's table rows.
func ReadTable(path string) (map[string]Metric, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]Metric{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[4]) == "" {
			return nil, fmt.Errorf("%s:%d: %s has no meaning", path, line, m[1])
		}
		if _, dup := out[m[1]]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, line, m[1])
		}
		var labels []string
		for _, l := range strings.Split(m[3], ",") {
			if l = strings.Trim(strings.TrimSpace(l), "`"); l != "" && l != "—" {
				labels = append(labels, l)
			}
		}
		out[m[1]] = Metric{Name: m[1], Type: m[2], Labels: labels, Where: strings.Trim(strings.TrimSpace(m[5]), "`")}
	}
	return out, sc.Err()
}

// Names returns the keys of ms, sorted.
func Names(ms map[string]Metric) []string {
	out := make([]string, 0, len(ms))
	for n := range ms {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
