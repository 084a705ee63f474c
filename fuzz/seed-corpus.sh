#!/usr/bin/env bash
# Seeds the fuzz corpora from the published vectors (docs/PROOF.md §Fuzzing): every `input` request of
# vectors/proof/*.json for `bundle`, and every signed head in them (bundle heads, older heads, known heads) for
# `checkpoint`. The corpora (fuzz/corpus/, ignored by git) then grow as libFuzzer finds new paths.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/bundle corpus/checkpoint
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
PY
echo "bundle: $(ls corpus/bundle | wc -l) seeds, checkpoint: $(ls corpus/checkpoint | wc -l) seeds"
