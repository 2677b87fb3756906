package bizassist_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed client is what the pinned generator makes of the committed document, so a
// contract change that breaks generated clients fails here (and the build, when it does not
// compile), not at a customer's.
func TestTheGeneratedClientIsCurrent(t *testing.T) {
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "../../../libs/apidocs/openapi.json")
	cmd.Stderr = os.Stderr
	want, err := cmd.Output()
	require.NoError(t, err)
	got, err := os.ReadFile("bizassist.gen.go")
	require.NoError(t, err)
	require.True(t, string(want) == string(got), "tools/sdk/bizassist is stale: run go generate ./tools/sdk/...")
}
