// Package httpx is the HTTP plumbing every service shares: the response envelope, strict JSON
// decoding, the one error mapper, and a server with timeouts, probes and graceful drain.
package httpx

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
)

var okPrefix = []byte(`{"ok":true`)

// Respond writes body as JSON with "ok":true as its first field. body must encode as a JSON
// object (a struct or a map); its fields follow ok in their usual order.
func Respond(w http.ResponseWriter, status int, body any) {
	payload, err := json.Marshal(body)
	if err != nil || len(payload) < 2 || payload[0] != '{' {
		slog.Error("response body is not a JSON object", "error", err)
		writeRaw(w, http.StatusInternalServerError, []byte(`{"ok":false,"error":"internal error","code":"internal"}`))
		return
	}
	var buf bytes.Buffer
	buf.Grow(len(payload) + len(okPrefix) + 2)
	buf.Write(okPrefix)
	if len(payload) > 2 { // not the empty object
		buf.WriteByte(',')
		buf.Write(payload[1:])
	} else {
		buf.WriteByte('}')
	}
	buf.WriteByte('\n')
	writeRaw(w, status, buf.Bytes())
}

// RespondRaw writes a JSON body as given, for the public endpoints whose bodies carry no ok field.
func RespondRaw(w http.ResponseWriter, status int, body []byte) {
	writeRaw(w, status, body)
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
