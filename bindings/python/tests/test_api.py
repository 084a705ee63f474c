"""The Python API: seed examples, errors with the CLI's codes and paths, spans, threads."""

import json
import pathlib
import subprocess
import threading

import curbi
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_seed_recorded_session_response():
    # Seed 000: the recorded tools/call policy_check answer, field for field, from the checker that gave it.
    got = curbi.check(
        {
            "version": "2026-11-01",
            "policy": {"prices": [{"item": "Starter", "amount": 49}]},
            "reply": "Starter is $99 a month.",
        }
    )
    assert got == {
        "object": "check",
        "version": "2026-11-01",
        "recordTrust": "caller_supplied_unverified",
        "pass": False,
        "findings": [{"rule": "price:mismatch", "span": [11, 14], "text": "$99", "why": "Starter is $49, not $99."}],
        "proof": {
            "scope": "operation_and_subject_only",
            "factsAuthenticated": False,
            "replayProtection": "within_request_only",
            "authorizationGranted": False,
        },
    }


def test_current_checker_is_2026_12_04_and_answers_when_no_version_is_pinned():
    assert curbi.CURRENT_CHECKER_VERSION == "2026-12-04"
    policy = curbi.Policy.compile({"prices": [{"item": "Plus", "amount": 79}]})
    # Issue 17 class 3: a currency code after a '$' amount is read from 2026-12-01 on; 2026-11-01 reads US dollars.
    current = policy.check("Plus is $79 NZD per month.")
    assert current.version == "2026-12-04"
    assert [(f.rule, f.span, f.text) for f in current.findings] == [("price:currency", (8, 15), "$79 NZD")]
    pinned = policy.check("Plus is $79 NZD per month.", version="2026-11-01")
    assert pinned.version == "2026-11-01" and pinned.passed


def test_compiled_policy_finds_the_seed_price_and_passes_a_good_reply():
    policy = curbi.Policy.compile({"prices": [{"item": "Starter", "amount": 49}]})
    bad = policy.check("Starter costs $99.")
    assert not bad.passed and not bad
    assert [(f.rule, f.span, f.text, f.why) for f in bad.findings] == [
        ("price:mismatch", (14, 17), "$99", "Starter is $49, not $99.")
    ]
    good = policy.check("Starter costs $49.")
    assert good.passed and good.findings == []


def test_policy_accepts_a_json_string():
    policy = curbi.Policy.compile('{"forbid": [{"id": "g", "phrases": ["guarantee"]}]}')
    assert policy.check("We guarantee it.").findings[0].rule == "forbid:g"


@pytest.mark.parametrize(
    "reply, text",
    [
        ("😀😀 Pro is $29 😀", "$29"),
        ("Café Pro: €49, très bien", "€49"),
        ("专业版 Pro 是 $29。", "$29"),
        ("İyi günler! Pro is $29.", "$29"),
        ("👩‍👩‍👧 Pro $29", "$29"),
    ],
)
def test_spans_index_python_strings(reply, text):
    policy = curbi.Policy.compile({"prices": [{"item": "Pro", "amount": 49}]})
    f = policy.check(reply).findings[0]
    assert reply[f.span[0] : f.span[1]] == f.text == text
    # The wire form counts UTF-16 units, as the Check API does.
    wire = f.to_dict()["span"]
    assert reply.encode("utf-16-le")[2 * wire[0] : 2 * wire[1]].decode("utf-16-le") == text


def cli_error(request: str):
    """The CLI's error document for the same input, when the binary is built."""
    binary = ROOT / "target" / "release" / "curbi"
    if not binary.exists():
        pytest.skip("target/release/curbi is not built")
    out = subprocess.run([str(binary), "check", "-"], input=request.encode(), capture_output=True, check=False)
    assert out.returncode == 2
    return json.loads(out.stdout)["error"]


