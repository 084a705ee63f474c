"""The differential test's verdict (docs/DOCUMENTS.md): the core's answer to every call (DIR/calls.jsonl, written by
core/tests/differential.rs) against each binding's (DIR/<lang>.txt, one line a call), byte for byte. Spans come in
each binding's own unit: UTF-8 bytes for C and Go, UTF-16 (the wire) for Python's `to_json`, Node and the
WebAssembly build (@curbi/web). Usage:
python3 differential.py DIR c go python node wasm"""

import json
import pathlib
import sys

UNITS = {"c": "utf8", "go": "utf8", "python": "utf16", "node": "utf16", "wasm": "utf16"}


def main() -> int:
    root, langs = pathlib.Path(sys.argv[1]), sys.argv[2:]
    # Split on "\n" only, as the bindings' answers are: splitlines() would also split at U+2028 inside a reply.
    text = (root / "calls.jsonl").read_text(encoding="utf-8")
    calls = [json.loads(line) for line in text.split("\n") if line]
    if not calls or not langs:
        print("differential: no calls or no bindings", file=sys.stderr)
        return 1
    failed = 0
    for lang in langs:
        got = (root / f"{lang}.txt").read_text(encoding="utf-8").split("\n")
        if got[-1] == "":
            got.pop()
        if len(got) != len(calls):
            print(f"{lang}: {len(got)} answers for {len(calls)} calls", file=sys.stderr)
            failed += 1
            continue
        bad = 0
        for call, line in zip(calls, got):
            want = call["out"][UNITS[lang]] if isinstance(call["out"], dict) else call["out"]
            if line != want:
                bad += 1
                if bad <= 5:
                    print(f"{lang}: {call['id']}\n  core    {want[:300]}\n  binding {line[:300]}", file=sys.stderr)
        print(f"differential {lang}: {len(calls) - bad} identical, {bad} differ")
        failed += bad > 0
    print(f"differential: {len(calls)} calls x {len(langs)} bindings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
