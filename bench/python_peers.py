"""Times Curbi's Python binding against its Python peers on the same replies, in one process.

Run by hand through `bench/python_peers.sh`, which builds a throwaway virtualenv with curbi, curbi-langchain,
Guardrails AI and llm-guard. Not part of `make test`: it installs several GB and its numbers depend on machine load.

What is timed, each on every reply of the workload (the DESIGN §8 reply from `core/benches/check.rs` plus five
more realistic 150-250 character replies):

  curbi check        `policy.check(reply, record=record)` on the compiled DESIGN §8 policy, the record read once with
                     `curbi.Record.parse` as the LangChain guard does; also with the record as a dict or a JSON str
                     read on every call, and with no record
  curbi empty        `empty.check(reply)` on a compiled empty policy: the binding's fixed cost per call (argument
                     conversion, result objects) plus a near-empty native check
  curbi_guard        `curbi_guard(policy, record).invoke(reply)` (raises `CurbiViolation` on a failing reply; the
                     exception is caught in the timing loop, as a caller would)
  guardrails         `Guard().use(validator).validate(reply)` with a custom `@register_validator` validator that runs
                     the same regex rules as the `re` baseline (no hub validator: the hub is not reachable here), with
                     Guardrails' default asyncio validator service and with GUARDRAILS_RUN_SYNC=true
  llm-guard          output `BanSubstrings(phrases, match_type="word")` `.scan("", reply)` with the policy's 20
                     forbidden phrases (it has no price rule, so it does less work than the others)
  re baseline        pure-Python `re`: one word-bounded alternation of the forbidden phrases with a crude negation
                     look-back, and an item-then-price regex checked against the allowed amounts
  native (Rust)      `--native-bin` (bench/native_floor): `CompiledPolicy::check` with the record parsed once, with no
                     record, and with the record parsed per call (what the binding does, minus Python-to-JSON)

Method: `time.perf_counter_ns` around batches of calls. Each tool is warmed up and its batch sized to about
`--batch-ms`; then `--repeats` rounds run, and in each round every tool times one batch, and so does every native
measurement (the Rust binary is driven round by round over a pipe), starting at a different tool each round, so a
burst of load from other processes hits all of them alike. The figure per tool is the median over rounds of
(batch time / calls). Binding overhead = Python call - native check of the same work. Without `--native-bin`,
`--native-ns` takes a native median for the §8 reply (e.g. criterion's `check_200_chars`).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import logging
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECK_RS = os.path.join(ROOT, "core", "benches", "check.rs")


def rust_raw_const(source: str, name: str) -> str:
    m = re.search(r"pub const " + name + r': &str = r#"(.*?)"#;', source, re.S)
    if not m:
        raise SystemExit(f"{name} not found in {CHECK_RS}")
    return m.group(1)


def rust_str_const(source: str, name: str) -> str:
    m = re.search(r"pub const " + name + r': &str = "(.*?)";', source, re.S)
    if not m:
        raise SystemExit(f"{name} not found in {CHECK_RS}")
    # Rust's `\` + newline + leading whitespace continues a string literal.
    return re.sub(r"\\\n\s*", "", m.group(1))


with open(CHECK_RS, encoding="utf-8") as fh:
    _src = fh.read()
POLICY: Dict[str, Any] = json.loads(rust_raw_const(_src, "POLICY"))
RECORD: Dict[str, Any] = json.loads(rust_raw_const(_src, "RECORD"))
REPLY: str = rust_str_const(_src, "REPLY")

# The §8 reply first; then replies of the kinds an agent writes: a price slip, promises the policy forbids, a clean
# add-on answer, a claimed refund the record does not show (with an emoji and an en dash), a clean date answer.
REPLIES: List[Tuple[str, str]] = [
    ("§8 reply", REPLY),
    (
        "price slip",
        "Thanks for asking! The Pro plan is $59 a month, or $490 a year if you pay annually. Team is $99 per "
        "month and adds shared workspaces. Tell me which one suits you and I'll set it up right away.",
    ),
    (
        "promises",
        "I understand the frustration. We guarantee you'll see results within a week, and if not you get a full "
        "refund, no questions asked. The Enterprise plan at $999 a month includes a dedicated success manager.",
    ),
    (
        "add-ons",
        "Good question! Extra storage is $5 per month and each extra seat is $12. Priority support costs $29 "
        "monthly. You can add any of these from the billing page whenever you like, no need to contact us.",
    ),
    (
        "claimed refund",
        "Done \u2014 I've refunded your last invoice and canceled the Teams subscription. You'll see the $99 credit "
        "within 5\u20137 business days. Unlike Acme, we never charge cancellation fees. \U0001F60A",
    ),
    (
        "clean date",
        "Hi Priya, your delivery is scheduled for November 3, 2026. The onboarding package is $199 and the API "
        "add-on is $39 per month. If you have more questions about seats or storage, just reply here.",
    ),
]

FORBIDDEN: List[str] = [p for rule in POLICY["forbid"] for p in rule["phrases"]]

# ---------------------------------------------------------------------------------------------------------------
# The pure-Python `re` baseline: roughly the policy's price and forbid rules (no actions, facts, dates, aliases'
# overlap resolution or discount scoping beyond "Pro"). Guardrails' validator runs this same function.


def _build_baseline() -> Callable[[str], List[str]]:
    names: Dict[str, set] = {}
    for p in POLICY["prices"]:
        amounts = set(p.get("amounts") or [p["amount"]])
        for d in POLICY.get("discounts", []):
            if p["item"] in d["items"]:
                amounts |= {round(a * (100 - d["percent"]) / 100, 2) for a in list(amounts)}
        for n in [p["item"], *p.get("aliases", [])]:
            names[n.lower()] = amounts
    # Longest names first so "Pro Annual" wins over "Pro".
    alternation = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    price_re = re.compile(r"\b(" + alternation + r")\b[^$.!?]{0,40}?\$(\d+(?:\.\d{1,2})?)", re.I)
    parts = []
    for rule in POLICY["forbid"]:
        for ph in rule["phrases"]:
            parts.append(re.escape(ph) + (r"\w*" if rule.get("match") == "prefix" else r"\b"))
    forbid_re = re.compile(r"\b(?:" + "|".join(parts) + ")", re.I)
    negation_re = re.compile(r"\b(?:not|no|never|don't|doesn't|won't|can't|cannot)\s+(?:\w+\s+)?$", re.I)

    def check(reply: str) -> List[str]:
        found = []
        for m in price_re.finditer(reply):
            if float(m.group(2)) not in names[m.group(1).lower()]:
                found.append("price:" + m.group(0))
        for m in forbid_re.finditer(reply):
            if not negation_re.search(reply, max(0, m.start() - 30), m.start()):
                found.append("forbid:" + m.group(0))
        return found

    return check


baseline_check = _build_baseline()

# ---------------------------------------------------------------------------------------------------------------


def version_of(dist: str) -> str:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return "not installed"


def make_tools() -> Tuple[List[Tuple[str, Callable[[str], bool]]], Dict[str, str]]:
    """(name, fn) pairs; fn(reply) -> passed. Peers that fail to import are reported and left out."""
    import curbi
    from curbi_langchain import CurbiViolation, curbi_guard

    policy = curbi.Policy.compile(POLICY)
    empty = curbi.Policy.compile({})
    guard = curbi_guard(policy=policy, record=RECORD)

    record_json = json.dumps(RECORD)

    record = curbi.Record.parse(RECORD)

    def curbi_check(reply: str) -> bool:
        # The compiled path: policy and record read once, as the guard does.
        return policy.check(reply, record=record).passed

    def curbi_check_dict_record(reply: str) -> bool:
        return policy.check(reply, record=RECORD).passed

    def curbi_check_json_record(reply: str) -> bool:
        return policy.check(reply, record=record_json).passed

    def curbi_check_no_record(reply: str) -> bool:
        return policy.check(reply).passed

    def curbi_empty(reply: str) -> bool:
        return empty.check(reply).passed

    def guard_invoke(reply: str) -> bool:
        try:
            guard.invoke(reply)
            return True
        except CurbiViolation:
            return False

    tools: List[Tuple[str, Callable[[str], bool]]] = [
        ("curbi check", curbi_check),
        ("curbi check, record dict per call", curbi_check_dict_record),
        ("curbi check, record as JSON str", curbi_check_json_record),
        ("curbi check, no record", curbi_check_no_record),
        ("curbi empty policy", curbi_empty),
        ("curbi_guard.invoke", guard_invoke),
    ]
    failures: Dict[str, str] = {}

    try:
        from guardrails import Guard
        from guardrails.validators import FailResult, PassResult, Validator, register_validator

        @register_validator(name="curbi-bench/policy-regex", data_type="string")
        class PolicyRegex(Validator):
            """The `re` baseline's rules as a Guardrails validator."""

            def _validate(self, value: Any, metadata: Dict[str, Any]) -> Any:
                found = baseline_check(value)
                if found:
                    return FailResult(error_message="; ".join(found))
                return PassResult()

        # on_fail="noop": a failing reply comes back as `validation_passed=False` instead of raising (the cheapest
        # of Guardrails' failure actions).
        gr_guard = Guard().use(PolicyRegex(on_fail="noop"))
        # Off: with no ~/.guardrailsrc Guardrails defaults to sending anonymous metrics, which cannot leave this
        # machine and is not what a tuned deployment would time.
        gr_guard.configure(allow_metrics_collection=False)

        # Guardrails reads GUARDRAILS_RUN_SYNC on every call: by default it runs validators on an asyncio event
        # loop (AsyncValidatorService); "true" selects the SequentialValidatorService. Both are timed.
        def guardrails_validate(reply: str) -> bool:
            os.environ["GUARDRAILS_RUN_SYNC"] = "false"
            return bool(gr_guard.validate(reply).validation_passed)

        def guardrails_validate_sync(reply: str) -> bool:
            os.environ["GUARDRAILS_RUN_SYNC"] = "true"
            return bool(gr_guard.validate(reply).validation_passed)

        tools.append(("guardrails Guard.validate", guardrails_validate))
        tools.append(("guardrails validate, RUN_SYNC", guardrails_validate_sync))
    except Exception as e:  # pragma: no cover - reported, not hidden
        failures["guardrails-ai"] = f"{type(e).__name__}: {e}"

    try:
        from llm_guard.output_scanners import BanSubstrings
        from llm_guard.util import configure_logger

        # llm-guard logs a warning through structlog on every match; at ERROR that is a filtered no-op, as in
        # production. Printing it would time the terminal instead of the scanner.
        configure_logger(log_level="ERROR")
        scanner = BanSubstrings(FORBIDDEN, match_type="word", case_sensitive=False)

        def llm_guard_scan(reply: str) -> bool:
            return scanner.scan("", reply)[1]

        tools.append(("llm-guard BanSubstrings(word)", llm_guard_scan))
    except Exception as e:  # pragma: no cover
        failures["llm-guard"] = f"{type(e).__name__}: {e}"

    tools.append(("re baseline", lambda reply: not baseline_check(reply)))
    return tools, failures


