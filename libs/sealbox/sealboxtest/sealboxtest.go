// Package sealboxtest gives tests a sealbox key set of their own.
package sealboxtest

import (
	"testing"

	"github.com/bizassist/bizassist/libs/sealbox"
)

// Config returns a fresh one-key configuration.
func Config(t testing.TB) sealbox.Config {
	t.Helper()
	key, err := sealbox.GenerateKey("test1")
	if err != nil {
		t.Fatal(err)
	}
	return sealbox.Config{Keys: key, KeyID: "test1"}
}

// New returns a Box with a fresh key.
func New(t testing.TB) *sealbox.Box {
	t.Helper()
	b, err := sealbox.New(Config(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
