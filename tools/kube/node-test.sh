#!/usr/bin/env bash
# shellcheck disable=SC2317 # the stage functions run through stage (timeout, bash -c)
# make test-k8s, the node stage: the single-node cluster up with the chart installed
# (kube-up.sh), every pod Ready, the e2e suite through its edge, then under a steady load of API
# requests a rolling upgrade to images of the same code with another build stamp, a pod of each
# service deleted, and a drain through the eviction API against the PodDisruptionBudgets
# (nodecheck verify); then everything torn down and checked gone. Prints each stage's time,
# then, last, the three result lines. Each step has a timeout.
#   tools/kube/node-test.sh STATE BIN IMAGES_DIR TAG UPGRADE_DIR
set -uo pipefail
state=$1 bin=$2 images=$3 tag=$4 upgrade=$5
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
utag=$tag-restamped
services=(identity leads assistant analytics integrations console)
summary=$(mktemp) timings=()
failed=0
# The stages below run under timeout(1), in a bash of their own: they see these.
export state bin images tag upgrade here root utag summary

stage() { # stage NAME SECONDS CMD...: runs CMD with a timeout and records its time
  local name=$1 limit=$2 t0 rc
  shift 2
  echo "==> k8s node stage: $name (timeout ${limit}s)"
  t0=$(date +%s)
  timeout --kill-after 30 "$limit" bash -c '"$@"' stage "$@"
  rc=$?
  timings+=("$(printf '%-28s %4ss%s' "$name" "$(($(date +%s) - t0))" "$([ $rc = 0 ] || echo "  FAILED (exit $rc)")")")
  [ $rc = 0 ] || failed=1
  return $rc
}

# restamp: the services built again from the same code with another build id, packed as :$utag.
restamp() {
  local s stamp
  stamp=restamp-$(date +%s)
  mkdir -p "$upgrade/bin"
  for s in identity leads assistant analytics integrations console; do
    (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -buildid=$stamp" -o "$upgrade/bin/$s" "./services/$s/cmd/$s") || return 1
  done
  (cd "$root/tools/images" && GOWORK=off go run . -bin "$upgrade/bin" -out "$upgrade" -tag "$utag" identity leads assistant analytics integrations console >/dev/null)
}

e2e() {
  local out=$state/e2e.out
  (cd "$root" && BIZASSIST_E2E=1 BIZASSIST_E2E_ENV=$state/env go test -count=1 -p 1 -v -timeout 8m ./tools/e2e/ >"$out" 2>&1)
  local rc=$? p f
  cp "$out" "${TMPDIR:-/tmp}/bizassist-k8s-e2e.out" # the state directory goes with the node
  p=$(grep -c '^--- PASS' "$out") f=$(grep -c '^--- FAIL' "$out")
  echo "k8s e2e: $p passed, $f failed" >>"$summary"
  # Skipped on the node, each with its reason.
  awk '/^--- SKIP: / { sub(/^ +/, "", prev); print "skipped: " $3 ": " prev } { prev = $0 }' "$out" | head -20
  grep -E '^--- FAIL|^FAIL|^ok' "$out" | head -40
  [ "$rc" = 0 ] || echo "the suite's output: ${TMPDIR:-/tmp}/bizassist-k8s-e2e.out"
  # The services' warnings and errors while the suite ran (a limiter on its fallback, a refused
  # dial), kept beside its output: the pods and their logs go with the node.
  local pods=${TMPDIR:-/tmp}/bizassist-k8s-pods.log
  "$bin/kubectl" --kubeconfig "$state/node/kubeconfig" -n bizassist logs -l app.kubernetes.io/instance=bizassist \
    --all-containers --prefix --tail=-1 --max-log-requests 20 2>&1 | grep -E '"level":"(WARN|ERROR)"' >"$pods"
  [ "$rc" = 0 ] || echo "the services' $(wc -l <"$pods") warnings and errors meanwhile: $pods"
  [ "$rc" = 0 ]
}

# leftovers: what kube-down must not leave behind.
leftovers() {
  local bad=0
  ip link show bzk8s0 >/dev/null 2>&1 && { echo "left: the bridge bzk8s0"; bad=1; }
  ip netns list 2>/dev/null | grep -q '^cni-' && { echo "left: network namespaces"; bad=1; }
  grep -qE " ($state|/var/lib/kubelet|/run/containerd)" /proc/mounts && { echo "left: mounts"; bad=1; }
  iptables-save 2>/dev/null | grep -qE '^:KUBE-|bzk8s0' && { echo "left: iptables chains or rules"; bad=1; }
  [ -d "$state" ] && { echo "left: $state"; bad=1; }
  ss -ltun 2>/dev/null | grep -qE '10\.244\.0\.1:|127\.0\.0\.1:(9443|9080|22379|22380) ' && { echo "left: listeners"; bad=1; }
  return "$bad"
}

export -f restamp e2e leftovers
down() { "$here/kube-up.sh" down "$state" "$bin" >/dev/null 2>&1; }
trap down EXIT

stage "upgrade images" 600 restamp
restamped=()
for s in "${services[@]}"; do restamped+=("$upgrade/$s.tar"); done
# The e2e suite's webhook receiver listens on the bridge address, which values-node-e2e.yaml
# lets integrations deliver to (that address only).
e2e_values=$root/charts/bizassist/values-node-e2e.yaml
if KUBE_UP_VALUES=$e2e_values stage "node up + install" 900 "$here/kube-up.sh" up "$state" "$bin" "$images" "$tag" "${restamped[@]}"; then
  echo "HOOK_LISTEN_ADDR=10.244.0.1" >>"$state/env"
  K=(--kubectl "$bin/kubectl" --kubeconfig "$state/node/kubeconfig")
  stage "pods Ready" 300 "$state/nodecheck" ready "${K[@]}" -summary "$summary"
  # KUBE_NODE_E2E=0 leaves the suite out (a quicker look at the cluster checks); the line says so.
  if [ "${KUBE_NODE_E2E:-1}" = 1 ]; then stage "e2e suite" 600 e2e; fi
  stage "upgrade, deletes, drain" 900 "$state/nodecheck" verify "${K[@]}" --helm "$bin/helm" \
    -url "https://127.0.0.1:${KUBE_NODE_HTTPS_PORT:-9443}" -ca "$state/tls.crt" -upgrade-tag "$utag" \
    -upgrade-arg bizassist -upgrade-arg "$root/charts/bizassist" -upgrade-arg --namespace -upgrade-arg bizassist \
    -upgrade-arg --values -upgrade-arg "$root/charts/bizassist/values-node.yaml" \
    -upgrade-arg --values -upgrade-arg "$e2e_values" -summary "$summary"
fi
trap - EXIT
stage "teardown" 180 "$here/kube-up.sh" down "$state" "$bin"
stage "nothing left behind" 30 leftovers
echo "==> k8s node stage times"
printf '    %s\n' "${timings[@]}"
grep '^k8s node:' "$summary" || echo "k8s node: 0/0 pods Ready (not reached)"
grep '^k8s e2e:' "$summary" || echo "k8s e2e: 0 passed, 0 failed (not run)"
grep '^k8s rolling upgrade:' "$summary" || echo "k8s rolling upgrade: 0 requests, 0 errors (not run)"
rm -f "$summary"
exit $failed
