#!/usr/bin/env bash
# Keeps a local CA and a server certificate for localhost, 127.0.0.1 and ::1 in .devstack/tls.
# Both are kept across runs and made again only when missing or within 30 days of expiry, so a
# client that trusts ca.crt once keeps trusting the stack.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

renew_within=$((30 * 24 * 3600))
mkdir -p "$TLS_DIR"
cd "$TLS_DIR"

valid() { [ -s "$1" ] && openssl x509 -noout -checkend "$renew_within" -in "$1" >/dev/null 2>&1; }

if ! valid ca.crt || [ ! -s ca.key ]; then
  say "creating a local certificate authority in $TLS_DIR"
  (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null)
  openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/O=bizassist devstack/CN=bizassist devstack CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -addext "subjectKeyIdentifier=hash" -out ca.crt
  rm -f server.crt
fi

if ! valid server.crt || [ ! -s server.key ] || ! openssl verify -CAfile ca.crt server.crt >/dev/null 2>&1; then
  say "issuing the server certificate for localhost, 127.0.0.1 and ::1"
  (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key 2>/dev/null)
  cat >server.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EXT
  openssl req -new -key server.key -subj "/O=bizassist devstack/CN=localhost" -out server.csr
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days 397 \
    -extfile server.ext -out server.crt 2>/dev/null
  rm -f server.csr server.ext
fi
