#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
#
# Sanitizers: AIFABRIC_CI_SANITIZE=1 also builds a representative part with
# -fsanitize=address,undefined into ./build-sanitize and runs it: hardening-unit-tests, i.e.
# the program-boundary code every program runs through (FabricCli, RunFabricProgram,
# FabricResults, FabricChecks) and the OcsMatrix reader with its file fuzzer, compiled on
# their own (6 files). Off by default: see doc/fabric.md, "Sanitizers", for the measured
# cost; ./scripts/test-sanitize.sh runs the whole suite sanitized.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
(
  cd build
  ctest --output-on-failure --timeout 900 -j"$(nproc)"
)
if [ "${AIFABRIC_CI_SANITIZE:-0}" = "1" ]; then
  SANITIZE_TARGETS="hardening-unit-tests" ./scripts/test-sanitize.sh -R '^standalone\.'
fi
