package tokenizer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/adapters/tokenizer"
)

func TestCountsWithTheEmbeddedVocabulary(t *testing.T) {
	t.Parallel()
	tok, err := tokenizer.New()
	require.NoError(t, err)
	// Reference counts from OpenAI's tiktoken for cl100k_base.
	require.Equal(t, 0, tok.Count(""))
	require.Equal(t, 4, tok.Count("hello world, friend"))
	require.Equal(t, 6, tok.Count("tiktoken is great!")) // the OpenAI cookbook's example
	require.Greater(t, tok.Count("<|endoftext|>"), 1, "special tokens in user text are not special")
}
