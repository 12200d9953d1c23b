#!/usr/bin/env bash
# Fuzzes every parser of pmixflow with libFuzzer under AddressSanitizer and UBSan (fuzz/):
# configures and builds the fuzz build, seeds each target from the shipped files, runs each for
# SECONDS and prints what it did. A finding (a crash, a sanitizer report, an uncaught exception,
# a hang or a memory blow-up) is kept, with the command that replays it, and makes the exit
# status 1.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     SECONDS per target (default 60); TARGET: e.g.
#                                             swf or fuzz_swf (default: all of them)
# Exit status: 0 nothing found, 1 a finding, 2 the build or a run failed otherwise, 3 clang or
# libFuzzer is missing (nothing was run; scripts/setup.sh installs them).
#
# Environment:
#   PMIXFLOW_FUZZ_BUILD_DIR   the fuzz build (default: <repo>/build-fuzz)
#   PMIXFLOW_FUZZ_JOBS        targets run at once (default 1)
#   PMIXFLOW_FUZZ_TIMEOUT     seconds of wall time one input may take before it counts as a hang
#                             (default 10; raise it for a long campaign on a machine that is also
#                             building, where a starved fuzzer otherwise reports false hangs)
#   PMIXFLOW_FUZZ_CORPUS      keep each target's corpus in DIR/TARGET, to go on from it next time
#                             (default: a temporary corpus, seeded afresh and removed)
#   PMIXFLOW_BUILD_DIR        a normal build whose apps/pmixflow, when there, runs a few shipped
#                             scenarios to seed the event-log and diff targets (default: <repo>/build)
#   CC, CXX                   the compilers (default clang-14, clang++-14)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_FUZZ_BUILD_DIR:-$root/build-fuzz}"
normal_build="${PMIXFLOW_BUILD_DIR:-$root/build}"
jobs="${PMIXFLOW_FUZZ_JOBS:-1}"
cc="${CC:-clang-14}"
cxx="${CXX:-clang++-14}"
all_targets=(alloc_time hostlist hostfile scenario swf swf_gzip event_log diff_jobs diff_summary diff_events)

say() { echo "fuzz: $*" >&2; }

