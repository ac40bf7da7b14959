#!/usr/bin/env bash
# Lab test: ANA multipath failover and failback with the Linux kernel's native NVMe multipath.
# skiff-target runs on the host with two listeners (two paths to one namespace): port A
# optimized, port B non-optimized (listeners[].ana in the configuration). The guest
# (nvme_core.multipath=Y, Debian's default; checked) connects through both, so one
# /dev/nvmeXnY has two paths, and keeps fio crc32c verify running on it. The host then makes
# path A inaccessible with `skiff-ctl ana set --transition-ms` (through the change state): the
# guest must see path A's sysfs ana_state turn inaccessible, the I/O move to path B (the target
# counts path B's controller's writes) and fio go on without an I/O or verify error; then the
# host makes A optimized again and the guest must see it come back, with the writes on path A
# again (failback).
#
# Host and guest take turns through marker files in a folder both see: guest "connected" ->
# host fails A over -> "failed-over" -> guest sees it, completes a fio pass -> "pass-on-b" ->
# host checks path B's writes, fails back -> "failed-back" -> guest sees A optimized, completes
# a pass -> "pass-on-a" -> host checks path A's writes -> "counted" -> guest stops fio,
# disconnects. Every wait is a bounded poll.
#
#   tests/lab/multipath.sh        (scripts/lab-tests.sh multipath)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-multipath
me=multipath
port_a="$(lab_free_port)"
port_b="$(lab_free_port)"
lab_work_dir multipath # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFMPATH1", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port_a},
                {"trtype": "tcp", "addr": "127.0.0.1", "port": $port_b,
                 "ana": [{"group": 1, "state": "non-optimized"}]}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# Writes the target counted on the controllers connected through PORT.
writes_through() {
  "$ctl" --socket "$sock" list >"$work/list.json" && "$ctl" --socket "$sock" controllers >"$work/ctrls.json" &&
    python3 - "$1" "$work/list.json" "$work/ctrls.json" <<'PY'
import json, sys
port = int(sys.argv[1])
listeners = json.load(open(sys.argv[2]))["listeners"]
ids = {l["port_id"] for l in listeners if l["port"] == port}
print(sum(q["write_commands"] for c in json.load(open(sys.argv[3])) if c["port_id"] in ids for q in c["queues"]))
PY
}

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port_a $port_b" LAB_PASS_ENV="PORT_A PORT_B NQN WORK" PORT_A="$port_a" PORT_B="$port_b" NQN="$nqn" \
  WORK="$work" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
mp=$(cat /sys/module/nvme_core/parameters/multipath)
echo "nvme_core.multipath=$mp"
[ "$mp" = Y ] || { echo "FAIL: native NVMe multipath is off in the guest kernel"; exit 1; }
for p in "$PORT_A" "$PORT_B"; do
  nvme connect -t tcp -a 10.0.2.100 -s "$p" -n "$NQN" --nr-io-queues 1 --keep-alive-tmo 30 --reconnect-delay 1 || exit 1
done
# The path (nvmeXcYnZ) through PORT, from its controller address.
path_of() {
  local c
  for c in /sys/class/nvme/nvme*; do
    grep -q "trsvcid=$1\b" "$c/address" 2>/dev/null || continue
    ls -d "$c"/nvme*c*n1 2>/dev/null | head -n 1 && return 0
  done
  return 1
}
disk=""
lab_wait_for "disk=\$(lab_nvme_disk \"\$NQN\") && [ -n \"\$(path_of \$PORT_A)\" ] && [ -n \"\$(path_of \$PORT_B)\" ]" || { echo "FAIL: no multipath disk with two paths"; nvme list-subsys; exit 1; }
pa=$(path_of "$PORT_A"); pb=$(path_of "$PORT_B")
state() { cat "$1/ana_state"; }
echo "disk $disk; path A ${pa##*/} ($(state $pa)), path B ${pb##*/} ($(state $pb))"
nvme list-subsys
[ "$(state $pa)" = optimized ] && [ "$(state $pb)" = non-optimized ] || { echo "FAIL: expected A optimized, B non-optimized"; exit 1; }
( n=0; while [ ! -e "$WORK/stop" ]; do
    lab_fio_verify "$disk" 2M >/tmp/fio.log 2>&1 || { echo "fio pass $n failed"; cat /tmp/fio.log; exit 1; }
    n=$((n + 1)); echo "$n" >/tmp/fio.passes
  done ) &
