#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
#
# Sanitizers: AIFABRIC_CI_SANITIZE=1 also builds a representative part with
# -fsanitize=address,undefined (the four module libraries and the unit-test executables:
# algorithms, FabricCli/RunFabricProgram/FabricResults, the OcsMatrix file fuzzer) into
# ./build-sanitize and runs those tests there. It is off by default because the sanitized build
# of even that part costs more than CI's time allows on 2 cores (see doc/fabric.md,
# "Sanitizers"); ./scripts/test-sanitize.sh runs the whole suite sanitized.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
(
  cd build
  ctest --output-on-failure --timeout 900 -j"$(nproc)"
)
if [ "${AIFABRIC_CI_SANITIZE:-0}" = "1" ]; then
  SANITIZE_TARGETS="fabric-unit-tests zcube-unit-tests ocs-unit-tests" \
    ./scripts/test-sanitize.sh -R '^(Fabric|FlowHash|TracePath|TrafficPattern|ZCube|Roft|Ocs|RunFabricProgram)'
fi
