package authjwt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/bizassist/bizassist/libs/credential"
)

// KeyExchanger trades an API key for a short-lived access token that identity mints for the
// key's account (with the key's id in the akid claim). It fails with credential.ErrAPIKeyRefused for a key
// identity refuses, and with any other error when it could not ask.
type KeyExchanger interface {
	Exchange(ctx context.Context, key string) (string, error)
}

// APIKeyTokenPath is identity's internal route that exchanges an API key for a token; the HTTP
// exchanger calls it on the origin of JWT_JWKS_URL.
const APIKeyTokenPath = "/internal/auth/api-key-token" //nolint:gosec // a route, not a credential

// refusedKeyTTL is how long a refused key is answered from memory, so a client hammering us
// with a deleted key costs identity one lookup per interval, not one per request.
const refusedKeyTTL = 30 * time.Second

// apiKeyCache remembers the token minted for each API key (by the key's hash) and reuses it for
// half its remaining life, so a key costs identity one exchange per process every few minutes
// and a request costs a SHA-256 and a map lookup.
type apiKeyCache struct {
	exchanger KeyExchanger
	entries   *lru.Cache[string, apiKeyEntry]
	flight    singleflight.Group
}

type apiKeyEntry struct {
	caller       Caller
	refreshAt    time.Time
	refusedUntil time.Time
}

func newAPIKeyCache(ex KeyExchanger, size int) *apiKeyCache {
	entries, err := lru.New[string, apiKeyEntry](max(size, 1))
	if err != nil {
		panic(err) // only for a non-positive size, excluded above
	}
	return &apiKeyCache{exchanger: ex, entries: entries}
}

// forgetKey drops the remembered token of a revoked key.
func (c *apiKeyCache) forgetKey(keyID string) {
	for _, h := range c.entries.Keys() {
		if e, ok := c.entries.Peek(h); ok && e.caller.KeyID == keyID {
			c.entries.Remove(h)
		}
	}
}

// UseKeyExchanger replaces how API keys are exchanged; identity exchanges in process.
func (v *Verifier) UseKeyExchanger(ex KeyExchanger) { v.apiKeys.exchanger = ex }

// VerifyAPIKey checks an API key and returns the caller it acts for, with Token set to the
// access token minted for it (what a service presents to another on the caller's behalf).
func (v *Verifier) VerifyAPIKey(ctx context.Context, key string) (Caller, error) {
	if !credential.IsAPIKey(key) {
		return Caller{}, invalidToken("API key is malformed")
	}
	h := credential.HashAPIKey(key)
	now := v.now()
	e, known := v.apiKeys.entries.Get(h)
	if known && now.Before(e.refusedUntil) {
		return Caller{}, credential.ErrAPIKeyRefused
	}
	if known && e.caller.Token != "" && now.Before(e.refreshAt) {
		if err := v.revoked.check(e.caller); err != nil {
			return Caller{}, err
		}
		return e.caller, nil
	}
	ch := v.apiKeys.flight.DoChan(h, func() (any, error) {
		return v.apiKeys.exchanger.Exchange(context.WithoutCancel(ctx), key)
	})
	var res singleflight.Result
	select {
	case <-ctx.Done():
		return Caller{}, ctx.Err()
	case res = <-ch:
	}
	switch {
	case errors.Is(res.Err, credential.ErrAPIKeyRefused):
		apiKeyExchanges.WithLabelValues("refused").Inc()
		v.apiKeys.entries.Add(h, apiKeyEntry{refusedUntil: now.Add(refusedKeyTTL)})
		return Caller{}, credential.ErrAPIKeyRefused
	case res.Err != nil:
		apiKeyExchanges.WithLabelValues("error").Inc()
		if known && e.caller.Token != "" && now.Before(e.caller.ExpiresAt) {
			// identity is unreachable: the token we hold is still valid and still checked.
			if err := v.revoked.check(e.caller); err != nil {
				return Caller{}, err
			}
			return e.caller, nil
		}
		return Caller{}, errUnavailable.Wrap(res.Err)
	}
	apiKeyExchanges.WithLabelValues("ok").Inc()
	token, _ := res.Val.(string)
	c, err := v.Verify(ctx, token)
	if err != nil {
		return Caller{}, err
	}
	if c.KeyID == "" {
		return Caller{}, errUnavailable.Wrap(errors.New("identity minted a key token without akid"))
	}
	v.apiKeys.entries.Add(h, apiKeyEntry{caller: c, refreshAt: now.Add(c.ExpiresAt.Sub(now) / 2)})
	return c, nil
}

// httpExchanger asks identity's internal route over HTTP.
type httpExchanger struct {
	url    string
	client *http.Client
}

// newHTTPExchanger targets APIKeyTokenPath on the origin that serves the JWKS: identity.
func newHTTPExchanger(jwksURL string, client *http.Client) (*httpExchanger, error) {
	u, err := url.Parse(jwksURL)
	if err != nil {
		return nil, err
	}
	return &httpExchanger{url: (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: APIKeyTokenPath}).String(), client: client}, nil
}

func (x *httpExchanger) Exchange(ctx context.Context, key string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set(APIKeyHeader, key)
	resp, err := x.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized:
		return "", credential.ErrAPIKeyRefused
	default:
		return "", fmt.Errorf("api key exchange answered %s", resp.Status)
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTokenBytes*2)).Decode(&body); err != nil {
		return "", fmt.Errorf("api key exchange: decode the answer: %w", err)
	}
	if body.Token == "" {
		return "", errors.New("api key exchange: no token in the answer")
	}
	return body.Token, nil
}
