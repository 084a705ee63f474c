#!/usr/bin/env bash
# @curbi/web's checks, run by `make test` (scripts/test.sh). `bash test.sh`: install the pinned npm tools from the
# lockfile, build the WebAssembly package (scripts/build.sh installs the rustup target and wasm-bindgen-cli), type-
# check the .d.ts files, run the Node tests (the API, and `npx @curbi/web verify` against the native `curbi verify`
# on every proof vector) and the same package in Deno (the `deno` npm package's binary). `bash test.sh browser`, after
# scripts/differential.sh: the verifier page in Debian's Chromium, headless (installed here when missing), which also
# runs the differential test's calls in the page, and the same calls in Deno.
set -euo pipefail
cd "$(dirname "$0")"
export CURBI_REQUIRE_NATIVE=1
# A 600-receipt request (with attestations) from core's verify_peak example, for the verifier pool's tests.
export CURBI_WEB_LARGE_REQUEST=$(cd ../.. && pwd)/target/web/large-600.json
large_request() {
  if [ ! -s "$CURBI_WEB_LARGE_REQUEST" ]; then
    echo "==> verify_peak build: $CURBI_WEB_LARGE_REQUEST"
    mkdir -p "$(dirname "$CURBI_WEB_LARGE_REQUEST")"
    (cd ../.. && cargo run -q --release --locked -p curbi --example verify_peak -- build "$CURBI_WEB_LARGE_REQUEST" 600 --attestations)
  fi
}

if [ "${1:-}" = browser ]; then
  if ! command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then
    echo "==> apt-get install chromium (Debian's, for the headless browser test)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  large_request
  echo "==> node --test test/browser.test.mjs (screenshots in target/browser/)"
  node --test test/browser.test.mjs
  echo "==> deno: every differential call through @curbi/web"
  # A bound, so that a hang fails the step instead of holding CI to its limit.
  exec timeout 600 node_modules/.bin/deno run --allow-read test/deno.mjs --differential
fi

echo "==> npm ci (bindings/web, from package-lock.json)"
npm ci --prefer-offline --no-audit --no-fund --loglevel=error

bash scripts/build.sh

echo "==> tsc: index.d.ts and core.d.ts type-check against test/types.ts"
npm run --silent typecheck

large_request
echo "==> node --test (bindings/web: API, the verifier pool, npx @curbi/web verify vs curbi verify)"
node --test test/api.test.mjs test/pool.test.mjs test/cli.test.mjs

echo "==> deno run test/deno.mjs (the same package, unchanged, in Deno)"
timeout 600 node_modules/.bin/deno run --allow-read test/deno.mjs
