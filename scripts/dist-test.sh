#!/usr/bin/env bash
# Installs what `make dist` wrote, each in a fresh folder with its ecosystem's own client only, and runs the
# README's snippet for it: the C tarball through pkg-config and CMake's find_package(curbi), the CLI tarball, the npm
# tarballs with `npm install`, and the Python packages with the seed's `pip install curbi-langchain` (plus
# `--find-links dist/python`) with no Rust toolchain reachable, so that it can only succeed from the curbi wheel.
# Expected answers are worked by hand: "Starter costs " is 14 characters, so $99 is [14, 17), and the policy says
# Starter is $49.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "dist-test: $*" >&2; exit 1; }
want='"rule":"price:mismatch","span":[14,17],"text":"$99"'
ok() { echo "ok - $1"; }

echo "-- C tarball: unpack anywhere, pkg-config and CMake"
mkdir -p "$work/c" && tar -C "$work/c" -xzf dist/c/curbi-"$VERSION"-*.tar.gz
prefix=$work/c/curbi-$VERSION
awk '/^```c$/ {inblock=1; n=0; next} /^```$/ {inblock=0} inblock {n++; if (n==1 && $0 !~ /check\.c/) inblock=0; else print}' \
  README.md > "$work/check.c"
cc -std=c11 -Wall -Werror "$work/check.c" $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs curbi-static) -o "$work/check"
grep -qF "$want" <<<"$("$work/check")" || fail "C example from the tarball"
ok "C tarball: README example through pkg-config curbi-static"
mkdir -p "$work/cm"
cp "$work/check.c" "$work/cm/"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(c C)\nfind_package(curbi 0.1 REQUIRED)\nadd_executable(check check.c)\ntarget_link_libraries(check PRIVATE curbi::curbi)\n' > "$work/cm/CMakeLists.txt"
cmake -S "$work/cm" -B "$work/cm/b" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null && cmake --build "$work/cm/b" >/dev/null ||
  fail "CMake with the tarball"
grep -qF "$want" <<<"$(LD_LIBRARY_PATH=$prefix/lib "$work/cm/b/check")" || fail "C example through CMake"
ok "C tarball: README example through find_package(curbi), curbi::curbi"

echo "-- CLI tarball"
mkdir -p "$work/cli" && tar -C "$work/cli" -xzf dist/cli/curbi-cli-"$VERSION"-*.tar.gz
out=$(echo '{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter costs $99."}' |
  "$work/cli/curbi-cli-$VERSION/bin/curbi" check - || true)
grep -qF "$want" <<<"$out" || fail "CLI from the tarball: $out"
ok "CLI tarball: the README's curbi check -"

echo "-- npm tarballs"
mkdir -p "$work/npm"
(cd "$work/npm" && echo '{"private":true}' > package.json &&
  npm install --no-audit --no-fund --loglevel=error "$root"/dist/npm/curbi-linux-x64-gnu-"$VERSION".tgz "$root"/dist/npm/curbi-"$VERSION".tgz >/dev/null)
[ -f "$work/npm/node_modules/curbi/index.d.ts" ] || fail "npm: no types in the installed package"
! ls "$work/npm/node_modules/curbi/"*.node >/dev/null 2>&1 || fail "npm: the main package carries an addon"
# The README's Node snippet, with the package's name for the repository path it requires.
sed -n '/^### Node$/,/^### /p' README.md | awk '/^```js$/ {b=1; next} /^```$/ {b=0} b' |
  sed "s|require('./bindings/node')|require('curbi')|" > "$work/npm/snippet.js"
out=$(cd "$work/npm" && node snippet.js)
grep -q "false \[ \[ 'price:mismatch', '\$99' \] \]" <<<"$out" || fail "npm: README snippet printed: $out"
grep -q "too_short /prices/0/item" <<<"$out" || fail "npm: README snippet printed: $out"
ok "npm: main + linux-x64-gnu packages installed, README snippet"

