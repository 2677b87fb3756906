package httpx

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ETag is a strong entity tag for body: the first 128 bits of its SHA-256, quoted.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// NotModified sets etag as the response's ETag and, when the request's If-None-Match names it,
// answers 304 and reports true; the caller then writes nothing more. Set Cache-Control first.
func NotModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	w.Header().Set("ETag", etag)
	if !etagMatches(r.Header.Get("If-None-Match"), etag) {
		return false
	}
	w.WriteHeader(http.StatusNotModified)
	return true
}

// RespondPublic answers body, a JSON body without the ok field, as one any cache may keep for
// maxAge: with its ETag, or a 304 without it when the request's If-None-Match names the tag.
func RespondPublic(w http.ResponseWriter, r *http.Request, maxAge time.Duration, body []byte) {
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(int(maxAge.Seconds())))
	if NotModified(w, r, ETag(body)) {
		return
	}
	// A copy with the newline: body may be a cached slice other requests read at once.
	RespondRaw(w, http.StatusOK, append(body[:len(body):len(body)], '\n'))
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2) of etag to header: a
// list of tags, weak or strong, or "*".
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
