#!/usr/bin/env bash
# Rewrites the golden runs (tests/golden/NAME/jobs.csv and summary.json) from the current
# build. Run it only when a change of behaviour is intended, and say in the commit why each
# golden run changed (`pmixflow diff tests/golden/NAME NEW` shows how, before you overwrite).
#
#   scripts/update-golden.sh        (builds first, as scripts/setup.sh does)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

cd "$root"  # the trace is named relative to the repository in every golden summary
while read -r name args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  library="$build/examples/policies/libsmallest_first.so"
  args="${args//@smallest_first/${library#"$root"/}}"
  # shellcheck disable=SC2086  # the options are words
  "$build/apps/pmixflow" sim --trace traces/golden.swf $args --out "$scratch/$name" --no-events --quiet
  mkdir -p "tests/golden/$name"
  if [[ -f "tests/golden/$name/jobs.csv" ]] && "$build/apps/pmixflow" diff "tests/golden/$name" "$scratch/$name" >/dev/null; then
    echo "golden: $name unchanged"
    continue
  fi
  cp "$scratch/$name/jobs.csv" "$scratch/$name/summary.json" "tests/golden/$name/"
  echo "golden: $name WRITTEN (review: git diff tests/golden/$name)"
done < tests/golden/runs.txt
