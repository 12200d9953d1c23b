#!/usr/bin/env bash
# Installs the Debian packages pmixflow needs (only the missing ones), then configures and
# builds the tree. Idempotent, and silent when there is nothing to do: it speaks only to install
# a package, to configure a new build directory, or when something is built (errors go to stderr).
#
#   scripts/setup.sh [extra cmake -D options]
#
# Environment:
#   PMIXFLOW_BUILD_DIR   build directory (default: <repo>/build)
#   PMIXFLOW_BUILD_TYPE  CMAKE_BUILD_TYPE (default: RelWithDebInfo)
#   PMIXFLOW_VERBOSE=1   show cmake and compiler output instead of keeping it in a log
set -euo pipefail

# Debian 12 packages. One list; extend it here (the emulator and the viewer add theirs).
packages=(
  build-essential
  cmake
  ninja-build
  pkg-config
  libsimgrid-dev
  libjemalloc-dev
  libhwloc-dev
  hwloc
  nlohmann-json3-dev
  libgtest-dev
  zlib1g-dev
  libcli11-dev
  libpmix-dev
  python3-pmix
  qt6-base-dev
  qt6-svg-dev
  fonts-dejavu-core
  # The fuzz targets (scripts/fuzz.sh, the third pass of scripts/test.sh): clang and its
  # libFuzzer runtime (libclang_rt.fuzzer, in libclang-rt-14-dev, which clang-14 only recommends).
  clang-14
  libclang-rt-14-dev
  libfuzzer-14-dev
  # `pmixflow sweep --slurm` is tested against a private one-node Slurm the test starts itself
  # (tests/cli/private_slurm.sh): the daemons, the commands and munge. None is started here.
  slurmctld
  slurmd
  slurm-client
  munge
  # The install (cmake/packaging.cmake) and its tests (tests/install/): man pages made with
  # help2man and read with man, the Debian package's Depends from dpkg-shlibdeps.
  help2man
  man-db
  dpkg-dev
)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"
build_type="${PMIXFLOW_BUILD_TYPE:-RelWithDebInfo}"

say() { echo "setup: $*" >&2; }

# --- packages --------------------------------------------------------------------------
install_missing() {
  if ! command -v dpkg-query >/dev/null; then
    say "no dpkg-query (not Debian?): not checking packages"
    return 0
  fi
  local missing=() pkg
  for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0

  local sudo=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      say "missing packages and not root (no sudo): apt-get install ${missing[*]}"
      return 1
    fi
  fi
  say "installing ${#missing[@]} missing package(s): ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# --- configure and build ---------------------------------------------------------------
# Runs a step with its output in $build/setup.log (or on stderr with PMIXFLOW_VERBOSE=1);
# on failure shows the end of the log.
run_logged() {
  if [[ "${PMIXFLOW_VERBOSE:-0}" == 1 ]]; then
    "$@" >&2
    return
  fi
  local log="$build/setup.log"
  if ! "$@" >>"$log" 2>&1; then
    tail -n 60 "$log" >&2
    say "failed: $* (full output: $log)"
    return 1
  fi
}

# Runs the build with its output in the log; says so only once a step really builds (ninja
# re-checks its globbed directories on every run, and says when there is no work to do).
build_quietly() {
  if [[ "${PMIXFLOW_VERBOSE:-0}" == 1 ]]; then
    cmake --build "$build" -j"$(nproc)" >&2
    return
  fi
  local log="$build/setup.log" line said=0
  set +e
  cmake --build "$build" -j"$(nproc)" 2>&1 | while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if ((said == 0)) && [[ $line =~ ^\[([0-9]+/[0-9]+|\ *[0-9]+%)\]\  && $line != *"Re-checking globbed directories"* ]]; then
      say "building $build (progress in $log)"
      said=1
    fi
  done
  local status=${PIPESTATUS[0]}
  set -e
  if ((status != 0)); then
    tail -n 60 "$log" >&2
    say "failed: cmake --build $build (full output: $log)"
    return 1
  fi
}

install_missing

mkdir -p "$build"
: >"$build/setup.log"
# A build directory configured before is configured again only to set options (the build
# re-runs cmake itself when a CMakeLists.txt changes); a new one says so and gets Ninja.
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  say "configuring $build ($build_type)"
  run_logged cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" "$@"
elif (($# > 0)) || ! grep -qx "CMAKE_BUILD_TYPE:STRING=$build_type" "$build/CMakeCache.txt"; then
  run_logged cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="$build_type" "$@"
fi
build_quietly
