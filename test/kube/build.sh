#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl at the versions pinned in this
# directory's go.mod, for the integration tests (internal/kubetest).
#
# The binaries go into a directory keyed by a hash of go.mod and go.sum, so a
# version bump builds afresh and an unchanged checkout reuses what is there:
#   ${KUBE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/kube-bin/<hash>}
# When all three binaries are present it does nothing. It prints ONLY that
# directory on stdout (so `INFORMTOP_KUBE_BIN=$(test/kube/build.sh)` works);
# progress and errors go to stderr.
#
# A cold build takes about 11 minutes on 2 cores, ~3 GB of compiler memory and
# ~3 GB of Go build cache; a warm one (build cache kept) about 20 s.
#
# Environment: KUBE_BIN_DIR (output directory), GO (the go command, as in the
# Makefile), KUBE_BUILD_PARALLEL (go build -p, default 2: more parallel
# compiles of the large k8s packages mostly cost memory on a 2-core machine).
set -euo pipefail

# Keep stdout for the final directory alone.
exec 3>&1 1>&2

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

hash="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
dir="${KUBE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/kube-bin/$hash}"
bins=(kube-apiserver etcd kubectl)

have_all() {
  local b
  for b in "${bins[@]}"; do
    [ -x "$dir/$b" ] || return 1
  done
}

if have_all; then
  echo "$dir" >&3
  exit 0
fi

mkdir -p "$dir"
# Two concurrent runs (two shells running make, say) would each spend
# 11 minutes and 3 GB on the same build: let the second wait for the first.
exec 9>"$dir/.lock"
flock 9
if have_all; then
  echo "$dir" >&3
  exit 0
fi

# The caller's GOFLAGS (-race, -tags, -mod=vendor, ...) are meant for the
# root module's tests, not for this build; go.work would pull this module
# into a workspace. Neither belongs here.
go="${GO:-go}"
export GOFLAGS="-mod=readonly -buildvcs=false"
export GOWORK=off
export CGO_ENABLED=0

echo "kube-bin: building kube-apiserver, etcd and kubectl into $dir" \
  "(a cold build takes ~11 min on 2 cores)"
start=$SECONDS

"$go" mod download

k8s_version="$("$go" list -m -f '{{.Version}}' k8s.io/kubernetes)"
etcd_version="$("$go" list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"
minor="${k8s_version#v*.}"
minor="${minor%%.*}"
major="${k8s_version#v}"
major="${major%%.*}"
# Without these the binaries report v0.0.0-master, and the API server's
# /version (which client-go and kubectl read) would say so too.
ldflags="-s -w"
ldflags+=" -X k8s.io/component-base/version.gitVersion=$k8s_version"
ldflags+=" -X k8s.io/component-base/version.gitMajor=$major"
ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor"
ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
ldflags+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=$etcd_version"

# Build into a fresh directory and move the binaries in afterwards, so an
# interrupted build never leaves a binary that looks complete.
tmp="$(mktemp -d "$dir/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# One go build for all three lets the packages they share compile once.
"$go" build -p "${KUBE_BUILD_PARALLEL:-2}" -trimpath -ldflags "$ldflags" -o "$tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kubectl \
  go.etcd.io/etcd/server/v3
# go names the binary of go.etcd.io/etcd/server/v3 after "server".
mv "$tmp/server" "$tmp/etcd"
for b in "${bins[@]}"; do
  mv "$tmp/$b" "$dir/$b"
done

echo "kube-bin: built in $((SECONDS - start)) s:"
ls -l "${bins[@]/#/$dir/}"
echo "$dir" >&3
