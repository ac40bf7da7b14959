#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/, clang + ASan + UBSan, build-fuzz/) and runs each
# for a bounded time, then prints per harness: executions, coverage (cov = edges, ft = features,
# as libFuzzer counts them) and crashes. Exit status 1 when any harness crashed (or its
# sanitizers reported), so CI fails on a crash. Run with --help for the options.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: scripts/fuzz.sh [--seconds N] [--no-build] [--keep-going] [HARNESS...]

Builds build-fuzz/ (scripts/build.sh fuzz: clang-14, libFuzzer, ASan + UBSan) and runs every
harness of tests/fuzz/ (or only those named) for N seconds each (default 60), one after another.

  --seconds N    fuzzing time per harness (libFuzzer -max_total_time)
  --no-build     use build-fuzz/ as it is
  --keep-going   after a crash, keep fuzzing the same harness until its time is up
                 (libFuzzer -fork=1 -ignore_crashes=1), collecting every crash
  --list         print the harness names and exit
  -h, --help     this text

Each harness starts from its committed inputs (tests/fuzz/<harness>/corpus/ and regressions/)
plus what earlier runs found (build-fuzz/fuzz-work/<harness>/corpus/, where new inputs go).
A crashing input is saved as build-fuzz/fuzz-work/<harness>/crash-<sha1> (also timeout-, oom-,
leak-); the harness's full log is build-fuzz/fuzz-work/<harness>/log. To keep a crash as a
regression input once it is fixed, copy it to tests/fuzz/<harness>/regressions/: every normal
test run (ctest fuzz-replay.<harness>) replays it. Replay one input by hand:
  build-fuzz/bin/fuzz-<harness> path/to/input        (or build/bin/fuzz-<harness> in a gcc build)
Environment: SKIFF_FUZZ_LOG=1 keeps the target's logs (off by default, for speed).
USAGE
}

seconds=60
build=1
keep_going=0
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --no-build) build=0; shift ;;
    --keep-going) keep_going=1; shift ;;
    --list) for f in tests/fuzz/*.cpp; do n=$(basename "$f" .cpp); [ "$n" = replay_main ] || echo "$n"; done; exit 0 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
if [ ${#harnesses[@]} -eq 0 ]; then
  mapfile -t harnesses < <("$0" --list)
fi
for h in "${harnesses[@]}"; do
  [ -f "tests/fuzz/$h.cpp" ] || { echo "fuzz.sh: no harness $h (tests/fuzz/$h.cpp); --list names them" >&2; exit 2; }
done

if [ "$build" = 1 ]; then
  scripts/build.sh fuzz >/dev/null
fi
bin=build-fuzz/bin
work=build-fuzz/fuzz-work

# Every sanitizer report is fatal; leaks count as crashes too (libFuzzer checks after each input).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=1}"
# boost::lockfree's tagged free-list pointers look like leaks to LeakSanitizer: tests/fuzz/lsan.supp.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/fuzz/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

failed=0
results=()
for h in "${harnesses[@]}"; do
  [ -x "$bin/fuzz-$h" ] || { echo "fuzz.sh: $bin/fuzz-$h is not built" >&2; exit 2; }
  mkdir -p "$work/$h/corpus"
  rm -f "$work/$h"/crash-* "$work/$h"/timeout-* "$work/$h"/oom-* "$work/$h"/leak-* "$work/$h"/slow-unit-*
  inputs=("$work/$h/corpus" "tests/fuzz/$h/corpus")
  [ -d "tests/fuzz/$h/regressions" ] && inputs+=("tests/fuzz/$h/regressions")
  opts=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/$h/" -timeout=20
        -rss_limit_mb=3072 -max_len=65536)
  [ "$keep_going" = 1 ] && opts+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "== fuzz $h for ${seconds}s" >&2
  rc=0
  "$bin/fuzz-$h" "${opts[@]}" "${inputs[@]}" >"$work/$h/log" 2>&1 || rc=$?
  # libFuzzer's last status line ("#N ... cov: C ft: F ...") and its final statistics.
  # (|| true: a harness that fails on its first input prints no coverage line, and under pipefail
  # the missing match would end this script before it reports the failure.)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$h/log" | tail -n 1 | awk '{print $2}' || true)
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$work/$h/log" | tail -n 1 | tr -d '#' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$work/$h/log" | tail -n 1 | awk '{print $2}' || true)
  ft=$(grep -oE 'ft: [0-9]+' "$work/$h/log" | tail -n 1 | awk '{print $2}' || true)
  crashes=$(find "$work/$h" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi # died without an artifact
  results+=("$(printf '%-22s %12s %8s %8s %8s' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes")")
  if [ "$crashes" -ne 0 ]; then
    failed=1
    echo "!! $h crashed; log: $work/$h/log" >&2
    grep -E 'ERROR: |SUMMARY: |fuzz property broken|runtime error' "$work/$h/log" | head -n 5 >&2 || true
    find "$work/$h" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) \
      -printf '   input: %p\n' >&2
  fi
done

printf '%-22s %12s %8s %8s %8s\n' harness executions cov ft crashes
printf '%s\n' "${results[@]}"
exit "$failed"
