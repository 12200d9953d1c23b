#!/usr/bin/env bash
# Regenerates the hwloc XML node shapes the project ships, from hwloc synthetic descriptions.
# hwloc writes every file itself (lstopo-no-graphics, package `hwloc`); nothing is edited by
# hand. Each XML also records its description in the Machine's "SyntheticDescription" info.
# Usage: topologies/generate.sh   (from any directory; overwrites the files beside it)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# file name → hwloc synthetic description (see hwloc(7), "Synthetic topologies").
shapes=(
  "small-node.xml|package:2 core:4 pu:1"
  "node-2x16.xml|package:2 numa:1 l3:1 core:16 pu:2"
  "fat-node.xml|package:4 numa:2 core:16 pu:2"
)

command -v lstopo-no-graphics >/dev/null \
  || { echo "generate.sh: lstopo-no-graphics not found (apt-get install hwloc)" >&2; exit 1; }

for entry in "${shapes[@]}"; do
  file="${entry%%|*}"
  description="${entry#*|}"
  echo "generate.sh: $file <- \"$description\"" >&2
  # hwloc notes "Inserting a NUMA level ..." on stderr for descriptions without numa:;
  # keep its stderr quiet unless it fails.
  if ! err="$(lstopo-no-graphics --input "$description" --of xml --force "$here/$file" 2>&1)"; then
    echo "generate.sh: hwloc rejected \"$description\":" >&2
    echo "$err" >&2
    exit 1
  fi
done
