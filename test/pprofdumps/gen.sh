#!/usr/bin/env bash
# Writes attach/pprof/testdata/client-go-<version>.txt: the goroutine dump
# (runtime/pprof, debug=2) of controller.go built against each client-go
# version below, each in a throwaway module pinning it. Run it after adding
# a client-go version informtop supports, and commit the dumps: the
# parser's tests then fail when a version changes client-go's frames.
#
# Usage: test/pprofdumps/gen.sh [VERSION...]   (default: the versions below)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../../attach/pprof/testdata"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v0.35.10 v0.36.1 v0.37.2)
go="${GO:-go}"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0

mkdir -p "$out"
for v in "${versions[@]}"; do
  mod="$(mktemp -d)"
  trap 'rm -rf "$mod"' EXIT
  cp "$here/controller.go" "$mod/main.go"
  sed -i '/^\/\/go:build ignore$/d' "$mod/main.go"
  (
    cd "$mod"
    "$go" mod init example.com/pprofdump >/dev/null 2>&1
    "$go" get "k8s.io/client-go@$v" "k8s.io/api@${v}" "k8s.io/apimachinery@${v}" >/dev/null 2>&1
    "$go" mod tidy >/dev/null 2>&1
    "$go" build -trimpath -o dumper . >&2
    ./dumper
  ) >"$out/client-go-$v.txt"
  rm -rf "$mod"
  echo "wrote $out/client-go-$v.txt" >&2
done
