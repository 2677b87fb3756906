package authjwt_test

import (
	"context"
	"testing"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/authjwt/jwttest"
)

// BenchmarkVerify measures the per-request cost with the key cached: parse, Ed25519 verify,
// claim checks.
func BenchmarkVerify(b *testing.B) {
	iss := jwttest.NewIssuer(b)
	v, err := authjwt.NewVerifier(iss.Config())
	if err != nil {
		b.Fatal(err)
	}
	token := iss.Token(alice)
	ctx := context.Background()
	if _, err := v.Verify(ctx, token); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := v.Verify(ctx, token); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