@pytest.mark.parametrize(
    "request_doc, code, path",
    [
        ({"policy": {"prices": [{"item": ""}]}, "reply": "x"}, "too_short", "/policy/prices/0/item"),
        ({"policy": {"forbid": [{"id": "Bad_Id", "phrases": ["x"]}]}, "reply": "x"}, "pattern_mismatch", "/policy/forbid/0/id"),
        ({"policy": {}, "reply": 5}, "invalid_type", "/reply"),
        ({"policy": {}, "reply": "x", "cases": [{"reply": "y"}]}, "conflicting_fields", "/cases"),
        ({"policy": {}, "reply": "x", "verify": "required"}, "unsupported", "/verify"),
        ({"policy": {"actions": {"Refunded": "billing.refund"}}, "reply": "x"}, "pattern_mismatch", "/policy/actions/Refunded"),
    ],
)
def test_errors_carry_the_clis_code_and_path(request_doc, code, path):
    with pytest.raises(curbi.CurbiError) as e:
        curbi.check(request_doc)
    assert (e.value.code, e.value.path) == (code, path)
    assert e.value.message
    cli = cli_error(json.dumps(request_doc))
    assert (cli["code"], cli["path"]) == (code, path)


def test_error_classes():
    with pytest.raises(curbi.ValidationError):
        curbi.Policy.compile({"prices": "nope"})
    with pytest.raises(curbi.UnsupportedError) as e:
        curbi.check({"policy": {}, "reply": "x", "record": {"receipts": ["r"]}})
    assert e.value.path == "/record/receipts"
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile({"prices": [{"item": "Pro", "amount": {1, 2}}]})
    assert (e.value.code, e.value.path) == ("invalid_type", "/prices/0/amount")
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile("{not json")
    assert e.value.code == "invalid_json"
    policy = curbi.Policy.compile({})
    with pytest.raises(curbi.CurbiError) as e:
        policy.check("x", record={"facts": [{"near": "x", "kind": "when", "value": "1"}]})
    assert (e.value.code, e.value.path) == ("invalid_enum", "/record/facts/0/kind")
    with pytest.raises(curbi.CurbiError) as e:
        policy.check("x", version="1999-01-01")
    assert (e.value.code, e.value.path) == ("invalid_enum", "/version")


def test_error_codes_match_the_shared_list():
    listed = [c["code"] for c in json.loads((ROOT / "vectors" / "errors.json").read_text())["codes"]]
    assert curbi.error_codes() == listed


def test_batch_results_in_order():
    policy = curbi.Policy.compile({"prices": [{"item": "Pro", "amount": 49}]})
    batch = policy.check(cases=[{"id": "a", "reply": "Pro is $49."}, {"reply": "Pro is $29."}])
    assert len(batch) == 2 and not batch.passed
    assert [(r.index, r.id, r.passed) for r in batch.results] == [(0, "a", True), (1, None, False)]


def test_32_threads_agree_with_one():
    policy = curbi.Policy.compile(
        {
            "prices": [{"item": "Pro", "amount": 49}],
            "forbid": [{"id": "g", "phrases": ["guarantee"]}],
            "actions": {"refunded": "billing.refund"},
        }
    )
    replies = [
        "Done! I've refunded you, Pro is just $29, and we guarantee it.",
        "Pro is $49. 😀 Ça va, İyi!",
        "We don't guarantee anything.",
        "Pro 是 $29。",
    ]
    expected = [policy.check(r).to_dict() for r in replies]
    results = [None] * 32
    errors = []

    def work(k):
        try:
            results[k] = [[policy.check(r).to_dict() for r in replies] for _ in range(50)]
        except Exception as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for per_thread in results:
        assert all(run == expected for run in per_thread)


def test_a_record_read_once_gives_the_same_verdicts():
    policy = curbi.Policy.compile({"actions": {"refunded": "billing.refund"}, "prices": [{"item": "Pro", "amount": 49}]})
    raw = {
        "effects": [{"operation": "billing.refund", "status": "DONE"}],
        "facts": [{"near": "appointment", "kind": "time", "value": "15:30"}],
    }
    record = curbi.Record.parse(raw)
    for reply in ["I've refunded you.", "Your appointment is at 4:30 PM.", "Pro is $29 and I've refunded you."]:
        assert policy.check(reply, record=record).to_dict() == policy.check(reply, record=raw).to_dict()
    assert policy.check("I've refunded you.", record=record).passed
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Record.parse({"facts": [{"near": "x", "kind": "time", "value": 5}]})
    assert (e.value.code, e.value.path) == ("invalid_value", "/record/facts/0/value")