VERDICT_COLUMNS = {
    "curbi check": "curbi",
    "curbi_guard.invoke": "guard",
    "guardrails Guard.validate": "guardrails",
    "llm-guard BanSubstrings(word)": "llm-guard",
    "re baseline": "re",
}


def time_batch(fn: Callable[[str], bool], replies: List[str], loops: int) -> float:
    """Nanoseconds per call over `loops` passes through `replies`."""
    clock = time.perf_counter_ns
    t0 = clock()
    for _ in range(loops):
        for r in replies:
            fn(r)
    return (clock() - t0) / (loops * len(replies))


def calibrate(fn: Callable[[str], bool], replies: List[str], batch_ms: float) -> int:
    loops = 1
    while True:
        t0 = time.perf_counter_ns()
        time_batch(fn, replies, loops)
        elapsed_ms = (time.perf_counter_ns() - t0) / 1e6
        if elapsed_ms >= batch_ms / 4 or loops >= 1 << 20:
            return max(1, int(loops * batch_ms / max(elapsed_ms, 1e-3)))
        loops *= 4


class Native:
    """The bench/native_floor binary, driven one round at a time (see its protocol)."""

    def __init__(self, binary: str, replies: List[str], batch_ms: float) -> None:
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._send(json.dumps({"policy": POLICY, "record": RECORD, "replies": replies, "batch_ms": batch_ms}))
        if not json.loads(self._recv()).get("ready"):
            raise SystemExit("native floor did not start")

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _recv(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"native floor exited with {self.proc.wait()}")
        return line

    def round(self) -> Dict[str, float]:
        self._send("round")
        return {"native " + k: v for k, v in json.loads(self._recv()).items()}

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


