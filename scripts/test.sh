#!/usr/bin/env bash
# Builds pmixflow and runs every test twice: a RelWithDebInfo build, then a Debug build with
# AddressSanitizer and UBSan (SimGrid on thread contexts, which ASan understands). A third pass
# runs each fuzz target (fuzz/) for a few seconds under libFuzzer (scripts/fuzz.sh).
#
# Environment:
#   PMIXFLOW_BUILD_DIR        first build (default: <repo>/build)
#   PMIXFLOW_ASAN_BUILD_DIR   sanitizer build (default: <repo>/build-asan)
#   PMIXFLOW_SKIP_SANITIZE=1  skip the sanitizer pass
#   PMIXFLOW_FUZZ_BUILD_DIR   fuzz build (default: <repo>/build-fuzz)
#   PMIXFLOW_FUZZ_SECONDS     seconds per fuzz target (default 5); 0 skips the fuzz pass
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"
asan_build="${PMIXFLOW_ASAN_BUILD_DIR:-$root/build-asan}"

say() { echo "test: $*" >&2; }
failed=()
flaky=()

# The names of the tests a ctest run failed, from ctest's own record, so that the closing lines
# (all a CI page may keep) say which tests failed and not only which pass.
failed_tests() {
  local record="$1/Testing/Temporary/LastTestsFailed.log"
  [[ -f "$record" ]] || return 0
  cut -d: -f2- "$record" | head -20 | sed 's/^/    /'
}

# ctest over a build. A test that fails is run once more, alone: these machines are shared, and
# the emulator's tests run real processes against the clock. One that passes then is named in
# the closing lines as flaky (a finding to look into, not a pass to forget); one that fails again
# fails the pass. A sanitizer's report is never given a second try.
run_tests() {  # WHAT BUILD [ctest options]
  local what="$1" dir="$2"
  shift 2
  ctest --test-dir "$dir" --output-on-failure -j2 "$@" && return 0
  local first
  first="$(failed_tests "$dir")"
  if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$dir/Testing/Temporary/LastTest.log" 2>/dev/null; then
    failed+=("$what ($dir), with a sanitizer's report:"$'\n'"$first")
    return 0
  fi
  say "$what: the failed tests once more, alone:"$'\n'"$first"
  if ctest --test-dir "$dir" --output-on-failure --rerun-failed "$@"; then
    flaky+=("$what ($dir): failed, then passed alone:"$'\n'"$first")
  else
    failed+=("$what ($dir):"$'\n'"$(failed_tests "$dir")")
  fi
}

# Pass 1: the normal build.
say "pass 1: build ($build)"
if ! bash "$root/scripts/setup.sh"; then
  failed+=("build ($build)")
else
  say "pass 1: tests"
  run_tests tests "$build"
fi

# Pass 2: the sanitizer build.
if [[ "${PMIXFLOW_SKIP_SANITIZE:-0}" == 1 ]]; then
  say "pass 2: sanitizer build skipped (PMIXFLOW_SKIP_SANITIZE=1)"
else
  say "pass 2: sanitizer build ($asan_build)"
  # No benchmarks (they are not tests); -O1, as AddressSanitizer's own documentation advises (the
  # simulations under test run about 40% faster than at -O0), and line tables rather than full
  # debug information: what the sanitizers' reports need, at a fraction of the build time. Still a
  # Debug build: assertions on.
  if ! PMIXFLOW_BUILD_DIR="$asan_build" PMIXFLOW_BUILD_TYPE=Debug \
      bash "$root/scripts/setup.sh" -DPMIXFLOW_SANITIZE=ON -DPMIXFLOW_BENCH=OFF "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
      "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1"; then
    failed+=("sanitizer build ($asan_build)")
  else
    # Not the replays of whole archive traces (label `scale`, tests/CMakeLists.txt): pass 1 runs
    # them; the sanitizers see the same code paths in the smaller replays. Nor the install tests
    # (label `install`), which re-test the same build through its install, slower.
    say "pass 2: tests under ASan/UBSan (but those labelled scale or install)"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        PMIXFLOW_SIM_CONTEXTS=thread \
        run_tests "sanitizer tests" "$asan_build" -LE 'scale|install'
  fi
fi

# Pass 3: every parser under libFuzzer for a few seconds each, seeded from the shipped files (and
# from pass 1's simulator runs). Skipped, and said so, where clang or libFuzzer is missing.
fuzz_seconds="${PMIXFLOW_FUZZ_SECONDS:-5}"
if [[ "$fuzz_seconds" == 0 ]]; then
  say "pass 3: fuzzing skipped (PMIXFLOW_FUZZ_SECONDS=0)"
else
  say "pass 3: fuzz targets, ${fuzz_seconds}s each"
  fuzz_status=0
  PMIXFLOW_BUILD_DIR="$build" bash "$root/scripts/fuzz.sh" "$fuzz_seconds" || fuzz_status=$?
  case "$fuzz_status" in
    0) ;;
    3) say "pass 3: SKIPPED: clang-14 with libFuzzer is not installed (not a failure)" ;;
    1) failed+=("fuzzing: a finding (kept under ${PMIXFLOW_FUZZ_BUILD_DIR:-$root/build-fuzz}/findings; replay command above)") ;;
    *) failed+=("fuzz build or run") ;;
  esac
fi

for pass in "${flaky[@]}"; do say "FLAKY: $pass"; done
if ((${#failed[@]} > 0)); then
  for pass in "${failed[@]}"; do say "FAILED: $pass"; done
  exit 1
fi
say "all passes succeeded"
