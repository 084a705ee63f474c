#!/usr/bin/env bash
# The exported test_regression.py (docs/REGRESSION.md) replayed in-process through the real curbi Python package,
# which bindings/python/test.sh builds into target/python-venv: it must pass as exported (every case run, none
# skipped) and fail once one expectation in regression.json is changed. The cargo tests cover the same file with a
# stand-in package; this is the real one.
set -euo pipefail
cd "$(dirname "$0")/.."
python="$PWD/target/python-venv/bin/python"
if [ ! -x "$python" ]; then
  echo "regression-python: $python is missing; bindings/python/test.sh builds it" >&2
  exit 1
fi
cargo build --locked -q -p curbi-cli
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Seed 000's 'Catch one reply', a passing case, a case with its own record, and an emoji reply (UTF-16 spans differ
# from code points there), pinned to the previous checker so the package must honour the pin.
cat >"$dir/request.json" <<'JSON'
{
  "policy": {
    "prices": [{"item": "Pro", "amount": 49}, {"item": "Enterprise", "amount": 10000}],
    "forbid": [{"id": "guarantee", "phrases": ["guarantee"]}],
    "actions": {"refunded": "billing.refund"}
  },
  "cases": [
    {"id": "catch-one-reply", "reply": "Done! I've refunded you, Pro is just $29, and we guarantee it."},
    {"id": "clean", "reply": "Pro is $49 a month. We do not guarantee results."},
    {"id": "refund-done", "reply": "I've refunded you.", "record": {"effects": [{"operation": "billing.refund", "status": "DONE"}]}},
    {"id": "emoji", "reply": "😀😀 Enterprise starts at $10k and we guarantee it."}
  ]
}
JSON
target/debug/curbi export "$dir/request.json" --out "$dir/out" --checker 2026-10-27 --title "regression-python"
printf '[pytest]\n' >"$dir/out/pytest.ini"
run_pytest() {
  (cd "$dir/out" && PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -q -rs -p no:cacheprovider -c pytest.ini \
    test_regression.py)
}

out=$(run_pytest) || { echo "$out"; echo "regression-python: the exported file failed as exported" >&2; exit 1; }
echo "$out" | tail -n 1
if ! grep -q "4 passed" <<<"$out"; then
  echo "$out"
  echo "regression-python: expected 4 cases to run and pass" >&2
  exit 1
fi

"$python" - "$dir/out/regression.json" <<'PY'
import json, sys
path = sys.argv[1]
doc = json.load(open(path, encoding="utf-8"))
doc["cases"][3]["expected"]["findings"][0]["span"][0] += 1
json.dump(doc, open(path, "w", encoding="utf-8"))
PY
if out=$(run_pytest); then
  echo "$out"
  echo "regression-python: a changed expectation still passed" >&2
  exit 1
fi
echo "$out" | tail -n 1
echo "regression-python: passes as exported, fails after one expectation changed"
