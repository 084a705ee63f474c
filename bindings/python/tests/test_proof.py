"""The shared Proof of Action vectors through curbi.verify_bundle (vectors/README.md, `proof/`)."""

import json
import pathlib

import curbi
import pytest

from conftest import RAN

DIR = pathlib.Path(__file__).resolve().parents[3] / "vectors" / "proof"
CASES = json.loads((DIR / "cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_proof_vector(case):
    RAN["vectors"] += 1
    doc = json.loads((DIR / case["file"]).read_text(encoding="utf-8"))
    got, want = curbi.verify_bundle(doc["input"]), doc["expected"]
    assert (got["ok"], got["reason"]) == (want["ok"], want["reason"])
    if "items" in want:
        assert [i["reason"] for i in got["items"]] == want["items"]


def test_a_rejected_bundle_is_a_result_and_bad_json_raises():
    assert curbi.verify_bundle({"bundle": {}, "keys": {}})["ok"] is False
    with pytest.raises(curbi.CurbiError) as e:
        curbi.verify_bundle("{not json")
    assert e.value.code == "invalid_json"
