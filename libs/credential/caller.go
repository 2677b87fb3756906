// Package credential is what an authenticated request carries and the API key format: the
// terms the services' use cases speak in, without the verification (authjwt), so that app code
// may hold them and import no I/O.
package credential

import (
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
)

// ErrAPIKeyRefused is what identity answers for a key that does not exist, was deleted or
// belongs to a disabled account, without saying which.
var ErrAPIKeyRefused = apperr.Unauthenticated(apperr.CodeInvalidToken, "API key is not valid")

// Caller is the authenticated account a request acts for.
type Caller struct {
	AccountID string
	Email     string
	Plan      string
	TokenID   string
	// KeyID is the API key the caller authenticated with (its minted token's akid), or "".
	KeyID     string
	IssuedAt  time.Time
	ExpiresAt time.Time
	// Token is the access token that authenticated the caller, or the one minted for its API
	// key: what a service presents to another on the caller's behalf.
	Token string
}
