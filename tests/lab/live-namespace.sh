#!/usr/bin/env bash
# Lab test: live namespace management seen by the Linux kernel initiator. skiff-target runs on
# the host from a configuration file with a management socket; the guest connects (nvme-tcp)
# and keeps fio verify running on namespace 1; the host adds namespace 2 with skiff-ctl and the
# guest must see /dev/nvmeXn2 appear without reconnecting (the namespace-changed event makes
# the kernel rescan), then the host removes it and the guest must see it disappear; fio on
# namespace 1 must pass throughout.
#
# Host and guest take turns through marker files in a folder both see (the lab shares the
# checkout at the same path): guest "connected" -> host adds -> "added" -> guest
# "seen-added" -> host removes -> "removed" -> guest checks, stops fio, disconnects. Every wait
# is a bounded poll, never a sleep-and-hope.
#
#   tests/lab/live-namespace.sh        (scripts/lab-tests.sh runs it)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-live
me=live-namespace
port="$(lab_free_port)"
lab_work_dir live # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFLIVE1", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN WORK" PORT="$port" NQN="$nqn" WORK="$work" \
  LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --nr-io-queues 2 || exit 1
ctrl=""
lab_wait_for "for d in /sys/class/nvme/nvme*; do grep -qx \"\$NQN\" \$d/subsysnqn 2>/dev/null && ctrl=\$(basename \$d); done; [ -n \"\$ctrl\" ] && [ -b /dev/\${ctrl}n1 ]" \
  || { echo "FAIL: no /dev/nvmeXn1"; exit 1; }
echo "controller $ctrl"; nvme list
( while [ ! -e "$WORK/stop" ]; do lab_fio_verify /dev/${ctrl}n1 2M >"/tmp/fio.log" 2>&1 || { cat /tmp/fio.log; exit 1; }; echo pass >>/tmp/fio.passes; done ) &
fio_pid=$!
rc=0
touch "$WORK/connected"
lab_wait_for "[ -e $WORK/added ]" || { echo "FAIL: the host never added namespace 2"; rc=1; }
if lab_wait_for "[ -b /dev/${ctrl}n2 ]"; then echo "== namespace 2 appeared without reconnecting"; nvme list
else echo "FAIL: /dev/${ctrl}n2 did not appear"; rc=1; fi
touch "$WORK/seen-added"
lab_wait_for "[ -e $WORK/removed ]" || { echo "FAIL: the host never removed namespace 2"; rc=1; }
if lab_wait_for "[ ! -e /dev/${ctrl}n2 ]"; then echo "== namespace 2 disappeared"; nvme list
else echo "FAIL: /dev/${ctrl}n2 is still there"; rc=1; fi
touch "$WORK/stop"
wait $fio_pid || { echo "FAIL: fio verify on namespace 1 failed"; rc=1; }
passes=$(cat /tmp/fio.passes 2>/dev/null | wc -l)
echo "fio verify passes on namespace 1 while namespace 2 came and went: $passes"
[ "$passes" -ge 1 ] || { echo "FAIL: no fio verify pass completed"; rc=1; }
[ -b /dev/${ctrl}n1 ] || { echo "FAIL: namespace 1 went away"; rc=1; }
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
rc=0
if wait_file "$work/connected" 1800; then
  "$ctl" --socket "$sock" namespace add "$nqn" --nsid 2 --kind ram --size 32MiB || rc=1
  touch "$work/added"
  if wait_file "$work/seen-added" 1800; then
    "$ctl" --socket "$sock" controllers | head -n 40
    "$ctl" --socket "$sock" namespace remove "$nqn" 2 || rc=1
    touch "$work/removed"
  fi
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
