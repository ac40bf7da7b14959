#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/, clang + ASan + UBSan, build-asan/) and runs each
# for a bounded time, then prints per harness: executions, coverage (cov = edges, ft = features,
# as libFuzzer counts them) and crashes. Exit status 1 when any harness crashed (or its
# sanitizers reported), so CI fails on a crash. Run with --help for the options.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: scripts/fuzz.sh [--seconds N] [--jobs N] [--no-build] [--keep-going] [HARNESS...]

Builds the harnesses in build-asan/ (scripts/build.sh fuzz: clang-14, libFuzzer, ASan + UBSan; the
same build as scripts/build.sh asan, which also builds the tests) and runs every harness of
tests/fuzz/ (or only those named) for N seconds each (default 60), --jobs of them at a time
(default 1: one after another).

  --seconds N    fuzzing time per harness (libFuzzer -max_total_time)
  --jobs N       harnesses fuzzing at once, each one process on its own core (default 1). The
                 wall time is about ceil(harnesses / N) x seconds: eight harnesses at 600 s
                 take 80 min with --jobs 1, 40 min with --jobs 2 on a 2-core machine.
                 More jobs than cores only share the cores: each harness then runs fewer inputs.
  --no-build     use build-asan/ as it is (CI: the asan stage built it)
  --keep-going   after a crash, keep fuzzing the same harness until its time is up
                 (libFuzzer -fork=1 -ignore_crashes=1), collecting every crash
  --list         print the harness names and exit
  -h, --help     this text

Each harness starts from its committed inputs (tests/fuzz/<harness>/corpus/ and regressions/)
plus what earlier runs found (build-asan/fuzz-work/<harness>/corpus/, where new inputs go).
A crashing input is saved as build-asan/fuzz-work/<harness>/crash-<sha1> (also timeout-, oom-,
leak-); the harness's full log is build-asan/fuzz-work/<harness>/log. To keep a crash as a
regression input once it is fixed, copy it to tests/fuzz/<harness>/regressions/: every normal
test run (ctest fuzz-replay.<harness>) replays it. Replay one input by hand:
  build-asan/bin/fuzz-<harness> path/to/input        (or build/bin/fuzz-<harness> in a gcc build)
Environment: SKIFF_FUZZ_LOG=1 keeps the target's logs (off by default, for speed).
USAGE
}

seconds=60
jobs=1
build=1
keep_going=0
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --no-build) build=0; shift ;;
    --keep-going) keep_going=1; shift ;;
    --list) for f in tests/fuzz/*.cpp; do n=$(basename "$f" .cpp); [ "$n" = replay_main ] || echo "$n"; done; exit 0 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: --seconds wants a whole number, got '$seconds'" >&2; exit 2 ;; esac
case "$jobs" in ''|0|*[!0-9]*) echo "fuzz.sh: --jobs wants a number of 1 or more, got '$jobs'" >&2; exit 2 ;; esac
if [ ${#harnesses[@]} -eq 0 ]; then
  mapfile -t harnesses < <("$0" --list)
fi
for h in "${harnesses[@]}"; do
  [ -f "tests/fuzz/$h.cpp" ] || { echo "fuzz.sh: no harness $h (tests/fuzz/$h.cpp); --list names them" >&2; exit 2; }
done

if [ "$build" = 1 ]; then
  scripts/build.sh fuzz >/dev/null
fi
bin=build-asan/bin
work=build-asan/fuzz-work

# Every sanitizer report is fatal; leaks count as crashes too (libFuzzer checks after each input).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=1}"
# boost::lockfree's tagged free-list pointers look like leaks to LeakSanitizer: tests/fuzz/lsan.supp.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/fuzz/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# Fuzzes one harness and writes its summary row to $work/<harness>/summary (and, when it crashed,
# what it found to stderr). Runs in the background for --jobs, so it shares nothing but files.
fuzz_one() {
  local h="$1" rc=0 execs cov ft crashes
  mkdir -p "$work/$h/corpus"
  rm -f "$work/$h"/crash-* "$work/$h"/timeout-* "$work/$h"/oom-* "$work/$h"/leak-* "$work/$h"/slow-unit-* "$work/$h/summary"
  local inputs=("$work/$h/corpus" "tests/fuzz/$h/corpus")
  [ -d "tests/fuzz/$h/regressions" ] && inputs+=("tests/fuzz/$h/regressions")
  local opts=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/$h/" -timeout=20
              -rss_limit_mb=3072 -max_len=65536)
  [ "$keep_going" = 1 ] && opts+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "== fuzz $h for ${seconds}s" >&2
  "$bin/fuzz-$h" "${opts[@]}" "${inputs[@]}" >"$work/$h/log" 2>&1 || rc=$?
  # libFuzzer's last status line ("#N ... cov: C ft: F ...") and its final statistics.
  # (|| true: a harness that fails on its first input prints no coverage line, and under pipefail
  # the missing match would end this function before it reports the failure.)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$h/log" | tail -n 1 | awk '{print $2}' || true)
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$work/$h/log" | tail -n 1 | tr -d '#' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$work/$h/log" | tail -n 1 | awk '{print $2}' || true)
  ft=$(grep -oE 'ft: [0-9]+' "$work/$h/log" | tail -n 1 | awk '{print $2}' || true)
  crashes=$(find "$work/$h" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi # died without an artifact
  printf '%-22s %12s %8s %8s %8s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes" >"$work/$h/summary"
  if [ "$crashes" -ne 0 ]; then
    {
      echo "!! $h crashed; log: $work/$h/log"
      grep -E 'ERROR: |SUMMARY: |fuzz property broken|runtime error' "$work/$h/log" | head -n 5 || true
      find "$work/$h" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) \
        -printf '   input: %p\n'
    } >&2
  fi
}

for h in "${harnesses[@]}"; do
  [ -x "$bin/fuzz-$h" ] || { echo "fuzz.sh: $bin/fuzz-$h is not built" >&2; exit 2; }
done
# At most $jobs harnesses at once; the next starts as soon as one ends.
running=0
for h in "${harnesses[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$h" &
  running=$((running + 1))
done
wait

failed=0
printf '%-22s %12s %8s %8s %8s\n' harness executions cov ft crashes
for h in "${harnesses[@]}"; do
  if [ -f "$work/$h/summary" ]; then
    cat "$work/$h/summary"
    [ "$(awk '{print $5}' "$work/$h/summary")" = 0 ] || failed=1
  else
    printf '%-22s %12s %8s %8s %8s\n' "$h" '?' '?' '?' 'no run'
    failed=1
  fi
done
exit "$failed"
