#!/usr/bin/env bash
# @curbi/web's checks, run by `make test` (scripts/test.sh). `bash test.sh`: install the pinned npm tools from the
# lockfile, build the WebAssembly package (scripts/build.sh installs the rustup target and wasm-bindgen-cli), type-
# check the .d.ts files, run the Node tests (the API, and `npx @curbi/web verify` against the native `curbi verify`
# on every proof vector). `bash test.sh browser`: the verifier page in Debian's Chromium, headless (installed here
# when missing), which also runs the differential test's calls in the page (after scripts/differential.sh).
set -euo pipefail
cd "$(dirname "$0")"
export CURBI_REQUIRE_NATIVE=1

if [ "${1:-}" = browser ]; then
  if ! command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then
    echo "==> apt-get install chromium (Debian's, for the headless browser test)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  echo "==> node --test test/browser.test.mjs (screenshots in target/browser/)"
  exec node --test test/browser.test.mjs
fi

echo "==> npm ci (bindings/web, from package-lock.json)"
npm ci --prefer-offline --no-audit --no-fund --loglevel=error

bash scripts/build.sh

echo "==> tsc: index.d.ts and core.d.ts type-check against test/types.ts"
npm run --silent typecheck

echo "==> node --test (bindings/web: API, npx @curbi/web verify vs curbi verify)"
node --test test/api.test.mjs test/cli.test.mjs
