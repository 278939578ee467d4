#!/usr/bin/env bash
# Builds kwok at the version pinned in this directory's go.mod: the fake
# kubelet that serves pods/portforward for the attach-through-the-API-server
# tests (internal/kwoktest). Beside the binary it copies, from the same
# module, the PortForward and Logs CRDs and the stages the tests start kwok with, so
# the binary and its objects always come from one version.
#
# The binary goes into a directory keyed by a hash of go.mod and go.sum:
#   ${KWOK_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/kwok-bin/<hash>}
# When it is there this does nothing. It prints ONLY that directory on
# stdout (so `INFORMTOP_KWOK_BIN=$(test/kwok/build.sh)` works).
#
# A cold build takes ~5 min on 2 cores; the binary is ~117 MB.
#
# Environment: KWOK_BIN_DIR (output directory), GO (the go command, as in the
# Makefile), KWOK_BUILD_PARALLEL (go build -p, default 2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=SCRIPTDIR/../lib/bincache.sh
source "$here/../lib/bincache.sh"
bincache_open kwok-bin KWOK_BIN_DIR kwok kwok.x-k8s.io_portforwards.yaml kwok.x-k8s.io_logs.yaml stages.yaml

echo "kwok-bin: building kwok into $dir (a cold build takes ~5 min on 2 cores)"

"$go" mod download sigs.k8s.io/kwok
src="$("$go" list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"


"$go" build -p "${KWOK_BUILD_PARALLEL:-2}" -trimpath \
  -ldflags "-s -w" \
  -o "$tmp/" sigs.k8s.io/kwok/cmd/kwok
cp "$src/kustomize/crd/bases/kwok.x-k8s.io_portforwards.yaml" "$tmp/"
# Logs serves a file as a container's log (pods/log), for the logs tests.
cp "$src/kustomize/crd/bases/kwok.x-k8s.io_logs.yaml" "$tmp/"
# The stages a port-forward needs: a node that reports its kubelet
# endpoint and stays Ready, pods that become Ready (a Pending pod cannot
# be forwarded to) and that can be deleted.
for s in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
  pod/fast/pod-ready.yaml pod/fast/pod-delete.yaml; do
  cat "$src/kustomize/stage/$s"
  echo "---"
done > "$tmp/stages.yaml"
chmod 0644 "$tmp"/*.yaml
bincache_done
