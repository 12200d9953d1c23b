#!/usr/bin/env bash
# The whole-run fuzzer's long campaign: COUNT random valid scenarios (tests/sim/
# scenario_generator.hpp: every operation, several users, faults at random times and
# triggered), seeds FIRST_SEED.., each run through `pmixflow sim` and held to the run
# invariants (tests/sim/fault_property_test.cpp: exit 0, 1 or 2; every call accounted for once;
# no call answered twice; every session complete once; the log whole and in time order).
# Each failing seed is printed with the command that replays it and the scenario it made.
#
#   scripts/fuzz-runs.sh [COUNT] [FIRST_SEED]    COUNT scenarios (default 2000) from FIRST_SEED
#                                                (default 1)
# Exit status: 0 nothing found, 1 a finding, 2 bad arguments or no test binary (build it:
# ninja -C build pmixflow sim_tests).
#
# Environment:
#   PMIXFLOW_BUILD_DIR   the build holding tests/sim_tests (default: <repo>/build)
#   PMIXFLOW_FUZZ_RUNS_LOG   where the whole output goes (default: a temporary file, kept
#                            when something was found)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"
say() { echo "fuzz-runs: $*" >&2; }

count="${1:-2000}"
first="${2:-1}"
for v in "$count" "$first"; do
  if ! [[ "$v" =~ ^[0-9]+$ ]] || ((v == 0)); then
    say "COUNT and FIRST_SEED must be whole numbers > 0, got '$v'"
    exit 2
  fi
done
tests="$build/tests/sim_tests"
if [[ ! -x "$tests" ]]; then
  say "no $tests: build it first (ninja -C $build pmixflow sim_tests)"
  exit 2
fi
log="${PMIXFLOW_FUZZ_RUNS_LOG:-$(mktemp -t pmixflow-fuzz-runs.XXXXXX)}"

say "$count scenarios from seed $first (output: $log)"
status=0
PMIXFLOW_FAULT_SEEDS="$count" PMIXFLOW_FAULT_FIRST_SEED="$first" \
  "$tests" --gtest_filter='FaultProperty.RandomFaultsAtRandomTimesNeverBreakTheInvariants' >"$log" 2>&1 || status=$?

findings="$(grep -c '^fuzz-runs: FINDING seed' "$log" || true)"
grep '^fuzz-runs: \(FINDING\|  replay\|  scenario\)' "$log" >&2 || true
if ! grep -q '^fuzz-runs: [0-9]* seeds from' "$log"; then
  say "the campaign did not finish (exit $status); see $log"
  exit 1
fi
say "$(grep '^fuzz-runs: [0-9]* seeds from' "$log" | sed 's/^fuzz-runs: //')"
if ((findings > 0 || status != 0)); then
  say "$findings finding(s); the whole output: $log"
  exit 1
fi
[[ -n "${PMIXFLOW_FUZZ_RUNS_LOG:-}" ]] || rm -f "$log"
say "clean"
