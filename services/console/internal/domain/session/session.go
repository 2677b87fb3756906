// Package session is a browser's signed-in state: the secret its cookie carries, what the
// console may derive from that secret, and the record kept server-side. The cookie's secret is
// the only key: the store holds its hash and the API token sealed under a key derived from it,
// so a dump of the store neither signs anyone in nor reveals a token.
package session

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// secretBytes is the cookie secret's entropy: 256 bits.
const secretBytes = 32

// ErrInvalid is a cookie value that cannot be a secret this package made.
var ErrInvalid = errors.New("session: malformed secret")

// Secret is the random value a browser's cookie carries.
type Secret struct{ b []byte }

// NewSecret draws a fresh secret.
func NewSecret() Secret {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return Secret{b: b}
}

// ParseSecret reads a cookie value written by String.
func ParseSecret(s string) (Secret, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != secretBytes {
		return Secret{}, ErrInvalid
	}
	return Secret{b: b}, nil
}

// String is the cookie value.
func (s Secret) String() string { return base64.RawURLEncoding.EncodeToString(s.b) }

// ID is the store's key for the secret: its SHA-256, so the store never holds the secret.
func (s Secret) ID() []byte {
	sum := sha256.Sum256(s.b)
	return sum[:]
}

func (s Secret) derive(purpose string) []byte {
	m := hmac.New(sha256.New, s.b)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// CSRF is the token every state-changing form of this browser carries; a forged form from
// another site cannot know it, since it is derived from the HttpOnly cookie's secret. Each call
// masks it afresh (a random pad, then the token XOR the pad, as Django and Rails do), so no two
// pages carry the same bytes: a compressed page that reflects a guess beside the token cannot
// reveal it by its size (BREACH).
func (s Secret) CSRF() string {
	token := s.derive("csrf")
	masked := make([]byte, 2*len(token))
	_, _ = rand.Read(masked[:len(token)]) // crypto/rand never fails on supported platforms
	subtle.XORBytes(masked[len(token):], token, masked[:len(token)])
	return base64.RawURLEncoding.EncodeToString(masked)
}

// CheckCSRF reports, in constant time, whether token is a masking of this secret's CSRF token,
// or the token unmasked, as pages rendered before masking carry it.
func (s Secret) CheckCSRF(token string) bool {
	if len(s.b) != secretBytes {
		return false
	}
	want := s.derive("csrf")
	got, err := base64.RawURLEncoding.DecodeString(token)
	switch {
	case err != nil:
		return false
	case len(got) == 2*len(want):
		subtle.XORBytes(got[len(want):], got[len(want):], got[:len(want)])
		got = got[len(want):]
	}
	return subtle.ConstantTimeCompare(got, want) == 1
}

// Seal encrypts an API token under a key derived from the secret (AES-256-GCM), bound to the
// secret's ID so a sealed value cannot move to another record.
func (s Secret) Seal(token string) []byte {
	gcm := s.aead()
	nonce := make([]byte, gcm.NonceSize())
	_, _ = rand.Read(nonce)
	return gcm.Seal(nonce, nonce, []byte(token), s.ID())
}

// Open decrypts what Seal produced.
func (s Secret) Open(sealed []byte) (string, error) {
	gcm := s.aead()
	if len(sealed) < gcm.NonceSize() {
		return "", fmt.Errorf("session: sealed token too short")
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], s.ID())
	if err != nil {
		return "", fmt.Errorf("session: open token: %w", err)
	}
	return string(plain), nil
}

func (s Secret) aead() cipher.AEAD {
	block, err := aes.NewCipher(s.derive("token"))
	if err != nil {
		panic(err) // a 32-byte key always makes a cipher
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return gcm
}

// Turn is one exchange of the assistant chat, kept so the chat survives a page reload.
type Turn struct {
	Message string `json:"message"`
	Reply   string `json:"reply"`
}

// MaxTurns is how much of the chat the console remembers; the assistant keeps the context.
const MaxTurns = 20

// Session is one signed-in browser.
type Session struct {
	Token       string
	Email       string
	Plan        string
	ChatSession string
	Chat        []Turn
	ExpiresAt   time.Time
}

// AddTurn records a chat exchange, keeping the newest MaxTurns.
func (s *Session) AddTurn(sessionID string, t Turn) {
	s.ChatSession = sessionID
	s.Chat = append(s.Chat, t)
	if n := len(s.Chat); n > MaxTurns {
		s.Chat = s.Chat[n-MaxTurns:]
	}
}

// Lifetime bounds a session: never past the token's own expiry, and at most max.
func Lifetime(now, tokenExpires time.Time, max time.Duration) time.Time {
	if limit := now.Add(max); tokenExpires.IsZero() || tokenExpires.After(limit) {
		return limit
	}
	return tokenExpires
}
