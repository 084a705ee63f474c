#!/usr/bin/env bash
# `make test`: installs what it needs (Rust components), then runs every check and ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failed_steps=()
timings=()
started=$SECONDS
# Each step's wall time is printed after it and again in the summary, so a run over the 45-minute budget names
# its slowest steps.
step() {
  local name=$1
  shift
  echo "==> $name"
  local t0=$SECONDS verdict=ok
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_steps+=("$name")
    verdict=FAILED
  fi
  echo "<== $name: $verdict in $((SECONDS - t0)) s"
  timings+=("$((SECONDS - t0)) s  $name")
}

# Setup: Debian tools the C tests need, when a fresh machine lacks them (CI runs as root).
missing=()
# cmake and pkg-config: the install test builds the README's C example the way C projects do. c++: the fuzz step
# builds libFuzzer from the source libfuzzer-sys ships.
for tool in cc c++ valgrind nm cmake pkg-config; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing ${missing[*]} from Debian's packages"
  apt-get update -qq && apt-get install -y -qq gcc g++ valgrind binutils cmake pkgconf >/dev/null
fi
# Setup: Debian's PostgreSQL server for the recorder's PostgreSQL tests (they start a cluster of their own in a
# temporary folder, as the unprivileged user nobody when run as root; nothing is started at install).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "==> installing postgresql from Debian's packages"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
# Setup: rustfmt and clippy come from rustup on a fresh machine.
if command -v rustup >/dev/null 2>&1; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi

# Each language's recorder scenarios write the bundles they verified here afresh (checked by curbi verify below).
rm -rf target/recorder-bundles

# The suites below run with --workspace, as `cargo test --workspace` does, so that cargo unifies features the same
# way and reuses its build instead of compiling the crates again for one package's features.
step "cargo fmt --check" cargo fmt --all --check
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo test (core, CLI, HTTP, vectors)" cargo test --workspace --locked
# The vector runner prints how many vectors ran; show it (cargo hides a passing test's output).
step "shared vectors (Rust)" cargo test --workspace --locked --test vectors -- --nocapture check_vectors
step "documents and checkout_digest vectors (Rust)" cargo test --workspace --locked --test documents_vectors \
  --test checkout_digest_vectors -- --nocapture
step "lint and regression vectors (Rust)" cargo test --workspace --locked --test lint_vectors --test regression_vectors \
  -- --nocapture lint_vectors regression_vectors round_trips
step "proof primitives against the public vectors" cargo test --workspace --locked --test proof_external -- --nocapture
step "proof vectors (Rust)" cargo test --workspace --locked --test proof_vectors -- --nocapture proof_vectors
step "recorder vectors (Rust)" cargo test --workspace --locked --test vectors -- --nocapture every_scenario_holds
# SIGKILL at every step: 200 kills here (CURBI_CRASH_ITERATIONS); `make crash` runs thousands.
step "recorder crash tests (SIGKILL at nine failpoints and at random)" \
  cargo test --workspace --locked --features curbi-recorder/failpoints --test crash -- --nocapture
# A real PostgreSQL (tests/common/pg.rs): scenario vectors, the database's own rules, four recorder processes, the
# sequencer SIGKILLed mid-load and a hung one cut off (docs/RECORDER.md §Deployment on PostgreSQL).
step "recorder on PostgreSQL (vectors, four processes, sequencer failover)" \
  cargo test --workspace --locked --features curbi-recorder/postgres,curbi-recorder/failpoints --test postgres -- --nocapture
