// Package tokenizer counts tokens with the cl100k_base encoding, loaded from a vocabulary
// embedded in the binary: nothing is downloaded at run time.
package tokenizer

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the vocabulary of the OpenAI chat models and a fair count for most others.
const Encoding = "cl100k_base"

// Tokenizer is safe for concurrent use.
type Tokenizer struct{ enc *tiktoken.Tiktoken }

var setLoader sync.Once

// New loads the embedded vocabulary (about a hundred milliseconds, once per process).
func New() (*Tokenizer, error) {
	setLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", Encoding, err)
	}
	return &Tokenizer{enc: enc}, nil
}

// Count returns the number of tokens of text; special-token syntax in text counts as plain text.
func (t *Tokenizer) Count(text string) int {
	return len(t.enc.EncodeOrdinary(text))
}
