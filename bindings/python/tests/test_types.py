"""The TypedDicts of `curbi.types` against real results: every required member is there and nothing else is, nested
documents included, for the check (one reply and cases), lint, the purchase and action checks, bundle verify, the
recorder's answers and bundles, and regression export and replay."""

import json
import pathlib

import pytest

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
    # The objects' to_dict() are the same documents.
    compiled = curbi.Policy.compile(policy)
    check = compiled.check("Starter costs $99.")
    conforms(t.CheckResponse, check.to_dict(), {"findings": (t.WireFinding, True), "proof": (t.CheckProof, False)})
    conforms(t.WireFinding, check.findings[0].to_dict())
    cases = compiled.check(cases=[{"id": "a", "reply": "Starter costs $99."}, {"reply": "ok"}])
    conforms(t.BatchResponse, cases.to_dict(), {"results": (t.CaseResult, True), "proof": (t.CheckProof, False)})
    for r in cases.results:
        conforms(t.CaseResult, r.to_dict(), {"findings": (t.WireFinding, True)})


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


def test_recorder_answers(tmp_path):
    import os

    doc = json.loads((ROOT / "vectors" / "recorder" / "scenarios.json").read_text(encoding="utf-8"))
    key = str(tmp_path / "k.jwk")
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(doc["keys"]["k1"]["jwk"])
    r = curbi.Recorder(str(tmp_path / "log.db"), "curbi-checkpoint-v1.shop.example/t", key_file=key, now=1793714400)
    status = r.status()
    conforms(t.RecorderStatus, status)
    assert status["head"] is None
    grant = {"id": "g", "agent": "agent:a", "operations": ["billing.refund"], "resources": ["charge:*"],
             "limits": {"max_amount": 10000, "currency": "USD"}, "expires_at": "2027-01-01T00:00:00Z"}
    conforms(t.GrantInfo, r.grant(grant))
    action = {"agent": "agent:a", "operation": "billing.refund", "resource": "charge:c1", "amount": 100, "currency": "USD"}
    for key_id in ["k-1", "k-2"]:
        attested = r.attest({"tenant": "s", "idempotency_key": key_id, "grant": "g", "action": action, "conversation": "c"})
        conforms(t.Attested, attested, {"check": (t.Decision, False)})
    conforms(t.HeldActions, r.held(), {"actions": (t.HeldAction, True)})
    evidence = json.dumps({"operation": "billing.refund", "resource": "charge:c1", "amount": 100, "currency": "usd"})
    conforms(t.Settled, r.confirm({"tenant": "s", "idempotency_key": "k-1", "outcome": "DONE", "evidence": evidence}))
    conforms(t.Settled, r.confirm({"tenant": "s", "idempotency_key": "k-2", "outcome": "UNKNOWN"}))
    conforms(t.Head, r.checkpoint())
    conforms(t.StoredReceipt, r.receipt({"seq": 0}))
    conforms(t.ReceiptList, r.receipts({"conversation": "c"}))
    conforms(t.RecorderKeys, r.keys(), {"keys": (t.RecorderKey, True)})
    conforms(t.RecorderStatus, r.status(), {"head": (t.Head, False)})
    published = r.publish({"dir": str(tmp_path / "public")})
    conforms(t.Published, published)
    assert (published["size"], published["files"]) == (1, 2)
    assert (tmp_path / "public" / "checkpoint").read_text(encoding="utf-8") == published["checkpoint"]
    with pytest.raises(curbi.CurbiError) as refused:
        r.cosign()
    assert refused.value.code == "missing_field"
    first = r.checkpoint()["note"]
    r.set_clock(1793714500)
    conforms(t.Settled, r.reconcile({"tenant": "s", "idempotency_key": "k-2", "outcome": "DONE", "evidence": evidence}))
    r.checkpoint()
    bundle = r.bundle({"receipts": [0, 1], "known": [first]})
    nested = {"receipts": (t.BundleReceipt, True), "consistency": (t.OlderHead, True)}
    conforms(t.ProofBundle, bundle, nested)
    assert bundle["object"] == "curbi.proof/0.1" and bundle["consistency"] and "attestation" in bundle["receipts"][0]
    assert curbi.verify_bundle({"bundle": bundle, "keys": r.keys(), "allowTest": True})["reason"] == "verifies"
    # The vectors' bundles are the same shape.
    conforms(t.ProofBundle, json.loads((ROOT / "vectors/proof/bundle.valid.json").read_text()), nested)


def test_regression_documents():
    policy = {"prices": [{"item": "Pro", "amount": 49}], "actions": {"refunded": "billing.refund"}}
    request = {"policy": policy, "cases": [{"id": "bad", "reply": "I've refunded you; Pro is $29."},
                                           {"reply": "Pro is $49.", "record": {"effects": []}}]}
    export = curbi.export_regression(request)
    conforms(t.RegressionExport, export)
    regression = export["regression"]
    case = {"expected": (t.RegressionExpected, False)}
    conforms(t.Regression, regression, {"cases": (t.RegressionCase, True)})
    for c in regression["cases"]:
        conforms(t.RegressionCase, c, case)
        for f in c["expected"]["findings"]:
            conforms(t.RegressionFinding, f)
    assert regression["cases"][0]["id"] == "bad" and "record" in regression["cases"][1]
    report = curbi.replay_regression(regression)
    conforms(t.ReplayReport, report, {"cases": (t.ReplayCase, True)})
    assert report["pass"] and report["total"] == 2
    # A tampered expectation fails with a diff of the documented shape.
    regression["cases"][0]["expected"]["findings"].pop()
    failed = curbi.replay_regression(regression)
    conforms(t.ReplayReport, failed, {"cases": (t.ReplayCase, True)})
    diff = failed["cases"][0]["diff"]
    conforms(t.ReplayDiff, diff, {"pass": (t.ReplayChange, False), "rules": (t.ReplayChange, False)})
    assert failed["failed"] == 1 and diff["unexpected"]
