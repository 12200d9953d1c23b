# What scripts/fuzz-runs.sh and scripts/fault-runs.sh share: a long campaign of seeded runs
# inside one test of a test binary, whose lines prefixed "<name>: " say each seed's fate
# ("FINDING seed N", "  replay ...", "  scenario ...") and end with "N seeds from S, F failed".
# Sourced; the caller sets `name` (the prefix) and calls campaign_args, campaign_run, then
# campaign_clean. A caller may define campaign_tally LOG: said after the seeds' count.

say() { echo "$name: $*" >&2; }

# COUNT and FIRST_SEED from the command line (defaults: $1 and 1), checked: exit 2 if not
# whole numbers > 0. Sets `count` and `first`.
campaign_args() {
  local default_count="$1"
  shift
  count="${1:-$default_count}"
  first="${2:-1}"
  local v
  for v in "$count" "$first"; do
    if ! [[ "$v" =~ ^[0-9]+$ ]] || ((v == 0)); then
      say "COUNT and FIRST_SEED must be whole numbers > 0, got '$v'"
      exit 2
    fi
  done
}

# Runs TEST of BINARY (under $PMIXFLOW_BUILD_DIR/tests, default <repo>/build) with the
# environment given as NAME=VALUE words before it, its whole output in $LOG_VAR's file (or a
# temporary one kept when something was found), and reports: exit 1 on a finding or a campaign
# that did not finish. WHAT names the runs ("scenarios", "emulations"); TARGETS what to build.
#   campaign_run WHAT BINARY TEST LOG_VAR TARGETS [NAME=VALUE...]
campaign_run() {
  local what="$1" binary="$2" test="$3" log_var="$4" targets="$5"
  shift 5
  local root build tests log status=0 findings
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  build="${PMIXFLOW_BUILD_DIR:-$root/build}"
  tests="$build/tests/$binary"
  if [[ ! -x "$tests" ]]; then
    say "no $tests: build it first (ninja -C $build $targets)"
    exit 2
  fi
  log="${!log_var:-$(mktemp -t "pmixflow-$name.XXXXXX")}"
  say "$count $what from seed $first (output: $log)"
  env "$@" "$tests" --gtest_filter="$test" >"$log" 2>&1 || status=$?

  findings="$(grep -c "^$name: FINDING seed" "$log" || true)"
  grep "^$name: \(FINDING\|  replay\|  scenario\)" "$log" >&2 || true
  if ! grep -q "^$name: [0-9]* seeds from" "$log"; then
    say "the campaign did not finish (exit $status); see $log"
    exit 1
  fi
  say "$(grep "^$name: [0-9]* seeds from" "$log" | sed "s/^$name: //")"
  if declare -F campaign_tally >/dev/null; then campaign_tally "$log"; fi
  campaign_log="$log"
  if ((findings > 0 || status != 0)); then
    say "$findings finding(s); the whole output: $log"
    exit 1
  fi
}

# The campaign was clean: its output goes unless $LOG_VAR asked for it to be kept.
campaign_clean() {
  local log_var="$1"
  [[ -n "${!log_var:-}" ]] || rm -f "$campaign_log"
  say "clean"
}
