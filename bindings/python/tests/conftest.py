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


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"python vectors: {RAN['vectors']} ran")


def pytest_sessionfinish(session, exitstatus):
    # A runner that finds no vectors must fail (vectors/README.md).
    if RAN["vectors"] == 0 and exitstatus == 0 and not session.config.option.keyword:
        session.exitstatus = 1
