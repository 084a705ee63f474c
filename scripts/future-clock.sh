#!/usr/bin/env bash
# `make test-future`: every suite that can run on a faked clock, run on dates after today, so that a test which
# judges a fixed-date document (a receipt's exp, a grant's expires_at) by the system clock fails here, now, rather
# than in CI on the day it expires. Twice such tests broke `make test` on the day their documents expired
# (CHANGELOG, "Tests that read the system clock").
#
# The clock is libfaketime's (Debian's faketime, installed here when missing), started at each date and running
# from there. Only the tests run under it: rustc, rustdoc and `cargo metadata` hang under libfaketime, so every
# build is made first on the real clock. Go's own clock (read through the vDSO) is not faked; the core it calls
# through libcurbi is.
#
# Usage: scripts/future-clock.sh [DATE ...]   (default: a year and five years from today, UTC)
# Needs what `make test` builds before its Python and Node steps: the Python venv (bindings/python/setup_venv.sh),
# the Node addon, the web package and target/release/libcurbi.a.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v faketime >/dev/null 2>&1; then
  echo "==> apt-get install faketime (Debian's libfaketime)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null
fi
if [ "$#" -gt 0 ]; then
  dates=("$@")
else
  dates=("$(date -u -d '+1 year' '+%Y-%m-%d 12:00:00')" "$(date -u -d '+5 years' '+%Y-%m-%d 12:00:00')")
fi

# Two tests cannot run under a faked clock for reasons of their own, not of dates:
# - header_is_up_to_date runs `cargo metadata`, which hangs under libfaketime;
# - test_guard_package_builds_without_warnings fetches setuptools from PyPI, whose TLS certificate is not valid at a
#   date years away.
skip_rust=header_is_up_to_date
skip_python=test_guard_package_builds_without_warnings

echo "==> building the Rust test binaries on the real clock"
bins=$(mktemp)
cargo test --workspace --locked --tests --no-run --message-format=json 2>/dev/null | python3 -c '
import json, os, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(os.path.dirname(m["manifest_path"]), m["executable"])
' >"$bins"
[ -s "$bins" ] || { echo "no test binaries were built" >&2; exit 1; }
gotest=$(mktemp)
(cd bindings/go && GOPROXY=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local CGO_ENABLED=1 go test -c -o "$gotest" .) ||
  { echo "the Go test binary did not build" >&2; exit 1; }
python=target/python-venv/bin/python
[ -x "$python" ] || { echo "missing $python: run bash bindings/python/setup_venv.sh first" >&2; exit 1; }

failed=()
run() { # NAME DIR COMMAND...: one suite under the faked clock
  local name=$1 dir=$2
  shift 2
  local log
  log=$(mktemp)
  if (cd "$dir" && timeout 900 faketime -f "@$when" "$@") >"$log" 2>&1; then
    rm -f "$log"
  else
    echo "    FAILED: $name (log: $log)"
    grep -E "FAILED|panicked|not ok|Error" "$log" | head -n 10 | sed 's/^/      /'
    failed+=("$when $name")
  fi
}

for when in "${dates[@]}"; do
  echo "==> the clock at $when UTC"
  echo "  -- Rust: $(wc -l <"$bins") test binaries"
  while read -r dir exe; do
    run "$(basename "$exe")" "$dir" env CARGO_MANIFEST_DIR="$dir" "$exe" --skip "$skip_rust"
  done <"$bins"
  echo "  -- Python (pytest)"
  run pytest bindings/python "$root/$python" -m pytest -q -p no:cacheprovider tests -k "not $skip_python"
  echo "  -- Node (addon and checkout example)"
  run "node addon" bindings/node bash -c 'node --test __test__/*.test.mjs'
  run "checkout example" examples/node-checkout bash -c 'node --test ./*.test.mjs'
  echo "  -- WebAssembly (@curbi/web on Node)"
  run "@curbi/web" bindings/web env CURBI_REQUIRE_NATIVE=1 CURBI_WEB_LARGE_REQUEST="$root/target/web/large-600.json" \
    node --test test/api.test.mjs test/pool.test.mjs test/cli.test.mjs
  echo "  -- Go"
  run "go test" bindings/go "$gotest"
  echo "  -- the demo"
  run "make demo" . bash scripts/demo.sh
done
rm -f "$bins" "$gotest"
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'failed on a future clock: %s\n' "${failed[@]}"
  exit 1
fi
echo "every suite passed at ${dates[*]}"