# The published log read back by the Go tlog modules, and heads cosigned by torchwood's litewitness (issue 20).
step "recorder tiles and witnesses: Go tlog client and litewitness (testkit/tlog)" bash testkit/tlog/test.sh
# The benchmarks compile and link in the test profile, on the build above: a release build of every bench took
# 14 minutes of a 54-minute run, and `make bench`, `make bench-recorder` and the bench scripts build their own.
step "bench compiles" cargo test --workspace --locked --benches --no-run
# Every fuzz target (fuzz/, a workspace of its own) built for libFuzzer on the stable toolchain and run on 2,000
# inputs from seed 1, starting from the seed corpus of the vectors (fuzz/run.sh; `make fuzz` runs longer).
step "fuzz targets: 2,000 inputs each from a fixed seed (fuzz/run.sh)" bash fuzz/run.sh
# Release builds: libcurbi for C and Go; the curbi binary, whose answers the Python and Node tests compare with.
step "libcurbi and curbi (release)" cargo build --release --locked -p curbi-ffi -p curbi-cli
# Instructions counted by callgrind, not time: every generated case's 10 KB → 40 KB step ≤ 4.5× (issue 44).
step "checker complexity: generated policies and the issue's shapes, 640 B to 40 KB (make complexity)" make complexity
step "curbi vectors --check (the committed proof vectors are what the generator writes)" target/release/curbi vectors --check
# Issue 15's bounded hostile load against the release `curbi serve` on loopback (20 s; docs/SECURITY.md).
step "hostile load: ordinary p99 < 100 ms and peak RSS < 256 MiB beside 50 hostile clients (make load)" \
  cargo run -q --release --locked -p curbi-mcp --example load -- target/release/curbi 20
step "C tests (ASan, UBSan, valgrind, symbols)" bash ffi/tests/c/run.sh
step "make install PREFIX: SONAME, README C example through pkg-config and CMake, Go through pkg-config, no cgo" \
  bash scripts/install-test.sh
step "Go (gofmt, vet, test, race, GOGC=1 debug)" bash bindings/go/test.sh
step "Python (wheel, pytest, LangChain guard, stubtest)" bash bindings/python/test.sh
step "Node (addon, generated types, node --test, checkout example)" bash bindings/node/test.sh
# Needs the release curbi binary above: `npx @curbi/web verify` is compared with `curbi verify` on every proof vector.
step "WebAssembly (@curbi/web: wasm32 build, types, node --test, npx verify vs curbi verify)" bash bindings/web/test.sh
# `make dist` as a user runs it: it builds what it packs, and finds the release builds and the Node addon above up
# to date (cargo); the manylinux2014 wheel is a zig-linked build of its own. dist-test installs the Python packages
# with no Rust toolchain reachable, so a dist/ without the curbi wheel fails here.
step "make dist (manylinux2014 wheel, sdist, npm, C, CLI) and each installed from dist/ in a fresh folder" bash -c \
  '{ make --no-print-directory dist >target/dist.log 2>&1 || { tail -n 40 target/dist.log; false; }; } && bash scripts/dist-test.sh'
# Needs the bundles the recorder's scenarios left in target/recorder-bundles/ (Rust, C, Go, Python and Node above).
step "recorder bundles from every language verify with curbi verify" bash scripts/recorder-bundles.sh
# Needs libcurbi, the Python venv and the Node addon built by the steps above.
step "differential: C, Go, Python, Node and WebAssembly give the core's bytes for every shared vector" \
  bash scripts/differential.sh
# Needs target/differential/calls.jsonl from the differential step: the same calls also run inside the page.
step "browser: the verifier page in headless Chromium (verify, check, screenshots, differential)" \
  bash bindings/web/test.sh browser
step "MCP: official conformance suite (2025-06-18, 2025-11-25, 2026-07-28), over HTTP and over stdio" env CURBI=target/release/curbi \
  bash scripts/mcp-conformance.sh
step "MCP: official TypeScript and Python clients" env CURBI=target/release/curbi bash scripts/mcp-clients.sh
# Needs the venv the Python step builds: an exported test_regression.py through the real curbi package.
step "exported regression under pytest (real curbi package)" bash scripts/regression-python.sh

echo "==> step times (slowest first; $((SECONDS - started)) s in all)"
printf '%s\n' "${timings[@]}" | sort -rn | head -n 10
if [ "$failed" -gt 0 ]; then
  echo "make test: failed steps: ${failed_steps[*]}"
fi
# The closing line counts steps (each step is a whole suite: cargo test, pytest, go test, node --test, C tests).
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
