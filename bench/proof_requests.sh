#!/usr/bin/env bash
# What proof_webcrypto.sh and proof_wasm.sh both need: the verify_peak example and the Node addon built (bindings/node's
# own `npm run build`, after `npm ci` from its lockfile when its tools are not installed), and the verify_bundle
# requests of 1,024 and 10,000 receipts from the reference gate written into DIR as receipts-N.json.
#
#   bench/proof_requests.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: proof_requests.sh DIR}
cargo build --release --locked -p curbi --example verify_peak
if [ ! -x bindings/node/node_modules/.bin/napi ]; then
  (cd bindings/node && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
fi
(cd bindings/node && npm run --silent build)
for n in 1024 10000; do
  target/release/examples/verify_peak build "$dir/receipts-$n.json" "$n"
done
