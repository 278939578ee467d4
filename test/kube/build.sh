#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, etcd and kubectl at the versions pinned in this
# directory's go.mod, for the integration tests (internal/kubetest).
#
# The binaries go into a directory keyed by a hash of go.mod and go.sum, so a
# version bump builds afresh and an unchanged checkout reuses what is there:
#   ${KUBE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/kube-bin/<hash>}
# When all four binaries are present it does nothing. It prints ONLY that
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

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=SCRIPTDIR/../lib/bincache.sh
source "$here/../lib/bincache.sh"
bincache_open kube-bin KUBE_BIN_DIR kube-apiserver kube-controller-manager etcd kubectl

echo "kube-bin: building kube-apiserver, kube-controller-manager, etcd and kubectl into $dir" \
  "(a cold build takes ~11 min on 2 cores)"

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

# One go build for all four lets the packages they share compile once.
"$go" build -p "${KUBE_BUILD_PARALLEL:-2}" -trimpath -ldflags "$ldflags" -o "$tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kubectl \
  go.etcd.io/etcd/server/v3
# go names the binary of go.etcd.io/etcd/server/v3 after "server".
mv "$tmp/server" "$tmp/etcd"
bincache_done
