#!/usr/bin/env bash
# Prints every machine-readable and text output of two kubesift binaries over the bundled
# sample cluster and every folder of ../shared/corpora, and diffs them: a refactor must
# leave them byte-identical. Usage: benches/compare_outputs.sh OLD_BIN NEW_BIN [OUTDIR]
set -uo pipefail
old=$1 new=$2 out=${3:-$(mktemp -d)}
cd "$(dirname "$0")/.."
dirs=(sample-cluster)
for d in ../shared/corpora/*/; do dirs+=("${d%/}"); done
run() { # bin tag
  local bin=$1 tag=$2
  mkdir -p "$out/$tag"
  for d in "${dirs[@]}"; do
    local n; n=$(basename "$d")
    for args in "get -o json" "get -o yaml" "get -o wide" "get -o name" "get --show-labels" "get" \
                "tree -o json" "tree" "tree --selectors" "check -o json" "check"; do
      local f="$out/$tag/$n.$(echo "$args" | tr ' ' '_')"
      # AGE columns depend on the clock: both binaries run within the same minute per folder.
      $bin $args -f "$d" >"$f.out" 2>"$f.err"; echo "exit $?" >>"$f.err"
    done
  done
}
run "$old" old
run "$new" new
if diff -r "$out/old" "$out/new" >"$out/diff.txt"; then
  echo "identical: ${#dirs[@]} folders x 11 commands ($out)"
else
  echo "DIFFERENT (see $out/diff.txt):"; head -50 "$out/diff.txt"; exit 1
fi
