#!/usr/bin/env bash
# Build Jaeger 2 (github.com/jaegertracing/jaeger/cmd/jaeger, the Collector-based Jaeger) from
# its Go modules, once, and print the binary's path on the last line. The Jaeger-form tests
# (tests/ingest/test_real_jaeger.py) send the corpus through it and read back what its query
# API serves, the JSON the Jaeger UI downloads.
#
#   scripts/jaeger.sh                  # build if needed; last line: the binary's path
#   EK_OTEL_CI_CACHE=/tmp/x scripts/jaeger.sh
#
# The module graph is committed: collector/jaeger/go.mod names Jaeger's release as a Go tool
# (`go get -tool github.com/jaegertracing/jaeger/cmd/jaeger@vX`), and collector/jaeger/go.sum
# holds the hash of every module. The build runs with -mod=readonly, GOTOOLCHAIN=local and the
# checksum database on, so that a module that is not the committed one fails the build. To move
# to another release: in collector/jaeger, `go get -tool github.com/jaegertracing/jaeger/cmd/jaeger@vY`
# and commit go.mod and go.sum.
#
# The binary is cached outside the tree, in $EK_OTEL_CI_CACHE (default ~/.cache/ek-otel-ci), as
# jaeger-<key>/jaeger, <key> a hash of go.mod, go.sum and the Go version. A missing Go or a
# failed build exits non-zero with the reason on stderr (CI fails; nothing is skipped).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/collector/jaeger"
CACHE="${EK_OTEL_CI_CACHE:-${HOME:-/root}/.cache/ek-otel-ci}"
die() { echo "jaeger.sh: $*" >&2; exit 1; }

[ $# -eq 0 ] || die "no arguments are taken (usage: scripts/jaeger.sh)"
[ -f "$SRC/go.mod" ] && [ -f "$SRC/go.sum" ] || die "no $SRC/go.mod and go.sum"
command -v go >/dev/null 2>&1 || die "no 'go' on PATH: Jaeger 2 is built from its Go modules"

export GOFLAGS=-mod=readonly GOTOOLCHAIN=local GONOSUMDB= GONOSUMCHECK= GOINSECURE= GOPRIVATE=
KEY="$( { cat "$SRC/go.mod"; echo "--"; cat "$SRC/go.sum"; echo "--"; go env GOVERSION GOOS GOARCH; } \
        | sha256sum | cut -c1-16)"
OUT="$CACHE/jaeger-$KEY"
BIN="$OUT/jaeger"
runs() { [ -x "$BIN" ] && "$BIN" components >/dev/null 2>&1; }

if runs; then echo "jaeger.sh: cached build $BIN" >&2; echo "$BIN"; exit 0; fi
mkdir -p "$CACHE"
exec 9>"$CACHE/jaeger.lock"          # one build at a time per cache
flock 9
if runs; then echo "jaeger.sh: built meanwhile: $BIN" >&2; echo "$BIN"; exit 0; fi

start=$(date +%s)
WORK="$(mktemp -d "$CACHE/jaeger-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cp "$SRC/go.mod" "$SRC/go.sum" "$WORK/"
cd "$WORK"
echo "jaeger.sh: building Jaeger 2 in $WORK (several minutes the first time)" >&2
go build -trimpath -o jaeger github.com/jaegertracing/jaeger/cmd/jaeger >&2 \
  || die "Jaeger did not build (see above); a go.sum mismatch means the module graph is not the committed one"
./jaeger components >/dev/null || die "the built Jaeger does not run ('components' failed)"
mkdir -p "$OUT"
cp jaeger "$OUT/jaeger.tmp"
mv -f "$OUT/jaeger.tmp" "$BIN"
echo "jaeger.sh: built $BIN in $(( $(date +%s) - start )) s" >&2
echo "$BIN"
