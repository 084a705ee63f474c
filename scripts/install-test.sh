#!/usr/bin/env bash
# `make install PREFIX=<fresh folder>` used the way each C-ABI ecosystem uses it, with its own tools only:
# the README's C example compiled as written through pkg-config (shared and static) and through CMake's
# find_package(curbi), run, and its answer checked; the SONAME and the versioned links; the Go package built
# through pkg-config (-tags curbi_pkgconfig) and refused clearly without cgo; the installed CLI. Needs the release
# build of curbi-ffi and curbi-cli (scripts/test.sh builds them first).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
PREFIX=$prefix bash scripts/install.sh
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
fail() { echo "install-test: $*" >&2; exit 1; }

echo "-- SONAME and links"
soname=$(readelf -d "$prefix/lib/libcurbi.so.0.1.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libcurbi.so.0 ] || fail "SONAME is '$soname', want libcurbi.so.0"
[ "$(readlink "$prefix/lib/libcurbi.so")" = libcurbi.so.0 ] || fail "libcurbi.so does not link to libcurbi.so.0"
[ "$(readlink "$prefix/lib/libcurbi.so.0")" = libcurbi.so.0.1.0 ] || fail "libcurbi.so.0 does not link to the version"
cmp -s LICENSE "$prefix/share/licenses/curbi/LICENSE" || fail "LICENSE not installed"

# The README's C example, exactly as written: the ```c block that starts with /* check.c.
awk '/^```c$/ {inblock=1; n=0; next} /^```$/ {inblock=0} inblock {n++; if (n==1 && $0 !~ /check\.c/) inblock=0; else print}' \
  README.md > "$work/check.c"
grep -q 'int main' "$work/check.c" || fail "no complete C example (/* check.c ... main) in README.md"
# Worked by hand: "Starter costs " is 14 bytes, so $99 is [14, 17) and the policy says $49.
want='"rule":"price:mismatch","span":[14,17],"text":"$99","why":"Starter is $49, not $99."'
expect() { # label, output
  grep -qF "$want" <<<"$2" || fail "$1: unexpected output: $2"
  echo "ok - $1"
}

echo "-- pkg-config"
[ "$(pkg-config --modversion curbi)" = 0.1.0 ] || fail "pkg-config --modversion curbi"
cc -std=c11 -Wall -Wextra -Werror "$work/check.c" $(pkg-config --cflags --libs curbi) -o "$work/check-shared"
readelf -d "$work/check-shared" | grep -q 'NEEDED.*\[libcurbi.so.0\]' || fail "check-shared does not need libcurbi.so.0"
expect "README C example, pkg-config curbi (libcurbi.so.0)" "$(LD_LIBRARY_PATH=$prefix/lib "$work/check-shared")"
cc -std=c11 -Wall -Wextra -Werror "$work/check.c" $(pkg-config --cflags --libs curbi-static) -o "$work/check-static"
! readelf -d "$work/check-static" | grep -q libcurbi || fail "check-static depends on libcurbi.so"
expect "README C example, pkg-config curbi-static (libcurbi.a)" "$("$work/check-static")"

echo "-- CMake find_package(curbi)"
mkdir -p "$work/cmake"
cp "$work/check.c" "$work/cmake/check.c"
cat > "$work/cmake/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(check C)
find_package(curbi 0.1 REQUIRED)
add_executable(check_shared check.c)
target_link_libraries(check_shared PRIVATE curbi::curbi)
add_executable(check_static check.c)
target_link_libraries(check_static PRIVATE curbi::curbi_static)
CMAKE
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; fail "cmake configure"; }
cmake --build "$work/cmake/build" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "cmake build"; }
expect "README C example, CMake curbi::curbi" "$("$work/cmake/build/check_shared")"
expect "README C example, CMake curbi::curbi_static" "$("$work/cmake/build/check_static")"
# A 0.2 request must not accept 0.1 (the ABI may change with each minor release before 1.0).
sed -i 's/find_package(curbi 0.1 REQUIRED)/find_package(curbi 0.2 REQUIRED)/' "$work/cmake/CMakeLists.txt"
if cmake -S "$work/cmake" -B "$work/cmake/build2" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
  fail "find_package(curbi 0.2) accepted 0.1.0"
fi
echo "ok - find_package(curbi 0.2) refuses 0.1.0"

echo "-- Go through pkg-config, and without cgo"
export GOPROXY=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local
# go's build cache does not see pkg-config's output change (a new PREFIX each run): CGO_LDFLAGS, which it does
# see, names this prefix too.
(cd bindings/go && CGO_ENABLED=1 CGO_LDFLAGS="-L$prefix/lib" go test -count=1 -tags curbi_pkgconfig -run 'TestCheckResultShape|TestByteSpansOnNonASCIIReplies' .) ||
  fail "Go with -tags curbi_pkgconfig"
out=$(cd bindings/go && CGO_ENABLED=0 go build . 2>&1) && fail "CGO_ENABLED=0 go build succeeded"
grep -q 'curbi_needs_cgo_set_CGO_ENABLED_1' <<<"$out" || fail "CGO_ENABLED=0: unclear message: $out"
echo "ok - CGO_ENABLED=0: $out"

echo "-- the installed CLI"
expect "installed curbi check" "$(echo '{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter costs $99."}' |
  "$prefix/bin/curbi" check - || true)"