Job = Tuple[str, Callable[[str], bool], List[str]]


def measure(jobs: List[Job], native: Optional[Native], repeats: int, batch_ms: float, warmup_s: float
            ) -> Dict[str, List[float]]:
    """Per-call nanoseconds, `repeats` samples per job. Each round times one batch of every job (and of every
    native measurement), starting at a different job each round, so load from other processes hits all alike."""
    loops: Dict[str, int] = {}
    for name, fn, replies in jobs:
        end = time.perf_counter() + warmup_s
        while time.perf_counter() < end:
            time_batch(fn, replies, 1)
        loops[name] = calibrate(fn, replies, batch_ms)
    samples: Dict[str, List[float]] = {name: [] for name, _, _ in jobs}
    steps: List[Optional[Job]] = [*jobs, None]  # None: the native round
    for r in range(repeats):
        k = r % len(steps)
        for step in steps[k:] + steps[:k]:
            if step is None:
                if native is not None:
                    for name, ns in native.round().items():
                        samples.setdefault(name, []).append(ns)
            else:
                name, fn, replies = step
                samples[name].append(time_batch(fn, replies, loops[name]))
    return samples


def fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def spread(xs: List[float]) -> str:
    med = statistics.median(xs)
    return f"{(min(xs) / med - 1) * 100:+.0f}%/{(max(xs) / med - 1) * 100:+.0f}%"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=15, help="rounds per measurement (median reported)")
    ap.add_argument("--batch-ms", type=float, default=60.0, help="target time of one timed batch")
    ap.add_argument("--warmup-s", type=float, default=0.5, help="warm-up time per tool")
    ap.add_argument("--native-bin", default=None, help="the bench/native_floor binary (times the Rust check)")
    ap.add_argument("--native-ns", type=float, default=None, help="else: a native median for the §8 reply, in ns")
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args()

    for name, reply in REPLIES:
        n = len(reply)
        if not 150 <= n <= 250:
            raise SystemExit(f"reply {name!r} is {n} characters, not 150-250")

    tools, failures = make_tools()
    for pkg, err in failures.items():
        print(f"!! {pkg} could not be loaded, so it is not timed: {err}", file=sys.stderr)

    versions = {
        d: version_of(d)
        for d in ["curbi", "curbi-langchain", "langchain-core", "guardrails-ai", "llm-guard", "structlog", "torch"]
    }
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print()

    # What each tool says about each reply: they implement different amounts of the policy, so they may disagree.
    shown = [(n, fn) for n, fn in tools if n in VERDICT_COLUMNS]
    print("verdicts (P pass, F fail):")
    print(f"  {'reply':<16}{'chars':>6}" + "".join(f"{VERDICT_COLUMNS[n]:>12}" for n, _ in shown))
    for rname, reply in REPLIES:
        print(f"  {rname:<16}{len(reply):>6}" + "".join(f"{'P' if fn(reply) else 'F':>12}" for _, fn in shown))
    print()

    texts = [r for _, r in REPLIES]
    native = Native(args.native_bin, texts, args.batch_ms) if args.native_bin else None
    jobs: List[Job] = [(name, fn, texts) for name, fn in tools]
    s8_tools = [n for n, _ in tools if n.startswith("curbi check") or n == "curbi empty policy"]
    jobs += [("§8 " + name, fn, [REPLY]) for name, fn in tools if name in s8_tools]
    print(f"timing: {args.repeats} rounds, batches of ~{args.batch_ms:.0f} ms, tools interleaved"
          f"{' with the native check' if native else ''} ...", flush=True)
    samples = measure(jobs, native, args.repeats, args.batch_ms, args.warmup_s)
    if native:
        native.close()
    mix = {n: samples[n] for n, _ in tools}
    s8 = {n: samples["§8 " + n] for n in s8_tools}
    med = {k: statistics.median(v) for k, v in mix.items()}
    base = med["curbi check"]
    base_nr = med["curbi check, no record"]

    print()
    print(f"per call, mean over the {len(texts)} replies (median of {args.repeats} rounds; min/max vs median):")
    print(f"  {'tool':<34}{'median':>12}{'spread':>14}{'÷ check':>16}{'÷ no-record':>16}")
    for key, label in [("native check", "native check (Rust)"), ("native check_no_record", "native check, no record"),
                       ("native parse_record_and_check", "native parse record + check")]:
        if key in samples:
            m = statistics.median(samples[key])
            print(f"  {label:<34}{fmt_ns(m):>12}{spread(samples[key]):>14}{m / base:>15.2f}×{m / base_nr:>15.2f}×")
    for name, _ in tools:
        print(f"  {name:<34}{fmt_ns(med[name]):>12}{spread(mix[name]):>14}{med[name] / base:>15.1f}×"
              f"{med[name] / base_nr:>15.1f}×")

    s8_med = {k: statistics.median(v) for k, v in s8.items()}
    print()
    print("§8 reply alone (the criterion workload):")
    for name in s8_tools:
        print(f"  {name:<34}{fmt_ns(s8_med[name]):>12}{spread(s8[name]):>14}")
    native_s8: Optional[float] = None
    native_s8_nr: Optional[float] = None
    if "native s8_check" in samples:
        native_s8 = statistics.median(samples["native s8_check"])
        native_s8_nr = statistics.median(samples["native s8_check_no_record"])
        print(f"  {'native check (Rust)':<34}{fmt_ns(native_s8):>12}{spread(samples['native s8_check']):>14}")
        print(f"  {'native check, no record (Rust)':<34}{fmt_ns(native_s8_nr):>12}"
              f"{spread(samples['native s8_check_no_record']):>14}")
    elif args.native_ns:
        native_s8 = args.native_ns
        print(f"  {'native check (criterion, given)':<34}{fmt_ns(native_s8):>12}")

    overhead: Dict[str, float] = {}
    if "native check" in samples:
        overhead["mix, record parsed once"] = base - statistics.median(samples["native check"])
        overhead["mix, no record"] = base_nr - statistics.median(samples["native check_no_record"])
    if native_s8 is not None:
        overhead["§8, record parsed once"] = s8_med["curbi check"] - native_s8
        if "curbi check, record dict per call" in s8_med:
            overhead["§8, record dict per call"] = s8_med["curbi check, record dict per call"] - native_s8
        overhead["§8, record JSON str"] = s8_med["curbi check, record as JSON str"] - native_s8
        if native_s8_nr is not None:
            overhead["§8, no record"] = s8_med["curbi check, no record"] - native_s8_nr
        print()
        print("binding overhead (Python call − native check of the same work, medians), target ≤ 2 µs:")
        for k, v in overhead.items():
            verdict = "met" if v <= 2000 else f"MISSED by {fmt_ns(v - 2000)}"
            print(f"  {k:<34}{fmt_ns(v):>12}   {verdict}")
    else:
        print("  no native floor (--native-bin or --native-ns); the empty-policy call bounds the fixed binding cost")

    print()
    targets = [("guardrails Guard.validate", 100.0), ("guardrails validate, RUN_SYNC", 100.0),
               ("llm-guard BanSubstrings(word)", 10.0)]
    for name, want in targets:
        if name in med:
            for label, b in [("curbi check", base), ("curbi check, no record", base_nr)]:
                got = med[name] / b
                verdict = "met" if got >= want else f"MISSED: {got:.1f}×, {want / got:.2f}× short"
                print(f"target: {label} ≥ {want:.0f}× faster than {name}: {got:.1f}× — {verdict}")
        else:
            print(f"target: curbi check ≥ {want:.0f}× faster than {name}: not measured")

    if args.json:
        out = {
            "versions": versions,
            "python": platform.python_version(),
            "loadavg_end": os.getloadavg(),
            "repeats": args.repeats,
            "batch_ms": args.batch_ms,
            "samples_ns": samples,
            "medians_ns": {k: statistics.median(v) for k, v in samples.items()},
            "native_ns_given": args.native_ns,
            "overhead_ns": overhead,
            "failures": failures,
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    sys.exit(main())
