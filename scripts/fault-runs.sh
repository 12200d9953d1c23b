#!/usr/bin/env bash
# The emulation fault harness's long campaign: COUNT random valid scenarios (the whole-run
# fuzzer's, tests/sim/scenario_generator.hpp), seeds FIRST_SEED.., each run through
# `pmixflow emul` while signals from outside hit random parties at random moments (SIGKILL,
# SIGTERM, SIGSTOP then SIGCONT), and held to what every emulation must keep
# (tests/emul_run/fault_harness_test.cpp: an exit status naming what happened - 3 naming the
# party and the signal for a party killed in the flow, a stop never changing the outcome; the
# run invariants for a run that finished; nothing left running; the private directory gone).
# Each failing seed is printed with the command that replays it and the scenario it made.
# An emulation takes a few seconds: 300 take about half an hour on two cores.
#
#   scripts/fault-runs.sh [COUNT] [FIRST_SEED]   COUNT emulations (default 300) from FIRST_SEED
#                                                (default 1)
# Exit status: 0 nothing found, 1 a finding, 2 bad arguments or no test binary (build it:
# ninja -C build pmixflow pmixflow-party emul_run_tests).
#
# Environment:
#   PMIXFLOW_BUILD_DIR        the build holding tests/emul_run_tests (default: <repo>/build)
#   PMIXFLOW_FAULT_RUNS_LOG   where the whole output goes (default: a temporary file, kept
#                             when something was found)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"
say() { echo "fault-runs: $*" >&2; }

count="${1:-300}"
first="${2:-1}"
for v in "$count" "$first"; do
  if ! [[ "$v" =~ ^[0-9]+$ ]] || ((v == 0)); then
    say "COUNT and FIRST_SEED must be whole numbers > 0, got '$v'"
    exit 2
  fi
done
tests="$build/tests/emul_run_tests"
if [[ ! -x "$tests" ]]; then
  say "no $tests: build it first (ninja -C $build pmixflow pmixflow-party emul_run_tests)"
  exit 2
fi
log="${PMIXFLOW_FAULT_RUNS_LOG:-$(mktemp -t pmixflow-fault-runs.XXXXXX)}"

say "$count emulations from seed $first (output: $log)"
status=0
PMIXFLOW_EMUL_FAULT_SEEDS="$count" PMIXFLOW_EMUL_FAULT_FIRST_SEED="$first" \
  "$tests" --gtest_filter='EmulFaultHarness.RandomSignalsToRandomPartiesNeverBreakTheInvariants' >"$log" 2>&1 || status=$?

findings="$(grep -c '^fault-runs: FINDING seed' "$log" || true)"
grep '^fault-runs: \(FINDING\|  replay\|  scenario\)' "$log" >&2 || true
if ! grep -q '^fault-runs: [0-9]* seeds from' "$log"; then
  say "the campaign did not finish (exit $status); see $log"
  exit 1
fi
say "$(grep '^fault-runs: [0-9]* seeds from' "$log" | sed 's/^fault-runs: //')"
say "exit statuses: $(grep -o '^fault-runs: seed [0-9]* exit [0-9-]*' "$log" | awk '{print $NF}' | sort | uniq -c |
  awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')"
if ((findings > 0 || status != 0)); then
  say "$findings finding(s); the whole output: $log"
  exit 1
fi
[[ -n "${PMIXFLOW_FAULT_RUNS_LOG:-}" ]] || rm -f "$log"
say "clean"
