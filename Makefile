# The README's two commands: `make demo` runs the main job, `make test` installs what it needs and runs every check.
SHELL := /bin/bash
CARGO ?= cargo
CURBI := target/release/curbi

.PHONY: demo test build build-c install dist fmt-check clippy rust-test summary bench crash test-future bench-recorder bench-recorder-shapes bench-postgres load linear complexity fuzz prop-ed25519

build:
	$(CARGO) build --release --locked -p curbi-cli

# libcurbi (static and shared, SONAME libcurbi.so.0) and the CLI, release.
build-c:
	$(CARGO) build --release --locked -p curbi-ffi -p curbi-cli

# The C library, header, curbi.pc, the CMake package and the CLI under PREFIX (scripts/install.sh; docs/ABI.md).
PREFIX ?= /usr/local
install: build-c
	PREFIX="$(PREFIX)" bash scripts/install.sh

# What each ecosystem installs from, into dist/ (scripts/dist.sh): builds the Node addon and the manylinux2014 curbi
# wheel too, so it runs from a fresh clone (DIST_WHEEL=0 skips the wheel).
dist: build-c
	bash scripts/dist.sh

demo: build
	@bash scripts/demo.sh

# Every check, then one summary line. Each step's status is kept so the summary names what failed.
test:
	@bash scripts/test.sh

bench:
	$(CARGO) bench -p curbi --bench check

# The recorder's long runs (docs/RECORDER.md, docs/PERFORMANCE.md): thousands of SIGKILLs, and the throughput
# benchmark against the raw-insert floor with a 1,000,000-receipt log (built once into target/, several minutes).
crash:
	CURBI_CRASH_ITERATIONS=$${CURBI_CRASH_ITERATIONS:-2000} $(CARGO) test --release -p curbi-recorder --locked \
	  --features failpoints --test crash -- --nocapture

# Every suite that can run on a faked clock, at a year and five years from today (scripts/future-clock.sh): a test
# that judges a fixed-date document by the system clock fails here before the day it would break `make test`.
test-future:
	bash scripts/future-clock.sh

bench-recorder:
	$(CARGO) bench -p curbi-recorder --locked --bench recorder

# What each part of a confirm's transaction costs against the same floor, on this disk (no recorder code runs).
bench-recorder-shapes:
	$(CARGO) bench -p curbi-recorder --locked --bench shapes

# The PostgreSQL store against the SQLite store in one run, 1 and 8 callers (a cluster of its own in a temporary
# folder; Debian's postgresql package, which `make test` installs).
bench-postgres:
	$(CARGO) bench -p curbi-recorder --locked --features postgres --bench postgres

# Issue 15's bounded hostile load on loopback (docs/SECURITY.md): 50 hostile and 50 ordinary clients and 500 idle
# connections against the release `curbi serve` for 20 s; fails unless the ordinary p99 < 100 ms and peak RSS < 256 MiB.
load: build
	$(CARGO) run --release --locked -p curbi-mcp --example load -- $(CURBI) $${LOAD_SECONDS:-20}

# Check time per byte from 1 KB to 10 MB replies of every adversarial shape (docs/PERFORMANCE.md).
linear:
	$(CARGO) run --release --locked -p curbi --example linear_check

# Issue 44's complexity test (docs/PERFORMANCE.md §"Complexity"): generated policies against replies of a repeated
# unit of their own words, instructions counted by callgrind at 640 B to 40 KB; every case's 10 KB → 40 KB step must
# stay ≤ 4.5× under every checker version, then the issue's shapes through the C ABI. A `make test` step.
complexity:
	$(CARGO) build --release --locked -p curbi-ffi
	$(CARGO) build --release --locked -p curbi --example complexity
	target/release/examples/complexity; a=$$?; bash scripts/complexity-c.sh; b=$$?; [ $$a -eq 0 ] && [ $$b -eq 0 ]

# Every fuzz target for FUZZ_SECONDS each (default 300; FUZZ_TARGETS to pick some), on the corpus kept in fuzz/corpus/
# (docs/FUZZING.md); `make test` runs the same targets on 2,000 inputs each from a fixed seed.
fuzz:
	FUZZ_SECONDS=$${FUZZ_SECONDS:-300} bash fuzz/run.sh $(FUZZ_TARGETS)

# PreparedKey and VerifyingKey against ed25519-dalek's verify_strict on 100,000 generated keys, messages and edge
# signatures (core/tests/ed25519_prepared.rs; `make test` runs 96). The test profile, which `make test` has built
# already: its curve and hash crates are optimised there (Cargo.toml), and they take the time.
prop-ed25519:
	CURBI_ED25519_CASES=$${CURBI_ED25519_CASES:-100000} $(CARGO) test --locked -p curbi --test ed25519_prepared \
	  -- --nocapture prepared_verification_answers_what_verify_strict_answers
