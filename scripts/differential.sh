#!/usr/bin/env bash
# The differential test (docs/DOCUMENTS.md): the core writes every shared vector as calls with its own answers,
# then C, Go, Python, Node and the WebAssembly build (@curbi/web, in Node) make the same calls through their public
# APIs, and every answer must be the core's, byte for byte. Needs what `make test` builds before it: libcurbi
# (release), the Python venv, the Node addon, the WebAssembly package (bindings/web/scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(pwd)/target/differential
rm -rf "$dir" && mkdir -p "$dir" target/c-tests
CURBI_DIFFERENTIAL_DIR=$dir cargo test -q -p curbi --locked --test differential -- --nocapture
cc -std=c11 -Wall -Wextra -Werror -O1 -Iinclude -Iffi/tests/c ffi/tests/c/differential.c ffi/tests/c/json.c \
  target/release/libcurbi.a -lpthread -ldl -lm -o target/c-tests/differential
target/c-tests/differential "$dir"
(cd bindings/go && CURBI_DIFFERENTIAL_DIR=$dir go test -count=1 -run '^TestDifferential$' . >/dev/null)
target/python-venv/bin/python bindings/python/tests/differential.py "$dir"
node bindings/node/scripts/differential.mjs "$dir"
node bindings/web/test/differential.mjs "$dir"
python3 scripts/differential.py "$dir" c go python node wasm
