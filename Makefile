# The README's two commands: `make demo` runs the main job, `make test` installs what it needs and runs every check.
SHELL := /bin/bash
CARGO ?= cargo
CURBI := target/release/curbi

.PHONY: demo test build fmt-check clippy rust-test summary bench

build:
	$(CARGO) build --release --locked -p curbi-cli

demo: build
	@bash scripts/demo.sh

# Every check, then one summary line. Each step's status is kept so the summary names what failed.
test:
	@bash scripts/test.sh

bench:
	$(CARGO) bench -p curbi --bench check
