#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
#
# Sanitizers: after the suite, a representative part is built with
# -fsanitize=address,undefined into ./build-sanitize and run there: hardening-unit-tests, i.e.
# the program-boundary code every program runs through (FabricCli, RunFabricProgram,
# FabricResults, FabricChecks) and the OcsMatrix reader with its file fuzzer, compiled on
# their own (6 files, measured 130 CPU-seconds to build, 1 s to run; see doc/fabric.md,
# "Sanitizers"). AIFABRIC_CI_SANITIZE=0 skips it. The whole suite sanitized does not fit CI's
# time on 2 cores: ./scripts/test-sanitize.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
(
  cd build
  ctest --output-on-failure --timeout 900 -j"$(nproc)"
)
if [ "${AIFABRIC_CI_SANITIZE:-1}" = "1" ]; then
  SANITIZE_TARGETS="hardening-unit-tests" ./scripts/test-sanitize.sh -R '^standalone\.'
fi
