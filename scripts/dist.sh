#!/usr/bin/env bash
# `make dist`: what each ecosystem installs from, into dist/ (docs/PACKAGING.md), from the release builds:
#   dist/c/curbi-<v>-x86_64-linux-gnu.tar.gz      make install's layout (relocatable: pkg-config and CMake files
#                                                  find their prefix from where they are)
#   dist/cli/curbi-cli-<v>-x86_64-linux-gnu.tar.gz bin/curbi, LICENSE, README.md
#   dist/npm/curbi-<v>.tgz, curbi-linux-x64-gnu-<v>.tgz
#                                                  the main package (loader and types, the platform package as an
#                                                  optional dependency) and the per-platform package with the
#                                                  addon, in napi-rs's npm/<platform>/ layout
#   dist/python/curbi-<v>.tar.gz, curbi_langchain-<v>-py3-none-any.whl and the curbi wheel
#                                                  curbi-<v>-cp39-abi3-manylinux_2_17_x86_64….whl (scripts/dist-wheel.sh)
# Builds what it packs, so that it runs from a fresh clone: the Node addon with bindings/node's own build command,
# and the curbi wheel (DIST_WHEEL=0 leaves the wheel out, for a quick run; pip then has to build curbi from the
# sdist). Needs cargo build --release -p curbi-ffi -p curbi-cli first (`make dist` does it).
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
# napi's CLI from the lockfile, when a fresh clone has none or the lockfile changed since (npm writes
# node_modules/.package-lock.json at each install).
if ! [ "$node_dir/node_modules/.package-lock.json" -nt "$node_dir/package-lock.json" ]; then
  (cd "$node_dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error >&2)
fi
# Always built, with the command bindings/node/test.sh builds it with (npm run build: napi build --platform
# --release), so cargo finds the same build up to date and only copies the addon (seconds), and an addon left from
# older sources is never packed.
(cd "$node_dir" && npm run --silent build >&2)
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
# maturin builds in bindings/python/target, so a second run reuses cargo's build and repacks the wheel.
if [ "${DIST_WHEEL:-1}" = 1 ]; then bash scripts/dist-wheel.sh dist/python; fi
find dist -type f | sort
