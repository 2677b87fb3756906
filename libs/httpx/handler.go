package httpx

import "net/http"

// Handler is a route that returns its error for Fail to answer, so that no handler writes the
// error envelope itself. It returns an error only before it has written its answer.
type Handler func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP runs f and answers its error with Fail.
func (f Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := f(w, r); err != nil {
		Fail(w, r, err)
	}
}

// JSON is a Handler of a JSON request body: Decode reads it into a T, with maxBytes and all of
// Decode's refusals, before f sees it.
func JSON[T any](maxBytes int64, f func(w http.ResponseWriter, r *http.Request, req T) error) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req T
		if err := Decode(w, r, &req, maxBytes); err != nil {
			return err
		}
		return f(w, r, req)
	}
}
