package httpx

import (
	"maps"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bizassist/bizassist/libs/apperr"
)

// TextParams refuses a request whose path parameters (as params, the router's, gives them) or
// query parameters are not UTF-8 text without U+0000, naming the parameter: PostgreSQL's text
// holds neither (SQLSTATE 22021), and a handler should never have to know.
func TextParams(params func(*http.Request) map[string]string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := checkParams(params(r), r.URL.Query()); err != nil {
				Fail(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// checkParams goes through the names in order, so that the same one is named on every try.
func checkParams(path map[string]string, query map[string][]string) error {
	for _, name := range slices.Sorted(maps.Keys(path)) {
		if !storableText(path[name]) {
			return notText(name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(query)) {
		if !storableText(name) {
			return notText("query parameter name")
		}
		for _, v := range query[name] {
			if !storableText(v) {
				return notText(name)
			}
		}
	}
	return nil
}

func storableText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

func notText(name string) error {
	return apperr.InvalidField(name, "must be UTF-8 text without the character U+0000")
}

// NonEmptyHeaders refuses a request that sends one of the named headers empty: the documents
// give them minLength 1, and an empty value read as no header would quietly change the request.
func NonEmptyHeaders(names ...string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, name := range names {
				values, sent := r.Header[textproto.CanonicalMIMEHeaderKey(name)]
				if sent && strings.TrimSpace(strings.Join(values, "")) == "" {
					Fail(w, r, apperr.InvalidField(name, "must not be empty; leave the header out to send none"))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
