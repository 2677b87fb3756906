package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

// rateInterval is what Grafana puts for $__rate_interval with its Prometheus data source's
// default scrape interval (15s): four of them.
const rateInterval = "1m"

// dashboard is the part of a Grafana dashboard the check reads.
type dashboard struct {
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

var labelValuesRE = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// dashboardsReturnData is the last row: every panel query of every dashboard of the chart, with
// its variables set to the stack's values as Grafana would, returns at least one series with a
// value over the run; and every SLO recording rule of the rendered rules has a value now.
func (s *suite) dashboardsReturnData(ctx context.Context) result {
	res := result{fault: "dashboards and SLO rules", recovery: -1}
	files, err := filepath.Glob(filepath.Join(s.root, "charts", "bizassist", "dashboards", "*.json"))
	if err != nil || len(files) == 0 {
		res.fail("no dashboards found: %v", err)
		return res
	}
	r := promv1.Range{Start: s.started, End: time.Now(), Step: 15 * time.Second}
	panels := 0
	for _, f := range files {
		var d dashboard
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &d)
		}
		if err != nil {
			res.fail("%s: %v", filepath.Base(f), err)
			continue
		}
		vars, err := s.variables(ctx, d, r)
		if err != nil {
			res.fail("%s: %v", filepath.Base(f), err)
			continue
		}
		for _, p := range d.Panels {
			for _, t := range p.Targets {
				if t.Expr == "" {
					continue
				}
				panels++
				expr := substitute(t.Expr, vars)
				if ok, err := s.hasValue(ctx, expr, r); err != nil || !ok {
					res.fail("dashboard %q panel %q returns no data: %s (%v)", d.Title, p.Title, expr, err)
				}
			}
		}
	}
	records, err := recordingRules(filepath.Join(s.root, ".devstack", "monitoring", "rules.yaml"))
	if err != nil {
		res.fail("%v", err)
	}
	for _, sel := range records {
		if ok, err := s.hasValue(ctx, sel, promv1.Range{Start: r.End, End: r.End, Step: time.Second}); err != nil || !ok {
			res.fail("recording rule %s has no value (%v)", sel, err)
		}
	}
	res.summary = fmt.Sprintf("%d panel queries, %d SLO rules: %d without data", panels, len(records), len(res.problems))
	return res
}

// variables resolves a dashboard's query variables in order (each may use the ones before), as
// Grafana's "All": every value the label takes over the run.
func (s *suite) variables(ctx context.Context, d dashboard, r promv1.Range) (map[string]string, error) {
	vars := map[string]string{"__rate_interval": rateInterval, "__interval": r.Step.String()}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(string)
		if m, ok := v.Query.(map[string]any); ok {
			q, _ = m["query"].(string)
		}
		m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(q))
		if m == nil {
			return nil, fmt.Errorf("variable %s: not label_values(...): %q", v.Name, q)
		}
		values, _, _, err := s.mon.api.LabelValues(ctx, m[2], []string{substitute(m[1], vars)}, r.Start, r.End)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", v.Name, err)
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("variable %s: %s has no values", v.Name, q)
		}
		quoted := make([]string, len(values))
		for i, val := range values {
			quoted[i] = regexp.QuoteMeta(string(val))
		}
		if len(quoted) == 1 {
			vars[v.Name] = quoted[0]
		} else {
			vars[v.Name] = "(" + strings.Join(quoted, "|") + ")"
		}
	}
	return vars, nil
}

var variableRE = regexp.MustCompile(`\$\{?([a-zA-Z_][a-zA-Z0-9_]*)\}?`)

// substitute puts each $name or ${name} of vars in expr; others stay.
func substitute(expr string, vars map[string]string) string {
	return variableRE.ReplaceAllStringFunc(expr, func(ref string) string {
		name := strings.Trim(ref, "${}")
		if v, ok := vars[name]; ok {
			return v
		}
		return ref
	})
}

// hasValue says whether expr returns a series with at least one number (not NaN) over r.
func (s *suite) hasValue(ctx context.Context, expr string, r promv1.Range) (bool, error) {
	qctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	v, _, _, err := s.mon.api.QueryRange(qctx, expr, r)
	if err != nil {
		return false, err
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return false, fmt.Errorf("a %s, not a range of series", v.Type())
	}
	for _, series := range m {
		for _, p := range series.Values {
			if !math.IsNaN(float64(p.Value)) {
				return true, nil
			}
		}
	}
	return false, nil
}

// recordingRules lists a selector of every SLO recording rule in the rule file Prometheus loaded:
// its name with the labels the rule sets, so each SLO's own series is asked for.
func recordingRules(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Record string            `yaml:"record"`
				Labels map[string]string `yaml:"labels"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, g := range file.Groups {
		for _, rule := range g.Rules {
			if rule.Record == "" {
				continue
			}
			var matchers []string
			for k, v := range rule.Labels {
				matchers = append(matchers, fmt.Sprintf("%s=%q", k, v))
			}
			sort.Strings(matchers)
			sel := rule.Record + "{" + strings.Join(matchers, ",") + "}"
			if !seen[sel] {
				seen[sel] = true
				out = append(out, sel)
			}
		}
	}
	return out, nil
}
