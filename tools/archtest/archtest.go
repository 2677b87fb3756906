// Package archtest checks that every service keeps the hexagonal layering (STYLE.md): the domain
// depends on nothing of its service and on no I/O library, app only on the domain, ports never on
// adapters, and only ports speak HTTP routing. Run by make test through its test.
package archtest

import (
	"fmt"
	"strings"
)

// Package is one Go package and what it imports.
type Package struct {
	Path    string
	Imports []string
}

// rule forbids packages of one layer from importing packages matching any of the prefixes.
type rule struct {
	layer     string   // e.g. "internal/domain"
	forbidden []string // import path prefixes, relative to the service module when they start with "internal/"
}

var rules = []rule{
	{"internal/domain", []string{"internal/app", "internal/ports", "internal/adapters", "internal/service",
		"github.com/jackc/pgx", "github.com/redis/go-redis", "github.com/gorilla/mux", "github.com/riverqueue"}},
	{"internal/app", []string{"internal/ports", "internal/adapters", "internal/service",
		"github.com/jackc/pgx/v5/pgxpool", "github.com/redis/go-redis", "github.com/gorilla/mux"}},
	{"internal/ports", []string{"internal/adapters", "internal/service"}},
	{"internal/adapters", []string{"internal/ports", "internal/service", "github.com/gorilla/mux"}},
}

// Check returns one line per import that breaks a rule, for the service module at modulePath.
func Check(modulePath string, pkgs []Package) []string {
	var violations []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.Path, modulePath+"/")
		for _, r := range rules {
			if rel != r.layer && !strings.HasPrefix(rel, r.layer+"/") {
				continue
			}
			for _, imp := range p.Imports {
				for _, f := range r.forbidden {
					target := f
					if strings.HasPrefix(f, "internal/") {
						target = modulePath + "/" + f
					}
					if imp == target || strings.HasPrefix(imp, target+"/") {
						violations = append(violations, fmt.Sprintf("%s imports %s (%s must not depend on %s)", p.Path, imp, r.layer, f))
					}
				}
			}
		}
	}
	return violations
}