fio_pid=$!
passes() { cat /tmp/fio.passes 2>/dev/null || echo 0; }
rc=0
lab_wait_for "[ \"\$(passes)\" -ge 1 ]" 1200 || { echo "FAIL: no fio pass on path A"; rc=1; }
touch "$WORK/connected"
lab_wait_for "[ -e $WORK/failed-over ]" 1200 || { echo "FAIL: the host never failed path A over"; rc=1; }
if lab_wait_for "[ \"\$(state \$pa)\" = inaccessible ]" 300; then echo "== failover: path A $(state $pa), path B $(state $pb)"; nvme list-subsys
else echo "FAIL: path A is $(state $pa), not inaccessible"; rc=1; fi
start=$(passes)
lab_wait_for "[ \"\$(passes)\" -ge $((start + 1)) ] || ! kill -0 $fio_pid 2>/dev/null" 1800
kill -0 $fio_pid 2>/dev/null && echo "== fio verify pass completed on path B" || { echo "FAIL: fio stopped while path A was inaccessible"; rc=1; }
touch "$WORK/pass-on-b"
lab_wait_for "[ -e $WORK/failed-back ]" 1200 || { echo "FAIL: the host never failed back"; rc=1; }
if lab_wait_for "[ \"\$(state \$pa)\" = optimized ]" 300; then echo "== failback: path A $(state $pa), path B $(state $pb)"; nvme list-subsys
else echo "FAIL: path A is $(state $pa) after failback"; rc=1; fi
start=$(passes)
lab_wait_for "[ \"\$(passes)\" -ge $((start + 1)) ] || ! kill -0 $fio_pid 2>/dev/null" 1800
# The host counts the writes through path A while its controller is still connected.
touch "$WORK/pass-on-a"
lab_wait_for "[ -e $WORK/counted ]" 600 || { echo "FAIL: the host never counted the writes through path A"; rc=1; }
touch "$WORK/stop"
wait $fio_pid || { echo "FAIL: fio verify failed (an I/O or verify error)"; rc=1; }
echo "fio verify passes: $(passes)"
if dmesg | grep -E "nvme.*(I/O error|I/O Error|critical medium)|blk_update_request|Buffer I/O error"; then
  echo "FAIL: the kernel logged I/O errors"; rc=1
fi
dmesg | grep -iE "nvme.*(ana|failover|path)" | tail -n 10
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
rc=0
if wait_file "$work/connected" 3000; then
  before_b=$(writes_through "$port_b")
  "$ctl" --socket "$sock" ana set 127.0.0.1 "$port_a" inaccessible --transition-ms 1000 || rc=1
  touch "$work/failed-over"
  if wait_file "$work/pass-on-b" 3000; then
    after_b=$(writes_through "$port_b")
    echo "$me: writes through path B: $before_b before the failover, $after_b after"
    [ "${after_b:-0}" -gt "${before_b:-0}" ] || { echo "$me: FAIL: path B carried no writes after the failover"; rc=1; }
    before_a=$(writes_through "$port_a")
    "$ctl" --socket "$sock" ana set 127.0.0.1 "$port_a" optimized || rc=1
    "$ctl" --socket "$sock" list | python3 -c 'import json,sys; [print("listener", l["port"], l["ana"]) for l in json.load(sys.stdin)["listeners"]]'
    touch "$work/failed-back"
    # The guest ran a pass after the failback: on path A again (counted before it disconnects,
    # as the target lists only connected controllers).
    if wait_file "$work/pass-on-a" 3000; then
      after_a=$(writes_through "$port_a")
      echo "$me: writes through path A: $before_a at the failback, $after_a after a pass"
      [ "${after_a:-0}" -gt "$before_a" ] || { echo "$me: FAIL: path A carried no writes after the failback"; rc=1; }
    else
      echo "$me: FAIL: the guest completed no pass after the failback"; rc=1
    fi
    touch "$work/counted"
  fi
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
