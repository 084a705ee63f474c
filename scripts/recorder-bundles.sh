#!/usr/bin/env bash
# Every bundle the recorder's scenario vectors verified in each language (target/recorder-bundles/<lang>/sN-I.bundle.json,
# with the recorder's keys beside it as sN-I.keys.json: recorder/tests/vectors.rs and the C, Go, Python and Node
# runners) must verify with the release CLI as well: `curbi verify BUNDLE --keys KEYS` exits 0. Each language must
# have left one bundle per verifying step of vectors/recorder/scenarios.json, so a runner that wrote none fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
curbi=${CURBI:-target/release/curbi}
[ -x "$curbi" ] || { echo "missing $curbi: run cargo build --release -p curbi-cli first" >&2; exit 1; }
want=$(python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
print(sum(1 for s in doc["scenarios"] for step in s["steps"] if step.get("verify") is True))' vectors/recorder/scenarios.json)
failed=0
for lang in rust c go python node; do
  n=0
  for bundle in target/recorder-bundles/"$lang"/*.bundle.json; do
    [ -e "$bundle" ] || continue
    n=$((n + 1))
    if ! out=$("$curbi" verify "$bundle" --keys "${bundle%.bundle.json}.keys.json"); then
      echo "curbi verify refused $bundle: $out" >&2
      failed=$((failed + 1))
    fi
  done
  if [ "$n" -ne "$want" ]; then
    echo "target/recorder-bundles/$lang: $n bundles, the scenarios verify $want" >&2
    failed=$((failed + 1))
  fi
  echo "$lang: $n bundles through curbi verify"
done
[ "$failed" -eq 0 ]
