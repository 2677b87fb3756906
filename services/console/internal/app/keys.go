package app

import "context"

// KeysPage is the API keys page: the caller's keys, a key made (shown once), a key revoked.
type KeysPage struct{ Identity Identity }

// List is the caller's keys, without the keys themselves.
func (p KeysPage) List(ctx context.Context, token string) ([]APIKey, error) {
	return p.Identity.Keys(ctx, token)
}

// Create makes a key; the answer is the only time the key is seen, and the console keeps none.
func (p KeysPage) Create(ctx context.Context, token, name string) (NewAPIKey, error) {
	return p.Identity.CreateKey(ctx, token, name)
}

// Revoke revokes a key: requests made with it are refused from then on.
func (p KeysPage) Revoke(ctx context.Context, token, id string) error {
	return p.Identity.DeleteKey(ctx, token, id)
}
