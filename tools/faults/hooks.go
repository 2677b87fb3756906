package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/bizassist/bizassist/tools/internal/webhook"
)

// hooks is the integrator's endpoint the suite subscribes for new_lead: it records, per lead
// email, the webhook-ids it accepted and refused, and answers as the current fault wants.
type hooks struct {
	mu        sync.Mutex
	accepted  map[string]map[string]int // email -> webhook-id -> accepted arrivals
	refused   map[string]string         // email -> webhook-id of a refused attempt
	delivered map[string]time.Time      // email -> first accepted arrival
	failing   bool                      // answer 503, as a receiver that is down behind its proxy
	delay     time.Duration             // answer only after this long, as a slow receiver
}

func newHooks() *hooks {
	return &hooks{accepted: map[string]map[string]int{}, refused: map[string]string{}, delivered: map[string]time.Time{}}
}

func (h *hooks) handle(d webhook.Delivery) int {
	var lead struct {
		Email string `json:"email"`
	}
	if json.Unmarshal(d.Body, &lead) != nil || lead.Email == "" {
		return http.StatusBadRequest
	}
	h.mu.Lock()
	failing, delay := h.failing, h.delay
	if failing {
		h.refused[lead.Email] = d.ID
		h.mu.Unlock()
		return http.StatusServiceUnavailable
	}
	h.mu.Unlock()
	time.Sleep(delay)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.accepted[lead.Email] == nil {
		h.accepted[lead.Email] = map[string]int{}
		h.delivered[lead.Email] = time.Now()
	}
	h.accepted[lead.Email][d.ID]++
	return http.StatusNoContent
}

func (h *hooks) setFailing(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failing = on
}

func (h *hooks) setDelay(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.delay = d
}

// check is what the receiver saw of a set of acknowledged events.
type check struct {
	missing    []string  // acknowledged, never accepted
	twice      []string  // accepted under more than one webhook-id: delivered twice in effect
	idChanged  []string  // refused under one webhook-id, accepted under another
	lastArrive time.Time // when the last of them first arrived
}

func (h *hooks) check(emails []string) check {
	h.mu.Lock()
	defer h.mu.Unlock()
	var c check
	for _, e := range emails {
		ids := h.accepted[e]
		switch {
		case len(ids) == 0:
			c.missing = append(c.missing, e)
			continue
		case len(ids) > 1:
			c.twice = append(c.twice, e)
		}
		if id, ok := h.refused[e]; ok && ids[id] == 0 {
			c.idChanged = append(c.idChanged, e)
		}
		if t := h.delivered[e]; t.After(c.lastArrive) {
			c.lastArrive = t
		}
	}
	return c
}

// refusedCount is how many of emails had an attempt refused.
func (h *hooks) refusedCount(emails []string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range emails {
		if _, ok := h.refused[e]; ok {
			n++
		}
	}
	return n
}

// waitDelivered waits until every one of emails has arrived, for at most bound, and returns
// what the receiver saw then.
func (h *hooks) waitDelivered(emails []string, bound time.Duration) check {
	deadline := time.Now().Add(bound)
	for {
		c := h.check(emails)
		if len(c.missing) == 0 || time.Now().After(deadline) {
			return c
		}
		time.Sleep(200 * time.Millisecond)
	}
}
