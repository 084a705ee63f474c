"""The shared purchase and action vectors through the Python API (vectors/purchase/README.md)."""

import base64
import hashlib
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


DIGESTS = DIR.parent / "checkout_digest"


def load_digests():
    out = []
    for path in sorted(DIGESTS.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["description"] and doc["cases"], path.name
        out += [pytest.param(case, id=f"{path.name}#{i}") for i, case in enumerate(doc["cases"])]
    return out


def test_checkout_digest_vectors_ran():
    assert len(load_digests()) > 0


@pytest.mark.parametrize("case", load_digests())
def test_checkout_digest_vector(case):
    want = case["expected"]
    if "error" in want:
        with pytest.raises(curbi.CurbiError) as e:
            curbi.checkout_digest(case["checkout"])
        assert (e.value.code, e.value.path) == (want["error"]["code"], want["error"]["path"])
        return
    # The vector's digest is SHA-256 of its hand-written canonical text, taken here with hashlib.
    sha = hashlib.sha256(want["canonical"].encode()).digest()
    assert base64.urlsafe_b64encode(sha).rstrip(b"=").decode() == want["digest"]
    # The checkout as JSON text, so 2.5e3 and the escapes reach the core as written.
    assert curbi.checkout_digest(case["checkout"]) == want["digest"]


def test_checkout_digest_pins_the_cart():
    checkout = {"id": "cs_1", "status": "ready_for_payment", "currency": "usd", "merchant": {"id": "m_1"},
                "line_items": [{"id": "li_1", "item": {"id": "sku_1"}, "quantity": 1, "unit_amount": 4000,
                                "totals": [{"type": "subtotal", "amount": 4000}, {"type": "total", "amount": 4000}]}],
                "totals": [{"type": "subtotal", "amount": 4000}, {"type": "total", "amount": 4000}]}
    mandate = {"currency": "USD", "amount_range": {"max": 5000}, "user_cart_confirmation_required": False,
               "expires_at": "2026-12-31T00:00:00Z", "checkout_digest": curbi.checkout_digest(checkout)}
    decide = lambda c: curbi.verify_checkout({"mandate": mandate, "checkout": c, "now": "2026-11-20T12:00:00Z"})
    assert decide(checkout)["decision"] == "ALLOW"
    other = json.loads(json.dumps(checkout))
    other["line_items"][0]["item"]["id"] = "sku_2"
    assert triples(decide(other)["reasons"]) == [("mandate_scope_mismatch", "DENY", "/mandate/checkout_digest")]
