#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds our contrib modules inside an ns-3.37 SOURCE tree (not Debian's installed ns-3) and runs
# their ns-3 TestSuites with ns-3's own runner (test.py). Slow (ns-3's core, network, internet,
# ... and their tests are compiled from source): not part of CI. See doc/design.md, "Building
# inside an ns-3 source tree".
#
#   ./scripts/ns3-tree-check.sh /path/to/ns-3.37          # copy modules, configure, build, test
#   ./scripts/ns3-tree-check.sh /path/to/ns-3.37 --link   # symlink instead of copying
#
# The ns-3.37 tree must already be there (e.g. `git archive ns-3.37 | tar -x -C DIR` from a clone
# of ns-3-dev). Environment: JOBS (default 2), NS3_PROFILE (debug|default|release, default debug).
# Exit status: 0 when every suite passes, 1 when a build step or a suite fails, 2 on bad usage.
set -euo pipefail

usage() {
  echo "usage: $0 NS3_SOURCE_DIR [--link]" >&2
  exit 2
}
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
ns3_dir=$1
mode="copy"
if [ $# -eq 2 ]; then
  [ "$2" = "--link" ] || usage
  mode="link"
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$ns3_dir/VERSION" ] || [ ! -x "$ns3_dir/ns3" ] || [ ! -d "$ns3_dir/contrib" ]; then
  echo "error: NS3_SOURCE_DIR '$ns3_dir' is not an ns-3 source tree (needs VERSION, ns3, contrib/)" >&2
  exit 2
fi
version=$(cat "$ns3_dir/VERSION")
if [ "$version" != "3.37" ]; then
  echo "error: NS3_SOURCE_DIR holds ns-$version; these modules target ns-3.37" >&2
  exit 2
fi
jobs=${JOBS:-2}
case "$jobs" in '' | *[!0-9]*) echo "error: JOBS must be a positive integer" >&2; exit 2 ;; esac
profile=${NS3_PROFILE:-debug}
case "$profile" in debug | default | release | optimized) ;;
  *) echo "error: NS3_PROFILE must be one of debug, default, release, optimized" >&2; exit 2 ;;
esac

modules=(fabric roce zcube ocs rng flow ocs-net)
# The ns-3 TestSuites our modules declare (grep -rn ': TestSuite(' contrib).
suites=(fabric-packet zcube-packet roce-packet rng-packet ocs-algorithms ocs-net flow)

start=$(date +%s)
for m in "${modules[@]}"; do
  target="$ns3_dir/contrib/$m"
  rm -rf -- "$target"
  if [ "$mode" = link ]; then
    ln -s -- "$repo/contrib/$m" "$target"
  else
    cp -r -- "$repo/contrib/$m" "$target"
  fi
done

# csma only because ns-3.37's own src/test (ns3tcp suites) includes csma-helper.h whenever
# applications and point-to-point are enabled; without it that test library does not compile.
module_list="$(IFS=';'; echo "${modules[*]}");csma"
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$repo")}
cd "$ns3_dir"
./ns3 configure -d "$profile" --enable-tests --disable-examples --disable-python-bindings \
  --enable-modules="$module_list"
# Our libraries first (their compile errors show early), then the runner with every test library.
targets=()
for m in "${modules[@]}"; do targets+=("lib$m"); done
nice -n 19 cmake --build cmake-cache -j"$jobs" --target "${targets[@]}"
nice -n 19 cmake --build cmake-cache -j"$jobs" --target test-runner
built=$(date +%s)

./test.py --no-build --list | grep -E "$(IFS='|'; echo "${suites[*]}")" || true
status=0
for s in "${suites[@]}"; do
  ./test.py --no-build --verbose --suite="$s" || status=1
done
end=$(date +%s)
echo "ns3-tree-check: ns-$version ($profile), modules: ${modules[*]}"
echo "ns3-tree-check: build $((built - start)) s, suites $((end - built)) s, status $status"
exit $status
