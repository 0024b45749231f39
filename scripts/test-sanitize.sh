#!/usr/bin/env bash
# Builds the project with -DAIFABRIC_SANITIZE=ON (AddressSanitizer + UndefinedBehaviorSanitizer)
# into ./build-sanitize and runs the tests there; any sanitizer report fails the test that
# triggered it (the programs run by the end-to-end tests are sanitized too).
#
#   ./scripts/test-sanitize.sh                 # the whole suite
#   ./scripts/test-sanitize.sh -R 'Fabric|Ocs'  # extra arguments go to ctest
#   SANITIZE_TARGETS="fabric-unit-tests ocs-unit-tests" ./scripts/test-sanitize.sh -R ...
#                                              # build only these targets
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAIFABRIC_SANITIZE=ON >/dev/null
if [ -n "${SANITIZE_TARGETS:-}" ]; then
  # shellcheck disable=SC2086
  cmake --build build-sanitize -j"$(nproc)" --target ${SANITIZE_TARGETS}
else
  cmake --build build-sanitize -j"$(nproc)"
fi
# Leaks are not checked: ns-3 keeps singletons and attribute defaults until exit by design.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:${UBSAN_OPTIONS:-}"
cd build-sanitize
ctest --output-on-failure --timeout 1800 -j"$(nproc)" "$@"
