#!/usr/bin/env bash
# Builds pmixflow if needed, then runs the simulator. No arguments: the built-in demo.
#   scripts/demo.sh [pmixflow sim options...]
# PMIXFLOW_BUILD_DIR overrides the build directory (default: <repo>/build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"

bash "$root/scripts/setup.sh"
exec "$build/apps/pmixflow" sim "$@"
