#!/usr/bin/env bash
# `make demo`: checks the seed's "Catch one reply" example and prints its findings readably, then the JSON; then a
# lint, a purchase check, a Proof of Action bundle verified offline, the recorder, MCP, and the seed's LangChain
# guard from Python.
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
echo "The recorder (docs/RECORDER.md): a 50-cent refund, a lost response, a restart, GET-only recovery, one receipt,"
echo "each command its own process on one SQLite file, and the bundle verified under the keys the log publishes:"
REC=$(mktemp -d)
trap 'rm -rf "$REC"' EXIT
rec() { "$CURBI" recorder "$1" --db "$REC/log.db" --key "$REC/shop.jwk" "${@:2}"; }
"$CURBI" recorder keys generate --out "$REC/shop.jwk" --kid shop-demo > /dev/null
rec init --origin curbi-checkpoint-v1.shop.example/demo > /dev/null
echo '{"id":"g1","agent":"agent:support","operations":["billing.refund"],"resources":["charge:*"],"limits":{"max_amount":1000,"currency":"USD"},"expires_at":"2099-01-01T00:00:00Z"}' > "$REC/grant.json"
echo '{"tenant":"shop","idempotency_key":"rf-50c","grant":"g1","action":{"agent":"agent:support","operation":"billing.refund","resource":"charge:ch_9","amount":50,"currency":"USD"}}' > "$REC/attest.json"
echo '{"tenant":"shop","idempotency_key":"rf-50c","outcome":"UNKNOWN"}' > "$REC/lost.json"
echo '{"tenant":"shop","idempotency_key":"rf-50c","outcome":"DONE","evidence":"{\"id\":\"re_9\",\"operation\":\"billing.refund\",\"resource\":\"charge:ch_9\",\"amount\":50,\"currency\":\"usd\"}"}' > "$REC/found.json"
rec grant "$REC/grant.json" > /dev/null
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s=%s" % (k, d.get(k)) for k in sys.argv[1:]))' "$@"; }
echo "  attest:    $(rec attest "$REC/attest.json" | field decision)"
echo "  confirm:   $(rec confirm "$REC/lost.json" | field status)  (the provider's answer was lost: nothing logged)"
echo "  held:      $(rec held | python3 -c 'import json,sys; print([a["idempotency_key"] for a in json.load(sys.stdin)["actions"]])')"
echo "  reconcile: $(rec reconcile "$REC/found.json" | field status seq)  (the provider's GET says it happened)"
rec checkpoint > /dev/null
rec bundle --seq 0 > "$REC/bundle.json"
rec keys --out "$REC/keys.json" > /dev/null
set +e
"$CURBI" verify "$REC/bundle.json" --keys "$REC/keys.json" | summary
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
