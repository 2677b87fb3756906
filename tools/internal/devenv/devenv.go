// Package devenv reads the local stack's settings (.devstack/env, written by make up) and builds
// HTTP clients that reach its ingress the way a test or load generator needs: trusting the stack's
// CA and dialing from a chosen loopback address, so that per-IP rate limits can be kept apart.
package devenv

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Root returns the repository root: the nearest directory at or above dir holding go.work.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.work at or above %s", dir)
		}
	}
}

// Load reads a shell-sourceable env file.
func Load(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return env, nil
}

var keyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse reads KEY=value lines as sh would assign them: values may be unquoted, single-quoted
// (an embedded quote closes, escapes and reopens the quoting) or double-quoted; blank lines,
// comments and a leading "export " are allowed. Variable expansion is not done.
func Parse(r io.Reader) (map[string]string, error) {
	env := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, raw, ok := strings.Cut(line, "=")
		if !ok || !keyRE.MatchString(key) {
			return nil, fmt.Errorf("line %d: want KEY=value", n)
		}
		value, err := unquote(raw)
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", n, key, err)
		}
		env[key] = value
	}
	return env, sc.Err()
}

// unquote applies sh quoting rules to one word; unquoted whitespace ends it.
func unquote(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", errors.New("unterminated single quote")
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return "", errors.New("unterminated double quote")
			}
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case ' ', '\t':
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// ServiceCommand runs one of the local stack's service binaries (identity accounts set-plan ...)
// under root with the settings make up gave that service, and returns what it printed.
func ServiceCommand(ctx context.Context, root, service string, args ...string) (string, error) {
	env, err := Load(filepath.Join(root, ".devstack", "run", service+".env"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(root, ".devstack", "bin", service), args...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", service, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Transport returns a transport that trusts the PEM certificates in caFile and dials every
// connection from sourceIP (an address on this machine, such as 127.0.1.7; empty lets the kernel
// choose). HTTP/2 is negotiated when the server offers it.
func Transport(caFile, sourceIP string) (*http.Transport, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("read CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if sourceIP != "" {
		ip := net.ParseIP(sourceIP)
		if ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("source IP %q is not a loopback address", sourceIP)
		}
		dialer.LocalAddr = &net.TCPAddr{IP: ip}
	}
	return &http.Transport{
		DialContext:         dialer.DialContext,
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        100,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}, nil
}
