"""The TypedDicts of `curbi.types` against real results: every required member is there and nothing else is, nested
documents included, for the check (one reply and cases), lint, the purchase and action checks and bundle verify."""

import json
import pathlib

from curbi import types as t

import curbi

ROOT = pathlib.Path(__file__).resolve().parents[3]


def conforms(td, value, nested=None):
    assert isinstance(value, dict), value
    required, optional = set(td.__required_keys__), set(td.__optional_keys__)
    keys = set(value)
    assert required <= keys, (td.__name__, required - keys)
    assert keys <= required | optional, (td.__name__, keys - required - optional)
    for key, (inner, many) in (nested or {}).items():
        if key in value and value[key] is not None:
            for v in value[key] if many else [value[key]]:
                conforms(inner, v)


def test_check_results():
    policy = {"prices": [{"item": "Starter", "amount": 49}]}
    one = curbi.check({"policy": policy, "reply": "Starter costs $99."})
    conforms(t.CheckResponse, one, {"findings": (t.WireFinding, True), "proof": (t.CheckProof, False)})
    batch = curbi.check({"policy": policy, "cases": [{"id": "a", "reply": "Starter costs $99."}, {"reply": "ok"}]})
    conforms(t.BatchResponse, batch, {"results": (t.CaseResult, True), "proof": (t.CheckProof, False)})
    for r in batch["results"]:
        conforms(t.CaseResult, r, {"findings": (t.WireFinding, True)})


def test_lint_report():
    report = curbi.validate_policy({"prices": [{"item": ""}]})
    conforms(t.LintReport, report, {"errors": (t.ErrorDetail, True), "warnings": (t.LintWarning, True)})
    assert report["errors"]


def test_decisions():
    mandate = json.loads((ROOT / "examples/purchase/mandate.json").read_text())
    checkout = json.loads((ROOT / "examples/purchase/checkout.json").read_text())
    d = curbi.verify_checkout({"mandate": mandate, "checkout": checkout, "now": "2026-11-20T12:00:00Z"})
    assert d["decision"] == "STEP_UP"  # the README's example: a trial converting to a recurring charge
    conforms(t.Decision, d, {"reasons": (t.DecisionReason, True), "stepUp": (t.StepUp, False)})


def test_verification():
    bundle = json.loads((ROOT / "vectors/proof/bundle.valid.json").read_text())
    keys = json.loads((ROOT / "vectors/proof/keys.test.json").read_text())
    nested = {"items": (t.VerificationItem, True), "head": (t.VerificationHead, False),
              "scope": (t.VerificationScope, False), "error": (t.ErrorDetail, False)}
    ok = curbi.verify_bundle({"bundle": bundle, "keys": keys, "allowTest": True})
    assert ok["reason"] == "verifies"
    conforms(t.Verification, ok, nested)
    bad = curbi.verify_bundle({"bundle": {}, "keys": keys, "allowTest": True})
    assert bad["reason"] == "malformed"
    conforms(t.Verification, bad, nested)
    conforms(t.Verification, curbi.Verifier.compile({"keys": keys, "allowTest": True}).verify(bundle), nested)
