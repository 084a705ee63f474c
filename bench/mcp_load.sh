#!/usr/bin/env bash
# Requests per second of `tools/call policy_check` over MCP and of POST /v1/check, on loopback, with wrk (Debian
# package `wrk`). Run by hand: bash bench/mcp_load.sh [seconds]. Uses target/release/curbi (built if missing) with the
# MCP rate limits off; prints wrk's summary for each endpoint.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
CURBI=${CURBI:-target/release/curbi}
[ -x "$CURBI" ] || cargo build --release --locked -p curbi-cli
. scripts/lib/serve.sh
start_server /dev/null CURBI_MCP_RATE_PER_MINUTE=0 CURBI_MCP_TOOL_RATE_PER_MINUTE=0
TMP=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$TMP"' EXIT
cat > "$TMP/mcp.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
wrk.body = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"policy_check","arguments":{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}}}'
LUA
cat > "$TMP/check.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}'
LUA
echo "== tools/call policy_check (POST /mcp), ${SECONDS_EACH}s, 2 threads, 32 connections"
wrk -t2 -c32 -d"${SECONDS_EACH}s" -s "$TMP/mcp.lua" "http://127.0.0.1:$PORT/mcp"
echo "== POST /v1/check, ${SECONDS_EACH}s, 2 threads, 32 connections"
wrk -t2 -c32 -d"${SECONDS_EACH}s" -s "$TMP/check.lua" "http://127.0.0.1:$PORT/v1/check"
