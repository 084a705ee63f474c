"""The shared purchase and action vectors through the Python API (vectors/purchase/README.md)."""

import json
import pathlib

import curbi
import pytest

from conftest import RAN

DIR = pathlib.Path(__file__).resolve().parents[3] / "vectors" / "purchase"
REASONS = {r["code"]: r["effect"] for r in json.loads((DIR / "reasons.json").read_text())["codes"]}


def load():
    out = []
    for path in sorted(DIR.glob("*.json")):
        if path.name == "reasons.json":
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        for i, case in enumerate(doc["cases"]):
            out.append(pytest.param(doc["check"], case, id=f"{path.name}#{i}"))
    return out


def triples(reasons):
    return sorted((r["code"], r["effect"], r["path"]) for r in reasons)


@pytest.mark.parametrize("check, case", load())
def test_purchase_vector(check, case):
    RAN["vectors"] += 1
    # json.loads keeps 100.0 a float and 100 an int, as the vectors require.
    decide = curbi.verify_action if check == "action" else curbi.verify_checkout
    got, want = decide(case["input"]), case["expected"]
    assert got["decision"] == want["decision"]
    assert triples(got["reasons"]) == triples(want["reasons"])
    if "summary" in want:
        assert got["stepUp"]["summary"] == want["summary"]
    assert got["object"] == ("action_check" if check == "action" else "purchase_check")
    assert got["authorizationGranted"] is False
    assert (got["reasons"] == []) == (got["decision"] == "ALLOW")
    assert ("stepUp" in got) == (got["decision"] == "STEP_UP")
    for r in got["reasons"]:
        assert REASONS[r["code"]] == r["effect"]
        assert all(isinstance(r[k], str) for k in ("code", "effect", "path", "expected", "actual", "message"))


def test_unreadable_json_is_an_error():
    with pytest.raises(curbi.CurbiError) as e:
        curbi.verify_checkout("{not json")
    assert e.value.code == "invalid_json"
