"""Whether CPU spent before a commit adds to an fsync-bound commit one for one (docs/PERFORMANCE.md, Recorder).

One-row SQLite inserts with the recorder's durability (WAL, synchronous=FULL, one row per transaction), each after
spinning for 0, 20, 40, 60 or 80 µs, in interleaved rounds; prints each setting's rounds and the median time above
the spin. Run on the disk in question:

    python3 bench/fsync_spin.py [DIR]   (default: target/)
"""

import os
import sqlite3
import sys
import tempfile
import time

SPINS = [0, 20, 40, 60, 80]
ROUNDS = 5
PER_ROUND = 300


def spin(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass


def main():
    base_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target")
    os.makedirs(base_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base_dir) as d:
        c = sqlite3.connect(os.path.join(d, "spin.db"), isolation_level=None)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=FULL")
        c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
        body = "x" * 600
        n = 0
        times = {us: [] for us in SPINS}
        for _ in range(ROUNDS):
            for us in SPINS:
                t0 = time.perf_counter()
                for _ in range(PER_ROUND):
                    spin(us)
                    c.execute("BEGIN IMMEDIATE")
                    c.execute("INSERT INTO t VALUES (?, ?)", (n, body))
                    c.execute("COMMIT")
                    n += 1
                times[us].append((time.perf_counter() - t0) / PER_ROUND * 1e6)
        for us, v in times.items():
            v.sort()
            rounds = " ".join(f"{x:.0f}" for x in v)
            print(f"spin {us:>2} µs: commits of {rounds} µs; median above the spin {v[len(v) // 2] - us:.0f} µs")


if __name__ == "__main__":
    main()
