#!/usr/bin/env bash
# curbi's bundle verifier against a WebCrypto-based JavaScript verifier (DESIGN §8: "≥ 3× faster ... on the same
# bundles"), measured in one run as ratios (docs/PERFORMANCE.md). Builds the verify_peak example and
# the Node addon (bindings/node's own `npm run build`; `npm ci` from its lockfile first when its tools are not
# installed), writes verify_bundle requests of 1,024 and 10,000 receipts from the reference gate into a temporary
# directory, runs the JS verifier's correctness test (node:test, cross-checked against the addon and the shared
# vectors), then times the addon, the JS verifier awaiting each receipt and the JS verifier with every receipt at
# once, on the same request text. Run by hand on a quiet machine, not by `make test`:
#
#   bench/proof_webcrypto.sh [bench.mjs options, e.g. --runs 9 --warmup 2]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p curbi --example verify_peak
if [ ! -x bindings/node/node_modules/.bin/napi ]; then
  (cd bindings/node && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
fi
(cd bindings/node && npm run --silent build)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for n in 1024 10000; do
  target/release/examples/verify_peak build "$tmp/receipts-$n.json" "$n"
done
echo "== correctness: the JS verifier (bench/proof_webcrypto/verify.test.mjs)"
PROOF_WEBCRYPTO_REQUEST="$tmp/receipts-1024.json" node --test bench/proof_webcrypto/verify.test.mjs
echo "== benchmark (uptime: $(uptime))"
node --expose-gc bench/proof_webcrypto/bench.mjs "$tmp/receipts-1024.json" "$tmp/receipts-10000.json" "$@"
