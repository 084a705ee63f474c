#!/usr/bin/env bash
# Times curbi's Python binding against Guardrails AI, llm-guard and a pure-Python `re` baseline, in one run on the
# same replies (bench/python_peers.py says what is timed and how). Run by hand, not by `make test`:
#
#   bash bench/python_peers.sh [--reuse] [python_peers.py options, e.g. --repeats 21]
#
# It makes a throwaway virtualenv (target/bench-venv, recreated each run unless --reuse and it is complete) and
# installs from the package registry:
#   - the curbi wheel from target/wheels (built by bindings/python/setup_venv.sh); when there is none, or with
#     BENCH_BUILD_WHEEL=1 (do that when core changed since the wheel was built: the native floor is built from the
#     work tree), it builds one with maturin into target/bench-wheels. It never touches target/python-venv.
#   - curbi-langchain from bindings/python/langchain
#   - guardrails-ai (GUARDRAILS_VERSION, default 0.11.0)
#   - llm-guard (LLM_GUARD_VERSION, default 0.3.16) WITH its dependencies. Only BanSubstrings is used, which needs
#     no model, but `import llm_guard` itself imports torch (llm_guard/model.py calls util.device() when the module
#     loads), so `--no-deps` is not enough; the full install is about 6 GB (torch and the CUDA wheels PyPI ships)
#     and takes 1-3 minutes here. No model is downloaded: BanSubstrings loads none.
# and builds bench/native_floor (the Rust check timed in the same run) into target/bench-native.
# Output: the table on stdout, kept with the raw samples in target/bench-python-peers.{txt,json}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
venv="$root/target/bench-venv"
py=${PYTHON:-python3}
guardrails_version=${GUARDRAILS_VERSION:-0.11.0}
llm_guard_version=${LLM_GUARD_VERSION:-0.3.16}

reuse=0
if [[ "${1:-}" == "--reuse" ]]; then
  reuse=1
  shift
fi

# 1. The curbi wheel.
wheel=""
if [[ "${BENCH_BUILD_WHEEL:-0}" != 1 ]]; then
  wheel=$(ls "$root"/target/wheels/curbi-*.whl 2>/dev/null | head -n1 || true)
fi

# 2. The throwaway virtualenv.
if [[ $reuse == 1 && -f "$venv/.complete" ]]; then
  echo "reusing $venv" >&2
else
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  echo "installing guardrails-ai==$guardrails_version" >&2
  "$venv/bin/pip" install -q "guardrails-ai==$guardrails_version"
  echo "installing llm-guard==$llm_guard_version with its dependencies (torch: several GB)" >&2
  if ! "$venv/bin/pip" install -q "llm-guard==$llm_guard_version"; then
    echo "!! llm-guard==$llm_guard_version did not install (error above); it will be reported as not timed" >&2
  fi
  touch "$venv/.complete"
fi
# curbi itself is (re)installed on every run, also with --reuse, so the timed binding is the work tree's.
if [[ -z "$wheel" ]]; then
  echo "no wheel in target/wheels (or BENCH_BUILD_WHEEL=1): building one with maturin into target/bench-wheels" >&2
  "$venv/bin/pip" install -q "maturin>=1.9.4,<2"
  rm -rf "$root/target/bench-wheels"
  (cd "$root/bindings/python" && "$venv/bin/maturin" build --release --locked --quiet --out "$root/target/bench-wheels") >&2
  wheel=$(ls "$root"/target/bench-wheels/curbi-*.whl | head -n1)
fi
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheel" "$root/bindings/python/langchain"
echo "curbi wheel in the venv: $wheel, built $(date -r "$wheel" '+%F %T')" >&2

# 3. The native floor: CompiledPolicy::check in Rust, driven round by round from the Python script. It builds core
# from the work tree with the main workspace's dependency versions (its Cargo.lock, trimmed by cargo).
cp "$root/Cargo.lock" "$here/native_floor/Cargo.lock"
CARGO_TARGET_DIR="$root/target/bench-native" cargo build --release --quiet \
  --manifest-path "$here/native_floor/Cargo.toml" >&2

# 4. The run. Metrics off, hubs offline: nothing here may reach past the package registry.
# (Guardrails' import still tries `nltk.download("punkt")` when nltk is installed, as llm-guard makes it; that
# fails at once and is harmless: it prints "[nltk_data] Error loading punkt" on stderr.)
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OTEL_SDK_DISABLED=true
"$venv/bin/python" "$here/python_peers.py" \
  --native-bin "$root/target/bench-native/release/curbi-native-floor" \
  --json "$root/target/bench-python-peers.json" "$@" | tee "$root/target/bench-python-peers.txt"
