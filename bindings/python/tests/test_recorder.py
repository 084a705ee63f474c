"""vectors/recorder/scenarios.json through curbi.Recorder (the description member says the step format;
recorder/tests/vectors.rs is the Rust runner), three ways: the named methods (dicts), `call` (the recorder's JSON
text, byte for byte) and the `_async` methods under asyncio. Each bundle a step verifies is written to
target/recorder-bundles/python/ with the recorder's keys, for `curbi verify` (scripts/test.sh). Then: the event loop
and other threads run while a call waits for the disk, threads share one recorder, errors are CurbiError."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import threading
import time

import curbi
import pytest

from conftest import RAN, ROOT, contains

DOC = json.loads((ROOT / "vectors" / "recorder" / "scenarios.json").read_text(encoding="utf-8"))
BUNDLES = ROOT / "target" / "recorder-bundles" / "python"
NO_REQUEST = {"checkpoint", "keys", "status"}


@pytest.fixture(scope="module")
def bundles():
    shutil.rmtree(BUNDLES, ignore_errors=True)
    BUNDLES.mkdir(parents=True)
    return BUNDLES


def key_file(db, kid):
    """The scenario's test key in a file only its owner may read (the recorder refuses any other)."""
    path = f"{db}.{kid}.jwk"
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(DOC["keys"][kid]["jwk"])
    return path


def options(db, spec):
    opts = {"key_file": key_file(db, spec["key"]), "now": spec["now"]}
    if "rotate" in spec:
        opts["rotate"] = spec["rotate"]
    return opts


def substitute(request, heads):
    """The request with the string "$heads" (itself, or a member's value at any depth of objects) as the heads."""
    if request == "$heads":
        return list(heads)
    if isinstance(request, dict):
        return {k: substitute(v, heads) for k, v in request.items()}
    return request


class Calls:
    """How one way of calling opens a recorder and makes a call; `answer` gives (value, text or None)."""

    def __init__(self, mode):
        self.mode = mode

    async def open(self, db, spec):
        if self.mode == "async":
            return await curbi.Recorder.open_async(db, DOC["origin"], **options(db, spec))
        return curbi.Recorder(db, DOC["origin"], **options(db, spec))

    async def answer(self, recorder, method, request):
        if self.mode == "text":
            text = recorder.call(method, request)
            return json.loads(text), text
        args = ()
        if method in NO_REQUEST:
            assert request == {}, f"{method} takes no request"
        elif method == "set_clock":
            args = (request["now"],)
        else:
            args = (request,)
        if self.mode == "async":
            return await getattr(recorder, method + "_async")(*args), None
        return getattr(recorder, method)(*args), None


async def verify(calls, recorder, value, text, heads, base, where):
    """The bundle verifies under the recorder's keys with every head so far as known; it is written out."""
    keys, keys_text = await calls.answer(recorder, "keys", {})
    if text is None:
        result = curbi.verify_bundle({"bundle": value, "keys": keys, "known": heads})
        text, keys_text = json.dumps(value), json.dumps(keys)
    else:
        result = curbi.verify_bundle(f'{{"bundle":{text},"keys":{keys_text},"known":{json.dumps(heads)}}}')
    assert result["ok"] is True, (where, result)
    (base.parent / f"{base.name}.bundle.json").write_text(text, encoding="utf-8")
    (base.parent / f"{base.name}.keys.json").write_text(keys_text, encoding="utf-8")


async def run_scenarios(calls, tmp, out):
    ran = 0
    for n, scenario in enumerate(DOC["scenarios"]):
        db = str(tmp / f"s{n}.db")
        recorder = await calls.open(db, scenario["open"])
        answers, heads = [], []
        for i, step in enumerate(scenario["steps"]):
            where = f"{scenario['name']}, step {i}"
            ran += 1
            answers.append(None)
            if "reopen" in step:
                # A reopen that fails leaves the recorder that was open as it was.
                try:
                    recorder = await calls.open(db, step["reopen"])
                except curbi.CurbiError as e:
                    assert {"code": e.code, "path": e.path} == step.get("error"), (where, e)
                else:
                    assert "error" not in step, where
                continue
            request = step["request_text"] if "request_text" in step else substitute(step["request"], heads)
            try:
                value, text = await calls.answer(recorder, step["call"], request)
            except curbi.CurbiError as e:
                assert {"code": e.code, "path": e.path} == step.get("error"), (where, e)
                continue
            assert "error" not in step, (where, value)
            assert contains(value, step.get("expect", {})), (where, value)
            assert all(m in value for m in step.get("present", [])), (where, value)
            assert not any(m in value for m in step.get("absent", [])), (where, value)
            if "same_as" in step:
                # The recorder's text must be the earlier answer's, byte for byte; a dict must be equal.
                assert (text or value) == answers[step["same_as"]], where
            if step["call"] == "checkpoint" and value["note"] not in heads:
                heads.append(value["note"])
            if step.get("verify"):
                await verify(calls, recorder, value, text, heads, out / f"s{n}-{i}", where)
            answers[i] = text or value
    return ran


