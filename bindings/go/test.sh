#!/usr/bin/env bash
# Every check of the Go package: gofmt, go vet, go test, go test -race, and go test -tags debug with GOGC=1.
# Needs the static library; build it first at the repository root: cargo build --release -p curbi-ffi
# Works offline: the module has no dependencies, and module downloads are switched off below.
set -euo pipefail
cd "$(dirname "$0")"

lib=../../target/release/libcurbi.a
if [[ ! -f $lib ]]; then
	echo "bindings/go/test.sh: $lib is missing; run 'cargo build --release -p curbi-ffi' at the repository root first" >&2
	exit 1
fi

# No network: a missing dependency or a toolchain switch must fail, not download.
export GOPROXY=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local CGO_ENABLED=1

step() { printf '== %s\n' "$*"; }

step "gofmt -l ."
unformatted=$(gofmt -l .)
if [[ -n $unformatted ]]; then
	printf 'gofmt: not formatted:\n%s\n' "$unformatted" >&2
	exit 1
fi

step "go vet ./... (and -tags debug)"
go vet ./...
go vet -tags debug ./...

# go test hides a passing package's output unless -v; keep the log, show the vectors lines and the verdict,
# and the whole log on failure.
run_tests() {
	local log
	log=$(mktemp)
	if ! "$@" -v ./... >"$log" 2>&1; then
		cat "$log"
		rm -f "$log"
		return 1
	fi
	if ! grep -E '^go (lint |regression |purchase |proof |recorder )?vectors' "$log"; then
		echo "no 'go vectors' line in the test output" >&2
		rm -f "$log"
		return 1
	fi
	grep -E '^(ok|FAIL)[[:space:]]' "$log"
	rm -f "$log"
}

step "go test -count=1 ./..."
run_tests go test -count=1

step "go test -race -count=1 ./..."
run_tests go test -race -count=1

step "GOGC=1 go test -count=1 -tags debug ./..."
GOGC=1 run_tests go test -count=1 -tags debug

# The package links libcurbi.a by full path; a program must not need libcurbi.so at run time.
step "no libcurbi.so dependency"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/curbi.test" .
if command -v readelf >/dev/null; then
	if readelf -d "$bin/curbi.test" | grep -q 'libcurbi'; then
		echo "the test binary depends on libcurbi.so: link libcurbi.a by full path" >&2
		exit 1
	fi
	echo "ok: no dynamic dependency on libcurbi"
else
	echo "readelf not found: skipped"
fi