echo "-- Python: pip install curbi-langchain (--find-links dist/python), with no Rust toolchain reachable"
python3 -m venv "$work/py"
# A user's machine without Rust: cargo, rustc and rustup off PATH, their variables unset, and HOME elsewhere so that
# ~/.cargo and ~/.rustup are not found either (pip's cache stays where it was). maturin, as the sdist's build backend,
# would otherwise find them or fetch a toolchain, so pip may also not build curbi at all (--only-binary curbi), and
# the report must show the curbi wheel of dist/python chosen.
pip_cache=$("$work/py/bin/pip" cache dir 2>/dev/null || echo "$HOME/.cache/pip")
norust=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] && ! [ -e "$d/cargo" ] && ! [ -e "$d/rustc" ] && ! [ -e "$d/rustup" ] && norust=${norust:+$norust:}$d
done
mkdir -p "$work/home"
no_rust() {
  env -u CARGO_HOME -u RUSTUP_HOME -u RUSTC -u CARGO -u RUSTC_WRAPPER -u RUSTUP_TOOLCHAIN -u CARGO_TARGET_DIR \
    PATH="$norust" HOME="$work/home" PIP_CACHE_DIR="$pip_cache" "$@"
}
for tool in cargo rustc rustup; do
  ! no_rust "$BASH" -c "command -v $tool" >/dev/null || fail "Python: $tool is still reachable in the no-Rust environment"
done
no_rust "$work/py/bin/pip" install -q --only-binary curbi --report "$work/pip-report.json" \
  --find-links dist/python curbi-langchain ||
  fail "Python: pip install curbi-langchain from dist/python without Rust (is the curbi wheel in dist/python? make dist)"
chosen=$("$work/py/bin/python" -c '
import json, sys
for item in json.load(open(sys.argv[1]))["install"]:
    if item["metadata"]["name"] in ("curbi", "curbi-langchain", "curbi_langchain"):
        print(item["metadata"]["name"], item["download_info"]["url"])' "$work/pip-report.json")
from=file://$root/dist/python
grep -Eqx "curbi $from/curbi-$VERSION-cp39-abi3-.*(manylinux_2_17|manylinux2014)_x86_64.*\.whl" <<<"$chosen" ||
  fail "Python: pip did not install the manylinux2014 abi3 curbi wheel of dist/python: $chosen"
grep -Eqx "curbi[-_]langchain $from/curbi_langchain-$VERSION-py3-none-any\.whl" <<<"$chosen" ||
  fail "Python: pip did not install the curbi-langchain wheel of dist/python: $chosen"
# The README's Python snippet: its first block under ### Python up to the guard, which must raise.
cat > "$work/snippet.py" <<'PY'
import curbi
from curbi_langchain import CurbiViolation, curbi_guard

policy = curbi.Policy.compile({"prices": [{"item": "Starter", "amount": 49}]})
result = policy.check("Starter costs $99.")
print(result.passed, [(f.rule, f.span, f.text) for f in result.findings])
guard = curbi_guard(policy={"prices": [{"item": "Starter", "amount": 49}]})
try:
    guard.invoke("Starter costs $99.")
except CurbiViolation as e:
    print("CurbiViolation", [f.rule for f in e.findings])
PY
out=$("$work/py/bin/python" "$work/snippet.py")
[ "$out" = "False [('price:mismatch', (14, 17), '\$99')]
CurbiViolation ['price:mismatch']" ] || fail "Python snippet printed: $out"
ok "Python: curbi wheel and curbi-langchain from dist/, README snippet"
# The wheel's SQLite is built as .cargo/config.toml says (docs/RECORDER.md §"The bundled SQLite"), and the sdist
# carries that file, so that a build from source is the same.
so=$(ls "$work"/py/lib/python3*/site-packages/curbi/_native*.so)
grep -aq "STMTJRNL_SPILL=-1" "$so" || fail "Python: the wheel's SQLite was built without -DSQLITE_STMTJRNL_SPILL=-1"
tar tzf dist/python/curbi-"$VERSION".tar.gz | grep -x "curbi-$VERSION/.cargo/config.toml" >/dev/null ||
  fail "Python: the sdist does not carry .cargo/config.toml"
ok "Python: the wheel's SQLite keeps statement journals in memory; the sdist carries the build setting"
