#!/usr/bin/env bash
# What a user of an installed pmixflow does, on a prefix of its own: `cmake --install` the build,
# build the example policy against the prefix alone (find_package(pmixflow), and pkg-config on
# a compiler's command line), load each into the installed `pmixflow sim`; run the installed
# demo and emulator with no help from the source tree; read the man page; complete in bash.
#
#   install_test.sh BUILD_DIR SOURCE_DIR VERSION CXX CMAKE
set -euo pipefail
build=$1 source=$2 version=$3 cxx=$4 cmake=$5

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmixflow-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
pmixflow=$prefix/bin/pmixflow

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# Runs a step quietly; on failure shows its output.
step() {
  local what=$1
  shift
  "$@" >"$tmp/step.log" 2>&1 || { cat "$tmp/step.log" >&2; fail "$what: $*"; }
}

step "install" "$cmake" --install "$build" --prefix "$prefix"

version_text=$("$pmixflow" --version) || fail "--version failed"
first=${version_text%%$'\n'*}
[[ $first =~ ^pmixflow\ ${version//./\\.}( \(git [0-9a-f]+, [0-9-]+\))?$ ]] \
  || fail "--version says '$first', not pmixflow $version"

# The demo takes its node shape from the prefix, not from the sources.
"$pmixflow" sim --out "$tmp/demo" >"$tmp/demo.txt" || fail "the installed demo failed: $(cat "$tmp/demo.txt")"
grep -qF "$prefix/share/pmixflow/topologies/small-node.xml" "$tmp/demo.txt" \
  || fail "the installed demo does not use the installed topology: $(head -n 4 "$tmp/demo.txt")"

# The example policy, as a policy author builds it: a project of its own and the prefix.
mkdir -p "$tmp/cmake-policy"
cp "$source/examples/policies/smallest_first.cpp" "$tmp/cmake-policy/my_policy.cpp"
cat >"$tmp/cmake-policy/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(my_policy LANGUAGES CXX)
find_package(pmixflow 0.1 REQUIRED)
add_library(my_policy MODULE my_policy.cpp)
target_link_libraries(my_policy PRIVATE pmixflow::policy)
CMAKE
step "configure against the prefix" "$cmake" -S "$tmp/cmake-policy" -B "$tmp/cmake-policy/build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
grep -qx "pmixflow_DIR:PATH=$prefix/lib/cmake/pmixflow" "$tmp/cmake-policy/build/CMakeCache.txt" \
  || fail "find_package(pmixflow) did not find the prefix's package: $(grep pmixflow_DIR "$tmp/cmake-policy/build/CMakeCache.txt")"
step "build with find_package" "$cmake" --build "$tmp/cmake-policy/build"

flags=$(PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --cflags --libs pmixflow) || fail "pkg-config pmixflow"
[[ $flags == *"-I$prefix/share/pkgconfig/../../include"* ]] || fail "pkg-config points elsewhere: $flags"
# shellcheck disable=SC2086 # the flags are words
step "build with pkg-config" "$cxx" -O1 -fPIC -shared $flags "$source/examples/policies/smallest_first.cpp" \
  -o "$tmp/libpkgconfig_policy.so"

for lib in "$tmp/cmake-policy/build/libmy_policy.so" "$tmp/libpkgconfig_policy.so"; do
  run=$tmp/run-$(basename "$lib" .so)
  step "the installed pmixflow with $lib" "$pmixflow" sim --trace "$prefix/share/pmixflow/traces/golden.swf" \
    --policy "$lib" --events state --quiet --out "$run"
  grep -q '"ev":"scheduler.up".*"policy":"smallest-first"' "$run/events.jsonl" \
    || fail "the run with $lib did not schedule with smallest-first"
done

# A tool of one's own that reads a run's event log with the installed reader, built both ways:
# it must count the events the log holds, as grep counts its lines.
mkdir -p "$tmp/log-tool"
cat >"$tmp/log-tool/count.cpp" <<'CPP'
#include <cstdio>

#include "pmixflow/log/reader.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  pmixflow::log::LogReader reader(argv[1]);
  unsigned long grants = 0;
  while (const auto* e = reader.next()) grants += e->kind == pmixflow::log::EventKind::AllocGrant;
  if (!reader.complete()) return 1;
  std::printf("%lu\n", grants);
}
CPP
cat >"$tmp/log-tool/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(count LANGUAGES CXX)
find_package(pmixflow 0.1 REQUIRED)
add_executable(count count.cpp)
target_link_libraries(count PRIVATE pmixflow::log)
CMAKE
step "configure a log tool against the prefix" "$cmake" -S "$tmp/log-tool" -B "$tmp/log-tool/build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
step "build a log tool with find_package" "$cmake" --build "$tmp/log-tool/build"
log_flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs pmixflow-log) || fail "pkg-config pmixflow-log"
# shellcheck disable=SC2086 # the flags are words
step "build a log tool with pkg-config" "$cxx" -O1 "$tmp/log-tool/count.cpp" $log_flags -o "$tmp/log-tool/count-pc"
expected=$(grep -c '"ev":"alloc.grant"' "$tmp/demo/events.jsonl") || fail "the demo's log has no grant"
for tool in "$tmp/log-tool/build/count" "$tmp/log-tool/count-pc"; do
  counted=$("$tool" "$tmp/demo/events.jsonl") || fail "$tool could not read the demo's log"
  [[ $counted == "$expected" ]] || fail "$tool counts $counted grants in the demo's log, grep $expected"
done

# The emulator's programs are found in libexec/pmixflow. The scenario's timings may suffer from
# a loaded machine (exit 1); not finding its programs is bad input (exit 2).
status=0
"$pmixflow" emul --scenario "$prefix/share/pmixflow/traces/session-complete.jsonl" --speed 10 --quiet \
  --out "$tmp/emul" 2>"$tmp/emul.err" || status=$?
((status <= 1)) || fail "the installed pmixflow emul exited $status: $(cat "$tmp/emul.err")"
[[ -s $tmp/emul/events.jsonl ]] || fail "the installed pmixflow emul wrote no event log"
for program in pmixflow-party pmixflow-job; do
  first=$("$prefix/libexec/pmixflow/$program" --version | head -1) || fail "$program --version failed"
  [[ $first == "$program $version"* ]] || fail "$program --version says '$first', not $program $version"
done

page=$prefix/share/man/man1/pmixflow.1
[[ -f $page ]] || fail "no man page installed (help2man was missing at configure time? scripts/setup.sh installs it)"
MANWIDTH=120 MANPAGER=cat man -l "$page" >"$tmp/man.txt" 2>/dev/null || fail "man -l $page"
grep -q 'pmixflow sim \[OPTIONS\]:' "$tmp/man.txt" || fail "the man page has no pmixflow sim section"
grep -q -- '--compare-recorded' "$tmp/man.txt" || fail "the man page lacks sim's options"

completion=$prefix/share/bash-completion/completions/pmixflow
complete_words() {
  bash --norc --noprofile -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pmixflow
                              printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}
[[ $(complete_words pmixflow si) == sim ]] || fail "'pmixflow si' does not complete to sim"
[[ $(complete_words pmixflow sim --events s) == state ]] || fail "'--events s' does not complete to state"
# Not piped into grep -q: under pipefail, grep leaving early fails the pipeline.
policies=$(complete_words pmixflow sim --policy e)
grep -qx easy <<<"$policies" || fail "--policy does not complete built-in names: $policies"
echo "install test: the prefix works"
