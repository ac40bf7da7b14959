#!/usr/bin/env bash
# Runs the skiff fio matrix against a kernel-connected NVMe-oF namespace and prints one line per
# row (IOPS, MiB/s, mean and p99 completion latency).
#   bench/fio/run-matrix.sh /dev/nvme1n1 [runtime seconds, default 10] [ramp seconds, default 2]
# The write rows overwrite the device: use a namespace whose data you do not need.
set -euo pipefail
dev=${1:?usage: $0 /dev/nvmeXnY [runtime-seconds] [ramp-seconds]}
export SKIFF_DEV=$dev SKIFF_RUNTIME=${2:-10} SKIFF_RAMP=${3:-2}
cd "$(dirname "$0")"
[ -b "$dev" ] || { echo "run-matrix: $dev is not a block device" >&2; exit 1; }
command -v fio >/dev/null || { echo "run-matrix: fio is not installed (apt-get install fio)" >&2; exit 1; }
printf '%-20s %10s %10s %9s %9s\n' row IOPS MiB/s avg-us p99-us
for job in randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd1 randwrite-4k-qd32 read-128k-qd32 write-128k-qd32; do
  fio --output-format=json "$job.fio" | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
side = j["read"] if j["read"]["io_bytes"] else j["write"]
clat = side["clat_ns"]
p99 = clat.get("percentile", {}).get("99.000000", 0) / 1000
iops, mibs, avg = side["iops"], side["bw"] / 1024, clat["mean"] / 1000
print("%-20s %10.0f %10.1f %9.1f %9.1f" % (sys.argv[1], iops, mibs, avg, p99))
' "$job"
done
