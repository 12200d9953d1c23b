#!/usr/bin/env bash
# Makes the pictures the README and docs/ show, from runs of the simulator, with
# `pmixflow-view --screenshot` (offscreen: no display needed). Run it again after a change to
# the viewer or the flow; the pictures are committed.
#   scripts/pictures.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PMIXFLOW_BUILD_DIR:-$root/build}"
out="$root/docs/pictures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bash "$root/scripts/setup.sh"
sim="$build/apps/pmixflow"
view() { QT_QPA_PLATFORM=offscreen "$build/apps/pmixflow-view" "$@" 2>/dev/null; }
mkdir -p "$out"

"$sim" sim --quiet --out "$work/demo"
"$sim" sim --quiet --trace "$root/traces/golden.swf" --policy easy --out "$work/easy"
"$sim" sim --quiet --trace "$root/traces/golden.swf" --policy fcfs --out "$work/fcfs"

# The demo at the moment it has most sessions: which nodes are in which session, which are
# outside the DVM, and the last request's path.
view --screenshot "$out/demo-overview.png" "$work/demo"
# One request through a daemon, hop by hop (docs/flow.md, step A to C).
view --screenshot "$out/demo-alice-request.svg" --pane flow --request 'alice#1' --size 1400x900 "$work/demo"
view --screenshot "$out/demo-alice-request.png" --pane flow --request 'alice#1' --size 1400x900 "$work/demo"
# bob's session, just after it was instantiated on a node that had no daemon yet.
view --screenshot "$out/demo-machine-bob.png" --pane machine --session-id 2 --at 2.03 --size 1000x420 "$work/demo"
# The researcher's pictures of a replayed trace.
view --screenshot "$out/golden-easy-gantt.png" --pane gantt "$work/easy"
view --screenshot "$out/golden-easy-utilisation.png" --pane utilisation --size 1600x700 "$work/easy"
view --screenshot "$out/golden-easy-vs-fcfs.png" --pane compare "$work/easy" "$work/fcfs"
echo "pictures: written to $out" >&2
