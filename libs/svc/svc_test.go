package svc

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunDispatchesAndReportsExitCodes(t *testing.T) {
	var got []string
	cmds := map[string]Command{
		"serve":   {Summary: "serve", Run: func(_ context.Context, args []string) error { got = append(got, "serve"); return nil }},
		"migrate": {Summary: "migrate", Run: func(context.Context, []string) error { return errors.New("db down") }},
		"create":  {Summary: "create", Run: func(context.Context, []string) error { return Usagef("create needs --email") }},
	}
	var out bytes.Buffer
	require.Equal(t, 0, run("x", cmds, nil, &out))
	require.Equal(t, []string{"serve"}, got)
	require.Equal(t, 1, run("x", cmds, []string{"migrate"}, &out))
	require.Equal(t, 2, run("x", cmds, []string{"create"}, &out))
	require.Contains(t, out.String(), "create needs --email")
	require.Equal(t, 2, run("x", cmds, []string{"nope"}, &out))
	require.Contains(t, out.String(), `unknown command "nope"`)
}

type testConfig struct {
	Name string `env:"SVC_TEST_NAME,required"`
	Port int    `env:"SVC_TEST_PORT" envDefault:"8080"`
}

func (c testConfig) Validate() error {
	if c.Port <= 0 {
		return errors.New("SVC_TEST_PORT must be positive")
	}
	return nil
}

func TestLoadConfigParsesAndValidates(t *testing.T) {
	t.Setenv("SVC_TEST_NAME", "leads")
	var cfg testConfig
	require.NoError(t, LoadConfig(&cfg))
	require.Equal(t, 8080, cfg.Port)

	t.Setenv("SVC_TEST_PORT", "-1")
	require.ErrorContains(t, LoadConfig(&testConfig{}), "SVC_TEST_PORT must be positive")

	t.Setenv("SVC_TEST_PORT", "abc")
	require.Error(t, LoadConfig(&testConfig{}))
}
