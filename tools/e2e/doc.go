// Package e2e holds the end-to-end tests: they talk to the stack that make up runs, through its
// HTTPS ingress, as API clients do. They run only with BIZASSIST_E2E=1 (make test-e2e).
//
// The shared harness is in harness_test.go; each service adds its tests in <service>_test.go and
// dials from its own loopback source addresses (docs/conventions.md) so that per-IP rate limits
// of one suite never spill into another.
package e2e
