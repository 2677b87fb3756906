package devenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseFollowsShellQuoting(t *testing.T) {
	const file = `# written by make up
BASE_URL='https://127.0.0.1:8443'
QUOTE='it'\''s'
export PLAIN=abc
DOUBLE="a \"b\" \$c"
ESCAPED=a\ b
EMPTY=''
TRAILING=value # comment

`
	env, err := Parse(strings.NewReader(file))
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"BASE_URL": "https://127.0.0.1:8443", "QUOTE": "it's", "PLAIN": "abc",
		"DOUBLE": `a "b" $c`, "ESCAPED": "a b", "EMPTY": "", "TRAILING": "value",
	}, env)
}

// What the devstack's shell_quote writes, sh reads back, and so must Parse.
func TestParseAgreesWithSh(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	value := `p@ss 'w"ord' $HOME \n`
	quoted := "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
	out, err := exec.Command("sh", "-c", "V="+quoted+"; printf %s \"$V\"").Output()
	require.NoError(t, err)
	require.Equal(t, value, string(out))

	env, err := Parse(strings.NewReader("V=" + quoted + "\n"))
	require.NoError(t, err)
	require.Equal(t, value, env["V"])
}

func TestParseRejects(t *testing.T) {
	for _, line := range []string{"no equals sign", "1KEY=x", "K='open", `K="open`} {
		_, err := Parse(strings.NewReader(line + "\n"))
		require.Error(t, err, line)
	}
}

func TestTransport(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))

	tr, err := Transport(ca, "127.0.1.9")
	require.NoError(t, err)
	require.True(t, tr.ForceAttemptHTTP2)

	_, err = Transport(ca, "192.0.2.1")
	require.ErrorContains(t, err, "not a loopback address")
	_, err = Transport(filepath.Join(t.TempDir(), "missing.crt"), "")
	require.ErrorContains(t, err, "read CA")
}
