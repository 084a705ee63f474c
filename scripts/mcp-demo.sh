#!/usr/bin/env bash
# The MCP part of the demo (issue 9): starts `curbi serve` on a free loopback port, lists the tools over MCP, calls
# policy_check with seed 000's example, then stops the server it started.
set -euo pipefail
cd "$(dirname "$0")/.."
CURBI=${CURBI:-target/release/curbi}
[ -x "$CURBI" ] || { cargo build -q --locked -p curbi-cli; CURBI=target/debug/curbi; }
. scripts/lib/serve.sh
start_server /dev/null

mcp() {
  curl -s "http://127.0.0.1:$PORT/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-06-18' -d "$1"
}
echo "MCP server on http://127.0.0.1:$PORT/mcp (protocols 2025-06-18 and 2026-07-28)"
echo "tools/list:"
mcp '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' |
  python3 -c 'import json,sys; [print("  " + t["name"] + " - " + t["title"]) for t in json.load(sys.stdin)["result"]["tools"]]'
# Pinned to 2026-11-01, the checker that answered seed 000's recorded call, so the text below is the recorded one.
echo "tools/call policy_check (seed 000: Starter is \$49, the reply says \$99):"
mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"policy_check","arguments":{"version":"2026-11-01","policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}}}' |
  python3 -c 'import json,sys; print("  " + json.load(sys.stdin)["result"]["content"][0]["text"])'
