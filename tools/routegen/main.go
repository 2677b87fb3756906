// Command routegen renders a proxy config from the ingress route table in the chart values, so
// that the local nginx and the Kubernetes Ingress route the same paths to the same services.
//
//	routegen -values charts/bizassist/values.yaml -template tools/devstack/nginx.conf.tmpl \
//	    -out .devstack/nginx/nginx.conf -set Prefix=/abs/.devstack/nginx -set HTTPSPort=8443
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// setFlags collects repeated -set key=value pairs.
type setFlags map[string]string

func (s setFlags) String() string { return fmt.Sprint(map[string]string(s)) }

func (s setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	s[k] = val
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "routegen:", err)
		os.Exit(1)
	}
}

func run() error {
	vars := setFlags{}
	valuesPath := flag.String("values", "charts/bizassist/values.yaml", "chart values file with the ingress section")
	tmplPath := flag.String("template", "", "text/template file to render (required)")
	outPath := flag.String("out", "", "output file (default stdout)")
	flag.Var(vars, "set", "template variable key=value, available as .Vars.key (repeatable)")
	flag.Parse()
	if *tmplPath == "" {
		return fmt.Errorf("-template is required")
	}

	f, err := os.Open(*valuesPath)
	if err != nil {
		return err
	}
	defer f.Close()
	table, err := LoadTable(f)
	if err != nil {
		return fmt.Errorf("%s: %w", *valuesPath, err)
	}
	tmpl, err := os.ReadFile(*tmplPath)
	if err != nil {
		return err
	}
	out, err := Render(string(tmpl), table, vars)
	if err != nil {
		return fmt.Errorf("%s: %w", *tmplPath, err)
	}
	if *outPath == "" {
		_, err = os.Stdout.Write(out)
		return err
	}
	// Write then rename, so a reader (nginx -t) never sees half a file.
	tmp, err := os.CreateTemp(filepath.Dir(*outPath), ".routegen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), *outPath)
}
