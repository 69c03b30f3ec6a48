#!/usr/bin/env bash
# Build the OpenTelemetry Collector that ek-otel's configs use (collector/builder-config.yaml),
# once, with the OpenTelemetry Collector Builder, and print the binary's path on the last line.
#
#   scripts/otelcol.sh                 # build if needed; last line: the binary's path
#   scripts/otelcol.sh --update-sum    # rebuild and write collector/go.sum anew (after a
#                                      # change of the manifest's versions)
#   EK_OTEL_CI_CACHE=/tmp/x scripts/otelcol.sh
#
# The binary is cached outside the tree, in $EK_OTEL_CI_CACHE (default ~/.cache/ek-otel-ci),
# as otelcol-<key>/otelcol-ek, where <key> is a hash of the manifest, collector/go.sum and the
# Go version: a later run only checks that binary (`otelcol-ek components`) and prints its path.
# The builder itself is cached there too (ocb-<version>/builder).
#
# Reproducible: every module is pinned in the manifest (one release for all), and
# collector/go.sum, committed, holds the hash of every module the build may use; the build
# runs with GOFLAGS=-mod=mod, GOTOOLCHAIN=local and the checksum database on (GONOSUMDB,
# GONOSUMCHECK, GOINSECURE and GOPRIVATE cleared, GOSUMDB left to Go's default; GOPROXY is
# taken from the environment). `go mod tidy` checks every download against collector/go.sum
# (a changed module is Go's "checksum mismatch" error), and if tidy would change go.sum the
# build fails before compiling: the module graph is not the one committed. No generated Go
# code and no binary ever enter the repository: the builder runs in a temporary directory of
# the cache.
#
# A missing Go or a failed build exits non-zero with the reason on stderr (CI fails; nothing
# is skipped). Go's and the builder's output go to stderr; stdout is only the path.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MANIFEST="$ROOT/collector/builder-config.yaml"
SUM="$ROOT/collector/go.sum"
CACHE="${EK_OTEL_CI_CACHE:-${HOME:-/root}/.cache/ek-otel-ci}"
UPDATE_SUM=0
case "${1:-}" in
  "") ;;
  --update-sum) UPDATE_SUM=1 ;;
  *) echo "otelcol.sh: unknown argument '$1' (usage: scripts/otelcol.sh [--update-sum])" >&2; exit 2 ;;
esac

die() { echo "otelcol.sh: $*" >&2; exit 1; }

[ -f "$MANIFEST" ] || die "no manifest at $MANIFEST"
command -v go >/dev/null 2>&1 \
  || die "no 'go' on PATH: the Collector is built from its Go modules (Go >= 1.25 needed)"
# The builder at the manifest's own release (dist.version).
VERSION="$(sed -n 's/^  version: *\([0-9][0-9.]*\) *$/\1/p' "$MANIFEST" | head -n1)"
[ -n "$VERSION" ] || die "$MANIFEST: no 'dist: version:' line (the builder's release)"

export GOFLAGS=-mod=mod GOTOOLCHAIN=local GONOSUMDB= GONOSUMCHECK= GOINSECURE= GOPRIVATE=
GOVERSION="$(go env GOVERSION)"
sum_text() { if [ -f "$SUM" ]; then cat "$SUM"; fi; }
KEY="$( { cat "$MANIFEST"; echo "--"; sum_text; echo "--"; echo "$GOVERSION $(go env GOOS GOARCH)"; } \
        | sha256sum | cut -c1-16)"
OUT="$CACHE/otelcol-$KEY"
BIN="$OUT/otelcol-ek"

if [ "$UPDATE_SUM" = 0 ] && [ -x "$BIN" ] && "$BIN" components >/dev/null 2>&1; then
  echo "otelcol.sh: cached build $BIN" >&2
  echo "$BIN"
  exit 0
fi
if [ "$UPDATE_SUM" = 0 ] && [ ! -f "$SUM" ]; then
  die "no $SUM: run 'scripts/otelcol.sh --update-sum' once to record it, and commit it"
fi

mkdir -p "$CACHE"
# One build at a time per cache (CI and a developer's test run may start together).
exec 9>"$CACHE/otelcol.lock"
flock 9
if [ "$UPDATE_SUM" = 0 ] && [ -x "$BIN" ] && "$BIN" components >/dev/null 2>&1; then
  echo "otelcol.sh: built meanwhile: $BIN" >&2
  echo "$BIN"
  exit 0
fi

start=$(date +%s)
BUILDER_DIR="$CACHE/ocb-v$VERSION"
BUILDER="$BUILDER_DIR/builder"
if ! [ -x "$BUILDER" ]; then
  echo "otelcol.sh: installing the OpenTelemetry Collector Builder v$VERSION" >&2
  mkdir -p "$BUILDER_DIR"
  GOBIN="$BUILDER_DIR" go install "go.opentelemetry.io/collector/cmd/builder@v$VERSION" >&2 \
    || die "could not install go.opentelemetry.io/collector/cmd/builder@v$VERSION"
fi

WORK="$(mktemp -d "$CACHE/otelcol-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cp "$MANIFEST" "$WORK/builder-config.yaml"
cd "$WORK"
echo "otelcol.sh: building the Collector in $WORK (several minutes the first time)" >&2
# The committed go.sum goes in first: the builder writes main.go, components.go and go.mod
# beside it and runs `go mod tidy`, which checks every module against it ...
mkdir -p src
if [ "$UPDATE_SUM" = 0 ]; then
  cp "$SUM" src/go.sum
fi
"$BUILDER" --config builder-config.yaml --skip-compilation >&2 \
  || die "the builder could not resolve the Collector's modules (see above)"
# ... then go.sum must be the committed one, before the long compilation starts.
if [ "$UPDATE_SUM" = 1 ]; then
  cp src/go.sum "$SUM"
  echo "otelcol.sh: wrote $SUM: commit it" >&2
  KEY="$( { cat "$MANIFEST"; echo "--"; sum_text; echo "--"; echo "$GOVERSION $(go env GOOS GOARCH)"; } \
          | sha256sum | cut -c1-16)"
  OUT="$CACHE/otelcol-$KEY"
  BIN="$OUT/otelcol-ek"
elif ! cmp -s src/go.sum "$SUM"; then
  diff -u "$SUM" src/go.sum >&2 || true
  die "the build's go.sum differs from collector/go.sum (above): the module graph is not the one committed; after a deliberate change run 'scripts/otelcol.sh --update-sum' and commit collector/go.sum"
fi
"$BUILDER" --config builder-config.yaml --skip-generate --skip-get-modules >&2 \
  || die "the Collector did not compile (see above)"
[ -x src/otelcol-ek ] || die "the builder made no src/otelcol-ek"
"src/otelcol-ek" components >/dev/null || die "the built Collector does not run ('components' failed)"
mkdir -p "$OUT"
cp src/otelcol-ek "$OUT/otelcol-ek.tmp"
mv -f "$OUT/otelcol-ek.tmp" "$BIN"
echo "otelcol.sh: built $BIN in $(( $(date +%s) - start )) s" >&2
echo "$BIN"
