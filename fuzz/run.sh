#!/usr/bin/env bash
# Builds every fuzz target and runs each under libFuzzer (docs/FUZZING.md): `make test` runs a fixed number of inputs
# per target from a fixed seed; `make fuzz` runs each for a while on the corpus it keeps in fuzz/corpus/.
#
# The build needs neither nightly nor cargo-fuzz: the stable toolchain's `-Cpasses=sancov-module` and LLVM's
# sanitizer-coverage options give libFuzzer the same edge counters, comparison traces and PC table that cargo-fuzz
# asks for (cargo-fuzz's default AddressSanitizer is nightly-only and adds nothing for code without `unsafe` of its
# own). `--target` keeps the instrumentation off build scripts and proc macros, as cargo-fuzz does.
#
#   fuzz/run.sh [TARGET...]         FUZZ_RUNS inputs per target (default 2000) from seed FUZZ_SEED (default 1),
#                                   starting from a fresh copy of the seed corpus (deterministic: nothing is kept)
#   FUZZ_SECONDS=N fuzz/run.sh ...  N seconds per target on fuzz/corpus/TARGET, which keeps what it finds
#   FUZZ_BUILD_ONLY=1 fuzz/run.sh   build only
# A crash stops the run with the target's name and the input, kept in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"

all_targets() { sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^curbi-fuzz$'; }
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(all_targets); fi

host=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table
  -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
RUSTFLAGS=$(echo $RUSTFLAGS)
t0=$SECONDS
bins=()
for t in "${targets[@]}"; do bins+=(--bin "$t"); done
cargo build --release --locked --target "$host" "${bins[@]}"
echo "fuzz: built ${#targets[@]} targets in $((SECONDS - t0)) s"
[ -n "${FUZZ_BUILD_ONLY:-}" ] && exit 0

# The recorder targets keep their SQLite files under TMPDIR: a folder of this run's, in memory where there is one.
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
scratch=$(mktemp -d "$base/curbi-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch/tmp"
mkdir -p "$TMPDIR"

if [ -n "${FUZZ_SECONDS:-}" ]; then
  bash seed-corpus.sh corpus >/dev/null
  mode=(-max_total_time="$FUZZ_SECONDS")
else
  bash seed-corpus.sh "$scratch/corpus" >/dev/null
  mode=(-runs="${FUZZ_RUNS:-2000}" -seed="${FUZZ_SEED:-1}")
fi

failed=()
for t in "${targets[@]}"; do
  if [ -n "${FUZZ_SECONDS:-}" ]; then corpus="corpus/$t"; else corpus="$scratch/corpus/$t"; fi
  mkdir -p "$corpus" "artifacts/$t"
  t1=$SECONDS
  log="$scratch/$t.log"
  touch "$scratch/$t.start"
  # -max_len bounds an input, not what a target may build from it; -timeout and -rss_limit_mb make a hang or a
  # blow-up a finding (any input slower than 10 s or a process over 2 GiB) instead of a stuck CI step.
  if "$CARGO_TARGET_DIR/$host/release/$t" "${mode[@]}" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="artifacts/$t/" "$corpus" >"$log" 2>&1; then
    stats=$(grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$log" | sed 's/^stat:://' | tr '\n' ' ')
    echo "fuzz: $t: ok in $((SECONDS - t1)) s ($stats)"
  else
    echo "fuzz: $t: FAILED in $((SECONDS - t1)) s; the last lines of its log:"
    tail -n 40 "$log"
    find "artifacts/$t" -type f -newer "$scratch/$t.start" | while read -r a; do
      echo "input $a (base64): $(base64 -w0 "$a" | head -c 4096)"
    done
    failed+=("$t")
  fi
done
echo "fuzz: ${#targets[@]} targets in $((SECONDS - t0)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
