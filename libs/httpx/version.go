package httpx

import (
	"net/http"

	"github.com/bizassist/bizassist/libs/apperr"
)

// APIVersionHeader names the API version of a response, and the version a client pins in a
// request (docs/decisions.md, "Versioning").
const APIVersionHeader = "API-Version"

// APIVersion is the current dated version: the day the interface last changed in a way a client
// could notice. Additive changes (new fields, routes, codes) do not make a new version.
const APIVersion = "2026-11-26"

// LenientJSONVersion is the version before strict request bodies: a client pinning it still has
// names matched in any case, the last of a repeated name taken and any Content-Type read as JSON.
const LenientJSONVersion = "2026-11-23"

// supportedVersions are the versions a client may pin; a breaking change adds one and keeps the
// old one answering as it did.
var supportedVersions = map[string]bool{APIVersion: true, LenientJSONVersion: true}

// Versioned names the version of every response (the pinned one, or the current) and refuses a
// pinned version this server does not have, so a client never gets an answer in a shape it did
// not ask for.
func Versioned(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(APIVersionHeader)
		if v != "" && !supportedVersions[v] {
			w.Header().Set(APIVersionHeader, APIVersion)
			Fail(w, r, (&apperr.Error{Kind: apperr.KindInvalid, Code: "unsupported_api_version", Field: APIVersionHeader,
				Message: "API-Version " + v + " is not served here; the current version is " + APIVersion}))
			return
		}
		if v == "" {
			v = APIVersion
		}
		w.Header().Set(APIVersionHeader, v)
		next.ServeHTTP(w, r)
	})
}
