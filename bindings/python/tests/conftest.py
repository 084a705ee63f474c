import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = ROOT / "vectors" / "check"
RAN = {"vectors": 0}


def load_vectors():
    cases = []
    for path in sorted(VECTORS.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for i, case in enumerate(doc["cases"]):
            cases.append(pytest.param(case, id=f"{path.name}#{i}"))
    return cases


def contains(got, want):
    """`got` holds `want`: every member `want` names, recursively; lists element by element and of equal length."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and contains(got[k], v) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(contains, got, want))
    return got == want


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"python vectors: {RAN['vectors']} ran")


def pytest_sessionfinish(session, exitstatus):
    # A runner that finds no vectors must fail (vectors/README.md).
    if RAN["vectors"] == 0 and exitstatus == 0 and not session.config.option.keyword:
        session.exitstatus = 1
