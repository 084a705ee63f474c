"""vectors/yaml/conversions.json through `curbi.yaml_to_json`: the exact JSON text, or the error's code and path;
then the text compiles as a policy, and bytes are read like str."""

import json

import curbi
import pytest

from conftest import ROOT

DOC = json.loads((ROOT / "vectors" / "yaml" / "conversions.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", DOC["cases"], ids=[c["description"][:40] for c in DOC["cases"]])
def test_yaml_vectors(case):
    if "json" in case:
        assert curbi.yaml_to_json(case["yaml"]) == case["json"]
    else:
        with pytest.raises(curbi.ValidationError) as e:
            curbi.yaml_to_json(case["yaml"])
        assert {"code": e.value.code, "path": e.value.path} == case["error"]


def test_a_yaml_policy_compiles_and_checks():
    policy = curbi.Policy.compile(curbi.yaml_to_json(b"prices:\n  - item: Pro\n    amount: 49.90\n"))
    assert [f.rule for f in policy.check("Pro is $49.99.").findings] == ["price:mismatch"]
    with pytest.raises(curbi.ValidationError) as e:
        curbi.yaml_to_json(b"\xff")
    assert e.value.code == "invalid_json"
    with pytest.raises(curbi.CurbiError) as e:
        curbi.yaml_to_json(42)
    assert e.value.code == "invalid_type"