# The text way last: the bundles it leaves are the recorder's own bytes.
@pytest.mark.parametrize("mode", ["dict", "async", "text"])
def test_recorder_scenarios(mode, tmp_path, bundles):
    ran = asyncio.run(run_scenarios(Calls(mode), tmp_path, bundles))
    RAN["vectors"] += ran
    assert ran >= 70, ran


ORIGIN = DOC["origin"]
FIRST = DOC["scenarios"][0]
GRANT = FIRST["steps"][0]["request"]


def first_recorder(tmp_path):
    db = str(tmp_path / "r.db")
    recorder = curbi.Recorder(db, ORIGIN, **options(db, FIRST["open"]))
    recorder.grant(GRANT)
    return recorder, db


class WriteLock:
    """Another process holding the database's write lock until `release` (a lock of this process would not exclude
    the recorder: POSIX locks never conflict within one process)."""

    HOLD = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); " \
        "print('locked', flush=True); sys.stdin.readline(); c.execute('ROLLBACK')"

    def __init__(self, db):
        self.process = subprocess.Popen([sys.executable, "-c", self.HOLD, db], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline() == "locked\n"

    def release(self):
        self.process.communicate("\n", timeout=30)
        assert self.process.returncode == 0


def test_the_event_loop_runs_while_a_call_waits(tmp_path):
    # The call waits for a lock that only the event loop's own thread can have released: the loop runs its timers
    # meanwhile only if the call runs off the loop and without the GIL.
    recorder, db = first_recorder(tmp_path)

    async def run():
        lock = WriteLock(db)
        pending = recorder.checkpoint_async()
        ticks = 0
        for _ in range(10):
            await asyncio.sleep(0.01)
            ticks += 1
        waiting = not pending.done()
        lock.release()
        return ticks, waiting, await pending

    ticks, waiting, head = asyncio.run(run())
    assert ticks == 10 and waiting
    assert head["size"] == 0


def checkpoint_behind_a_lock(recorder, db):
    """A checkpoint started in a thread while another process holds the write lock: (lock, thread, its answers)."""
    lock = WriteLock(db)
    out = []
    worker = threading.Thread(target=lambda: out.append(recorder.checkpoint()))
    worker.start()
    time.sleep(0.1)
    return lock, worker, out


def test_a_waiting_call_releases_the_gil(tmp_path):
    recorder, db = first_recorder(tmp_path)
    lock, worker, out = checkpoint_behind_a_lock(recorder, db)
    alive = worker.is_alive()
    lock.release()
    worker.join()
    assert alive and out and out[0]["size"] == 0


def test_open_async_and_call_async(tmp_path):
    db = str(tmp_path / "a.db")

    async def run():
        recorder = await curbi.Recorder.open_async(db, ORIGIN, **options(db, FIRST["open"]))
        text = await recorder.call_async("grant", json.dumps(GRANT))
        await recorder.set_clock_async(FIRST["open"]["now"] + 60)
        return text, await recorder.status_async()

    text, status = asyncio.run(run())
    assert json.loads(text) == {"id": GRANT["id"], "used": 0}
    assert status["size"] == 0 and status["origin"] == ORIGIN


def test_threads_share_one_recorder(tmp_path):
    # 8 threads attest and confirm at once: every refund is allowed and receipted once.
    recorder, _ = first_recorder(tmp_path)
    threads, rounds = 8, 3

    def work(t):
        for k in range(rounds):
            key = f"t{t}-{k}"
            action = {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_1", "amount": 100,
                      "currency": "USD"}
            answer = recorder.attest({"tenant": "acme", "idempotency_key": key, "grant": GRANT["id"], "action": action})
            assert answer["decision"] == "ALLOW"
            evidence = json.dumps({"id": f"re_{key}", "operation": "billing.refund", "resource": "charge:ch_1",
                                   "amount": 100, "currency": "usd", "status": "succeeded"})
            settled = recorder.confirm({"tenant": "acme", "idempotency_key": key, "outcome": "DONE", "evidence": evidence})
            assert settled["status"] == "DONE"

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(threads)))
    assert recorder.grant(GRANT)["used"] == threads * rounds
    assert recorder.checkpoint()["size"] == threads * rounds


def test_errors_are_curbi_errors(tmp_path):
    with pytest.raises(curbi.ValidationError) as e:
        curbi.Recorder(str(tmp_path / "x.db"), ORIGIN, key_env="CURBI_RECORDER_TEST_UNSET_VARIABLE")
    assert e.value.code == "invalid_key_file"
    recorder, db = first_recorder(tmp_path)
    with pytest.raises(curbi.CurbiError) as e:
        recorder.call("nope", {})
    assert (e.value.code, e.value.path) == ("not_found", "")
    with pytest.raises(curbi.CurbiError) as e:
        recorder.held({"limit": 0})
    assert (e.value.code, e.value.path) == ("out_of_range", "/limit")
    with pytest.raises(curbi.CurbiError) as e:
        recorder.grant({**GRANT, "limits": {**GRANT["limits"], "max_amount": 1}})
    assert (e.value.code, e.value.path) == ("grant_conflict", "/id")
    clock = curbi.Recorder(str(tmp_path / "clock.db"), ORIGIN, key_file=key_file(str(tmp_path / "clock.db"), "k1"))
    with pytest.raises(curbi.UnsupportedError) as e:
        clock.set_clock(0)
    assert e.value.code == "unsupported"
    assert "Recorder(origin=" in repr(recorder)


