"""The shared lint and regression vectors through the Python API."""

import json
import pathlib

import curbi
import pytest

from conftest import RAN

ROOT = pathlib.Path(__file__).resolve().parents[3]


def load(group):
    out = []
    for path in sorted((ROOT / "vectors" / group).glob("*.json")):
        for i, case in enumerate(json.loads(path.read_text(encoding="utf-8"))["cases"]):
            out.append(pytest.param(case, id=f"{path.name}#{i}"))
    return out


def issues(items):
    return [(x["code"], x["path"]) for x in items]


@pytest.mark.parametrize("case", load("lint"))
def test_lint_vector(case):
    RAN["vectors"] += 1
    got, want = curbi.validate_policy(case["policy"]), case["expected"]
    assert got["valid"] == want["valid"]
    assert issues(got["errors"]) == issues(want["errors"])
    assert issues(got["warnings"]) == issues(want["warnings"])


def test_every_warning_code_is_listed():
    listed = {w["code"] for w in json.loads((ROOT / "vectors" / "warnings.json").read_text())["codes"]}
    fired = set()
    for param in load("lint"):
        fired |= {w[0] for w in issues(curbi.validate_policy(param.values[0]["policy"])["warnings"])}
    assert fired <= listed and listed == fired


@pytest.mark.parametrize("case", load("regression"))
def test_regression_vector(case):
    RAN["vectors"] += 1
    want = case["expected"]
    run, arg = (curbi.export_regression, case["export"]) if "export" in case else (curbi.replay_regression, case["replay"])
    if isinstance(arg, str):
        # A Python str is read as JSON text; a vector whose document *is* a JSON string goes in encoded.
        arg = json.dumps(arg)
    if "error" in want:
        with pytest.raises(curbi.CurbiError) as e:
            run(arg)
        assert (e.value.code, e.value.path) == (want["error"]["code"], want["error"]["path"])
        return
    got = run(arg)
    if "export" in case:
        assert got["regression"] == want
        assert "node:test" in got["nodeTest"] and "pytest" in got["pytest"]
    else:
        assert got == want
