#!/usr/bin/env bash
# Lab test: injected errors seen by the Linux kernel initiator. skiff-target serves namespace 1
# on an `error` backend (over RAM) and namespace 2 on plain RAM; the guest connects (nvme-tcp).
#   1. the host arms one Unrecovered Read Error (0x281) with Do Not Retry: the guest's direct
#      read of namespace 1 fails (Linux maps media errors to ENODATA, "No data available") and
#      the kernel logs the status (sct 0x2 / sc 0x81);
#   2. one Unrecovered Read Error without DNR: the kernel retries and the read succeeds;
#   3. one Write Fault (0x280) with DNR: fio writing namespace 1 reports the error;
#   4. fio verify on namespace 2 passes throughout; namespace 1 passes fio verify once disarmed.
# The host checks the target's own count of injected errors after each step (skiff-ctl).
#
# Host and guest take turns through marker files in a folder both see (as live-namespace.sh).
#
#   tests/lab/error-inject.sh        (for scripts/lab-tests.sh)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-errinj
me=error-inject
port="$(lab_free_port)"
lab_work_dir errinj # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "flaky", "kind": "error", "base": {"kind": "ram", "size": "64MiB"}},
               {"name": "steady", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFERRINJ1",
                  "namespaces": [{"nsid": 1, "backend": "flaky"}, {"nsid": 2, "backend": "steady"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port}],
  "discovery": null
}
JSON

lab_target_start
injected() { # injected OP -> how many commands of OP the target failed so far (disarms OP)
  "$ctl" --socket "$sock" error-inject flaky --op "$1" --count 0 \
    | python3 -c "import json, sys; print(json.load(sys.stdin)['armed']['$1']['injected'])"
}
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN WORK" PORT="$port" NQN="$nqn" WORK="$work" \
  LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
turn() { touch "$WORK/$1"; lab_wait_for "[ -e $WORK/$2 ]" || { echo "FAIL: the host never did $2"; exit 1; }; }
nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --nr-io-queues 2 || exit 1
ctrl=""
lab_wait_for "for d in /sys/class/nvme/nvme*; do grep -qx \"\$NQN\" \$d/subsysnqn 2>/dev/null && ctrl=\$(basename \$d); done; [ -n \"\$ctrl\" ] && [ -b /dev/\${ctrl}n2 ]" \
  || { echo "FAIL: no /dev/nvmeXn1 and n2"; exit 1; }
n1=/dev/${ctrl}n1; n2=/dev/${ctrl}n2
echo "controller $ctrl"; nvme list
( lab_fio_verify $n2 8M >/tmp/fio2.log 2>&1 || { cat /tmp/fio2.log; exit 1; } ) &
fio2=$!
rc=0
read_one() { dd if=$n1 of=/dev/null bs=4k count=1 skip=$1 iflag=direct 2>&1; }

turn connected read-dnr-armed
dmesg -C
if out=$(read_one 100); then echo "FAIL: the read with an injected Unrecovered Read Error (DNR) succeeded"; rc=1
else echo "== read failed as injected: $out"; fi
dmesg | grep -iE "sc 0x81|Unrecovered Read Error" || { echo "FAIL: the kernel did not log the status"; dmesg | tail; rc=1; }

turn read-dnr-done read-retry-armed
if out=$(read_one 200); then echo "== read succeeded after the kernel retried the injected error"
else echo "FAIL: the read without DNR was not retried: $out"; rc=1; fi

turn read-retry-done write-armed
if fio --eta=never --filename=$n1 --ioengine=libaio --direct=1 --name=w --rw=write --bs=4k --size=64k \
     >/tmp/fiow.log 2>&1; then echo "FAIL: fio wrote through an injected Write Fault"; cat /tmp/fiow.log; rc=1
else echo "== fio reports the injected error:"; grep -iE "err=|error" /tmp/fiow.log | head -n 3; fi

turn write-done disarmed
lab_fio_verify $n1 8M || { echo "FAIL: fio verify on namespace 1 after the injections"; rc=1; }
wait $fio2 || { echo "FAIL: fio verify on namespace 2 failed while namespace 1 had errors"; rc=1; }
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
rc=0
step() { # step GUEST_MARKER HOST_MARKER CTL_ARGS...: wait for the guest, act, tell it
  local mine=$2 theirs=$1; shift 2
  wait_file "$work/$theirs" 1800 || { rc=1; return 1; }
  "$ctl" --socket "$sock" "$@" >/dev/null || rc=1
  touch "$work/$mine"
}
expect_injected() { # expect_injected OP N
  local n; n="$(injected "$1")"
  [ "$n" = "$2" ] || { echo "$me: the target failed $n ${1}s, expected $2"; rc=1; }
}
# (expect_injected re-arms OP with count 0: only once the guest is done with OP.)
if step connected read-dnr-armed error-inject flaky --op read --count 1 --status 0x281 --dnr \
  && step read-dnr-done read-retry-armed error-inject flaky --op read --count 1 --status 0x281 \
  && step read-retry-done write-armed error-inject flaky --op write --count 1 --status 0x280 --dnr; then
  expect_injected read 2 # one per armed read: the retried read failed once, then succeeded
  if step write-done disarmed error-inject flaky --op write --count 0; then expect_injected write 1; fi
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
