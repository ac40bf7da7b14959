#!/usr/bin/env bash
# Lab test: NVMe reservations from two kernel-initiator identities in one guest. skiff-target
# runs on the host with a RAM namespace whose reservations persist through power loss
# (ptpl_file). The guest boots with nvme_core.multipath=N so that each connection is its own
# block device, and connects twice with different --hostnqn / --hostid (host A and host B),
# each through its own listener of the target. Then, with nvme-cli:
# both register (A with PTPL on), A acquires Write Exclusive, resv-report from each shows A as
# the holder and both registrants; B's write fails with Reservation Conflict while B's read
# succeeds and A's write succeeds; B preempts A (the reservation moves to B, A's registration is
# gone, so A's write now conflicts and B's succeeds). The host restarts skiff-target; after the
# kernel reconnects, resv-report from each host is the same as before the restart (controller
# ids aside: the new associations get new ones).
#
#   tests/lab/reservations.sh        (scripts/lab-tests.sh reservations)
# Environment: SKIFF_TARGET (default build/bin/skiff-target), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-resv
me=reservations
# One listener per host identity: nvme-cli 2.4 (libnvme) refuses a second controller to the same
# address, port and subsystem ("already connected", even with --duplicate-connect and another
# host NQN), so host B connects through the second listener.
port="$(lab_free_port)"
port_b="$(lab_free_port)"
lab_work_dir resv # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 1, "management_socket": "none"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "16MiB"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFRESV1",
                  "namespaces": [{"nsid": 1, "backend": "ram1", "ptpl_file": "$work/ns1.resv"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port},
                {"trtype": "tcp", "addr": "127.0.0.1", "port": $port_b}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_port "$port" || lab_target_failed "skiff-target did not listen on $port"

# shellcheck disable=SC2016  # expanded in the guest
LAB_CMDLINE="${LAB_CMDLINE:-} nvme_core.multipath=N" LAB_HOST_PORTS="$port $port_b" LAB_PASS_ENV="PORT PORT_B NQN WORK" \
  PORT="$port" PORT_B="$port_b" NQN="$nqn" WORK="$work" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" "$lab/run" '
set -uo pipefail
modprobe -a nvme-fabrics nvme-tcp
. /lab/guest/functions.sh
echo "nvme_core.multipath=$(cat /sys/module/nvme_core/parameters/multipath)"
ida=7d1e0a52-3c4b-4e6f-8a9b-1c2d3e4f5a01 idb=7d1e0a52-3c4b-4e6f-8a9b-1c2d3e4f5a02
hosta=nqn.2014-08.org.nvmexpress:uuid:$ida hostb=nqn.2014-08.org.nvmexpress:uuid:$idb
for h in "$hosta $ida $PORT" "$hostb $idb $PORT_B"; do
  set -- $h
  nvme connect -t tcp -a 10.0.2.100 -s "$3" -n "$NQN" --hostnqn "$1" --hostid "$2" --nr-io-queues 1 \
    --keep-alive-tmo 30 --reconnect-delay 1 || { echo "FAIL: nvme connect as $1"; exit 1; }
done
# The block device of the connection made as host NQN $1.
dev_of() {
  local c
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat $c/hostnqn 2>/dev/null)" = "$1" ] && [ -b /dev/${c##*/}n1 ] && { echo /dev/${c##*/}n1; return 0; }
  done
  return 1
}
lab_wait_for "dev_of $hosta >/dev/null && dev_of $hostb >/dev/null" || { echo "FAIL: two block devices expected"; nvme list; exit 1; }
a=$(dev_of $hosta); b=$(dev_of $hostb)
echo "host A: $a, host B: $b"; nvme list
head -c 512 /dev/urandom >/tmp/blk
rc=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; rc=1; fi; }
# Writes and reads one block with nvme-cli; a conflict prints the status name.
nvw() { nvme write "$1" --start-block=0 --block-count=0 --data-size=512 --data=/tmp/blk 2>&1; }
nvr() { nvme read "$1" --start-block=0 --block-count=0 --data-size=512 --data=/tmp/rd 2>&1; }
# (Not a pipeline: under pipefail the failed write would fail it whatever grep finds.)
conflict() { nvw "$1" >/tmp/w.log; grep -qi "reservation.conflict" /tmp/w.log; }
report() { nvme resv-report "$1" --eds -o json; }
# The report without controller ids (a reconnect gets new ones).
norm() { python3 -c "import json,sys
def strip(o):
    if isinstance(o, dict): return {k: strip(v) for k, v in o.items() if k != \"cntlid\"}
    if isinstance(o, list): return [strip(v) for v in o]
    return o
print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True))"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }

check "A registers key 161 (0xa1) with PTPL on" "nvme resv-register $a --nrkey=161 --rrega=0 --cptpl=3"
check "B registers key 178 (0xb2)" "nvme resv-register $b --nrkey=178 --rrega=0"
check "A acquires Write Exclusive" "nvme resv-acquire $a --crkey=161 --rtype=1 --racqa=0"
for d in $a $b; do echo "resv-report from $d:"; report $d | tee /tmp/r.json; done
check "the report shows Write Exclusive" "[ \"\$(report $b | field rtype)\" = 1 ]"
check "the report shows two registrants" "[ \"\$(report $a | field regctl)\" = 2 ]"
check "B (non-holder) write fails with Reservation Conflict" "conflict $b"
cat /tmp/w.log
check "B (non-holder) read succeeds" "nvr $b"
check "A (holder) write succeeds" "nvw $a"
check "B preempts A" "nvme resv-acquire $b --crkey=178 --prkey=161 --rtype=1 --racqa=1"
check "A (preempted) write fails with Reservation Conflict" "conflict $a"
check "B (holder now) write succeeds" "nvw $b"
check "A read succeeds" "nvr $a"
check "one registrant left" "[ \"\$(report $a | field regctl)\" = 1 ]"
report $a | norm >$WORK/before-a.json; report $b | norm >$WORK/before-b.json
echo "before the restart:"; cat $WORK/before-a.json
touch $WORK/restart
lab_wait_for "[ -e $WORK/restarted ]" 1200 || { echo "FAIL: the host did not restart the target"; exit 1; }
# The kernel reconnects both controllers (reconnect delay 1 s).
live() { for c in /sys/class/nvme/nvme*; do [ "$(cat $c/state)" = live ] || return 1; done; }
sleep 1
lab_wait_for "live" 1200 || { echo "FAIL: the controllers did not reconnect"; cat /sys/class/nvme/nvme*/state; exit 1; }
lab_wait_for "report $a >/dev/null 2>&1 && report $b >/dev/null 2>&1" 300
report $a | norm >/tmp/after-a.json; report $b | norm >/tmp/after-b.json
echo "after the restart:"; cat /tmp/after-a.json
check "host A sees the same report after the restart (PTPL)" "cmp -s $WORK/before-a.json /tmp/after-a.json"
check "host B sees the same report after the restart (PTPL)" "cmp -s $WORK/before-b.json /tmp/after-b.json"
check "B still holds: A write conflicts" "conflict $a"
check "B write succeeds" "nvw $b"
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
rc=0
if wait_file "$work/restart" 3000; then
  kill -TERM "$tpid"; wait "$tpid"; trc=$?
  echo "$me: skiff-target stopped (exit $trc); PTPL file:"; cat "$work/ns1.resv"
  lab_target_start
  lab_target_wait_port "$port" || { echo "$me: FAIL: skiff-target did not come back"; rc=1; }
  touch "$work/restarted"
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
