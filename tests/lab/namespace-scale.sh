#!/usr/bin/env bash
# Lab test: 1024 namespaces in one subsystem, and per-host namespace visibility, under the Linux
# kernel initiator. skiff-target runs on the host from a configuration file with two subsystems:
#   visibility: namespace 1 for every host, 2 for host A only, 3 for host B only (visible_hosts);
#   scale:      1024 namespaces, 1 and 1024 on RAM, 2..1023 on null backends.
#   1. The guest connects to "visibility" as host A, then as host B: each sees its own set
#      (1 2, then 1 3). While B is connected the host runs `skiff-ctl namespace host add ... 2 B`:
#      the kernel, told by the namespace-attribute-changed event, adds nsid 2's block device
#      without a reconnect and fio verify passes on it; `namespace host remove` takes it away.
#   2. It connects to "scale": all 1024 namespaces appear as block devices (`nvme list`), fio
#      verify passes on the first and the last; it prints how long the kernel took to scan them
#      and what `nvme ns-rescan` costs. (It does not disconnect: removing 1024 block devices takes
#      minutes under emulation; the guest powers off connected.)
# Host and guest take turns through marker files in a folder both see.
#
#   tests/lab/namespace-scale.sh        (scripts/lab-tests.sh runs it)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
vis=nqn.2026-11.io.skiff:lab-visibility
scale=nqn.2026-11.io.skiff:lab-scale
me=namespace-scale
port="$(lab_free_port)"
ida=5b0e7c1a-2d3f-4a5b-8c6d-7e8f9a0b1c01 idb=5b0e7c1a-2d3f-4a5b-8c6d-7e8f9a0b1c02
hosta=nqn.2014-08.org.nvmexpress:uuid:$ida hostb=nqn.2014-08.org.nvmexpress:uuid:$idb
lab_work_dir scale # shared with the guest
python3 - "$work/target.json" "$sock" "$vis" "$scale" "$port" "$hosta" "$hostb" <<'PY'
import json, sys
path, sock, vis, scale, port, hosta, hostb = sys.argv[1:]
backends = [{"name": "v%d" % n, "kind": "ram", "size": "16MiB"} for n in (1, 2, 3)]
vis_ns = [{"nsid": 1, "backend": "v1"},
          {"nsid": 2, "backend": "v2", "visible_hosts": [hosta]},
          {"nsid": 3, "backend": "v3", "visible_hosts": [hostb]}]
scale_ns = []
for nsid in range(1, 1025):
    backends.append({"name": "s%d" % nsid, "kind": "ram" if nsid in (1, 1024) else "null", "size": "16MiB"})
    scale_ns.append({"nsid": nsid, "backend": "s%d" % nsid})
doc = {"target": {"cores": 2, "management_socket": sock}, "backends": backends,
       "subsystems": [{"nqn": vis, "namespaces": vis_ns}, {"nqn": scale, "namespaces": scale_ns}],
       "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": int(port)}], "discovery": None}
json.dump(doc, open(path, "w"))
PY

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# A boot of its own (LAB_SESSION empty), not the shared session's: it powers off with host A's
# 1024 block devices still there, which a shared guest would have to remove before its next test.
# shellcheck disable=SC2016  # expanded in the guest
LAB_SESSION="" LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT VIS SCALE WORK HOSTA HOSTB IDA IDB" PORT="$port" VIS="$vis" SCALE="$scale" \
  WORK="$work" HOSTA="$hosta" HOSTB="$hostb" IDA="$ida" IDB="$idb" LAB_TIMEOUT="${LAB_TIMEOUT:-600}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
