#!/usr/bin/env bash
# The published log read by independent clients (docs/RECORDER.md §Publishing the log, §Witnesses): builds this
# folder's Go client and torchwood's litewitness and witnessctl (modules from the Go module proxy, pinned by go.sum),
# then runs the recorder's tests that drive them (recorder/tests/independent.rs). Needs Go, ssh-agent and ssh-keygen.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)

if ! command -v ssh-agent >/dev/null 2>&1 || ! command -v ssh-keygen >/dev/null 2>&1; then
	echo "==> installing openssh-client from Debian's packages (litewitness keeps its key in ssh-agent)"
	apt-get update -qq && apt-get install -y -qq openssh-client >/dev/null
fi

unformatted=$(gofmt -l .)
if [[ -n $unformatted ]]; then
	printf 'gofmt: not formatted:\n%s\n' "$unformatted" >&2
	exit 1
fi
export GOFLAGS=-mod=readonly
go vet ./...
bin=$root/target/tlog-bin
mkdir -p "$bin"
go build -o "$bin/" . filippo.io/torchwood/cmd/litewitness filippo.io/torchwood/cmd/witnessctl

cd "$root"
CURBI_TLOG_BIN=$bin cargo test -p curbi-recorder --locked --test independent -- --ignored --nocapture
