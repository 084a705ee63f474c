#!/usr/bin/env bash
# @curbi/web (core compiled to WebAssembly) against the native library and bench/proof_webcrypto's WebCrypto
# JavaScript verifier, on the same 1,024- and 10,000-receipt requests from the reference gate, in Node and in
# headless Chromium, in one run (docs/PERFORMANCE.md). Builds verify_peak and the Node addon
# (bench/proof_requests.sh) and the wasm package.
# Run by hand on a quiet machine, not by `make test`:
#
#   bench/proof_wasm.sh [bench.mjs options, e.g. --runs 9 --warmup 2]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bash bench/proof_requests.sh "$tmp"
if [ ! -d bindings/web/node_modules/puppeteer-core ]; then
  (cd bindings/web && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
fi
bash bindings/web/scripts/build.sh
echo "== benchmark (uptime: $(uptime))"
node --expose-gc bench/proof_wasm/bench.mjs "$tmp/receipts-1024.json" "$tmp/receipts-10000.json" "$@"
