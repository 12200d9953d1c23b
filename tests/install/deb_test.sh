#!/usr/bin/env bash
# The Debian package (`cpack -G DEB`), made into a temporary directory: it declares its
# Depends, holds the programs, the emulator's, the page and the completion, and the pmixflow it
# holds runs the demo once extracted (without installing it on this machine).
#
#   deb_test.sh BUILD_DIR CPACK
# Exit 77 (skipped) where the Debian tools are missing.
set -euo pipefail
build=$1 cpack=$2

for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool (not Debian, or dpkg-dev missing)"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmixflow-deb-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

(cd "$tmp" && "$cpack" -G DEB -B "$tmp/pkg" --config "$build/CPackConfig.cmake") >"$tmp/cpack.log" 2>&1 \
  || { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
debs=("$tmp"/pkg/*.deb)
((${#debs[@]} == 1)) && [[ -f ${debs[0]} ]] || fail "cpack made no single .deb: ${debs[*]}"
deb=${debs[0]}

dpkg-deb -I "$deb" >"$tmp/info.txt"
grep -q '^ Package: pmixflow$' "$tmp/info.txt" || fail "not the pmixflow package: $(cat "$tmp/info.txt")"
grep -q '^ Depends: .*libsimgrid' "$tmp/info.txt" || fail "no Depends on SimGrid: $(cat "$tmp/info.txt")"

dpkg-deb -c "$deb" >"$tmp/contents.txt"
for path in ./usr/bin/pmixflow ./usr/libexec/pmixflow/pmixflow-party ./usr/libexec/pmixflow/pmixflow-job \
  ./usr/share/man/man1/pmixflow.1 ./usr/share/bash-completion/completions/pmixflow \
  ./usr/include/pmixflow/policies/plugin.hpp ./usr/lib/cmake/pmixflow/pmixflowConfig.cmake ./usr/lib/libpmixflow_log.a \
  ./usr/share/pkgconfig/pmixflow.pc ./usr/share/pmixflow/topologies/small-node.xml; do
  grep -q " $path\$" "$tmp/contents.txt" || fail "the package lacks $path"
done

dpkg-deb -x "$deb" "$tmp/root"
"$tmp/root/usr/bin/pmixflow" sim --out "$tmp/demo" >"$tmp/demo.txt" 2>&1 \
  || fail "the packaged pmixflow's demo failed: $(cat "$tmp/demo.txt")"
grep -qF "$tmp/root/usr/share/pmixflow/topologies/small-node.xml" "$tmp/demo.txt" \
  || fail "the packaged demo does not use the packaged topology: $(head -n 4 "$tmp/demo.txt")"
[[ -s $tmp/demo/summary.json ]] || fail "the packaged demo wrote no summary.json"
echo "deb test: $(basename "$deb") is complete and runs the demo"
