"""The shared vectors through the Python API: the one-shot `check`, and compiled policies with code-point spans."""

import curbi
import pytest

from conftest import RAN, load_vectors

VECTORS = load_vectors()


def utf16_to_str_index(s: str, units: int) -> int:
    """A UTF-16 offset as a Python str index, counted independently of the library."""
    count = 0
    for i, ch in enumerate(s):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(s)


@pytest.mark.parametrize("case", VECTORS)
def test_vector(case):
    RAN["vectors"] += 1
    request, expected = case["request"], case["expected"]
    # The receipt keys the policy is compiled with: configuration, never part of the request (vectors/README.md).
    receipts = case.get("receipts")
    if "error" in expected:
        with pytest.raises(curbi.CurbiError) as e:
            curbi.check(request, receipts=receipts)
        assert (e.value.code, e.value.path) == (expected["error"]["code"], expected["error"]["path"])
        return
    assert curbi.check(request, receipts=receipts) == expected

    policy = curbi.Policy.compile(request["policy"], receipts=receipts)
    options = {"record": request.get("record"), "version": request.get("version"), "verify": request.get("verify")}
    if "reply" in request:
        result = policy.check(request["reply"], **options)
        assert result.to_dict() == expected
        assert result.passed == expected["pass"]
        reply = request["reply"]
        for f, want in zip(result.findings, expected["findings"]):
            assert reply[f.span[0] : f.span[1]] == f.text == want["text"]
            assert f.span == (utf16_to_str_index(reply, want["span"][0]), utf16_to_str_index(reply, want["span"][1]))
    else:
        batch = policy.check(cases=request["cases"], **options)
        assert batch.to_dict() == expected
        for c, r in zip(request["cases"], batch.results):
            for f in r.findings:
                assert c["reply"][f.span[0] : f.span[1]] == f.text
