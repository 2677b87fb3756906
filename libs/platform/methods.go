package platform

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// routedMethods are the methods a path is probed with to learn which it allows.
var routedMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// unrouted answers what the router could not match (RFC 9110 §15.5.6, §9.3.2, §9.3.7): a HEAD
// where the path has a GET route is served as that GET (the server drops the body), OPTIONS on a
// known path is 204 with Allow (and no CORS headers: only public routes open to other origins),
// another method on a known path is 405 with Allow and the envelope, and anything else is notFound.
func unrouted(r *mux.Router, notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		allow := allowedMethods(r, req)
		if len(allow) == 0 {
			notFound.ServeHTTP(w, req)
			return
		}
		if req.Method == http.MethodHead && slices.Contains(allow, http.MethodGet) {
			get := req.Clone(req.Context())
			get.Method = http.MethodGet
			r.ServeHTTP(w, get)
			return
		}
		list := strings.Join(allow, ", ")
		w.Header().Set("Allow", list)
		if req.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		httpx.Fail(w, req, apperr.New(apperr.KindMethodNotAllowed, apperr.CodeMethodNotAllowed,
			req.Method+" is not allowed on "+req.URL.Path+"; allowed: "+list))
	})
}

// allowedMethods lists the methods some route of r serves req's path with; HEAD wherever GET is,
// and OPTIONS on every path that has one.
func allowedMethods(r *mux.Router, req *http.Request) []string {
	var allow []string
	for _, m := range routedMethods {
		probe := req.Clone(req.Context())
		probe.Method = m
		var match mux.RouteMatch
		if r.Match(probe, &match) && match.MatchErr == nil {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	if len(allow) > 0 {
		allow = append(allow, http.MethodOptions)
	}
	return allow
}
