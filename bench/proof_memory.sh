#!/usr/bin/env bash
# Peak memory of verifying a Proof of Action bundle (issue 7, docs/PERFORMANCE.md). Builds a verify_bundle request of
# N receipts (default 10,000) from the reference gate into a temporary file, once with receipts only and once with
# every receipt's attestation attached, then verifies each in a fresh process under `/usr/bin/time -v` and prints
# the maximum resident set size. Run from anywhere: bench/proof_memory.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"
cargo build --release -p curbi --example verify_peak
bin=target/release/examples/verify_peak
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for variant in receipts attested; do
  flag=()
  if [ "$variant" = attested ]; then flag=(--attestations); fi
  "$bin" build "$tmp/$variant.json" "$n" "${flag[@]}"
  echo "== $variant: $n receipts, request $(stat -c %s "$tmp/$variant.json") bytes"
  /usr/bin/time -v "$bin" verify "$tmp/$variant.json" 2> "$tmp/time.txt"
  grep -E "Maximum resident set size|Elapsed \(wall clock\)" "$tmp/time.txt"
  kib="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")"
  echo "peak RSS ($variant): $kib KiB = $(awk -v k="$kib" 'BEGIN {printf "%.1f", k / 1024}') MiB (target < 64 MiB)"
done
