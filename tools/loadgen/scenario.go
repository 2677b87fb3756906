package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Scenario is one load: the same request sent by Concurrency workers for Duration.
type Scenario struct {
	Name    string            `yaml:"name"`
	Method  string            `yaml:"method"`
	Path    string            `yaml:"path"`
	Headers map[string]string `yaml:"headers"`
	// Body is sent as is when it is a string, as JSON otherwise.
	Body        any           `yaml:"body"`
	Login       *Login        `yaml:"login"`
	Expect      int           `yaml:"expect"`
	Concurrency int           `yaml:"concurrency"`
	Duration    time.Duration `yaml:"duration"`
	// Aim is the p99 the route should hold: its open-loop capacity is the highest arrival rate
	// with under 1% errors and p99 within it (openloop.go). 100 ms when not given.
	Aim time.Duration `yaml:"aim"`
	// Webhook makes the scenario an end-to-end webhook measurement (webhook.go) instead of
	// Concurrency workers repeating one request.
	Webhook *WebhookLoad `yaml:"webhook"`

	body []byte
	file string
}

// Login makes the scenario log in once, before it starts, and send the token as a bearer.
type Login struct {
	Email    string `yaml:"email"`
	Password string `yaml:"password"`
}

// LoadDir reads every *.yaml file in dir (each a list under "scenarios:"), sorted by file name,
// expanding ${VAR} from env in every string. Names must be unique across files.
func LoadDir(dir string, env map[string]string) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []Scenario
	seen := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		list, err := Parse(raw, env)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, s := range list {
			if prev, dup := seen[s.Name]; dup {
				return nil, fmt.Errorf("%s: scenario %q is also in %s", f, s.Name, prev)
			}
			seen[s.Name] = f
			s.file = f
			all = append(all, s)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no scenarios in %s/*.yaml", dir)
	}
	return all, nil
}

// Parse reads one scenario file, expands ${VAR} in its strings and fills in defaults.
func Parse(raw []byte, env map[string]string) ([]Scenario, error) {
	var doc struct {
		Scenarios []Scenario `yaml:"scenarios"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	for i := range doc.Scenarios {
		sc := &doc.Scenarios[i]
		if err := sc.expand(env); err != nil {
			return nil, fmt.Errorf("scenarios[%d] (%s): %w", i, sc.Name, err)
		}
		if err := sc.normalize(); err != nil {
			return nil, fmt.Errorf("scenarios[%d] (%s): %w", i, sc.Name, err)
		}
	}
	return doc.Scenarios, nil
}

// expand replaces ${VAR} in every string the scenario sends; an unknown VAR is an error.
func (s *Scenario) expand(env map[string]string) error {
	var missing []string
	exp := func(v string) string {
		return os.Expand(v, func(k string) string {
			val, ok := env[k]
			if !ok {
				missing = append(missing, k)
			}
			return val
		})
	}
	s.Path = exp(s.Path)
	for k, v := range s.Headers {
		s.Headers[k] = exp(v)
	}
	if s.Login != nil {
		s.Login.Email, s.Login.Password = exp(s.Login.Email), exp(s.Login.Password)
	}
	if s.Webhook != nil && s.Webhook.Quiet != nil {
		q := &s.Webhook.Quiet.Login
		q.Email, q.Password = exp(q.Email), exp(q.Password)
	}
	if s.Webhook != nil && s.Webhook.Accounts != nil {
		a := s.Webhook.Accounts
		a.Email, a.Password = exp(a.Email), exp(a.Password)
	}
	s.Body = expandAny(s.Body, exp)
	if len(missing) > 0 {
		return fmt.Errorf("unknown variables %s (not in the env file)", strings.Join(missing, ", "))
	}
	return nil
}

func expandAny(v any, exp func(string) string) any {
	switch t := v.(type) {
	case string:
		return exp(t)
	case map[string]any:
		for k, e := range t {
			t[k] = expandAny(e, exp)
		}
	case []any:
		for i, e := range t {
			t[i] = expandAny(e, exp)
		}
	}
	return v
}

func (s *Scenario) normalize() error {
	if s.Name == "" {
		return errors.New("name is required")
	}
	if !strings.HasPrefix(s.Path, "/") {
		return errors.New("path must start with /")
	}
	if s.Method == "" {
		s.Method = http.MethodGet
	}
	s.Method = strings.ToUpper(s.Method)
	if s.Expect == 0 {
		s.Expect = http.StatusOK
	}
	if s.Concurrency == 0 {
		s.Concurrency = 8
	}
	if s.Duration == 0 {
		s.Duration = 10 * time.Second
	}
	if s.Aim == 0 {
		s.Aim = 100 * time.Millisecond
	}
	if s.Concurrency < 1 || s.Duration < 0 || s.Aim < 0 {
		return errors.New("concurrency must be at least 1, duration and aim positive")
	}
	if s.Login != nil && (s.Login.Email == "" || s.Login.Password == "") {
		return errors.New("login needs email and password")
	}
	if s.Webhook != nil {
		return s.normalizeWebhook()
	}
	switch b := s.Body.(type) {
	case nil:
	case string:
		s.body = []byte(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("body: %w", err)
		}
		s.body = buf
	}
	return nil
}

func (s *Scenario) normalizeWebhook() error {
	w := s.Webhook
	a := w.Accounts
	switch {
	case s.Login == nil && a == nil:
		return errors.New("webhook: login is required (it subscribes the receivers), or accounts")
	case a != nil && (a.Count < 2 || a.Count > 1000 || a.Password == "" || strings.Count(a.Email, "%") != 1 ||
		strings.Contains(fmt.Sprintf(a.Email, 1), "%!")):
		return errors.New("webhook: accounts needs a count of 2 to 1000, a password and an email pattern with one number verb (%d)")
	case a != nil && w.Quiet != nil:
		return errors.New("webhook: accounts and quiet do not go together (each account's p99 is the fairness figure)")
	case s.Body != nil:
		return errors.New("webhook: body is generated (one new lead per event); remove it")
	case s.Method != http.MethodPost:
		return errors.New("webhook: method must be POST")
	case w.Rate < 1 || w.Rate > 10_000:
		return errors.New("webhook: rate must be between 1 and 10000 events per second")
	case w.Subscriptions < 1 || w.Subscriptions > 100:
		return errors.New("webhook: subscriptions must be between 1 and 100 (an account's limit)")
	case w.Quiet != nil && (w.Quiet.Rate < 1 || w.Quiet.Rate > 10_000 || w.Quiet.Subscriptions < 1 || w.Quiet.Subscriptions > 100 ||
		w.Quiet.Login.Email == "" || w.Quiet.Login.Password == ""):
		return errors.New("webhook: quiet needs a login, a rate of 1 to 10000 and 1 to 100 subscriptions")
	case w.Drain < 0 || w.MaxInFlight < 0 || w.KillRedisMasterAfter < 0:
		return errors.New("webhook: drain, maxInFlight and killRedisMasterAfter must not be negative")
	case w.KillRedisMasterAfter >= s.Duration && w.KillRedisMasterAfter > 0:
		return errors.New("webhook: killRedisMasterAfter must fall within the duration")
	case w.KillRedisMasterAfter > 0 && len(w.RestartRedisNode) == 0:
		return errors.New("webhook: killRedisMasterAfter needs restartRedisNode (the command that restarts a node, given its port)")
	case w.KillRedisMasterAfter > 0 && w.StopRedisReplica != nil:
		return errors.New("webhook: one Redis fault a scenario: killRedisMasterAfter or stopRedisReplica")
	case w.StopRedisReplica != nil && (w.StopRedisReplica.Stream == "" || w.StopRedisReplica.Healthy == "" || w.StopRedisReplica.Consumer == "" ||
		w.StopRedisReplica.After < 0 || w.StopRedisReplica.For < time.Second || w.StopRedisReplica.After+w.StopRedisReplica.For >= s.Duration):
		return errors.New("webhook: stopRedisReplica needs a stream, the healthy stream and its consumer service, and after + for (for at least 1s) within the duration")
	}
	if w.Drain == 0 {
		w.Drain = 30 * time.Second
	}
	if w.MaxInFlight == 0 {
		w.MaxInFlight = 1000
	}
	return nil
}
