// Package identityevents is identity's event contract (see package contracts).
package identityevents

import "github.com/bizassist/bizassist/libs/isotime"

// Event types identity publishes.
const (
	AccountCreated     = "account.created"
	AccountLogin       = "account.login"
	AccountPlanChanged = "account.plan_changed"
)

// Plans are the plans an account may be on, from the least to the most an account may do.
var Plans = []string{"free", "growth", "full_stack"}

// PlansUpTo returns the plans an owner on plan may give a client: its own and those below it
// (none for a plan it does not know).
func PlansUpTo(plan string) []string {
	for i, p := range Plans {
		if p == plan {
			return Plans[:i+1]
		}
	}
	return nil
}

// Account roles in AccountCreatedData.Role.
const (
	RoleOwner  = "owner"
	RoleClient = "client"
)

// AccountCreatedData is the payload of account.created: an owner created by the operator, or a
// client created from inbound.new_client. The envelope's accountId is the owner (the account
// itself for an owner).
type AccountCreatedData struct {
	AccountID    string       `json:"accountId"`
	Email        string       `json:"email"`
	Plan         string       `json:"plan"`
	Role         string       `json:"role"`
	OwnerID      string       `json:"ownerId,omitempty"` // clients only
	BusinessName string       `json:"businessName"`
	OwnerName    string       `json:"ownerName"`
	CreatedAt    isotime.Time `json:"createdAt"`
}

// AccountLoginData is the payload of account.login, a successful sign-in.
type AccountLoginData struct {
	AccountID string       `json:"accountId"`
	Email     string       `json:"email"`
	At        isotime.Time `json:"at"`
}

// AccountPlanChangedData is the payload of account.plan_changed.
type AccountPlanChangedData struct {
	AccountID    string       `json:"accountId"`
	Plan         string       `json:"plan"`
	PreviousPlan string       `json:"previousPlan"`
	At           isotime.Time `json:"at"`
}

// AccountRevoked is published when earlier credentials of an account stop being valid; every
// verifier follows its stream (libs/authjwt) and refuses them within seconds.
const AccountRevoked = "account.revoked"

// Reasons in AccountRevokedData.Reason.
const (
	RevokedKeyDeleted      = "key_deleted"
	RevokedPasswordChanged = "password_changed"
	RevokedAccountDisabled = "account_disabled"
)

// AccountRevokedData is the payload of account.revoked. With KeyID, the tokens minted for that
// API key are refused; without it, every token of the account issued before NotBefore is.
type AccountRevokedData struct {
	AccountID string       `json:"accountId"`
	KeyID     string       `json:"keyId,omitempty"`
	NotBefore isotime.Time `json:"notBefore"`
	Reason    string       `json:"reason"`
}
