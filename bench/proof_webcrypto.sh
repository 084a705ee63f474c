#!/usr/bin/env bash
# curbi's bundle verifier against a WebCrypto-based JavaScript verifier (DESIGN §8: "≥ 3× faster ... on the same
# bundles"), measured in one run as ratios (docs/PERFORMANCE.md). bench/proof_requests.sh builds the verify_peak
# example and the Node addon (bindings/node's own `npm run build`; `npm ci` from its lockfile first when its tools are
# not installed) and writes verify_bundle requests of 1,024 and 10,000 receipts from the reference gate into a temporary
# directory, runs the JS verifier's correctness test (node:test, cross-checked against the addon and the shared
# vectors), then times the addon, the JS verifier awaiting each receipt and the JS verifier with every receipt at
# once, on the same request text. Run by hand on a quiet machine, not by `make test`:
#
#   bench/proof_webcrypto.sh [bench.mjs options, e.g. --runs 9 --warmup 2]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bash bench/proof_requests.sh "$tmp"
echo "== correctness: the JS verifier (bench/proof_webcrypto/verify.test.mjs)"
PROOF_WEBCRYPTO_REQUEST="$tmp/receipts-1024.json" node --test bench/proof_webcrypto/verify.test.mjs
echo "== benchmark (uptime: $(uptime))"
node --expose-gc bench/proof_webcrypto/bench.mjs "$tmp/receipts-1024.json" "$tmp/receipts-10000.json" "$@"
