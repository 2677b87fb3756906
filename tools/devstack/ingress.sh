#!/usr/bin/env bash
# Renders the nginx config from the route table and starts the stack's own nginx instance, or
# reloads it when it already runs. The system nginx, if any, is left alone.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

conf="$NGINX_DIR/nginx.conf"
mkdir -p "$NGINX_DIR/run" "$NGINX_DIR/tmp" "$LOG_DIR"
routegen="$DEVSTACK_BIN/routegen"
[ -x "$routegen" ] || die "$routegen is missing; run make up"

# Listen on ::1 too when the host has IPv6 loopback.
ipv6=off
grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null && ipv6=on

say "rendering the ingress config from ${VALUES_FILE#"$ROOT"/}"
"$routegen" -values "$VALUES_FILE" -template tools/devstack/nginx.conf.tmpl -out "$conf.next" \
  -set Prefix="$NGINX_DIR" -set LogDir="$LOG_DIR" -set HTTPPort="$HTTP_PORT" -set HTTPSPort="$HTTPS_PORT" \
  -set IPv6="$ipv6" -set CertFile="$TLS_DIR/server.crt" -set KeyFile="$TLS_DIR/server.key"
nginx_cmd=(nginx -p "$NGINX_DIR/" -e "$LOG_DIR/nginx-error.log")
if ! "${nginx_cmd[@]}" -t -q -c "$conf.next"; then
  die "the rendered nginx config $conf.next does not pass nginx -t"
fi
mv "$conf.next" "$conf"

if pid=$(nginx_pid); then
  say "reloading the ingress (nginx pid $pid)"
  "${nginx_cmd[@]}" -c "$conf" -s reload
else
  free_port "$HTTP_PORT" "the ingress"
  free_port "$HTTPS_PORT" "the ingress"
  say "starting the ingress on https://127.0.0.1:$HTTPS_PORT and http://127.0.0.1:$HTTP_PORT"
  "${nginx_cmd[@]}" -c "$conf"
fi
wait_for "the ingress on 127.0.0.1:$HTTPS_PORT" 10 port_open 127.0.0.1 "$HTTPS_PORT"
