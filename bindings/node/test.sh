#!/usr/bin/env bash
# The Node binding's checks, run by `make test`: install the pinned tools from the lockfile, build the addon,
# fail if the committed index.js / index.d.ts are stale, type-check index.d.ts, then run the package's tests
# and the checkout example's. Needs the network only for `npm ci` (and cargo's first fetch).
set -euo pipefail
cd "$(dirname "$0")"

echo "==> npm ci (bindings/node, from package-lock.json)"
npm ci --prefer-offline --no-audit --no-fund --loglevel=error

echo "==> napi build --platform --release; index.js and index.d.ts up to date"
npm run --silent check-generated

echo "==> tsc: index.d.ts type-checks against __test__/types.ts"
npm run --silent typecheck

echo "==> node --test (bindings/node)"
node --test __test__/*.test.mjs

echo "==> node --test (examples/node-checkout)"
(cd ../../examples/node-checkout && node --test ./*.test.mjs)
