#!/usr/bin/env bash
# The hostmem backend next to the null backend: starts skiff-target with each (hostmem behind a
# skiff-host exporting the namespace), drives it with host_load (skiff's initiator, loopback
# NVMe/TCP) and prints one row per backend. Numbers on a shared machine are noisy.
#   bench/hostmem-row.sh [build dir, default build] [seconds, default 3]
# Environment: BS (default 4096), QD (default 32), RW (default randread).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/bin"
seconds="${2:-3}"
bs="${BS:-4096}"; qd="${QD:-32}"; rw="${RW:-randread}"
nqn=nqn.2026-11.io.skiff:bench
channel="/tmp/skiff-bench-host-$$.sock"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -f "$channel"; }
trap cleanup EXIT

for f in skiff-target skiff-host host_load; do
  [[ -x "$bin/$f" ]] || { echo "missing $bin/$f: build it (cmake --build ${1:-build} --target $f)" >&2; exit 1; }
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Waits until the target's namespace answers a read (hostmem imports in the background).
run_row() {
  local backend=$1; shift
  local port; port=$(free_port)
  "$bin/skiff-target" --listen "127.0.0.1:$port" --discovery none --nqn "$nqn" --size 256MiB \
    --backend "$backend" "$@" --log-level warn &
  local tpid=$!; pids+=("$tpid")
  local out=""
  for _ in $(seq 1 100); do
    if out=$("$bin/host_load" --port "$port" --nqn "$nqn" --rw "$rw" --bs "$bs" --qd "$qd" --seconds "$seconds" 2>&1); then
      break
    fi
    out=""; sleep 0.2
  done
  [[ -n "$out" ]] || { echo "$backend: no successful run" >&2; exit 1; }
  printf '%-8s %s\n' "$backend" "$(echo "$out" | tail -1)"
  kill "$tpid"; wait "$tpid" || true
}

echo "# $rw bs=$bs qd=$qd ${seconds}s, loopback NVMe/TCP, skiff initiator (noisy: shared machine)"
run_row null
"$bin/skiff-host" --channel "$channel" --size 256MiB --log-level warn &
pids+=("$!")
run_row hostmem --hostmem-channel "$channel"
