# shellcheck shell=bash
# Sourced by test/kube/build.sh and test/prom/build.sh: each builds the
# binaries of the nested Go module of its directory into a cache directory
# keyed by a hash of its go.mod and go.sum,
#   ${<VAR>:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/<name>/<hash>}
# and prints ONLY that directory on stdout. A script, from its module's
# directory, calls
#
#   bincache_open NAME VAR BIN...  # e.g. kube-bin KUBE_BIN_DIR kube-apiserver etcd kubectl
#   ... "$go" build ... -o "$tmp/" ...
#   bincache_done
#
# bincache_open sends stdout to stderr, keeping the real one (fd 3) for the
# directory. When every BIN is in it already, it prints the directory and
# exits 0. Otherwise it returns holding the directory's lock, having set
#   dir    the directory
#   bins   the BINs
#   go     the go command ($GO, default go)
#   tmp    an empty directory to build into, removed when the script exits
#   start  $SECONDS when it returned
# and the build's environment. bincache_done moves each BIN from $tmp into
# $dir and prints $dir.

bincache_open() {
  bincache_name=$1
  local var=$2
  shift 2
  bins=("$@")

  # Keep stdout for the final directory alone.
  exec 3>&1 1>&2

  local hash
  hash="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
  dir="${!var:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/$bincache_name/$hash}"

  if bincache_have_all; then
    echo "$dir" >&3
    exit 0
  fi

  mkdir -p "$dir"
  # Two concurrent runs (two shells running make, say) would each spend
  # the whole build, minutes and gigabytes, on the same binaries: let the
  # second wait for the first.
  exec 9>"$dir/.lock"
  flock 9
  if bincache_have_all; then
    echo "$dir" >&3
    exit 0
  fi

  # The caller's GOFLAGS (-race, -tags, -mod=vendor, ...) are meant for the
  # root module's tests, not for this build; go.work would pull this module
  # into a workspace. Neither belongs here.
  # shellcheck disable=SC2034 # the calling script runs it
  go="${GO:-go}"
  export GOFLAGS="-mod=readonly -buildvcs=false"
  export GOWORK=off
  export CGO_ENABLED=0

  # Build into a fresh directory and move the binaries in afterwards, so an
  # interrupted build never leaves a binary that looks complete.
  tmp="$(mktemp -d "$dir/.build.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  start=$SECONDS
}

bincache_have_all() {
  local b
  for b in "${bins[@]}"; do
    [ -f "$dir/$b" ] || return 1 # the CRDs and stages beside kwok are not executable
  done
}

bincache_done() {
  local b
  for b in "${bins[@]}"; do
    mv "$tmp/$b" "$dir/$b"
  done
  echo "$bincache_name: built in $((SECONDS - start)) s:"
  ls -l "${bins[@]/#/$dir/}"
  echo "$dir" >&3
}