# nvme-cli opens every namespace of a subsystem (nvme list): more than the default 1024
# descriptors with 1024 namespaces (EMFILE otherwise).
ulimit -n 65536
# The namespaces block devices (not the multipath paths, nvmeXcYnZ, which are hidden), the nsids
# they have, and the device of an nsid (the kernel names devices by instance, not nsid:
# /sys/block/*/nsid says which is which). One subsystem is connected at a time.
heads() { local d; for d in /sys/block/nvme*n*; do case ${d##*/} in nvme*c*) ;; *) [ -e "$d/nsid" ] && echo "$d" ;; esac; done; }
# How many heads there are, into HEADS, with shell builtins only: the scan below polls it every
# tenth of a second while 1024 devices appear, and under TCG every fork or exec costs.
count_heads() { local d; HEADS=0; for d in /sys/block/nvme*n*; do case ${d##*/} in nvme*c*) ;; *) [ -e "$d/nsid" ] && HEADS=$((HEADS + 1)) ;; esac; done; }
count() { count_heads; echo $HEADS; }
nsids() { local d n; for d in $(heads); do read -r n <"$d/nsid"; echo "$n"; done | sort -n | tr "\n" " " | sed "s/ \$//"; }
# (read, not cat: with 1024 heads a cat per device was 1024 execs.)
dev_of() { local d n; for d in $(heads); do read -r n <"$d/nsid"; [ "$n" = "$1" ] && { echo /dev/${d##*/}; return 0; }; done; return 1; }
connect_as() { nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$1" --hostnqn "$2" --hostid "$3" --nr-io-queues 1 >/dev/null; }
rc=0
fail() { echo "FAIL: $1"; rc=1; }
secs() { awk -v a="$1" -v b="$2" "BEGIN { printf \"%.1f\", b - a }"; }

# 1. Two hosts, two namespace sets; then host B gains and loses namespace 2 live.
connect_as "$VIS" "$HOSTA" "$IDA" || { echo "FAIL: nvme connect as host A"; exit 1; }
lab_wait_for "[ \"\$(nsids)\" = \"1 2\" ]" || fail "host A sees nsids [$(nsids)], expected [1 2]"
echo "== host A sees nsids $(nsids)"
nvme disconnect -n "$VIS" >/dev/null || fail "disconnect host A"
lab_wait_for "[ \$(count) = 0 ]" || fail "namespaces left after the disconnect"
connect_as "$VIS" "$HOSTB" "$IDB" || { echo "FAIL: nvme connect as host B"; exit 1; }
lab_wait_for "[ \"\$(nsids)\" = \"1 3\" ]" || fail "host B sees nsids [$(nsids)], expected [1 3]"
echo "== host B sees nsids $(nsids)"
touch "$WORK/b-connected"
lab_wait_for "[ -e $WORK/b-added ]" 1200 || fail "the host never added host B"
if lab_wait_for "dev_of 2 >/dev/null" 300; then
  d=$(dev_of 2); echo "== nsid 2 appeared for host B as $d without a reconnect (nsids $(nsids))"
  lab_fio_verify "$d" 4M >/tmp/fio.log 2>&1 && echo "== fio verify passed on nsid 2 as host B" \
    || { cat /tmp/fio.log; fail "fio verify on nsid 2 as host B"; }
else
  fail "nsid 2 did not appear for host B"
fi
touch "$WORK/b-verified"
lab_wait_for "[ -e $WORK/b-removed ]" 1200 || fail "the host never removed host B"
if lab_wait_for "! dev_of 2 >/dev/null" 300; then echo "== nsid 2 went away for host B (nsids $(nsids))"; else fail "nsid 2 stayed for host B"; fi
nvme disconnect -n "$VIS" >/dev/null || fail "disconnect host B"
lab_wait_for "[ \$(count) = 0 ]" || fail "namespaces left after the disconnect"

# 2. 1024 namespaces in one subsystem.
t0=$(date +%s.%N)
connect_as "$SCALE" "$HOSTA" "$IDA" || { echo "FAIL: nvme connect to the 1024-namespace subsystem"; exit 1; }
lab_wait_for "count_heads; [ \$HEADS -ge 1024 ]" 3000 || fail "$(count) namespace block devices, not 1024"
t1=$(date +%s.%N)
echo "== $(count) namespace block devices, scanned in $(secs $t0 $t1) s after connect"
# nvme list opens and identifies every namespace: once, not once to count and once to show.
t0=$(date +%s.%N); nvme list >/tmp/nvme-list.txt; t1=$(date +%s.%N)
listed=$(grep -c "^/dev/nvme" /tmp/nvme-list.txt)
echo "== nvme list shows $listed namespaces ($(secs $t0 $t1) s):"; sed -n "1,4p;\$p" /tmp/nvme-list.txt
[ "$listed" = 1024 ] || fail "nvme list shows $listed namespaces"
ctrl=$(basename /sys/class/nvme/nvme*)
t0=$(date +%s.%N); nvme ns-rescan /dev/$ctrl; t1=$(date +%s.%N)
echo "== nvme ns-rescan of 1024 namespaces: $(secs $t0 $t1) s"
t0=$(date +%s.%N)
for nsid in 1 1024; do
  d=$(dev_of $nsid) || { fail "no block device for nsid $nsid"; continue; }
  lab_fio_verify "$d" 4M >/tmp/fio.log 2>&1 && echo "== fio verify passed on nsid $nsid ($d)" \
    || { cat /tmp/fio.log; fail "fio verify on nsid $nsid"; }
done
t1=$(date +%s.%N); echo "== the two fio verify runs took $(secs $t0 $t1) s"
exit $rc
' &
gpid=$!
rc=0
if wait_file "$work/b-connected" 6000; then
  "$ctl" --socket "$sock" namespace host add "$vis" 2 "$hostb" || rc=1
  touch "$work/b-added"
  if wait_file "$work/b-verified" 6000; then
    "$ctl" --socket "$sock" namespace host remove "$vis" 2 "$hostb" || rc=1
    touch "$work/b-removed"
  fi
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
