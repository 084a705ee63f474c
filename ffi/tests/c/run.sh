#!/usr/bin/env bash
# C tests of libcurbi: build with -Wall -Wextra -Werror under AddressSanitizer + UBSan, run; build plain, run under
# valgrind (zero leaks, zero errors); and check the exported symbols against ffi/symbols.txt. Both runs go through
# the recorder's scenarios and leave the bundles they verified in target/recorder-bundles/c.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
lib=target/release/libcurbi.a
so=target/release/libcurbi.so
[ -f "$lib" ] || { echo "missing $lib: run cargo build --release -p curbi-ffi first" >&2; exit 1; }
out=target/c-tests
mkdir -p "$out"
# The recorder's scenarios write the bundles they verified here, for `curbi verify` (scripts/test.sh).
bundles=target/recorder-bundles/c
rm -rf "$bundles" && mkdir -p "$bundles"
src=(ffi/tests/c/test_curbi.c ffi/tests/c/json.c)
flags=(-std=c11 -Wall -Wextra -Werror -g -Iinclude -Iffi/tests/c)
libs=("$lib" -lpthread -ldl -lm)

# Exported symbols: exactly the committed list, so an ABI change is always deliberate.
nm -D --defined-only "$so" | awk '$2 == "T" && $3 ~ /^curbi_/ {print $3}' | sort > "$out/symbols.txt"
if ! diff -u <(grep -v '^#' ffi/symbols.txt | sed '/^$/d') "$out/symbols.txt"; then
  echo "exported symbols differ from ffi/symbols.txt" >&2
  exit 1
fi

echo "-- AddressSanitizer + UBSan"
cc "${flags[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all "${src[@]}" "${libs[@]}" -o "$out/test_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$out/test_asan" vectors "$bundles"

echo "-- valgrind"
cc "${flags[@]}" -O1 "${src[@]}" "${libs[@]}" -o "$out/test_plain"
valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  --error-exitcode=99 "$out/test_plain" vectors "$bundles"
