#!/usr/bin/env bash
# Lab test: skiff-target on the host, the Linux kernel initiator in the lab VM connecting with
# the options the host-target-tcp test does not use: header + data digests (CRC32C on every PDU),
# 2 I/O queues of depth 32, a 15 s keep-alive; then a fio crc32c verify, a disconnect, and
# a clean target exit (SIGTERM -> status 0).
#
#   tests/lab/kernel-initiator-options.sh      (from the checkout; scripts/lab-tests.sh runs it)
# Environment: SKIFF_TARGET (default build/bin/skiff-target), FIO_VERIFY_SIZE (default 4M),
# LAB_* knobs for tests/lab/vm/run. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
checkout="$(pwd)"
lab="$checkout/tests/lab/vm"
target="${SKIFF_TARGET:-$checkout/build/bin/skiff-target}"
nqn=nqn.2026-11.io.skiff:lab-options
me=kernel-initiator-options
port="$(tests/lab/vm/free-port)"
log="$(mktemp /tmp/skiff-lab-target-XXXXXX.log)"

"$target" --listen "127.0.0.1:$port" --discovery none --nqn "$nqn" --size 64MiB --log-level debug \
  >"$log" 2>&1 </dev/null &
tpid=$!
stop_target() {
  [ -n "$tpid" ] || return 0
  kill -TERM "$tpid" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$tpid" 2>/dev/null && kill -KILL "$tpid"
  wait "$tpid"
  local rc=$?
  tpid=""
  return $rc
}
trap 'stop_target >/dev/null 2>&1; rm -f "$log"' EXIT

# Up when it answers an ICReq with an ICResp (type 01h).
up=0
# shellcheck disable=SC2016  # $0 is expanded by the inner bash
for _ in $(seq 1 100); do
  if timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" || exit 1
      { printf "\x00\x00\x80\x00\x80\x00\x00\x00"; head -c 120 /dev/zero; } >&3
      r="$(head -c 1 <&3 | od -An -tx1 | tr -d " ")"; [ "$r" = 01 ]' "$port" 2>/dev/null; then up=1; break; fi
  kill -0 "$tpid" 2>/dev/null || break
  sleep 0.1
done
if [ $up != 1 ]; then
  echo "$me: skiff-target did not answer on 127.0.0.1:$port"; cat "$log"; echo "$me: FAIL"; exit 1
fi

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN SIZE" PORT="$port" NQN="$nqn" SIZE="${FIO_VERIFY_SIZE:-4M}" \
  LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -euo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
echo "== nvme connect --hdr-digest --data-digest --nr-io-queues 2 --queue-size 32 --keep-alive-tmo 15"
nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --hdr-digest --data-digest \
  --nr-io-queues 2 --queue-size 32 --keep-alive-tmo 15
dev=""
for _ in $(seq 1 100); do
  for d in /sys/class/nvme/nvme*; do
    grep -qx "$NQN" "$d/subsysnqn" 2>/dev/null || continue
    ctrl=$(basename "$d")
    for b in /dev/"$ctrl"n*; do [ -b "$b" ] && dev=$b; done
  done
  [ -n "$dev" ] && break; sleep 0.1
done
[ -n "$dev" ] || { echo "FAIL: no block device for $NQN"; exit 1; }
echo "controller $ctrl, block device $dev"
grep -q . "/sys/class/nvme/$ctrl/address" && cat "/sys/class/nvme/$ctrl/address"
queues=$(cat "/sys/class/nvme/$ctrl/queue_count")
echo "queues (admin + I/O): $queues, sqsize $(cat "/sys/class/nvme/$ctrl/sqsize")"
[ "$queues" = 3 ] || { echo "FAIL: expected the admin queue and 2 I/O queues"; exit 1; }
rc=0
lab_fio_verify "$dev" "$SIZE" || rc=$?
nvme disconnect -n "$NQN" || rc=1
exit $rc
'
rc=$?
stop_target; trc=$?
if [ $trc != 0 ]; then echo "$me: skiff-target exited with status $trc after SIGTERM (want 0)"; rc=1; fi
# Every guest connection (admin + 2 I/O) must have asked for both digests in its ICReq; the
# one ICReq without them is this script's readiness probe.
icreqs=$(($(grep -c "ICReq: .*digests" "$log") - 1))
with_digests=$(grep -cE "ICReq: .*digests hd=(1|true) dd=(1|true)" "$log")
echo "$me: $with_digests of $icreqs guest connections negotiated header and data digests"
if [ "$icreqs" != 3 ] || [ "$with_digests" != 3 ]; then
  echo "$me: expected 3 connections, all with both digests"; rc=1
fi
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
