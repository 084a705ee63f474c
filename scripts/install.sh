#!/usr/bin/env bash
# `make install PREFIX=…`: the C library and the CLI in the usual layout under PREFIX (default /usr/local):
#   bin/curbi
#   include/curbi.h
#   lib/libcurbi.a, lib/libcurbi.so.<version> (SONAME libcurbi.so.<major>), lib/libcurbi.so.<major>, lib/libcurbi.so
#   lib/pkgconfig/curbi.pc, lib/pkgconfig/curbi-static.pc
#   lib/cmake/curbi/curbiConfig.cmake, curbiConfigVersion.cmake
#   share/licenses/curbi/LICENSE
# Builds nothing: run `cargo build --release -p curbi-ffi -p curbi-cli` (or `make build-c`) first; the artifacts
# are taken from $CARGO_TARGET_DIR/release (default target/release). DESTDIR is honoured, as packagers expect.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
case $PREFIX in /*) ;; *) PREFIX=$PWD/$PREFIX ;; esac
REL=${CARGO_TARGET_DIR:-target}/release
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
MAJOR=${VERSION%%.*}
MINOR=$(echo "$VERSION" | cut -d. -f2)
for f in "$REL/libcurbi.a" "$REL/libcurbi.so" "$REL/curbi"; do
  [ -f "$f" ] || { echo "install: missing $f: run cargo build --release -p curbi-ffi -p curbi-cli first" >&2; exit 1; }
done
root=${DESTDIR:-}$PREFIX
install -d "$root/bin" "$root/include" "$root/lib/pkgconfig" "$root/lib/cmake/curbi" "$root/share/licenses/curbi"
install -m 0755 "$REL/curbi" "$root/bin/curbi"
install -m 0644 include/curbi.h "$root/include/curbi.h"
install -m 0644 "$REL/libcurbi.a" "$root/lib/libcurbi.a"
install -m 0755 "$REL/libcurbi.so" "$root/lib/libcurbi.so.$VERSION"
ln -sf "libcurbi.so.$VERSION" "$root/lib/libcurbi.so.$MAJOR"
ln -sf "libcurbi.so.$MAJOR" "$root/lib/libcurbi.so"
subst() { sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@MINOR@|$MINOR|g" "$1"; }
subst ffi/dist/curbi.pc.in > "$root/lib/pkgconfig/curbi.pc"
subst ffi/dist/curbi-static.pc.in > "$root/lib/pkgconfig/curbi-static.pc"
subst ffi/dist/curbiConfig.cmake > "$root/lib/cmake/curbi/curbiConfig.cmake"
subst ffi/dist/curbiConfigVersion.cmake > "$root/lib/cmake/curbi/curbiConfigVersion.cmake"
install -m 0644 LICENSE "$root/share/licenses/curbi/LICENSE"
echo "installed curbi $VERSION under $root"
