package tokenizer_test

import (
	"strings"
	"testing"

	"github.com/bizassist/bizassist/services/assistant/internal/adapters/tokenizer"
)

func BenchmarkCountReply(b *testing.B) {
	tok, err := tokenizer.New()
	if err != nil {
		b.Fatal(err)
	}
	reply := strings.Repeat("Your health score is 62/100, which is at risk. Strongest: payment health (100). ", 8)
	b.ResetTimer()
	for range b.N {
		tok.Count(reply)
	}
}
