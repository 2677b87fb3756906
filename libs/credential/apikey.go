package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
)

// API keys look like GitHub's tokens: a recognisable prefix, 30 random base62 characters and a
// 6-character base62 CRC32 of what precedes it, so secret scanners can find a leaked key and tell
// it from a typo without asking us.
const (
	APIKeyPrefix      = "bza_"
	apiKeyRandomLen   = 30
	apiKeyChecksumLen = 6
	// APIKeyLen is the length of every API key.
	APIKeyLen = len(APIKeyPrefix) + apiKeyRandomLen + apiKeyChecksumLen
	// APIKeyShownLen is how much of a key lists show: the prefix and 4 random characters.
	APIKeyShownLen = len(APIKeyPrefix) + 4
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewAPIKey returns a fresh random API key (about 178 bits of entropy).
func NewAPIKey() (string, error) {
	var b strings.Builder
	b.Grow(APIKeyLen)
	b.WriteString(APIKeyPrefix)
	limit := big.NewInt(int64(len(base62)))
	for range apiKeyRandomLen {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		b.WriteByte(base62[n.Int64()])
	}
	b.WriteString(apiKeyChecksum(b.String()))
	return b.String(), nil
}

// IsAPIKey reports whether s is shaped like an API key (prefix, length, alphabet) and its
// checksum holds; it says nothing about whether the key exists.
func IsAPIKey(s string) bool {
	if len(s) != APIKeyLen || !strings.HasPrefix(s, APIKeyPrefix) {
		return false
	}
	for i := len(APIKeyPrefix); i < len(s); i++ {
		if strings.IndexByte(base62, s[i]) < 0 {
			return false
		}
	}
	body := s[:len(s)-apiKeyChecksumLen]
	return apiKeyChecksum(body) == s[len(body):]
}

// HashAPIKey is the form a key is stored and looked up in: SHA-256, hex. Keys are random enough
// that a slow salted hash would add nothing but make lookup by key impossible.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func apiKeyChecksum(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	out := make([]byte, apiKeyChecksumLen)
	for i := apiKeyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}
