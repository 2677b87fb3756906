package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
)

// Limits of one chat request.
const (
	MaxMessageChars = 4000
	MaxContextBytes = 4096
	SessionPrefix   = "ses"
	// MaxSessionIDChars bounds a client-chosen session id.
	MaxSessionIDChars = 128
)

// ErrSessionNotFound is returned by the store for a session the account does not have (another
// account's session of the same id is a different session).
var ErrSessionNotFound = apperr.NotFound("session_not_found", "session not found")

// ValidateMessage returns the trimmed message or an error naming the field.
func ValidateMessage(message string) (string, error) {
	m := strings.TrimSpace(message)
	switch {
	case m == "":
		return "", apperr.MissingField("message")
	case !utf8.ValidString(m):
		return "", apperr.InvalidField("message", "must be valid UTF-8")
	case utf8.RuneCountInString(m) > MaxMessageChars:
		return "", apperr.InvalidField("message", "must be at most 4000 characters")
	}
	return m, nil
}

// ValidateSessionID accepts an empty id (we choose one) or an opaque id the client chose: 1-128
// characters of valid UTF-8 without control characters. Ids are scoped to the caller's account.
func ValidateSessionID(id string) error {
	if id == "" {
		return nil
	}
	if !utf8.ValidString(id) || utf8.RuneCountInString(id) > MaxSessionIDChars || strings.ContainsFunc(id, unicode.IsControl) {
		return apperr.InvalidField("sessionId", fmt.Sprintf("must be at most %d characters, without control characters", MaxSessionIDChars))
	}
	return nil
}

// State is what a session remembers between turns to resolve follow-ups: the last intent, its
// slots, and the key figures of the last answer.
type State struct {
	Intent Intent            `json:"intent,omitempty"`
	Slots  Slots             `json:"slots,omitempty"`
	Facts  map[string]string `json:"facts,omitempty"`
	// Profile is what the owner told us about themselves in this session.
	Profile Profile `json:"profile,omitzero"`
	// Offer is a side-effecting action the last answer offered; a "yes" runs exactly it.
	Offer *Offer `json:"offer,omitempty"`
	// Leads are the last search's results, which "the top 3" and "which is best?" are answered from.
	Leads []LeadRef `json:"leads,omitempty"`
}

// Session is one conversation of one account.
type Session struct {
	id        string
	accountID string
	state     State
	createdAt time.Time
}

// NewSession starts a conversation for accountID under id, or under a new ses_ id when id is "".
func NewSession(accountID, id string, now time.Time) (*Session, error) {
	if accountID == "" {
		return nil, errors.New("session needs an account")
	}
	if err := ValidateSessionID(id); err != nil {
		return nil, err
	}
	if id == "" {
		id = ids.New(SessionPrefix)
	}
	return &Session{id: id, accountID: accountID, createdAt: now}, nil
}

// RestoreSession rebuilds a session from storage.
func RestoreSession(id, accountID string, state State, createdAt time.Time) *Session {
	return &Session{id: id, accountID: accountID, state: state, createdAt: createdAt}
}

func (s *Session) ID() string           { return s.id }
func (s *Session) AccountID() string    { return s.accountID }
func (s *Session) State() State         { return s.state }
func (s *Session) CreatedAt() time.Time { return s.createdAt }

// Advance records the state the latest answer left behind.
func (s *Session) Advance(next State) { s.state = next }

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one stored message with its token count.
type Message struct {
	Role    Role
	Content string
	Tokens  int
	At      time.Time
}

// TrimToBudget keeps the newest messages whose tokens fit in budget, oldest first, never
// splitting a user message from the reply that follows it.
func TrimToBudget(history []Message, budget int) []Message {
	used := 0
	start := len(history)
	for i := len(history) - 1; i >= 0; i-- {
		if used+history[i].Tokens > budget {
			break
		}
		used += history[i].Tokens
		start = i
	}
	if start < len(history) && history[start].Role == RoleAssistant {
		start++ // a reply without its question only confuses a model
	}
	return history[start:]
}

// ParseContext checks the client's optional context: a JSON object of at most MaxContextBytes in
// its compact encoding. It returns the compact form and the lead-search slots it names
// ("industry" or "vertical", "location" or "city").
func ParseContext(raw json.RawMessage) (json.RawMessage, Slots, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, Slots{}, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, Slots{}, apperr.InvalidField("context", "must be valid JSON")
	}
	if buf.Len() > MaxContextBytes {
		return nil, Slots{}, (&apperr.Error{Kind: apperr.KindTooLarge, Code: apperr.CodeBodyTooLarge, Field: "context",
			Message: fmt.Sprintf("context: must be at most %d bytes as JSON", MaxContextBytes)})
	}
	var obj map[string]any
	if buf.Bytes()[0] != '{' || json.Unmarshal(buf.Bytes(), &obj) != nil {
		return nil, Slots{}, &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: "context",
			Message: "context: must be an object"}
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" && len(s) <= 60 {
				return strings.TrimSpace(s)
			}
		}
		return ""
	}
	hints := Slots{Location: str("location", "city")}
	if v := str("industry", "vertical"); v != "" {
		hints.Vertical = findVertical(strings.ToLower(v))
		if hints.Vertical == "" {
			hints.Vertical = strings.ToLower(v)
		}
	}
	return buf.Bytes(), hints, nil
}
