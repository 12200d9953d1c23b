#!/usr/bin/env bash
# The emulation fault harness's long campaign: COUNT random valid scenarios (the whole-run
# fuzzer's, tests/sim/scenario_generator.hpp), seeds FIRST_SEED.., each run through
# `pmixflow emul` while signals from outside hit random parties at random moments (SIGKILL,
# SIGTERM, SIGSTOP then SIGCONT), and held to what every emulation must keep
# (tests/emul_run/fault_harness_test.cpp: an exit status naming what happened - 3 naming the
# party and the signal for a party killed in the flow, a stop never changing the outcome; the
# run invariants for a run that finished; nothing left running; the private directory gone).
# Each failing seed is printed with the command that replays it and the scenario it made.
# An emulation takes a few seconds: 300 take about a quarter of an hour on two cores.
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

name=fault-runs
source "$(dirname "${BASH_SOURCE[0]}")/lib/campaign.sh"
campaign_tally() {
  say "exit statuses: $(grep -o '^fault-runs: seed [0-9]* exit [0-9-]*' "$1" | awk '{print $NF}' | sort | uniq -c |
    awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')"
}
campaign_args 300 "$@"
campaign_run emulations emul_run_tests 'EmulFaultHarness.RandomSignalsToRandomPartiesNeverBreakTheInvariants' \
  PMIXFLOW_FAULT_RUNS_LOG "pmixflow pmixflow-party emul_run_tests" \
  PMIXFLOW_EMUL_FAULT_SEEDS="$count" PMIXFLOW_EMUL_FAULT_FIRST_SEED="$first"
campaign_clean PMIXFLOW_FAULT_RUNS_LOG
