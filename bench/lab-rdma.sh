#!/usr/bin/env bash
# bench/lab-rdma.sh: bench/run's lab rows (bench/run --lab). skiff-target runs INSIDE the lab guest
# (tests/lab/vm) on soft-RoCE (rxe0) with a null namespace, once on the poll data path and once
# on the dpa data path; the guest's kernel nvme-rdma initiator connects and runs the bench/fio
# jobs below against it. Appends one JSON line per row to OUT/rows.jsonl in bench/run's format
# (no TCP ceiling: "ceiling" is zero) and keeps fio's JSON in OUT/lab-<mode>-<job>.json.
#
#   bench/lab-rdma.sh OUT [runtime seconds, default 3] [ramp seconds, default 1] [row regex]
#
# The guest runs under TCG emulation on this machine's cores: the numbers compare the two data
# paths with each other under the same emulation; they say nothing about skiff's speed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$(cd "${1:?usage: $0 OUT [runtime] [ramp] [regex]}" && pwd)
runtime=${2:-3} ramp=${3:-1} rows_re=${4:-.}
lab="$root/tests/lab/vm"
target="$root/build/bin/skiff-target"
[ -x "$lab/run" ] || { echo "bench/lab-rdma: no lab at $lab" >&2; exit 1; }
[ -x "$target" ] || { echo "bench/lab-rdma: $target missing (build first)" >&2; exit 1; }

JOBS=(randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-128k-qd32 write-128k-qd32)
wanted=()
for mode in poll dpa; do
  for job in "${JOBS[@]}"; do
    [[ "lab-rdma-$mode-$job" =~ $rows_re ]] && wanted+=("$mode:$job")
  done
done
[ ${#wanted[@]} -gt 0 ] || { echo "bench/lab-rdma: no lab row matches '$rows_re'" >&2; exit 0; }

nqn=nqn.2026-11.io.skiff:bench-lab
# shellcheck disable=SC2016  # expanded in the guest
LAB_PASS_ENV="${LAB_PASS_ENV:-} BENCH_OUT BENCH_ROWS BENCH_TARGET BENCH_FIO BENCH_RUNTIME BENCH_RAMP BENCH_NQN" \
BENCH_OUT="$out" BENCH_ROWS="${wanted[*]}" BENCH_TARGET="$target" BENCH_FIO="$root/bench/fio" \
BENCH_RUNTIME="$runtime" BENCH_RAMP="$ramp" BENCH_NQN="$nqn" LAB_MEM="${LAB_MEM:-3G}" LAB_HOST_PORTS="" \
LAB_TIMEOUT="${LAB_TIMEOUT:-600}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
addr="$(lab_rxe_up)" || { echo "bench/lab-rdma: soft-RoCE did not come up"; exit 1; }
modprobe -a nvme-fabrics nvme-rdma
rc=0
for mode in poll dpa; do
  jobs=""
  for r in $BENCH_ROWS; do [ "${r%%:*}" = "$mode" ] && jobs="$jobs ${r#*:}"; done
  [ -n "$jobs" ] || continue
  setsid /lab/guest/host-libs "$BENCH_TARGET" --transport rdma --listen "$addr:4420" --discovery none \
    --nqn "$BENCH_NQN" --backend null --size 1GiB --cores 1 --datapath "$mode" --dpa-eus 1 --log-level warn \
    > "$BENCH_OUT/lab-skiff-target-$mode.log" 2>&1 < /dev/null &
  tpid=$!
  lab_wait_listen rdma "$addr" 4420 60 || { echo "bench/lab-rdma: $mode target did not listen"; rc=1; kill -- -$tpid; continue; }
  dev="$(lab_nvme_connect rdma "$addr" 4420 "$BENCH_NQN")" || { echo "bench/lab-rdma: connect ($mode) failed"; rc=1; kill -- -$tpid; continue; }
  for job in $jobs; do
    echo "bench/lab-rdma: $mode $job on $dev" >&2
    # The guest fio (3.33) refuses a top-level "include common.fio" in the job files: inline it.
    { cat "$BENCH_FIO/common.fio"; grep -v "^include " "$BENCH_FIO/$job.fio"; } > /tmp/$job.fio
    SKIFF_DEV=$dev SKIFF_RUNTIME=$BENCH_RUNTIME SKIFF_RAMP=$BENCH_RAMP \
      fio --output-format=json /tmp/$job.fio > "$BENCH_OUT/lab-$mode-$job.json" || rc=1
  done
  nvme disconnect -n "$BENCH_NQN" >/dev/null || rc=1
  kill -TERM -- -$tpid; wait $tpid 2>/dev/null
done
exit $rc
' || { echo "bench/lab-rdma: the lab run failed" >&2; exit 1; }

# fio JSON -> bench/run rows (the shape of skiff-perf --json that report.py reads).
for w in "${wanted[@]}"; do
  mode=${w%%:*} job=${w#*:}
  python3 - "$out/lab-$mode-$job.json" "lab-rdma-$mode-$job" "lab-rdma-$mode" >>"$out/rows.jsonl" <<'PY'
import json, sys
path, name, profile = sys.argv[1:4]
j = json.load(open(path))["jobs"][0]
side = j["read"] if j["read"]["io_bytes"] else j["write"]
clat = side["clat_ns"]
pct = clat.get("percentile", {})
us = lambda ns: ns / 1000.0
skiff = {"iops": side["iops"], "mib_s": side["bw"] / 1024.0,
         "latency_us": {"avg": us(clat["mean"]), "p50": us(pct.get("50.000000", 0)),
                        "p99": us(pct.get("99.000000", 0)), "p99.9": us(pct.get("99.900000", 0)),
                        "max": us(clat["max"])},
         "source": "fio in the TCG lab guest over rxe", "fio": j}
print(json.dumps({"name": name, "profile": profile, "skiff": skiff, "ceiling": {"iops": 0, "mib_s": 0}}))
PY
done
