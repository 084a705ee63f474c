#!/usr/bin/env bash
# The curbi wheel for PyPI: abi3 (CPython ≥ 3.9), manylinux2014 (glibc 2.17), built by maturin with zig as the
# linker (the ziglang package from PyPI: no manylinux container needed) and checked by auditwheel, which must find
# it manylinux_2_17 compliant with no external libraries to graft. Usage: bash scripts/dist-wheel.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(cd "${1:?OUTDIR}" && pwd)
venv=target/dist-wheel-venv
[ -x "$venv/bin/maturin" ] || {
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "maturin>=1.9.4,<2" "ziglang>=0.13,<1" "auditwheel>=6,<7"
}
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
(cd bindings/python && PATH="$PWD/../../$venv/bin:$PATH" "../../$venv/bin/maturin" build --release --locked --quiet \
  --zig --compatibility manylinux2014 --out "$wheels") >&2
wheel=$(ls "$wheels"/curbi-*-cp39-abi3-*.whl)
case $(basename "$wheel") in
  *manylinux_2_17_x86_64*|*manylinux2014_x86_64*) ;;
  *) echo "dist-wheel: $(basename "$wheel") is not tagged manylinux2014" >&2; exit 1 ;;
esac
report=$("$venv/bin/auditwheel" show "$wheel")
echo "$report"
grep -q 'manylinux_2_17_x86_64' <<<"$report" || { echo "dist-wheel: auditwheel does not find it manylinux_2_17" >&2; exit 1; }
cp "$wheel" "$out/"
