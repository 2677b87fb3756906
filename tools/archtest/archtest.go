// Package archtest checks that every service keeps the hexagonal layering (docs/conventions.md):
// the domain depends on nothing of its service and on no I/O library, app only on the domain and
// sees no database, transport or event-envelope type, ports never on adapters, only ports speak
// HTTP routing, and every package under internal/ sits in one of the layers. Run by make test through
// its test.
package archtest

import (
	"fmt"
	"slices"
	"strings"
)

// Package is one Go package, what it imports, and everything those bring in (go list's Deps).
type Package struct {
	Path    string
	Imports []string
	Deps    []string
}

// layers are the places a package under internal/ may live (it may also be below one of them).
var layers = []string{"internal/domain", "internal/app", "internal/ports", "internal/adapters", "internal/service"}

// rule forbids packages of one layer from importing packages matching any of the prefixes.
type rule struct {
	layer     string   // e.g. "internal/domain"
	forbidden []string // import path prefixes, relative to the service module when they start with "internal/"
}

const libs = "github.com/bizassist/bizassist/libs/"

// inner is what neither the domain nor app may import: the database driver (a transaction
// travels in the context, never in a signature), the event envelope and outbox plumbing (events
// are contract types and an outbox port), and the HTTP helpers (times are formatted by isotime).
var inner = []string{"github.com/jackc/pgx", libs + "pgkit", libs + "events", libs + "httpx",
	"github.com/redis/go-redis", "github.com/gorilla/mux"}

var rules = []rule{
	{"internal/domain", append([]string{"internal/app", "internal/ports", "internal/adapters", "internal/service",
		"github.com/riverqueue"}, inner...)},
	{"internal/app", append([]string{"internal/ports", "internal/adapters", "internal/service"}, inner...)},
	{"internal/ports", []string{"internal/adapters", "internal/service"}},
	{"internal/adapters", []string{"internal/ports", "internal/service", "github.com/gorilla/mux"}},
}

// Check returns one line per package placed outside the layers and per dependency that breaks a
// rule, direct or through other packages (app reaching pgx through a library counts), for the
// service module at modulePath.
func Check(modulePath string, pkgs []Package) []string {
	var violations []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.Path, modulePath+"/")
		if (rel == "internal" || strings.HasPrefix(rel, "internal/")) && layerOf(rel) == "" {
			violations = append(violations, fmt.Sprintf("%s is in no layer (place it under one of %s)", p.Path, strings.Join(layers, ", ")))
		}
		for _, r := range rules {
			if layerOf(rel) != r.layer {
				continue
			}
			for _, dep := range deps(p) {
				how := "imports"
				if !slices.Contains(p.Imports, dep) {
					how = "depends, through its imports, on"
				}
				for _, f := range r.forbidden {
					target := f
					if strings.HasPrefix(f, "internal/") {
						target = modulePath + "/" + f
					}
					if dep == target || strings.HasPrefix(dep, target+"/") {
						violations = append(violations, fmt.Sprintf("%s %s %s (%s must not depend on %s)", p.Path, how, dep, r.layer, f))
					}
				}
			}
		}
	}
	return violations
}

// deps is everything p depends on: its Deps, with its Imports for a package listed without them.
func deps(p Package) []string {
	all := slices.Clone(p.Deps)
	for _, imp := range p.Imports {
		if !slices.Contains(all, imp) {
			all = append(all, imp)
		}
	}
	return all
}

// layerOf returns the layer rel (a path relative to the module) belongs to, or "".
func layerOf(rel string) string {
	for _, l := range layers {
		if rel == l || strings.HasPrefix(rel, l+"/") {
			return l
		}
	}
	return ""
}
