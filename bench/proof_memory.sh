#!/usr/bin/env bash
# Peak memory of verifying a Proof of Action bundle (issue 7, docs/PERFORMANCE.md). Builds a verify_bundle request of
# N receipts (default 10,000) from the reference gate into a temporary file, once with receipts only and once with
# every receipt's attestation attached, then verifies each in a fresh process under `/usr/bin/time -v` and prints
# the maximum resident set size; then the same request through `curbi verify` (bundle and keys files split out of it),
# and the CLI's peak as a ratio of the library's (issue 13: within 10 %). Run from anywhere: bench/proof_memory.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"
cargo build --release -p curbi --example verify_peak -p curbi-cli
bin=target/release/examples/verify_peak
cli=target/release/curbi
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
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); json.dump(r["bundle"],open(sys.argv[2],"w")); json.dump(r["keys"],open(sys.argv[3],"w"))' \
    "$tmp/$variant.json" "$tmp/bundle.json" "$tmp/keys.json"
  /usr/bin/time -v "$cli" verify "$tmp/bundle.json" --keys "$tmp/keys.json" --allow-test > /dev/null 2> "$tmp/time-cli.txt" || true
  cli_kib="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time-cli.txt")"
  echo "peak RSS ($variant, curbi verify): $cli_kib KiB; CLI / library = $(awk -v a="$cli_kib" -v b="$kib" 'BEGIN {printf "%.3f", a / b}') (target <= 1.10)"
done
