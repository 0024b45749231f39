#!/usr/bin/env bash
# Installs the Debian 12 packages the build, tests and scenarios need (run as root).
# libglpk-dev: the ILP baseline of the ocs module. libsqlite3-dev: Debian's ns-3 CMake package names
# libsqlite3.so, which libns3-dev does not pull in.
set -euo pipefail
pkgs=(ns3 libns3-dev libgsl-dev libboost-dev libgtest-dev libxml2-dev libpython3-dev
      cmake g++ make nlohmann-json3-dev gnuplot-nox ccache libglpk-dev libsqlite3-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
