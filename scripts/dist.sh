#!/usr/bin/env bash
# `make dist`: what each ecosystem installs from, into dist/ (docs/PACKAGING.md), from the release builds:
#   dist/c/curbi-<v>-x86_64-linux-gnu.tar.gz      make install's layout (relocatable: pkg-config and CMake files
#                                                  find their prefix from where they are)
#   dist/cli/curbi-cli-<v>-x86_64-linux-gnu.tar.gz bin/curbi, LICENSE, README.md
#   dist/npm/curbi-<v>.tgz, curbi-linux-x64-gnu-<v>.tgz
#                                                  the main package (loader and types, the platform package as an
#                                                  optional dependency) and the per-platform package with the
#                                                  addon, in napi-rs's npm/<platform>/ layout
#   dist/python/curbi-<v>.tar.gz and curbi_langchain-<v>-py3-none-any.whl (and the curbi wheel, see below)
# The curbi wheel is built separately (it needs a manylinux2014 toolchain; scripts/dist-wheel.sh) when
# DIST_WHEEL=1. Needs: cargo build --release -p curbi-ffi -p curbi-cli, and the Node addon (bindings/node/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
TRIPLE=x86_64-linux-gnu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf dist
mkdir -p dist/c dist/cli dist/npm dist/python

echo "-- C: the make install layout"
DESTDIR=$work/c PREFIX=/curbi-$VERSION bash scripts/install.sh >/dev/null
rm -rf "$work/c/curbi-$VERSION/bin"
tar -C "$work/c" -czf "dist/c/curbi-$VERSION-$TRIPLE.tar.gz" "curbi-$VERSION"

echo "-- CLI"
mkdir -p "$work/cli/curbi-cli-$VERSION/bin"
install -m 0755 target/release/curbi "$work/cli/curbi-cli-$VERSION/bin/curbi"
cp LICENSE README.md "$work/cli/curbi-cli-$VERSION/"
tar -C "$work/cli" -czf "dist/cli/curbi-cli-$VERSION-$TRIPLE.tar.gz" "curbi-cli-$VERSION"

echo "-- npm: main package and per-platform package"
node_dir=bindings/node
addon=$node_dir/curbi.linux-x64-gnu.node
[ -f "$addon" ] || { echo "dist: missing $addon: run bindings/node/test.sh (or npm run build there) first" >&2; exit 1; }
pkg=$work/npm/curbi
mkdir -p "$pkg"
cp "$node_dir"/{package.json,index.js,index.d.ts,documents.d.ts,curbi.js,README.md,LICENSE} "$pkg/"
"$root/$node_dir/node_modules/.bin/napi" create-npm-dirs --cwd "$pkg" >/dev/null
platform=$pkg/npm/linux-x64-gnu
cp "$addon" LICENSE "$platform/"
# The main package names its platform packages as optional dependencies, as napi-rs's pre-publish does; it carries
# no addon itself.
node -e '
  const fs = require("fs"), [file, version] = process.argv.slice(1)
  const p = JSON.parse(fs.readFileSync(file, "utf8"))
  p.optionalDependencies = { "curbi-linux-x64-gnu": version }
  p.files = p.files.filter((f) => f !== "*.node")
  fs.writeFileSync(file, JSON.stringify(p, null, 2) + "\n")' "$pkg/package.json" "$VERSION"
(cd "$platform" && npm pack --silent --pack-destination "$root/dist/npm" >/dev/null)
(cd "$pkg" && npm pack --silent --ignore-scripts --pack-destination "$root/dist/npm" >/dev/null)

echo "-- Python: sdist and the curbi-langchain wheel"
py=$work/venv
python3 -m venv "$py"
"$py/bin/pip" install -q "maturin>=1.9.4,<2" build
(cd bindings/python && "$py/bin/maturin" sdist --out "$root/dist/python" >/dev/null 2>&1)
"$py/bin/python" -m build --wheel --outdir dist/python bindings/python/langchain >/dev/null
if [ "${DIST_WHEEL:-0}" = 1 ]; then bash scripts/dist-wheel.sh dist/python; fi
find dist -type f | sort
