#!/usr/bin/env bash
# Lab test: the mDNS/DNS-SD announcement of skiff-target's discovery listener (config
# "mdns": {"announce": true}), seen by Avahi's own browser as a host looking for discovery
# controllers would (nvme-stas browses the same service type). Everything runs INSIDE the guest:
# the lab's user network carries no multicast to the host. The guest starts a system D-Bus and
# avahi-daemon, then skiff-target (discovery on 0.0.0.0:8009, one RAM namespace on 4420):
#   1. avahi-browse finds "skiff-lab-mdns" of type _nvme-disc._tcp on port 8009 with the TXT records
#      nqn=nqn.2014-08.org.nvmexpress.discovery and p=tcp;
#   2. nvme discover at the address and port avahi resolved lists the target's subsystem;
#   3. avahi-daemon is killed and started again: the target announces again by itself;
#   4. SIGTERM: the target exits 0 within 30 s (whether avahi-browse still lists the service
#      afterwards is printed, not asserted: see below).
#
#   tests/lab/mdns.sh        (scripts/lab-tests.sh mdns)
# Environment: SKIFF_TARGET (default build/bin/skiff-target), LAB_* knobs. Exit 0 = pass; 77 when
# skiff-target was built without Avahi's client library (it then refuses mdns.announce).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
me=mdns
nqn=nqn.2026-11.io.skiff:lab-mdns
lab_work_dir mdns # shared with the guest: the configuration and the target's log
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 1, "management_socket": "none"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "16MiB"}],
  "subsystems": [{"nqn": "$nqn", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "0.0.0.0", "port": 4420}],
  "discovery": {"trtype": "tcp", "addr": "0.0.0.0", "port": 8009},
  "mdns": {"announce": true, "name": "skiff-lab-mdns"}
}
JSON

# A boot of its own (LAB_SESSION empty): in the shared session its first run timed out after the
# target's SIGTERM, while the same test in a fresh guest passed whole (cause not known yet).
# shellcheck disable=SC2016  # expanded in the guest
LAB_SESSION="" LAB_HOST_PORTS="" LAB_PASS_ENV="TARGET WORK NQN" TARGET="$target" WORK="$work" NQN="$nqn" \
  LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
tpid=""
fail() { lab_guest_target_fail "$WORK/target.log" "$tpid" "$@"; }
wait_for() { for _ in $(seq 1 "$2"); do eval "$1" && return 0; sleep 0.5; done; return 1; }
start_avahi() {
  avahi-daemon --daemonize --no-rlimits || return 1
  wait_for "avahi-daemon --check" 60
}
# A system bus for avahi-daemon and its clients (nothing starts one in the lab guest); pid files
# of an earlier run in a shared guest would stop both.
mkdir -p /run/dbus
rm -f /run/dbus/pid /run/avahi-daemon/pid
dbus-daemon --system --fork || fail "no system D-Bus"
start_avahi || fail "avahi-daemon did not start"

/lab/guest/host-libs "$TARGET" --config "$WORK/target.json" >"$WORK/target.log" 2>&1 </dev/null &
tpid=$!
until lab_wait_listen tcp 0.0.0.0 8009 1 2>/dev/null; do
  if ! kill -0 "$tpid" 2>/dev/null; then
    if grep -q "without Avahi" "$WORK/target.log"; then echo "SKIPPED: $(cat "$WORK/target.log")"; exit 77; fi
    fail "the target exited before it listened"
  fi
done

# -r resolve, -p parsable, -t stop after the cache is read: "=;IF;PROTO;NAME;TYPE;DOMAIN;HOST;ADDR;PORT;TXT"
browse() { timeout 20 avahi-browse -rpt _nvme-disc._tcp 2>/dev/null | grep "^=" | grep ";skiff-lab-mdns;"; }
wait_for "browse | grep -q ." 60 || fail "avahi-browse does not see the announcement"
line="$(browse | grep ";IPv4;" | head -n 1)"
echo "avahi-browse: $line"
IFS=";" read -r _ ifname proto name stype domain host addr port txt <<<"$line"
[ "$stype" = _nvme-disc._tcp ] || fail "service type $stype"
[ "$port" = 8009 ] || fail "port $port, not 8009"
case "$txt" in *"\"nqn=nqn.2014-08.org.nvmexpress.discovery\""*) ;; *) fail "TXT $txt has no discovery nqn" ;; esac
case "$txt" in *"\"p=tcp\""*) ;; *) fail "TXT $txt has no p=tcp" ;; esac
echo "ok: $name announced on $ifname ($proto) as $host $addr:$port, TXT $txt"

modprobe -a nvme-fabrics nvme-tcp
dlog="$(nvme discover -t tcp -a "$addr" -s "$port")" || fail "nvme discover at the announced $addr:$port"
printf "%s\n" "$dlog" | grep -q "subnqn: *$NQN" || fail "the discovery log at $addr:$port does not list $NQN"
echo "ok: nvme discover at the announced address lists $NQN"

avahi-daemon --kill || fail "avahi-daemon --kill"
wait_for "! avahi-daemon --check" 60 || fail "avahi-daemon did not stop"
start_avahi || fail "avahi-daemon did not start again"
wait_for "browse | grep -q ." 60 || fail "the target did not announce again after avahi-daemon restarted"
echo "ok: announced again after avahi-daemon restarted"

kill -TERM "$tpid"
wait_for "! kill -0 $tpid 2>/dev/null" 60 || fail "the target did not exit within 30 s of SIGTERM"
wait "$tpid"; st=$?; tpid=""
[ $st = 0 ] || fail "the target exited with status $st on SIGTERM"
echo "ok: the target exited 0"
# The withdrawal is reported, not asserted: it was seen in a fresh guest, and the run in the shared
# session that timed out may have been waiting here.
if wait_for "! browse | grep -q ." 10; then echo "ok: the announcement is gone"
else echo "note: avahi-browse still lists the service after the target exited"; fi
avahi-daemon --kill
' &
gpid=$!
wait "$gpid"; rc=$?; gpid=""
if [ $rc = 0 ]; then echo "$me: PASS"; elif [ $rc = 77 ]; then echo "$me: SKIPPED"; else echo "--- target log"; tail -n 40 "$work/target.log" 2>/dev/null; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
