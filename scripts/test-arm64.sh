#!/usr/bin/env bash
# The arm64 (aarch64, BlueField's Arm cores) stage: cross-builds build-arm64/ (scripts/build.sh
# arm64 installs the cross toolchain, the :arm64 libraries and qemu-user when missing) and runs its
# unit and integration tests under qemu-user. scripts/test.sh and CI call it.
#   scripts/test-arm64.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(scripts/build.sh arm64 | tail -n 1)
if ! aarch64-linux-gnu-readelf -h "$dir/bin/skiff-target" | grep -q "Machine:.*AArch64"; then
  echo "test-arm64: $dir/bin/skiff-target is not an aarch64 executable" >&2
  exit 1
fi

# The tests qemu-user cannot run (tests/arm64-excluded.txt says why, one regular expression a
# line); scripts/test-inventory.sh reads the same file.
exclude_args=()
excluded=$(grep -v -e '^#' -e '^[[:space:]]*$' tests/arm64-excluded.txt | paste -sd '|')
if [ -n "$excluded" ]; then
  exclude_args=(-E "$excluded")
fi
echo "== ctest (arm64 under $(qemu-aarch64 --version | head -n 1))"
# qemu-user translates every instruction: the slowest tests take several times their native time.
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" --timeout 600 "${exclude_args[@]}" "$@"
