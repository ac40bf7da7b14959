#!/usr/bin/env bash
# Installs what is missing, builds and runs every test: the unit and integration tests in a
# release build and again under ASan + UBSan, in the aarch64 cross build under qemu-user
# (scripts/test-arm64.sh; SKIFF_SKIP_ARM64=1 skips it), then the lab tests (real Linux initiator
# in a VM) unless SKIFF_SKIP_LAB=1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

failed=0
for flavour in release asan; do
  dir=$(scripts/build.sh "$flavour" | tail -n 1)
  echo "== ctest ($flavour)"
  if ! ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" --timeout 300; then
    failed=1
  fi
  if [ "$flavour" = release ]; then
    echo "== install test (a C program built against the installed library only)"
    tests/install/run.sh --prefix "$dir" || failed=1
  fi
done

# arm64 (BlueField's cores): cross build, tests under qemu-user. SKIFF_SKIP_ARM64=1 skips it.
if [ "${SKIFF_SKIP_ARM64:-0}" != 1 ]; then
  echo "== arm64"
  scripts/test-arm64.sh || failed=1
fi

if [ "${SKIFF_SKIP_LAB:-0}" != 1 ] && [ -x scripts/lab-tests.sh ]; then
  echo "== lab tests"
  scripts/lab-tests.sh || failed=1
fi

exit "$failed"
