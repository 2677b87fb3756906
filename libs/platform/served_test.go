package platform

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/httpx"
)

// The request metrics name each request's route template through the shedding in front: with
// the shedding between them and the router every request was "unmatched", and the SLO rules
// and dashboards that select routes went empty (make test-faults found it).
func TestServedRequestsAreMeasuredByTheirRoute(t *testing.T) {
	r := mux.NewRouter()
	r.HandleFunc("/api/things/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := served(httpx.ServerConfig{MaxInFlight: 4, QueueWait: 0}, "served-test", r)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/things/42", nil))

	families, err := prometheus.DefaultGatherer.Gather()
	require.NoError(t, err)
	routes := map[string]bool{}
	for _, f := range families {
		if f.GetName() != "bizassist_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["service"] == "served-test" {
				routes[labels["route"]] = true
			}
		}
	}
	require.Equal(t, map[string]bool{"/api/things/{id}": true}, routes)
}
