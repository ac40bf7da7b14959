#!/usr/bin/env bash
# Which CI stage runs which test. Every ctest test that any built flavour defines is listed with
# the stages whose selection includes it (each stage's ctest selection, as scripts/test.sh and
# scripts/test-arm64.sh make it), then the fuzz harnesses (fuzz stage) and the lab tests (lab
# stage). Exit status 1 when a test is run by no stage: a test that is defined but never run
# cannot catch anything. Run with --help for the options.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: scripts/test-inventory.sh [--table] [--quiet]

Reads the build folders that exist (build/ release, build-asan/ ASan + UBSan, build-arm64/
aarch64 under qemu-user) with `ctest -N`, applies each stage's selection (arm64 leaves out
tests/arm64-excluded.txt), and prints the tests per stage. A stage whose folder is missing (not
built yet, or skipped with SKIFF_SKIP_ARM64=1) is reported as such and runs nothing.

  --table   also print every test with the stages that run it (test<TAB>stages)
  --quiet   print only the problems
  -h, --help  this text

Exit status: 0 when every test runs in at least one stage, 1 otherwise (the tests are named).
USAGE
}

table=0 quiet=0
for arg in "$@"; do
  case "$arg" in
    --table) table=1 ;;
    --quiet) quiet=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test-inventory: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/skiff-inventory-XXXXXX")
trap 'rm -rf "$work"' EXIT

# The test names `ctest -N` lists in folder $1 with the remaining arguments as the selection.
ctest_names() {
  local dir=$1; shift
  ctest --test-dir "$dir" -N "$@" 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: //p' | sort -u
}

arm64_exclusions=$(grep -v -e '^#' -e '^[[:space:]]*$' tests/arm64-excluded.txt | paste -sd '|')

# stage name, build folder, ctest selection arguments
stages=("release|build|" "asan|build-asan|" "arm64|build-arm64|-E|$arm64_exclusions")
: >"$work/defined"
for entry in "${stages[@]}"; do
  IFS='|' read -r name dir sel_flag sel_value <<<"$entry"
  if [ ! -f "$dir/CTestTestfile.cmake" ]; then
    echo "test-inventory: stage $name: $dir/ is not built, it runs nothing here" >&2
    : >"$work/$name"
    continue
  fi
  ctest_names "$dir" >>"$work/defined"
  if [ -n "$sel_flag" ]; then
    ctest_names "$dir" "$sel_flag" "$sel_value" >"$work/$name"
  else
    ctest_names "$dir" >"$work/$name"
  fi
done
sort -u -o "$work/defined" "$work/defined"

# The fuzz stage runs every harness (scripts/fuzz.sh --list); the lab stage every default lab test.
scripts/fuzz.sh --list | sed 's/^/fuzz harness /' | sort -u >"$work/fuzz"
if [ -x scripts/lab-tests.sh ] && scripts/lab-tests.sh --list >/dev/null 2>&1; then
  scripts/lab-tests.sh --list | sed 's/^/lab test /' | sort -u >"$work/lab"
else
  : >"$work/lab"
fi
cat "$work/fuzz" "$work/lab" >>"$work/defined"

# test<TAB>stages, in the order of the stages; NONE when no stage runs it.
awk -v dir="$work" 'BEGIN {
    n = split("release asan arm64 fuzz lab", stage, " ")
    for (i = 1; i <= n; i++) while ((getline t < (dir "/" stage[i])) > 0) runs[stage[i], t] = 1
  }
  {
    where = ""
    for (i = 1; i <= n; i++) if ((stage[i], $0) in runs) where = where (where == "" ? "" : ", ") stage[i]
    print $0 "\t" (where == "" ? "NONE" : where)
  }' "$work/defined" >"$work/table"
missing=$(grep -c $'\tNONE$' "$work/table" || true)
grep $'\tNONE$' "$work/table" | cut -f1 | sed 's/^/test-inventory: runs in no stage: /' >&2 || true

if [ "$quiet" = 0 ]; then
  [ "$table" = 1 ] && cat "$work/table"
  echo "== tests per stage"
  for name in release asan arm64 fuzz lab; do
    printf '%-8s %5d\n' "$name" "$(wc -l <"$work/$name")"
  done
  printf '%-8s %5d (defined: %d ctest tests, fuzz harnesses and lab tests)\n' "in none" "$missing" "$(wc -l <"$work/defined")"
fi
[ "$missing" = 0 ]
