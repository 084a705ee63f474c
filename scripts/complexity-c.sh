#!/usr/bin/env bash
# Issue 44's shapes through the C ABI (ffi/tests/c/complexity.c): instructions of one curbi_policy_check at 2.5, 10
# and 40 KB under callgrind, counted only inside curbi_policy_check. Prints the ratio per shape; exits 1 when any is over
# the limit (4.5×). Needs target/release/libcurbi.a (cargo build --release -p curbi-ffi) and valgrind.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
limit=${CURBI_COMPLEXITY_LIMIT:-4.5}
lib=target/release/libcurbi.a
[ -f "$lib" ] || { echo "missing $lib: run cargo build --release -p curbi-ffi first" >&2; exit 1; }
out=target/complexity-c
mkdir -p "$out"
cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude ffi/tests/c/complexity.c "$lib" -lpthread -ldl -lm -o "$out/complexity"

# name | policy | unit: the issue's four shapes (seed 000's alias, nested items, five rules on one phrase, ordinary
# overlapping words).
shapes=(
  'seed alias|{"prices":[{"item":"Pro","amount":29,"aliases":["Pro plan"]}]}|Pro plan. '
  'nested items|{"prices":[{"item":"Pro","amount":29},{"item":"Pro Max","amount":49},{"item":"Pro Max Plus","amount":99}]}|Pro Max Plus Pro Max Pro '
  'five rules, one phrase|{"forbid":[{"id":"a","phrases":["full refund"]},{"id":"b","phrases":["full refund"]},{"id":"c","phrases":["full refund"],"match":"prefix"},{"id":"d","phrases":["full refund"],"negatable":false},{"id":"e","phrases":["full refund"]}]}|not a full refund, '
  'ordinary words|{"prices":[{"item":"Pro","amount":29,"aliases":["pro plan","team plan"]},{"item":"Max","amount":99,"aliases":["max plan","pro max"]},{"item":"Team","amount":49,"aliases":["team pro"]}],"forbid":[{"id":"g","phrases":["guarantee","full refund","plan guarantee"]},{"id":"r","phrases":["refund"],"match":"prefix"}],"actions":{"refunded":"billing.refund"}}|pro plan team max guarantee refund plan refunded pro max team plan. '
)

instructions() { # policy unit bytes
  local f="$out/cg.$$"
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect=curbi_policy_check --callgrind-out-file="$f" -q \
    "$out/complexity" "$1" "$2" "$3" >/dev/null
  awk '/^totals:/ {print $2}' "$f"
  rm -f "$f"
}

failed=0
passed=0
# 2.5 KB first: a shape already over 6× from 2.5 KB to 10 KB is super-linear, and its 40 KB check under callgrind
# could take a quarter of an hour, so it is not run and the shape fails.
printf '%-24s %14s %14s %14s %7s\n' shape "2.5 KB instr" "10 KB instr" "40 KB instr" "ratio"
for s in "${shapes[@]}"; do
  IFS='|' read -r name policy unit <<<"$s"
  a=$(instructions "$policy" "$unit" 2560)
  b=$(instructions "$policy" "$unit" 10240)
  if awk -v a="$a" -v b="$b" 'BEGIN {exit !(b / a > 6)}'; then
    c="-"
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f (2.5→10 KB)", b / a}')
    verdict=FAILED
  else
    c=$(instructions "$policy" "$unit" 40960)
    ratio=$(awk -v b="$b" -v c="$c" 'BEGIN {printf "%.2f", c / b}')
    verdict=ok
    awk -v b="$b" -v c="$c" -v l="$limit" 'BEGIN {exit !(c / b > l)}' && verdict=FAILED
  fi
  if [ "$verdict" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  printf '%-24s %14s %14s %14s %7s  %s\n' "$name" "$a" "$b" "$c" "$ratio" "$verdict"
done
echo "complexity (C ABI): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
