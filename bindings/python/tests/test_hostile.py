"""Issue 15 in Python: ordinary data that used to crash the process or lose its meaning. A dict that contains itself
or nests 100,000 deep is a `too_deep` error with its path (it was a segfault, exit 139); a wrong type is a coded
error; a Decimal reaches the core as written; a long reply is checked without holding the GIL."""

import decimal
import json
import threading
import time

import curbi
import pytest

# Every dict-taking entry point, and the path its errors start from.
ENTRY_POINTS = [
    ("Policy.compile", lambda d: curbi.Policy.compile(d), ""),
    ("check", lambda d: curbi.check(d), ""),
    ("validate_policy", lambda d: curbi.validate_policy(d), ""),
    ("verify_bundle", lambda d: curbi.verify_bundle(d), ""),
    ("Verifier.compile", lambda d: curbi.Verifier.compile(d), ""),
    ("Record.parse", lambda d: curbi.Record.parse(d), "/record"),
]


def deep(levels):
    doc = {}
    cur = doc
    for _ in range(levels):
        nxt = {}
        cur["a"] = nxt
        cur = nxt
    return doc


@pytest.mark.parametrize("name,call,base", ENTRY_POINTS)
def test_a_dict_that_contains_itself_is_too_deep(name, call, base):
    doc = {"policy": {}}
    doc["policy"]["self"] = doc
    with pytest.raises(curbi.CurbiError) as e:
        call(doc)
    assert e.value.code == "too_deep", name
    assert e.value.path == base + "/policy/self", name


@pytest.mark.parametrize("name,call,base", ENTRY_POINTS)
def test_a_100000_deep_dict_is_too_deep_at_the_reader_limit(name, call, base):
    with pytest.raises(curbi.CurbiError) as e:
        call(deep(100_000))
    assert e.value.code == "too_deep", name
    # The 128th nested container is refused, where the JSON reader refuses the same document written as text.
    assert e.value.path == base + "/a" * 127, name


def test_a_list_that_contains_itself_is_too_deep():
    cases = [{"reply": "x"}]
    cases.append(cases)
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile({}).check(cases=cases)
    assert (e.value.code, e.value.path) == ("too_deep", "/cases/1")


def test_the_depth_limit_is_the_json_readers():
    # 127 containers: read (then refused for its content, not its depth), as the same JSON text is; 128: too deep
    # here and invalid_json ("recursion limit exceeded") as text.
    for as_text in [False, True]:
        with pytest.raises(curbi.CurbiError) as e:
            curbi.Policy.compile(json.dumps(deep(126)) if as_text else deep(126))
        assert e.value.code == "unknown_field"
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile(json.dumps(deep(127)))
    assert e.value.code == "invalid_json"
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile(deep(127))
    assert (e.value.code, e.value.path) == ("too_deep", "/a" * 127)


@pytest.mark.parametrize(
    "call,code,path",
    [
        (lambda: curbi.Policy.compile({}).check(42), "invalid_type", "/reply"),
        (lambda: curbi.Policy.compile({}).check("x", version=7), "invalid_type", "/version"),
        (lambda: curbi.Policy.compile({}).check("\ud800"), "invalid_value", "/reply"),
        (lambda: curbi.Policy.compile({"name": "\udfff"}), "invalid_value", "/name"),
        (lambda: curbi.Policy.compile("\ud800"), "invalid_value", ""),
        (lambda: curbi.Policy.compile({"prices": [{"item": "Pro", "amount": object()}]}), "invalid_type", "/prices/0/amount"),
        (lambda: curbi.Policy.compile({1: 2}), "invalid_type", ""),
        (lambda: curbi.Policy.compile({"prices": [{"item": "Pro", "amount": decimal.Decimal("NaN")}]}), "invalid_value", "/prices/0/amount"),
    ],
)
def test_wrong_types_give_coded_errors(call, code, path):
    with pytest.raises(curbi.CurbiError) as e:
        call()
    assert (e.value.code, e.value.path) == (code, path)


def test_decimals_and_big_integers_reach_the_core_as_written():
    # Exact: 999999999999999.999999 is one millionth under 10^15, so $999999999999999.99 is not that price.
    policy = curbi.Policy.compile({"prices": [{"item": "Pro", "amount": decimal.Decimal("999999999999999.999999")}]})
    assert not policy.check("Pro is $999,999,999,999,999.99.").passed
    # Sub-unit and out-of-range amounts are refused at their path, never read as 0 or as infinity.
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile({"prices": [{"item": "Pro", "amount": decimal.Decimal("1e-400")}]})
    assert e.value.path == "/prices/0/amount"
    assert e.value.code != "invalid_json"
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile({"prices": [{"item": "Pro", "amount": decimal.Decimal("1e400")}]})
    assert (e.value.code, e.value.path) == ("out_of_range", "/prices/0/amount")
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Policy.compile({"prices": [{"item": "Pro", "amount": 10**30}]})
    assert (e.value.code, e.value.path) == ("out_of_range", "/prices/0/amount")


def test_a_long_reply_is_checked_without_the_gil():
    policy = curbi.Policy.compile({"prices": [{"item": "Pro", "amount": 29}]})
    reply = "Pro $29 " * 400_000
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        started = time.perf_counter()
        assert policy.check(reply).passed
        ended = time.perf_counter()
    finally:
        stop.set()
        t.join()
    # The other thread kept running while Rust checked: it ticked during the check, not only before and after.
    during = [x for x in ticks if started < x < ended]
    assert len(during) >= 3, (len(during), ended - started)
