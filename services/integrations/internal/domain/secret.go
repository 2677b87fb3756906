package domain

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// AccountSecret is an account's inbound webhook secret (X-Ext-Secret). Only its hash is stored:
// the secret carries 256 random bits, so a fast hash cannot be brute-forced and, unlike a salted
// slow hash, lets the secret itself be the lookup key.
type AccountSecret string

// secretPrefix makes a leaked secret recognisable to secret scanners.
const secretPrefix = "bzext_"

// NewAccountSecret returns a fresh high-entropy secret.
func NewAccountSecret() AccountSecret {
	return AccountSecret(secretPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32)))
}

// HashSecret is the stored and looked-up form of a secret.
func HashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// SecretMatches compares a stored hash with the hash of a presented secret in constant time.
func SecretMatches(stored []byte, presented string) bool {
	return subtle.ConstantTimeCompare(stored, HashSecret(presented)) == 1
}
