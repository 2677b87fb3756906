package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"text/template"
)

// The Ingress and Service objects as kubectl prints them (-o json), the fields the edge reads.
type ingressList struct {
	Items []struct {
		Metadata struct {
			Name        string            `json:"name"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Rules []struct {
				HTTP struct {
					Paths []struct {
						Path     string `json:"path"`
						PathType string `json:"pathType"`
						Backend  struct {
							Service struct {
								Name string `json:"name"`
							} `json:"service"`
						} `json:"backend"`
					} `json:"paths"`
				} `json:"http"`
			} `json:"rules"`
		} `json:"spec"`
	} `json:"items"`
}

type serviceList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Type     string `json:"type"`
			Selector struct {
				Name string `json:"app.kubernetes.io/name"`
			} `json:"selector"`
			Ports []struct {
				Name     string `json:"name"`
				NodePort int    `json:"nodePort"`
			} `json:"ports"`
		} `json:"spec"`
	} `json:"items"`
}

// location is one nginx location: exact (=) or prefix, sent to an upstream with an optional
// rewritten URI.
type location struct {
	Match    string // "= /api/auth" or "/api/auth/"
	Upstream string
	URI      string // the path the upstream sees instead of the request's (rewrite-target)
}

type edgeData struct {
	Upstreams  map[string]int // Service name -> its NodePort on the bridge address
	Locations  []location
	Root       string // the Service behind "/", or ""
	ConnLimit  string
	Exempt     []string // limit-whitelist: addresses the connection bound does not count
	Vars       map[string]string
	BridgeAddr string
	ForceHTTPS bool
}

// renderEdge writes the host nginx's config from the installed Ingress objects: each path of
// each rule becomes a location sent to the Service's NodePort twin on the bridge address (the
// Service named <backend>-edge with the same selector), with the annotations the chart sets for
// ingress-nginx read as that controller reads them.
func renderEdge(w io.Writer, ingresses, services []byte, vars map[string]string) error {
	var ings ingressList
	if err := json.Unmarshal(ingresses, &ings); err != nil {
		return fmt.Errorf("ingresses: %w", err)
	}
	var svcs serviceList
	if err := json.Unmarshal(services, &svcs); err != nil {
		return fmt.Errorf("services: %w", err)
	}
	nodePorts := map[string]int{}
	for _, s := range svcs.Items {
		if s.Spec.Type != "NodePort" || !strings.HasSuffix(s.Metadata.Name, "-edge") {
			continue
		}
		for _, p := range s.Spec.Ports {
			if p.Name == "http" && p.NodePort > 0 {
				nodePorts[strings.TrimSuffix(s.Metadata.Name, "-edge")] = p.NodePort
			}
		}
	}
	d := edgeData{Upstreams: map[string]int{}, Vars: vars, BridgeAddr: vars["BridgeAddr"]}
	seen := map[string]bool{}
	for _, ing := range ings.Items {
		a := ing.Metadata.Annotations
		if v := a["nginx.ingress.kubernetes.io/limit-connections"]; v != "" {
			d.ConnLimit = v
		}
		if v := a["nginx.ingress.kubernetes.io/limit-whitelist"]; v != "" {
			for _, cidr := range strings.Split(v, ",") {
				if _, err := netip.ParsePrefix(strings.TrimSpace(cidr)); err != nil {
					return fmt.Errorf("ingress %s: limit-whitelist: %w", ing.Metadata.Name, err)
				}
				if cidr = strings.TrimSpace(cidr); !slices.Contains(d.Exempt, cidr) {
					d.Exempt = append(d.Exempt, cidr) // each Ingress of the chart repeats it
				}
			}
		}
		if a["nginx.ingress.kubernetes.io/force-ssl-redirect"] == "true" {
			d.ForceHTTPS = true
		}
		rewrite := a["nginx.ingress.kubernetes.io/rewrite-target"]
		for _, r := range ing.Spec.Rules {
			for _, p := range r.HTTP.Paths {
				svc := p.Backend.Service.Name
				port, ok := nodePorts[svc]
				if !ok {
					return fmt.Errorf("ingress %s: service %s has no NodePort Service %s-edge", ing.Metadata.Name, svc, svc)
				}
				d.Upstreams[svc] = port
				if p.Path == "/" && p.PathType == "Prefix" && rewrite == "" {
					d.Root = svc
					continue
				}
				// Kubernetes' Prefix matches the path and whole segments below it.
				matches := []string{"= " + p.Path}
				if p.PathType == "Prefix" {
					matches = append(matches, strings.TrimSuffix(p.Path, "/")+"/")
				}
				for _, m := range matches {
					if seen[m] {
						return fmt.Errorf("ingress %s: location %s twice", ing.Metadata.Name, m)
					}
					seen[m] = true
					d.Locations = append(d.Locations, location{Match: m, Upstream: svc, URI: rewrite})
				}
			}
		}
	}
	if len(d.Locations) == 0 {
		return fmt.Errorf("no Ingress paths")
	}
	if d.ConnLimit == "" {
		d.ConnLimit = "64"
	}
	sort.SliceStable(d.Locations, func(i, j int) bool { return d.Locations[i].Match < d.Locations[j].Match })
	return edgeTemplate.Execute(w, d)
}

var edgeTemplate = template.Must(template.New("edge").Option("missingkey=error").Parse(edgeConf))
