#!/usr/bin/env bash
# Python: lint the extension crate, build and install into a fresh virtualenv (setup_venv.sh), run pytest
# (pytest's exit 5, no tests collected, fails this script like any other failure) and check the .pyi stubs.
# To iterate on the Python side without rebuilding the wheel (minutes): run setup_venv.sh once, then from this folder
#   PYTHONPATH=langchain ../../target/python-venv/bin/python -m pytest -q -p no:cacheprovider tests/test_langchain*.py
# (PYTHONPATH puts the curbi_langchain source ahead of its installed copy; Rust changes still need setup_venv.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

cargo fmt --manifest-path "$here/Cargo.toml" --check
cargo clippy --manifest-path "$here/Cargo.toml" --locked --all-targets -- -D warnings
python=$(bash "$here/setup_venv.sh" | tail -n 1)

cd "$here"
"$python" -m pytest -q -p no:cacheprovider tests
"$python" -m mypy.stubtest curbi._native
