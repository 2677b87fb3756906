package authjwt

import "time"

// NewVerifierAt is NewVerifier with a clock the test controls, for token times and for the
// JWKS refresh interval.
func NewVerifierAt(cfg Config, now func() time.Time) (*Verifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newVerifier(cfg, now)
}
