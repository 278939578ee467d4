#!/usr/bin/env bash
# Builds prometheus and promtool at the version pinned in this directory's
# go.mod, for the tests that load informtop's rules (internal/promtest,
# deploy/prometheus), and Alertmanager's amtool at the version Prometheus
# itself requires (its check-config reads deploy/alertmanager's inhibition).
#
# The binaries go into a directory keyed by a hash of go.mod and go.sum, so a
# version bump builds afresh and an unchanged checkout reuses what is there:
#   ${PROM_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/informtop/prom-bin/<hash>}
# When all three binaries are present it does nothing. It prints ONLY that
# directory on stdout (so `INFORMTOP_PROM_BIN=$(test/prom/build.sh)` works);
# progress and errors go to stderr.
#
# The build tag remove_all_sd leaves out every service-discovery plugin (the
# tests list static targets), and without the builtinassets tag the web UI is
# not embedded (the tests use the HTTP API only).
# A cold build (empty Go build cache) took 17 min (1017 s) on 2 cores that
# other builds shared, ~1.2 GB of build cache; a warm one (build cache kept,
# output directory removed) 18 s. The binaries are ~52 MB each.
#
# Environment: PROM_BIN_DIR (output directory), GO (the go command, as in the
# Makefile), PROM_BUILD_PARALLEL (go build -p, default 2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=SCRIPTDIR/../lib/bincache.sh
source "$here/../lib/bincache.sh"
bincache_open prom-bin PROM_BIN_DIR prometheus promtool amtool

echo "prom-bin: building prometheus, promtool and amtool into $dir"

"$go" mod download github.com/prometheus/prometheus

version="$("$go" list -m -f '{{.Version}}' github.com/prometheus/prometheus)"
# Stamped so that /api/v1/status/buildinfo and --version say which release
# the module version is (v0.316.0 is Prometheus 3.16.0).
# Prometheus 3.x is published as Go module v0.3XX.Y for release 3.XX.Y.
n="${version#v0.}"
release="${n:0:1}.${n:1}"
ldflags="-s -w"
ldflags+=" -X github.com/prometheus/common/version.Version=$release"
ldflags+=" -X github.com/prometheus/common/version.Revision=$version"
ldflags+=" -X github.com/prometheus/common/version.Branch=module"

# One go build for all three lets the packages they share compile once
# (amtool is stamped with Prometheus' version too; nothing reads it).
"$go" build -p "${PROM_BUILD_PARALLEL:-2}" -trimpath -tags remove_all_sd \
  -ldflags "$ldflags" -o "$tmp/" \
  github.com/prometheus/prometheus/cmd/prometheus \
  github.com/prometheus/prometheus/cmd/promtool \
  github.com/prometheus/alertmanager/cmd/amtool
bincache_done
