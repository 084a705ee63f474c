"""Receipts in checks from Python, with a real recorder on a real SQLite file: the LangChain guard checks each reply
against the receipts the recorder signed for the conversation. A $500 claim against a $50 receipt is blocked; the
true reply passes; without a receipt, `verify="required"` refuses the claim."""

import asyncio
import json
import os
import time

import curbi
import pytest
from curbi_langchain import CurbiViolation, curbi_guard

from conftest import ROOT

DOC = json.loads((ROOT / "vectors" / "recorder" / "scenarios.json").read_text(encoding="utf-8"))
ORIGIN = "curbi-checkpoint-v1.shop.example/refunds"
GRANT = {
    "id": "g-refunds",
    "agent": "agent:support",
    "operations": ["billing.refund"],
    "resources": ["charge:*"],
    "limits": {"max_amount": 10000, "currency": "USD"},
    "expires_at": "2027-01-01T00:00:00Z",
}
POLICY = {"actions": {"refunded": "billing.refund"}}


def recorder_at(tmp_path, now=1793714400):
    kid = next(iter(DOC["keys"]))
    path = str(tmp_path / "key.jwk")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(DOC["keys"][kid]["jwk"])
    # By default 2026-11-03T14:00:00Z: receipts are fresh for 30 days from there; the guard's clock is the system's,
    # so the tests fix the policy's clock below instead.
    return curbi.Recorder(str(tmp_path / "log.db"), ORIGIN, key_file=path, now=now)


def refund(recorder, key, cents, conversation):
    action = {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_1", "amount": cents,
              "currency": "USD"}
    answer = recorder.attest({"tenant": "shop", "idempotency_key": key, "grant": GRANT["id"], "action": action,
                              "conversation": conversation})
    assert answer["decision"] == "ALLOW"
    evidence = json.dumps({"id": f"re_{key}", "operation": "billing.refund", "resource": "charge:ch_1",
                           "amount": cents, "currency": "usd", "status": "succeeded"})
    assert recorder.confirm({"tenant": "shop", "idempotency_key": key, "outcome": "DONE",
                             "evidence": evidence})["status"] == "DONE"


def refunded_recorder(tmp_path, now=1793714400, grant=GRANT):
    # A recorder under GRANT (or `grant`, with its id) that has refunded $50 (rf-1) in conversation chat-42.
    recorder = recorder_at(tmp_path, now)
    recorder.grant(grant)
    refund(recorder, "rf-1", 5000, "chat-42")
    return recorder


def guard_for(recorder, conversation, **kw):
    # The recorder's own keys, with a fixed clock a day after the refund so the test never expires.
    keys = {"keys": recorder.keys(), "now": "2026-11-04T14:00:00Z"}
    policy = curbi.Policy.compile(POLICY, receipts=keys)
    return curbi_guard(policy, recorder=recorder, conversation=conversation, **kw)


def test_the_guard_blocks_a_500_claim_when_the_receipt_says_50(tmp_path):
    recorder = refunded_recorder(tmp_path)
    guard = guard_for(recorder, "chat-42", verify="required")
    with pytest.raises(CurbiViolation) as e:
        guard.invoke("Done — I've refunded you $500.")
    [finding] = e.value.findings
    assert (finding.rule, finding.text) == ("receipt:mismatch", "$500")
    assert finding.why == "The signed receipt for billing.refund is USD 50.00, not $500."
    assert e.value.check.record_trust == "receipts_verified"
    assert guard.invoke("Done — I've refunded you $50.") == "Done — I've refunded you $50."
    assert asyncio.run(guard.ainvoke("Done — I've refunded you $50.")) == "Done — I've refunded you $50."
    with pytest.raises(CurbiViolation):
        asyncio.run(guard.ainvoke("Done — I've refunded you $500."))


def test_another_conversation_has_no_receipt_to_back_the_claim(tmp_path):
    recorder = refunded_recorder(tmp_path)
    guard = guard_for(recorder, "chat-7", verify="required")
    with pytest.raises(CurbiViolation) as e:
        guard.invoke("Done — I've refunded you $50.")
    assert [f.rule for f in e.value.findings] == ["action:unverified"]


def test_the_guard_trusts_the_recorders_keys_by_default(tmp_path):
    # No fixed clock anywhere: the guard trusts the recorder's own keys and judges by the system clock, and the
    # recorders sign by it too. A receipt signed a minute ago (it lasts 30 days) backs "$50" and refutes "$500";
    # one signed 31 days ago has expired, and the finding says so. The grant outlives any day the test runs on.
    grant = {**GRANT, "expires_at": "2099-01-01T00:00:00Z"}
    now = int(time.time())
    (tmp_path / "fresh").mkdir()
    (tmp_path / "stale").mkdir()
    fresh = refunded_recorder(tmp_path / "fresh", now=now - 60, grant=grant)
    guard = curbi_guard(POLICY, recorder=fresh, conversation="chat-42", verify="required")
    assert guard.invoke("I've refunded you $50.") == "I've refunded you $50."
    with pytest.raises(CurbiViolation) as e:
        guard.invoke("I've refunded you $500.")
    assert [(f.rule, f.text) for f in e.value.findings] == [("receipt:mismatch", "$500")]
    stale = refunded_recorder(tmp_path / "stale", now=now - 31 * 86400, grant=grant)
    guard = curbi_guard(POLICY, recorder=stale, conversation="chat-42", verify="required")
    with pytest.raises(CurbiViolation) as e:
        guard.invoke("I've refunded you $50.")
    assert [f.rule for f in e.value.findings] == ["receipt:mismatch"]
    assert "expired" in e.value.findings[0].why


def test_guard_arguments_are_checked():
    with pytest.raises(ValueError):
        curbi_guard(POLICY, conversation="chat-1")


def test_receipts_without_keys_are_refused_not_ignored():
    policy = curbi.Policy.compile(POLICY)
    with pytest.raises(curbi.UnsupportedError) as e:
        policy.check("I've refunded you.", record={"receipts": ["curbi-receipt-v1.x.y.z"]})
    assert (e.value.code, e.value.path) == ("unsupported", "/record/receipts")


def test_the_agent_middleware_checks_each_reply_against_the_conversations_receipts(tmp_path):
    pytest.importorskip("langchain.agents")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    from curbi_langchain import CurbiMiddleware

    recorder = refunded_recorder(tmp_path)
    keys = {"keys": recorder.keys(), "now": "2026-11-04T14:00:00Z"}
    policy = curbi.Policy.compile(POLICY, receipts=keys)

    def agent(reply):
        model = GenericFakeChatModel(messages=iter([AIMessage(reply)]))
        guard = CurbiMiddleware(policy, recorder=recorder, conversation="chat-42", verify="required")
        return create_agent(model, tools=[], middleware=[guard])

    ask = {"messages": [HumanMessage("Did you refund me?")]}
    with pytest.raises(CurbiViolation) as e:
        agent("Done — I've refunded you $500.").invoke(ask)
    assert [f.rule for f in e.value.findings] == ["receipt:mismatch"]
    state = asyncio.run(agent("Done — I've refunded you $50.").ainvoke(ask))
    assert state["messages"][-1].content == "Done — I've refunded you $50."