seconds="${1:-60}"
[[ $# -gt 0 ]] && shift
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  say "SECONDS must be a whole number of seconds > 0, got '$seconds'"
  exit 2
fi
targets=()
for t in "$@"; do
  t="${t#fuzz_}"
  if [[ " ${all_targets[*]} " != *" $t "* ]]; then
    say "unknown target '$t' (targets: ${all_targets[*]})"
    exit 2
  fi
  targets+=("$t")
done
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")

# --- the toolchain ------------------------------------------------------------------------
# libFuzzer is clang's (-fsanitize=fuzzer): a program that links with it proves both are here.
check_toolchain() {
  local probe
  probe="$(mktemp -d)"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cpp"
  if ! command -v "$cxx" >/dev/null || ! "$cxx" -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1; then
    rm -rf "$probe"
    say "skipped: $cxx with libFuzzer is not available (Debian: apt-get install clang-14 libclang-rt-14-dev libfuzzer-14-dev; scripts/setup.sh installs them)"
    exit 3
  fi
  rm -rf "$probe"
}

# --- the build ------------------------------------------------------------------------------
# Only the core libraries the targets read with, instrumented; -O1 and line tables, as the
# sanitizer build of scripts/test.sh. Quiet unless it fails.
build_targets() {
  local log="$build/fuzz-build.log"
  mkdir -p "$build"
  : >"$log"
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    if ! CC="$cc" CXX="$cxx" cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" -DPMIXFLOW_FUZZ=ON \
        -DPMIXFLOW_TESTS=OFF -DPMIXFLOW_EMUL=OFF -DPMIXFLOW_VIEW=OFF -DPMIXFLOW_BENCH=OFF >>"$log" 2>&1; then
      tail -n 40 "$log" >&2
      say "configuring $build failed (full output: $log)"
      exit 2
    fi
  fi
  if ! cmake --build "$build" --target pmixflow_fuzz -j"${PMIXFLOW_FUZZ_BUILD_JOBS:-$(nproc)}" >>"$log" 2>&1; then
    tail -n 60 "$log" >&2
    say "building $build failed (full output: $log)"
    exit 2
  fi
}

# --- seeds ----------------------------------------------------------------------------------
# Every seed is made here from files the repository ships; none is committed as a copy.
put() { # put DIR FILE... : copies the files that exist into DIR
  local dir="$1" f
  shift
  for f in "$@"; do [[ -f "$f" ]] && cp "$f" "$dir/" || true; done
}

# One seed a line of text: `seed_lines DIR NAME < lines`.
seed_lines() {
  local dir="$1" name="$2" i=0 line
  while IFS= read -r line; do
    printf '%s' "$line" >"$dir/$name-$i"
    i=$((i + 1))
  done
}

# The values of a JSON key in the shipped scenarios, unquoted, one a line.
scenario_values() {
  grep -ho "\"$1\":\"[^\"]*\"" "$root"/tests/scenarios/*.jsonl "$root"/traces/*.jsonl "$root"/tests/faults/*.jsonl \
    2>/dev/null | sed 's/^"[^"]*":"//; s/"$//' | sort -u
}

scenarios() { ls "$root"/tests/scenarios/*.jsonl "$root"/traces/*.jsonl "$root"/tests/faults/*.jsonl \
  "$root"/examples/python/*.jsonl 2>/dev/null; }

swf_traces() { find "$root/traces" "$root/tests" -name '*.swf' -type f 2>/dev/null; }

# Runs of the normal build's simulator, when there is one: real event logs, jobs.csv and
# summary.json. Without it the shipped golden outputs and a small log still seed the targets.
make_runs() {
  local runs="$1" pmixflow="$normal_build/apps/pmixflow" s n=0
  mkdir -p "$runs"
  [[ -x "$pmixflow" ]] || return 0
  for s in entry-daemon session-lifecycle activate-hostfile preempt-priority fault-daemon-killed; do
    [[ -f "$root/tests/scenarios/$s.jsonl" ]] || continue
    "$pmixflow" sim --quiet --scenario "$root/tests/scenarios/$s.jsonl" --out "$runs/$s" >/dev/null 2>&1 || true
  done
  for s in $(swf_traces); do
    n=$((n + 1))
    "$pmixflow" sim --quiet --trace "$s" --policy easy --out "$runs/trace-$n" >/dev/null 2>&1 || true
  done
}

# A version 2 log, which is still read, and a version 3 one with a short recv standing on its send.
small_log() {
  printf '%s\n' '{"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{}}' \
    '{"t":1.5,"ev":"job.start","who":"controller","nspace":"job-1.1","session":1,"corr":"a#1","code":"PMIX_EVENT_JOB_START"}' \
    '{"t":2,"ev":"log.end","who":"run","end":"quiescent","events":1,"stats":{}}' >"$1"
}
small_log_v3() {
  printf '%s\n' '{"format":"pmixflow-events","version":3,"env":"sim","seed":0,"inputs":{}}' \
    '{"t":1,"ev":"send","who":"controller","to":"daemon:n01","msg":"launch_procs","corr":"a#1","nspace":"job-1.1","bytes":9}' \
    '{"t":1.5,"ev":"recv","who":"daemon:n01","from":"controller"}' \
    '{"t":2,"ev":"log.end","who":"run","end":"quiescent","events":2,"stats":{}}' >"$1"
}

# Each run's FILE and the golden ones. A long one is cut to its first 300 lines: mutations of a
# seed of hundreds of kilobytes are slow and find nothing its beginning would not (and a cut
# event log is an input of its own).
seed_outputs() { # seed_outputs DIR RUNS FILE
  local dir="$1" runs="$2" file="$3" f i=0
  for f in "$runs"/*/"$file" "$root"/tests/golden/*/"$file"; do
    [[ -f "$f" ]] || continue
    i=$((i + 1))
    head -n 300 "$f" >"$dir/$i-$file"
  done
}

seed() { # seed TARGET DIR RUNS
  local t="$1" dir="$2" runs="$3" s
  mkdir -p "$dir"
  case "$t" in
    alloc_time) { scenario_values PMIX_ALLOC_TIME; printf '%s\n' 1:02:03:04:05 0 4294967295; } | seed_lines "$dir" t ;;
    hostlist)
      { scenario_values PMIX_HOST; scenario_values PMIX_ALLOC_NODE_LIST; scenario_values dvm
        printf '%s\n' 'n[01-99,100],login' 'n[001-100],login' 'n01:4,+n2,+all,+e:2,file=hosts'; } | seed_lines "$dir" h ;;
    hostfile) put "$dir" "$root"/tests/scenarios/*.hosts ;;
    scenario) put "$dir" $(scenarios) ;;
    swf) put "$dir" $(swf_traces) ;;
    swf_gzip) for s in $(swf_traces); do gzip -c "$s" >"$dir/$(basename "$s").gz"; done ;;
    event_log | diff_events)
      small_log "$dir/small.jsonl"
      small_log_v3 "$dir/small-v3.jsonl"
      seed_outputs "$dir" "$runs" events.jsonl ;;
    diff_jobs) seed_outputs "$dir" "$runs" jobs.csv ;;
    diff_summary) seed_outputs "$dir" "$runs" summary.json ;;
  esac
}

# Dictionaries, made from the sources so that they follow them: the JSON keys and PMIx names
# a target's parser knows.
dictionary() { # dictionary TARGET FILE
  local t="$1" out="$2" src=()
  case "$t" in
    scenario) src=("$root"/core/trace/src/*.cpp "$root"/core/vocab/src/keys.cpp "$root"/core/results/src/assertion*.cpp) ;;
    event_log | diff_events) src=("$root"/core/log/include/pmixflow/log/*.def "$root"/core/vocab/src/vocab.cpp) ;;
    diff_summary | diff_jobs) src=("$root"/core/results/src/summary.cpp "$root"/core/results/src/outcomes.cpp) ;;
    *) return 1 ;;
  esac
  grep -ho '"[A-Za-z_.:#-]\{2,40\}"' "${src[@]}" 2>/dev/null | sort -u >"$out"
  [[ -s "$out" ]]
}

# --- runs -------------------------------------------------------------------------------------
# One target: its corpus, seeded; libFuzzer for `seconds`; a line of figures. Returns 1 on a
# finding (the artifact kept under $build/findings/TARGET), 2 when it could not run.
run_target() {
  local t="$1" work="$2" runs="$3" corpus log args=() rc=0
  corpus="${PMIXFLOW_FUZZ_CORPUS:+$PMIXFLOW_FUZZ_CORPUS/$t}"
  corpus="${corpus:-$work/corpus-$t}"
  seed "$t" "$corpus" "$runs"
  mkdir -p "$build/findings/$t"
  log="$build/findings/$t/last-run.log"
  dictionary "$t" "$work/$t.dict" && args+=(-dict="$work/$t.dict")
  # -timeout: one input for more than 10 s (PMIXFLOW_FUZZ_TIMEOUT) is a hang; -rss_limit_mb: 2 GB is a blow-up.
  (cd "$work" && TMPDIR="${fuzz_tmp}" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$build/fuzz/fuzz_$t" "${args[@]}" -max_total_time="$seconds" -timeout="${PMIXFLOW_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/findings/$t/" "$corpus" >"$log" 2>&1) || rc=$?
  report "$t" "$log" "$rc"
}

report() { # report TARGET LOG RC
  local t="$1" log="$2" rc="$3" execs cov ft artifact
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
  ft="$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
  if ((rc == 0)); then
    printf 'fuzz: %-13s %9s executions in %ss, cov %s, ft %s: clean\n' "$t" "${execs:-?}" "$seconds" "${cov:-?}" "${ft:-?}"
    return 0
  fi
  artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
  grep -m 1 -E 'ERROR: |runtime error:|uncaught exception|terminate called|Timeout|out-of-memory' "$log" >&2 || true
  if [[ -n "$artifact" ]]; then
    say "FINDING in $t after ${execs:-?} executions: $artifact (log: $log)"
    say "  replay: $build/fuzz/fuzz_$t $artifact"
    return 1
  fi
  tail -n 20 "$log" >&2
  say "$t did not run (exit $rc; log: $log)"
  return 2
}

check_toolchain
build_targets
work="$(mktemp -d "${TMPDIR:-/tmp}/pmixflow-fuzz.XXXXXX")"
# The targets' scratch files: in memory when there is a /dev/shm (a file a run, four times faster).
fuzz_tmp="$work"
[[ -d /dev/shm && -w /dev/shm ]] && fuzz_tmp="$(mktemp -d /dev/shm/pmixflow-fuzz.XXXXXX)"
trap 'rm -rf "$work" "$fuzz_tmp"' EXIT
make_runs "$work/runs"

status=0
pids=()
names=()
wait_one() { # the oldest running target: its status into $status (the worst wins)
  local rc=0
  wait "${pids[0]}" || rc=$?
  ((rc > status)) && status=$rc
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
}
for t in "${targets[@]}"; do
  ((${#pids[@]} >= jobs)) && wait_one
  run_target "$t" "$work" "$work/runs" &
  pids+=($!)
  names+=("$t")
done
while ((${#pids[@]} > 0)); do wait_one; done
exit "$status"