def test_close_waits_for_calls_in_flight_then_refuses(tmp_path):
    recorder, db = first_recorder(tmp_path)
    lock, worker, out = checkpoint_behind_a_lock(recorder, db)
    closer = threading.Thread(target=recorder.close)
    closer.start()
    time.sleep(0.1)
    # close() waits for the checkpoint held up by the lock; calls made meanwhile fail at once.
    assert closer.is_alive() and recorder.closed
    with pytest.raises(curbi.CurbiError) as e:
        recorder.status()
    assert (type(e.value), e.value.code, e.value.path) == (curbi.CurbiError, "closed", "")
    lock.release()
    worker.join()
    closer.join()
    assert out and out[0]["size"] == 0
    with pytest.raises(curbi.CurbiError) as e:
        recorder.grant(GRANT)
    assert e.value.code == "closed"
    recorder.close()  # twice is fine
    assert "closed" in repr(recorder)


def test_with_closes_the_database(tmp_path):
    db = str(tmp_path / "w.db")
    with curbi.Recorder(db, ORIGIN, **options(db, FIRST["open"])) as recorder:
        recorder.grant(GRANT)
        assert os.path.exists(db + "-wal")
    # The last connection closed: SQLite folded the write-ahead log into the file and removed it.
    assert recorder.closed and not os.path.exists(db + "-wal")
    with pytest.raises(curbi.CurbiError) as e:
        recorder.status()
    assert e.value.code == "closed"
    # Reopened, everything is there.
    again = curbi.Recorder(db, ORIGIN, **options(db, FIRST["open"]))
    assert again.grant(GRANT) == {"id": GRANT["id"], "used": 0}


def test_async_with_closes_off_the_loop(tmp_path):
    db = str(tmp_path / "aw.db")

    async def run():
        async with await curbi.Recorder.open_async(db, ORIGIN, **options(db, FIRST["open"])) as recorder:
            await recorder.grant_async(GRANT)
        return recorder

    recorder = asyncio.run(run())
    assert recorder.closed and not os.path.exists(db + "-wal")
    with pytest.raises(curbi.CurbiError) as e:
        recorder.checkpoint()
    assert e.value.code == "closed"


def test_max_clock_ahead_reaches_the_recorder(tmp_path):
    """A write dated further past the log's last time than max_clock_ahead (default 7 days) is refused with
    clock_ahead and signs nothing; a read at that clock moves no time; the keyword lets a longer gap sign."""
    recorder, db = first_recorder(tmp_path)
    now = FIRST["open"]["now"]
    recorder.checkpoint()
    recorder.close()
    decade = 10 * 365 * 86400
    far = curbi.Recorder(db, ORIGIN, **{**options(db, FIRST["open"]), "now": now + decade})
    assert far.status()["sealed"] is None
    with pytest.raises(curbi.CurbiError) as e:
        far.grant(GRANT)
    assert e.value.code == "clock_ahead"
    far.close()
    idle = now + 30 * 86400
    with pytest.raises(curbi.CurbiError) as e:
        curbi.Recorder(db, ORIGIN, **{**options(db, FIRST["open"]), "max_clock_ahead": 0})
    assert (e.value.code, e.value.path) == ("out_of_range", "/max_clock_ahead")
    late = curbi.Recorder(db, ORIGIN, **{**options(db, FIRST["open"]), "now": idle, "max_clock_ahead": 40 * 86400})
    assert late.grant(GRANT)["id"] == GRANT["id"]
    late.close()


def test_seal_and_a_successor_named_by_predecessor(tmp_path):
    """`seal` (through `call`) signs the final head and refuses writes with `sealed`; `predecessor=` starts a
    successor whose entry 0 names that head (docs/RECORDER.md §Sealing a log)."""
    recorder, db = first_recorder(tmp_path)
    head = json.loads(recorder.call("seal", {}))
    assert recorder.status()["sealed"] == head["size"]
    with pytest.raises(curbi.CurbiError) as e:
        recorder.grant(GRANT)
    assert e.value.code == "sealed"
    recorder.close()
    nxt = str(tmp_path / "next.db")
    opts = {**options(db, FIRST["open"]), "predecessor": head["note"]}
    successor = curbi.Recorder(nxt, ORIGIN + "-2", **opts)
    entry = successor.receipt({"seq": 0})
    assert json.loads(entry["evidence"])["head"] == head["note"]
    successor.close()
