#!/usr/bin/env bash
# Installs what is missing, builds and runs every test, in stages:
#   release  gcc build of the product, the benchmarks and the tests that depend on its optimised
#            code (integration and perf suites, fuzz replays, C programs, benchmark smoke runs),
#            the install test; the unit tests run in the asan and arm64 stages
#   asan     one clang build (ASan + UBSan, every library instrumented for libFuzzer): the same
#            tests again, with every fuzz harness's replay test
#   fuzz     every libFuzzer harness briefly, in that same build (scripts/fuzz.sh --no-build;
#            SKIFF_FUZZ_CI=0 skips it)
#   arm64    the aarch64 cross build's tests under qemu-user (scripts/test-arm64.sh;
#            SKIFF_SKIP_ARM64=1 skips it)
#   lab      a real Linux initiator in a VM (SKIFF_SKIP_LAB=1 skips it); it starts once the asan
#            stage's tests are done and runs beside the fuzz and arm64 stages (below)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# Each stage's name and start; the table at the end (also after a failure) shows where the time went.
stage_names=() stage_starts=()
stage() {
  stage_names+=("$1") stage_starts+=("$(date +%s)")
  echo "== $1 (at $(( ($(date +%s) - start) / 60 )) min)"
}
stage_table() {
  local end i next
  end=$(date +%s)
  echo "== stage times"
  printf '%-24s %8s\n' stage "min:sec"
  for i in "${!stage_names[@]}"; do
    next=${stage_starts[$((i + 1))]:-$end}
    printf '%-24s %5d:%02d\n' "${stage_names[$i]}" $(( (next - stage_starts[i]) / 60 )) $(( (next - stage_starts[i]) % 60 ))
  done
  printf '%-24s %5d:%02d\n' total $(( (end - start) / 60 )) $(( (end - start) % 60 ))
}
lab_pid=""
finish() {
  [ -z "$lab_pid" ] || kill -- "-$lab_pid" 2>/dev/null || true
  stage_table
}
trap finish EXIT
stage "install-deps"
scripts/install-deps.sh

# The lab images (debootstraps of Debian packages, bookworm's and the tls test's trixie guest,
# minutes the first time, about a second once current) are built in the background while the
# compilers run: they wait on the network and the disk, not on the CPU. lab-tests.sh takes the image's lock, so it waits for this build if needed.
lab_image_log=""
if [ "${SKIFF_SKIP_LAB:-0}" != 1 ]; then
  lab_image_log=$(mktemp "${TMPDIR:-/tmp}/skiff-lab-image-XXXXXX.log")
  nice -n 10 tests/lab/vm/build-image --quiet --trixie >"$lab_image_log" 2>&1 &
fi

# The lab tests run beside the fuzz and arm64 stages: they need only the release build, and the
# TCG-emulated guest keeps about one core busy (measured: 75 s of CPU in 96 s of a lab run) while
# the cross compiler would take both; one after the other on CI's two cores, the lab stage alone
# was 11 of a cold run's 63 minutes. They start after the asan stage's tests, not before: those
# include load-sensitive tests (a thousand-connection flood under ASan, keep-alive expiry) that
# failed with the guest and another build beside them, and the arm64 stage (about 16 minutes
# cold) outlasts the lab anyway. The lab's output is kept in a file and printed whole when it
# ends, so the two logs do not interleave. lab-tests.sh takes the image's lock: it waits for the
# image build above if that is still running.
lab_log="" lab_times=""
start_lab() {
  if [ "${SKIFF_SKIP_LAB:-0}" = 1 ] || [ ! -x scripts/lab-tests.sh ]; then return 0; fi
  lab_log=$(mktemp "${TMPDIR:-/tmp}/skiff-lab-tests-XXXXXX.log")
  lab_times=$(mktemp "${TMPDIR:-/tmp}/skiff-lab-times-XXXXXX")
  echo "== lab tests start in the background (at $(( ($(date +%s) - start) / 60 )) min; output at the end)"
  # Its own process group (setsid), so that a failed stage ends the lab's VM too (finish, above).
  # shellcheck disable=SC2016  # $1 and $2 are the inner bash's arguments
  setsid bash -c 'date +%s >"$1"; rc=0; scripts/lab-tests.sh >"$2" 2>&1 || rc=$?; date +%s >>"$1"; exit $rc' \
    lab "$lab_times" "$lab_log" &
  lab_pid=$!
}

failed=0
for flavour in release asan; do
  stage "build ($flavour)"
  modules="core;nvmeof;dataplane;config;integration;perf"
  [ "$flavour" = release ] && modules="integration;perf"
  dir=$(SKIFF_TEST_MODULES="$modules" scripts/build.sh "$flavour" | tail -n 1)
  stage "ctest ($flavour)"
  if ! ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" --timeout 300; then
    failed=1
  fi
  if [ "$flavour" = release ]; then
    echo "== install test (a C program built against the installed library only)"
    tests/install/run.sh --prefix "$dir" || failed=1
  fi
done
start_lab

# Fuzzing, short: every libFuzzer harness for SKIFF_FUZZ_SECONDS (default 10) each, one per core, in the asan
# stage's build (build-asan/: no second clang build); a crash fails CI (the input is saved under
# build-asan/fuzz-work/). SKIFF_FUZZ_CI=0 skips it. The harnesses' replay tests (fuzz-replay.*)
# run in both ctest stages above regardless. The long campaign is by hand: scripts/fuzz.sh --seconds 600 --jobs 2.
if [ "${SKIFF_FUZZ_CI:-1}" = 1 ]; then
  stage "fuzz"
  scripts/fuzz.sh --no-build --jobs "$(nproc)" --seconds "${SKIFF_FUZZ_SECONDS:-10}" || failed=1
fi

# arm64 (BlueField's cores): cross build, tests under qemu-user. SKIFF_SKIP_ARM64=1 skips it.
if [ "${SKIFF_SKIP_ARM64:-0}" != 1 ]; then
  stage "arm64"
  scripts/test-arm64.sh || failed=1
fi

if [ -n "$lab_pid" ]; then
  stage "lab tests (the rest)"
  lab_rc=0
  wait "$lab_pid" || lab_rc=$?
  lab_pid=""
  if [ -n "$lab_image_log" ] && [ -s "$lab_image_log" ]; then
    echo "-- lab image build output:"
    tail -n 20 "$lab_image_log"
  fi
  echo "-- lab tests output:"
  cat "$lab_log"
  if [ "$(wc -l <"$lab_times")" = 2 ]; then
    { read -r lab_t0; read -r lab_t1; } <"$lab_times"
    printf '== lab tests took %d:%02d, from minute %d, beside the fuzz and arm64 stages\n' \
      $(( (lab_t1 - lab_t0) / 60 )) $(( (lab_t1 - lab_t0) % 60 )) $(( (lab_t0 - start) / 60 ))
  fi
  [ $lab_rc = 0 ] || failed=1
  rm -f "$lab_log" "$lab_times"
fi
wait || true # the background image build, when the lab did not run
rm -f "$lab_image_log"

# Every test defined in a build runs in at least one stage (the table: scripts/test-inventory.sh --table).
stage "inventory"
scripts/test-inventory.sh || failed=1

exit "$failed"
