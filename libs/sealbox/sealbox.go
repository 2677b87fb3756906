// Package sealbox encrypts secrets at rest with envelope encryption: each value gets its own
// random data key (AES-256-GCM), and the data key is wrapped by a key-encryption key taken from
// the environment (a Kubernetes Secret in production). The key id travels with the ciphertext, so
// keys can be rotated: add a new key, make it current, reseal what Stale reports, then drop the
// old key.
package sealbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// prefix marks a sealed value and its format version.
const prefix = "sb1"

// dataKeySize is the size of both key-encryption and data keys: AES-256.
const dataKeySize = 32

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Config names the key-encryption keys and the one that seals new values.
type Config struct {
	// Keys is "kid:<base64 of 32 bytes>,kid2:..."; every key still protecting stored data must
	// stay listed until its values are resealed.
	Keys string `env:"ENCRYPTION_KEYS"`
	// KeyID is the key new values are sealed with.
	KeyID string `env:"ENCRYPTION_KEY_ID"`
}

// Validate reports a key set that cannot work.
func (c Config) Validate() error {
	_, err := parseKeys(c)
	return err
}

// Box seals and opens values with one key set.
type Box struct {
	current string
	keks    map[string]cipher.AEAD
}

// New builds a Box from cfg.
func New(cfg Config) (*Box, error) {
	keks, err := parseKeys(cfg)
	if err != nil {
		return nil, err
	}
	return &Box{current: cfg.KeyID, keks: keks}, nil
}

func parseKeys(cfg Config) (map[string]cipher.AEAD, error) {
	if strings.TrimSpace(cfg.Keys) == "" {
		return nil, errors.New("ENCRYPTION_KEYS is required (kid:<base64 of 32 random bytes>, comma-separated)")
	}
	keks := map[string]cipher.AEAD{}
	for _, entry := range strings.Split(cfg.Keys, ",") {
		kid, encoded, ok := strings.Cut(strings.TrimSpace(entry), ":")
		if !ok || !keyIDPattern.MatchString(kid) {
			return nil, fmt.Errorf("ENCRYPTION_KEYS: entry %q is not kid:<base64 key> with a kid of 1-32 letters, digits, '-' or '_'", redact(entry))
		}
		if _, dup := keks[kid]; dup {
			return nil, fmt.Errorf("ENCRYPTION_KEYS: key id %q is listed twice", kid)
		}
		// Padded or not: a trailing '=' is easily lost on its way through shells and env files.
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(encoded, "="))
		if err != nil || len(raw) != dataKeySize {
			return nil, fmt.Errorf("ENCRYPTION_KEYS: key %q must be the base64 of exactly %d bytes", kid, dataKeySize)
		}
		aead, err := newAEAD(raw)
		if err != nil {
			return nil, err
		}
		keks[kid] = aead
	}
	if _, ok := keks[cfg.KeyID]; !ok {
		return nil, fmt.Errorf("ENCRYPTION_KEY_ID %q is not one of the keys in ENCRYPTION_KEYS", cfg.KeyID)
	}
	return keks, nil
}

// redact keeps a key id in an error message but never key material.
func redact(entry string) string {
	kid, _, _ := strings.Cut(strings.TrimSpace(entry), ":")
	return kid + ":…"
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal encrypts plaintext under a fresh data key wrapped by the current key. aad binds the
// ciphertext to its context (a row id, say): Open with other aad fails, so a sealed value cannot
// be copied into another row.
func (b *Box) Seal(plaintext, aad []byte) (string, error) {
	dek := make([]byte, dataKeySize)
	if _, err := rand.Read(dek); err != nil {
		return "", err
	}
	data, err := newAEAD(dek)
	if err != nil {
		return "", err
	}
	body, err := seal(data, plaintext, aad)
	if err != nil {
		return "", err
	}
	wrapped, err := seal(b.keks[b.current], dek, wrapAAD(b.current, aad))
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString
	return strings.Join([]string{prefix, b.current, enc(wrapped), enc(body)}, "."), nil
}

// Open decrypts a value made by Seal with any key still in the set.
func (b *Box) Open(sealed string, aad []byte) ([]byte, error) {
	kid, wrapped, body, err := split(sealed)
	if err != nil {
		return nil, err
	}
	kek, ok := b.keks[kid]
	if !ok {
		return nil, fmt.Errorf("sealbox: key %q is not in ENCRYPTION_KEYS", kid)
	}
	dek, err := open(kek, wrapped, wrapAAD(kid, aad))
	if err != nil {
		return nil, errors.New("sealbox: cannot unwrap the data key (wrong key or context)")
	}
	data, err := newAEAD(dek)
	if err != nil {
		return nil, err
	}
	plaintext, err := open(data, body, aad)
	if err != nil {
		return nil, errors.New("sealbox: cannot decrypt (tampered value or wrong context)")
	}
	return plaintext, nil
}

// Stale reports whether sealed was made with a key other than the current one, or is not a
// sealed value at all; either way it should be (re)sealed.
func (b *Box) Stale(sealed string) bool {
	kid, _, _, err := split(sealed)
	return err != nil || kid != b.current
}

// IsSealed reports whether s has the shape of a sealed value.
func IsSealed(s string) bool {
	_, _, _, err := split(s)
	return err == nil
}

func split(sealed string) (kid string, wrapped, body []byte, err error) {
	parts := strings.Split(sealed, ".")
	if len(parts) != 4 || parts[0] != prefix || !keyIDPattern.MatchString(parts[1]) {
		return "", nil, nil, errors.New("sealbox: not a sealed value")
	}
	dec := base64.RawURLEncoding.DecodeString
	if wrapped, err = dec(parts[2]); err != nil {
		return "", nil, nil, errors.New("sealbox: not a sealed value")
	}
	if body, err = dec(parts[3]); err != nil {
		return "", nil, nil, errors.New("sealbox: not a sealed value")
	}
	return parts[1], wrapped, body, nil
}

// wrapAAD binds a wrapped data key to its key id and to the value's context.
func wrapAAD(kid string, aad []byte) []byte {
	return append([]byte(prefix+"|"+kid+"|"), aad...)
}

func seal(aead cipher.AEAD, plaintext, aad []byte) ([]byte, error) {
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plaintext, aad), nil
}

func open(aead cipher.AEAD, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("short ciphertext")
	}
	n := aead.NonceSize()
	return aead.Open(nil, sealed[:n], sealed[n:], aad)
}

// GenerateKey returns a new "kid:<base64>" entry for ENCRYPTION_KEYS.
func GenerateKey(kid string) (string, error) {
	if !keyIDPattern.MatchString(kid) {
		return "", fmt.Errorf("key id %q: want 1-32 letters, digits, '-' or '_'", kid)
	}
	key := make([]byte, dataKeySize)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return kid + ":" + base64.StdEncoding.EncodeToString(key), nil
}
