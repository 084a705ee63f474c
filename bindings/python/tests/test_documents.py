"""vectors/documents/: every document kind given as raw JSON text, read by the core's one strict reader, through
the Python API. The outcome must contain the expectation (an error's code and path, or the members it names)."""

import json

import curbi
import pytest

from conftest import ROOT, contains
from differential import DOCUMENT_FUNCTIONS

DOCUMENTS = ROOT / "vectors" / "documents"


def _cases():
    out = []
    for path in sorted(DOCUMENTS.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["description"] and doc["cases"], path.name
        for i, case in enumerate(doc["cases"]):
            out.append(pytest.param(case, id=f"{path.name}#{i}"))
    return out


CASES = _cases()
ENTRIES = {
    **DOCUMENT_FUNCTIONS,
    "compile_policy": curbi.Policy.compile,
    "record": curbi.Record.parse,
    "verifier_options": curbi.Verifier.compile,
}


def _outcome(entry, text):
    try:
        got = ENTRIES[entry](text)
    except curbi.CurbiError as e:
        return {"error": {"code": e.code, "path": e.path, "message": e.message}}
    return got if isinstance(got, dict) else {"ok": True}


def test_documents_vectors_ran():
    assert len(CASES) > 0


@pytest.mark.parametrize("case", CASES)
def test_documents_vector(case):
    got = _outcome(case["entry"], case["text"])
    assert contains(got, case["expected"]), (case["description"], got)
