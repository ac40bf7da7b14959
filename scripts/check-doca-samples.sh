#!/usr/bin/env bash
# Builds NVIDIA's DOCA samples against skiff's DOCA headers and links them with libskiff-core, the
# way a DOCA user's program would be: nothing of NVIDIA's is committed here, the samples are a
# checkout of github.com/NVIDIA-DOCA/doca-samples that the developer fetched. Run with --help.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: scripts/check-doca-samples.sh [--run] [--build-dir DIR] SAMPLES_CHECKOUT [SAMPLE...]

SAMPLES_CHECKOUT is a checkout of NVIDIA's doca-samples (the folder holding samples/ and
applications/; DOCA 2.10 and 3.3 are the releases checked so far). Each sample of the libraries
skiff implements on the host (doca_common, doca_dma, doca_comch, doca_rdma) is compiled from
its own sources, its library's common files, samples/common.c and applications/common/utils.c,
with skiff's headers (core/include), and linked against DIR/lib/libskiff-core.so (DIR default:
build, which scripts/build.sh makes). The DPA samples are left out: their device code needs
NVIDIA's dpacc (skiff's own DPA programs go through core/tools/skiff-dpacc instead).

  SAMPLE...         only these samples (folder names such as dma_local_copy)
  --run             also run the samples that need no peer and no argument (the doca_common
                    programs and dma_local_copy) on the emulated topology's DPU PF p0
  --build-dir DIR   the skiff build folder to link against (default: build)
  -h, --help        this text

Prints one line per sample (compiled, linked, ran) and the symbols a failed link misses; exit
status 1 when any sample failed.
USAGE
}

build_dir=build run=0 checkout="" only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --run) run=1 ;;
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "check-doca-samples: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) if [ -z "$checkout" ]; then checkout="$1"; else only+=("$1"); fi ;;
  esac
  shift
done
[ -n "$checkout" ] || { usage >&2; exit 2; }
[ -d "$checkout/samples" ] || { echo "check-doca-samples: $checkout has no samples/ folder" >&2; exit 2; }
lib="$build_dir/lib/libskiff-core.so"
[ -e "$lib" ] || { echo "check-doca-samples: $lib is missing (scripts/build.sh first)" >&2; exit 2; }

out="$(mktemp -d "${TMPDIR:-/tmp}/skiff-doca-samples-XXXXXX")"
trap 'rm -rf "$out"' EXIT
samples="$checkout/samples"
# The programs of the samples' utils.c and argp use only libc, libm and pthreads besides DOCA.
cflags=(-std=gnu11 -O0 -w -DDOCA_ALLOW_EXPERIMENTAL_API -Icore/include -I"$checkout" -I"$samples" -I"$checkout/applications/common")
ldflags=(-L"$build_dir/lib" -lskiff-core "-Wl,-rpath,$(cd "$build_dir/lib" && pwd)" -lm -pthread)
# Samples that run alone (no peer process), with the arguments they need on the emulated
# topology's DPU PF p0 (03:00.0); the doca_common ones take none.
declare -A run_args=(
  [cache_invalidate]="" [graph]="" [pe_async_stop]="" [pe_event]="" [pe_multi_context]="" [pe_polling]=""
  [pe_reactive]="" [pe_single_task_comp_cb]="" [pe_task_error]="" [pe_task_resubmit]=""
  [pe_task_try_submit]="" [dma_local_copy]="-p 03:00.0"
  [clock_cross_timestamp]="-p 03:00.0 -c host_mon_raw -n nic_fr"
)

# A sample's sources as its meson.build.public lists them (sample_srcs, SAMPLE_NAME replaced,
# paths relative to the sample's folder); without that file, its folder's, its library's and the
# samples' common files.
sample_sources() { # sample_sources DIR NAME
  local dir="$1" name="$2" line
  if [ -f "$dir/meson.build.public" ]; then
    sed -n '/^sample_srcs = \[/,/^\]/p' "$dir/meson.build.public" | grep -v '^[[:space:]]*#' |
      grep -o "\(SAMPLE_NAME + \)\?'[^']*'" | while read -r line; do
        line="${line//SAMPLE_NAME + /$name}"
        line="${line//\'/}"
        echo "$dir/$line"
      done
  else
    printf '%s\n' "$dir"/*.c "$dir"/../*.c "$samples/common.c"
  fi
}

passed=0 failed=0 failed_names=()
for library in doca_common doca_dma doca_comch doca_rdma; do
  [ -d "$samples/$library" ] || continue
  for dir in "$samples/$library"/*/; do
    name="$(basename "$dir")"
    [ -f "$dir/${name}_main.c" ] || continue
    if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then continue; fi
    mapfile -t sources < <(sample_sources "$dir" "$name")
    # A DPU program unless it is the host half of a pair (NVIDIA's meson defines DOCA_ARCH_DPU when
    # it builds on the DPU; the emulated topology runs both sides on this machine).
    arch=(-DDOCA_ARCH_DPU)
    [[ "$name" != *_host ]] || arch=()
    log="$out/$name.log"
    if ! cc "${cflags[@]}" "${arch[@]}" -I"$samples/$library" -I"$dir" "${sources[@]}" "${ldflags[@]}" -o "$out/$name" >"$log" 2>&1; then
      missing="$(grep -o "undefined reference to \`[a-z_0-9]*'" "$log" | sort -u | sed "s/undefined reference to //; s/[\`']//g" | tr '\n' ' ' || true)"
      if [ -n "$missing" ]; then echo "FAIL $library/$name: does not link, missing: $missing"
      else echo "FAIL $library/$name: does not compile:"; grep -m 5 "error" "$log" | sed 's/^/    /' || true; fi
      failed=$((failed + 1)); failed_names+=("$name"); continue
    fi
    if [ $run = 1 ] && [ -n "${run_args[$name]+set}" ]; then
      # shellcheck disable=SC2086  # the arguments are words
      if (cd "$out" && SKIFF_SIDE=dpu timeout 60 "./$name" ${run_args[$name]} >"$log" 2>&1); then
        echo "PASS $library/$name: linked, ran (exit 0)"
      else
        echo "FAIL $library/$name: linked, but exited $? when run:"; tail -n 5 "$log" | sed 's/^/    /'
        failed=$((failed + 1)); failed_names+=("$name"); continue
      fi
    else
      echo "PASS $library/$name: compiled and linked"
    fi
    passed=$((passed + 1))
  done
done
echo "check-doca-samples: $passed passed, $failed failed${failed_names:+ (${failed_names[*]})}"
[ $failed = 0 ]
