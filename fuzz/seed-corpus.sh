#!/usr/bin/env bash
# Seeds the fuzz corpora from the published vectors (docs/PROOF.md §Fuzzing): every `input` request of
# vectors/proof/*.json for `bundle`, and every signed head in them (bundle heads, older heads, known heads) for
# `checkpoint`; and for every other target the vectors and fixtures of its input (fuzz/run.sh, docs/FUZZING.md).
# Writes into the folder given (default corpus/, ignored by git, where `make fuzz` lets the corpora grow as libFuzzer
# finds new paths); the same vectors always give the same seeds.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-corpus}
mkdir -p "$out"
OUT=$out python3 - <<'PY'
import glob, hashlib, json, os, re
OUT = os.environ["OUT"]
def put(target, data):
    data = data.encode() if isinstance(data, str) else data
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, hashlib.sha1(data).hexdigest()), "wb") as f:
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
# Issue 43's targets.
# yaml: policies as YAML (block and flow styles, block scalars, comments, the refusals: aliases, tags, .inf, several
# documents) and every policy seed as it is (JSON is YAML).
for y in [
    "prices:\n  - item: Starter\n    amount: 49\n  - {item: Pro, amount: 99}\nforbid:\n  - id: guarantee\n    phrases: [guarantee]\n",
    "# a comment\nreply: |\n  Starter is $49.\n  Pro is $99.\nrecord:\n  facts:\n    - near: delivery\n      kind: date\n      value: '2026-11-03'\n",
    "a: &x 1\nb: *x\n", "a: !!str 1\nb: !custom 2\n", "n: .inf\nm: .nan\no: 0x1F\np: 0o17\nq: 1e400\n",
    "---\na: 1\n---\nb: 2\n", "a: 1\na: 2\n", "[1, [2, [3, [4]]]]\n", "? [a]\n: b\n", "text: >-\n  folded\n  lines\n", "~\n", "",
]:
    put("yaml", y)
for path in sorted(glob.glob(os.path.join(OUT, "policy", "*"))):
    put("yaml", open(path, "rb").read())
# jsonl: the check vectors' replies as `curbi check --jsonl` lines (id, reply, record), a block of them per file.
block = []
for c in cases("../vectors/check/*.json"):
    r = c["request"]
    if isinstance(r, dict) and isinstance(r.get("reply"), str):
        line = {"id": c.get("name", ""), "reply": r["reply"]}
        if "record" in r:
            line["record"] = r["record"]
        block.append(js(line))
        if len(block) == 8:
            put("jsonl", "\n".join(block) + "\n")
            block = []
put("jsonl", "\n".join(block) + "\n\n{not json}\n{\"reply\":1}\n")
# stdio: the MCP fixture session as the lines a client writes, whole and one message at a time.
lines = [js(step["request"]) for step in session.get("steps", []) if isinstance(step, dict) and "request" in step]
put("stdio", "\n".join(lines) + "\n")
for line in lines:
    put("stdio", line + "\r\n")
# recorder: each scenario step as the target reads it, a byte for the method (its place among api::METHODS less
# `publish`) and the request.
api = open("../recorder/src/api.rs").read()
methods = re.findall(r'"([a-z_]+)"', api[api.index("pub const METHODS"):api.index("];", api.index("pub const METHODS"))])
callable = [m for m in methods if m != "publish"]
scenarios = json.load(open("../vectors/recorder/scenarios.json"))
for sc in scenarios["scenarios"]:
    for step in sc["steps"]:
        if step.get("call") in callable and "request" in step:
            put("recorder", bytes([callable.index(step["call"])]) + js(step["request"]).encode())
# tiles and ed25519_prepared read structured bytes: the empty input (the log as published; a seed-signed message)
# and a few fixed byte strings.
for t in ("tiles", "ed25519_prepared"):
    for i in range(8):
        put(t, hashlib.sha512(f"{t} {i}".encode()).digest()[: 16 * (i + 1)])
    put(t, b"")
PY
for t in "$out"/*; do echo "$(basename "$t"): $(ls "$t" | wc -l) seeds"; done
