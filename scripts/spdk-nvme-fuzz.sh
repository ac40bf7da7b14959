#!/usr/bin/env bash
# By hand, not in CI (it needs SPDK): SPDK's nvme_fuzz in its full mode (random admin and I/O
# commands, -a) against skiff-target's default configuration, then verified I/O. Passes when no
# command timed out, the target is still running and a verified read/write run succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: scripts/spdk-nvme-fuzz.sh [--seconds N] [--valid-ns] [--port PORT] [--logs DIR] [SEED...]

Starts build/bin/skiff-target (its default: 1 GiB RAM namespace in nqn.2026-11.io.skiff:default,
NVMe/TCP on 127.0.0.1:PORT, log level debug), runs SPDK's nvme_fuzz -a for N seconds (default 60)
once per SEED (default: 1 2 3) against it, and after each run checks that
  - nvme_fuzz reported no timed-out command ("An I/O queue has timed out" / "An Admin queue ..."),
  - skiff-target is still running,
  - skiff-perf --verify (randrw, 4 KiB, QD 16, 5 s) completes without a mismatch.
Exit status 1 when any check fails.

  --seconds N   nvme_fuzz run time per seed (-t)
  --valid-ns    give every command the namespace's NSID (nvme_fuzz -N); without it the NSID is
                random too (its low byte is also the FCTYPE of the Fabrics commands, opcode 7Fh)
  --port PORT   the target's NVMe/TCP port (default 4420)
  --logs DIR    where the target's and nvme_fuzz's logs go (default build/spdk-nvme-fuzz/);
                nvme_fuzz's stderr (one NOTICE line per command, ~9 MB/s) goes there too
  -h, --help    this text

SPDK v24.01 is built outside the repository (SPDK_DIR, default ../spdk); how to build it:
the project's shared anchors README (spdk/README.md). nvme_fuzz needs -U without an IOMMU and
--no-huge without hugepages; it runs on core 1 (-m 0x2), the target on the others.
USAGE
}

seconds=60 port=4420 logs=build/spdk-nvme-fuzz seeds=() valid_ns=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --valid-ns) valid_ns=(-N); shift ;;
    --port) port="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    *) seeds+=("$1"); shift ;;
  esac
done
[[ ${#seeds[@]} -gt 0 ]] || seeds=(1 2 3)

spdk="${SPDK_DIR:-../spdk}"
fuzz="$spdk/test/app/fuzz/nvme_fuzz/nvme_fuzz"
[[ -x "$fuzz" ]] || { echo "no nvme_fuzz at $fuzz: build SPDK there or set SPDK_DIR" >&2; exit 2; }
[[ -x build/bin/skiff-target && -x build/bin/skiff-perf ]] || { echo "build first: scripts/build.sh release" >&2; exit 2; }
export LD_LIBRARY_PATH="$spdk/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$logs"
nqn=nqn.2026-11.io.skiff:default

build/bin/skiff-target --listen "127.0.0.1:$port" --discovery none --management-socket none \
  --log-level debug >"$logs/target.log" 2>&1 &
target=$!
trap 'kill "$target" 2>/dev/null || true; wait "$target" 2>/dev/null || true' EXIT
sleep 1

failed=0
for seed in "${seeds[@]}"; do
  out="$logs/nvme_fuzz-$seed.out" err="$logs/nvme_fuzz-$seed.err"
  # Bounded: a run whose queue timed out may never exit on its own.
  timeout $((seconds + 60)) "$fuzz" -m 0x2 --no-huge -s 512 -u -U -r "/tmp/skiff_nvme_fuzz_$port.sock" \
    -t "$seconds" -S "$seed" "${valid_ns[@]}" -a \
    -F "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:$port subnqn:$nqn" >"$out" 2>"$err" || true
  echo "seed $seed:"
  grep "Total commands completed" "$out" | sed 's/^/  /' || true
  if grep -q "queue has timed out" "$err"; then
    echo "  FAIL: a command timed out (outstanding commands dumped in $err)"; failed=1
  fi
  if ! kill -0 "$target" 2>/dev/null; then
    echo "  FAIL: skiff-target is gone (log: $logs/target.log)"; exit 1
  fi
  if build/bin/skiff-perf --addr 127.0.0.1 --port "$port" --nqn "$nqn" --rw randrw --bs 4k --qd 16 \
       --time 5s --ramp 0 --verify >"$logs/verify-$seed.out" 2>&1; then
    echo "  verified I/O: $(grep -m1 "^randrw" "$logs/verify-$seed.out"); $(grep -m1 "^verify:" "$logs/verify-$seed.out")"
  else
    echo "  FAIL: verified I/O failed ($logs/verify-$seed.out)"; failed=1
  fi
done
exit "$failed"
