#!/usr/bin/env bash
# Seeds the fuzz corpora from the published vectors (docs/PROOF.md §Fuzzing): every `input` request of
# vectors/proof/*.json for `bundle`, and every signed head in them (bundle heads, older heads, known heads) for
# `checkpoint`. The corpora (fuzz/corpus/, ignored by git) then grow as libFuzzer finds new paths.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/bundle corpus/checkpoint corpus/check_request corpus/policy corpus/purchase corpus/action corpus/jwks \
  corpus/regression corpus/mcp_message
python3 - <<'PY'
import glob, hashlib, json, os
def put(target, data):
    data = data.encode() if isinstance(data, str) else data
    with open(os.path.join("corpus", target, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
for path in sorted(glob.glob("../vectors/proof/*.json")):
    doc = json.load(open(path))
    if not isinstance(doc, dict) or "input" not in doc:
        continue
    req = doc["input"]
    put("bundle", json.dumps(req, separators=(",", ":"), ensure_ascii=False))
    bundle = req.get("bundle") if isinstance(req, dict) else None
    heads = []
    if isinstance(bundle, dict):
        heads.append(bundle.get("head"))
        for c in bundle.get("consistency") or []:
            if isinstance(c, dict):
                heads.append(c.get("head"))
    if isinstance(req, dict) and isinstance(req.get("known"), list):
        heads.extend(req["known"])
    for h in heads:
        if isinstance(h, str):
            put("checkpoint", h)
# Issue 15's targets: the check requests, policies, purchase and action requests, key sets, regressions and MCP
# messages of the shared vectors and fixtures.
def cases(pattern):
    for path in sorted(glob.glob(pattern)):
        doc = json.load(open(path))
        for c in doc.get("cases", []) if isinstance(doc, dict) else []:
            yield c
def js(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)
for c in cases("../vectors/check/*.json"):
    put("check_request", js(c["request"]))
    if isinstance(c["request"], dict) and "policy" in c["request"]:
        put("policy", js(c["request"]["policy"]))
for c in cases("../vectors/lint/*.json"):
    put("policy", js(c["policy"]))
for c in cases("../vectors/purchase/*.json"):
    inp = c.get("input")
    if isinstance(inp, dict):
        put("action" if "grant" in inp else "purchase", js(inp))
for c in cases("../vectors/regression/*.json"):
    for k in ("export", "replay"):
        if k in c:
            put("regression", js(c[k]))
for path in sorted(glob.glob("../vectors/proof/*.json")):
    doc = json.load(open(path))
    req = doc.get("input") if isinstance(doc, dict) else None
    if isinstance(req, dict) and isinstance(req.get("keys"), (dict, list)):
        put("jwks", js(req["keys"]))
session = json.load(open("../mcp/tests/fixtures/seed000_session.json"))
for step in session.get("steps", []):
    if isinstance(step, dict) and "request" in step:
        put("mcp_message", js(step["request"]))
PY
for t in corpus/*; do echo "$(basename "$t"): $(ls "$t" | wc -l) seeds"; done
