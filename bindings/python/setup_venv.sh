#!/usr/bin/env bash
# Builds the curbi wheel with maturin and installs it and curbi-langchain into a fresh virtualenv
# (target/python-venv) from the package registry. Prints the venv's python path last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/target/python-venv"
wheels="$root/target/wheels"

rm -rf "$venv" "$wheels"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "maturin>=1.9.4,<2" "pytest>=8,<10" "mypy>=1.10,<2" "langchain-core>=0.3,<2"
(cd "$here" && "$venv/bin/maturin" build --release --locked --quiet --out "$wheels") >&2
"$venv/bin/pip" install -q --no-deps "$wheels"/curbi-*.whl
# [agents]: langchain 1.x, for CurbiMiddleware and its create_agent tests.
"$venv/bin/pip" install -q "$here/langchain[agents]"
echo "$venv/bin/python"
