#!/usr/bin/env bash
# `make demo`: checks the seed's "Catch one reply" example and prints its findings readably, then the JSON; then a
# lint, a purchase check, a Proof of Action bundle verified offline, MCP, and the seed's LangChain guard from Python.
set -euo pipefail
cd "$(dirname "$0")/.."
CURBI=target/release/curbi
REQUEST=examples/catch-one-reply.json

echo "Policy: Pro is \$49; never say \"guarantee\"; \"refunded\" needs billing.refund DONE."
echo "Reply:  $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reply"])' "$REQUEST" 2>/dev/null || grep -o '"reply": *"[^"]*"' "$REQUEST")"
echo
set +e
OUT=$("$CURBI" check "$REQUEST")
STATUS=$?
set -e
"$CURBI" check --explain "$REQUEST" || true
echo
echo "JSON (exit $STATUS):"
echo "$OUT"

echo
echo "Lint of the same policy (valid; warnings would name rules that can never fire):"
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["policy"]))' "$REQUEST" > target/demo-policy.json
"$CURBI" lint target/demo-policy.json || true

echo
echo "Purchase check: a free trial that converts to \$19.99/month, under a mandate without recurrence permission:"
"$CURBI" purchase examples/purchase/mandate.json examples/purchase/checkout.json --now 2026-11-20T12:00:00Z || true

echo
echo "Proof of Action: a bundle of four receipts (refund, booking, dispatch, door unlock), verified offline."
echo "Signed with the published test key, so it verifies only when the caller allows test keys:"
summary() { python3 -c 'import json,sys; d=json.load(sys.stdin); print("  ok=%s reason=%s: %s" % (d["ok"], d["reason"], d["message"]))'; }
set +e
"$CURBI" verify vectors/proof/bundle.valid.json --keys vectors/proof/keys.test.json --allow-test | summary
"$CURBI" verify vectors/proof/bundle.valid.json --keys vectors/proof/keys.test.json | summary
set -e

echo
echo "MCP: curbi serve, tools/list and tools/call policy_check with the seed's example:"
CURBI="$CURBI" bash scripts/mcp-demo.sh

echo
echo "Python, the seed's LangChain guard (curbi-langchain):"
python=target/python-venv/bin/python
if ! "$python" -c "import curbi_langchain" >/dev/null 2>&1; then
  echo "  (building the wheel into target/python-venv first)"
  python=$(bash bindings/python/setup_venv.sh | tail -n 1)
fi
"$python" examples/python_guard.py
