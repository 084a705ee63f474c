#!/usr/bin/env bash
# `curbi check --policy P --jsonl IN` against today's best way to check many replies with the CLI before it: one
# `curbi check` process per request of 50 cases (the Check API's batch limit), run one per core with xargs -P.
# Both in the same run, on the same 10,000 replies of exactly 200 characters; best of $RUNS wall-clock runs each.
# Prints the two times and their ratio; exits 1 if --jsonl takes more than $TARGET seconds (docs/PERFORMANCE.md).
# Usage: bash bench/check_jsonl.sh [CURBI]   (default target/release/curbi; RUNS=5 TARGET=0.3 N=10000)
set -euo pipefail
cd "$(dirname "$0")/.."
CURBI=${1:-target/release/curbi}
RUNS=${RUNS:-5}
TARGET=${TARGET:-0.3}
N=${N:-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$N" <<'PY'
import json, sys, random
work, n = sys.argv[1], int(sys.argv[2])
random.seed(21)
policy = {
    "prices": [{"item": name, "amount": amount} for name, amount in
               [("Starter", 49), ("Pro", 99), ("Team", 199), ("Business", 499), ("Enterprise", 999)]],
    "forbid": [{"id": "promise", "phrases": ["guarantee", "promise"]}, {"id": "legal", "phrases": ["lawsuit"]}],
}
json.dump(policy, open(f"{work}/policy.json", "w"))
words = ("the plan includes support, onboarding and a monthly review; your account manager will follow up "
         "with the details you asked for and the next steps for the team").split()
lines, cases = [], []
for i in range(n):
    item, amount = random.choice(policy["prices"])["item"], random.choice([49, 99, 199, 499, 999])
    head = f"Reply {i}: {item} costs ${amount} a month"
    if i % 10 == 0:
        head += ", and we guarantee it"
    body = head + ". "
    while len(body) < 200:
        body += random.choice(words) + " "
    reply = body[:199] + "."
    assert len(reply) == 200
    case = {"id": f"r{i}", "reply": reply}
    lines.append(json.dumps(case))
    cases.append(case)
open(f"{work}/in.jsonl", "w").write("\n".join(lines) + "\n")
for k in range(0, n, 50):
    json.dump({"policy": policy, "cases": cases[k:k + 50]}, open(f"{work}/batch-{k // 50:05d}.json", "w"))
PY

best() { # best wall time in seconds of RUNS runs of "$@"
  local b=
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    b=$(python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print(min(t, float(b)) if b else t)" "$t0" "$t1" "$b")
  done
  echo "$b"
}
jsonl() { "$CURBI" check --policy "$work/policy.json" --jsonl "$work/in.jsonl"; }
batches() { ls "$work"/batch-*.json | xargs -P "$(nproc)" -n 1 "$CURBI" check; }

# The two paths agree on every verdict.
python3 - "$work" "$CURBI" <<'PY'
import glob, json, subprocess, sys
work, curbi = sys.argv[1], sys.argv[2]
a = subprocess.run([curbi, "check", "--policy", f"{work}/policy.json", "--jsonl", f"{work}/in.jsonl"],
                   capture_output=True, text=True)
got = {d["id"]: (d["pass"], d["findings"]) for d in map(json.loads, a.stdout.splitlines())}
want = {}
for f in sorted(glob.glob(f"{work}/batch-*.json")):
    b = subprocess.run([curbi, "check", f], capture_output=True, text=True)
    for r in json.loads(b.stdout)["results"]:
        want[r["id"]] = (r["pass"], r["findings"])
assert got == want, "the --jsonl results differ from the batch results"
print(f"agree: {len(got)} results, {sum(not p for p, _ in got.values())} with findings")
PY

t_jsonl=$(best jsonl)
t_batches=$(best batches)
python3 - "$t_jsonl" "$t_batches" "$N" "$TARGET" "$(nproc)" <<'PY'
import sys
j, b, n, target, cores = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
print(f"{n} replies of 200 characters, {cores} cores")
print(f"  curbi check --jsonl:                 {j:.3f} s  ({n / j:,.0f} replies/s)")
print(f"  curbi check per 50-case batch, -P{cores}: {b:.3f} s  ({n / b:,.0f} replies/s)")
print(f"  ratio: --jsonl is {b / j:.1f}x faster; target <= {target} s: {'met' if j <= target else 'MISSED'}")
sys.exit(0 if j <= target else 1)
PY
