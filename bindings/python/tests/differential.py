"""The Python half of the differential test (scripts/differential.sh, docs/DOCUMENTS.md): every call the core
wrote to DIR/calls.jsonl, made through the public Python API, its document written to DIR/python.txt, one line a
call, for scripts/differential.py to hold byte for byte to the core's. Usage: python differential.py DIR"""

import json
import pathlib
import sys

import curbi


def dumps(doc) -> str:
    # The core writes compact JSON without escaping non-ASCII; a dict the binding returns must give those bytes.
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


# The one-document entry points by their vector names (test_documents.py uses the same table).
DOCUMENT_FUNCTIONS = {
    "check": curbi.check,
    "validate_policy": curbi.validate_policy,
    "export_regression": curbi.export_regression,
    "replay_regression": curbi.replay_regression,
    "verify_checkout": curbi.verify_checkout,
    "verify_action": curbi.verify_action,
    "checkout_digest": curbi.checkout_digest,
    "verify_bundle": curbi.verify_bundle,
}


def run(call):
    entry = call["entry"]
    receipts = call.get("receipts")
    if entry == "policy_check":
        # The record as JSON text, as written: a str reaches the core unparsed.
        policy = curbi.Policy.compile(call["policy"], receipts=receipts)
        return policy.check(call["reply"], record=call["record"], version=call["version"], verify=call["verify"]).to_json()
    if entry == "check" and receipts is not None:
        return dumps(curbi.check(call["input"], receipts=receipts))
    if entry == "verifier":
        return dumps(curbi.Verifier.compile(call["options"]).verify(call["bundle"]))
    return dumps(DOCUMENT_FUNCTIONS[entry](call["input"]))


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    lines = []
    # One call a line, split on "\n" only: str.splitlines() would also split inside a reply at U+2028, U+2029 or
    # U+0085, which JSON writes unescaped (vectors/check/97-2026-12-01-unicode-spaces.json has them).
    for text in (root / "calls.jsonl").read_text(encoding="utf-8").split("\n"):
        if not text:
            continue
        call = json.loads(text)
        try:
            out = run(call)
        except curbi.CurbiError as e:
            out = dumps({"error": {"code": e.code, "message": e.message, "path": e.path}})
        lines.append(out)
    if not lines:
        print("python differential: no calls", file=sys.stderr)
        return 1
    (root / "python.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"python differential: {len(lines)} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
