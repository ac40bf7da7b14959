#!/usr/bin/env bash
# Lab test: a persistent discovery controller (`nvme discover -p`) hears of a new subsystem.
# skiff-target runs on the host with a discovery listener and a management socket; the guest
# keeps a discovery controller connected, the host adds a subsystem with a namespace through
# skiff-ctl, and the guest kernel must report the Discovery Log Page Change event as a uevent
# (NVME_AEN=0x70f002). On that uevent the guest runs what nvme-cli's udev rule
# (70-nvmf-autoconnect.rules) starts: `nvme connect-all --device=<the discovery controller>`;
# the new subsystem's namespace must then appear and pass fio verify.
#
# The guest has no udev daemon, so a small netlink listener (python3) stands in for udevd. The
# discovery log lists the target's listener at 127.0.0.1:P, its address on the host; in the guest
# socat forwards 127.0.0.1:P to 10.0.2.100:P, the lab's way to the host's loopback.
#
#   tests/lab/discovery-change.sh        (scripts/lab-tests.sh runs it)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-disc-first
new_nqn=nqn.2026-11.io.skiff:lab-disc-new
me=discovery-change
port="$(lab_free_port)"
disc_port="$(lab_free_port)"
lab_work_dir disc-change # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 1, "management_socket": "$sock"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "16MiB"}],
  "subsystems": [{"nqn": "$nqn", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port}],
  "discovery": {"trtype": "tcp", "addr": "127.0.0.1", "port": $disc_port}
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port $disc_port" LAB_PASS_ENV="PORT DISC_PORT NEW_NQN WORK" PORT="$port" DISC_PORT="$disc_port" \
  NEW_NQN="$new_nqn" WORK="$work" LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
# The NVMe uevents that carry an asynchronous event, one line each: "<device> <NVME_AEN>".
python3 -u -c "
import socket
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((0, 1))
while True:
    fields = s.recv(65536).split(b\"\\0\")
    env = dict(f.split(b\"=\", 1) for f in fields[1:] if b\"=\" in f)
    if env.get(b\"SUBSYSTEM\") == b\"nvme\" and b\"NVME_AEN\" in env:
        print(env.get(b\"DEVNAME\", b\"?\").decode(), env[b\"NVME_AEN\"].decode())
" >/tmp/uevents 2>&1 &
socat TCP4-LISTEN:$PORT,bind=127.0.0.1,fork,reuseaddr TCP4:10.0.2.100:$PORT &
lab_wait_for "ss -Hltn \"sport = :$PORT\" | grep -q ." || { echo "FAIL: the local forward did not start"; exit 1; }
nvme discover -p -t tcp -a 10.0.2.100 -s "$DISC_PORT" || { echo "FAIL: nvme discover -p"; exit 1; }
disc=""
lab_wait_for "for d in /sys/class/nvme/nvme*; do grep -qx nqn.2014-08.org.nvmexpress.discovery \$d/subsysnqn 2>/dev/null && disc=\$(basename \$d); done; [ -n \"\$disc\" ]" \
  || { echo "FAIL: no persistent discovery controller"; exit 1; }
echo "persistent discovery controller: $disc"
rc=0
touch "$WORK/discovering"
lab_wait_for "[ -e $WORK/added ]" || { echo "FAIL: the host never added the subsystem"; exit 1; }
if lab_wait_for "grep -q \"^$disc 0x70f002\" /tmp/uevents"; then
  echo "== uevent: $(grep -m1 "^$disc 0x70f002" /tmp/uevents) (discovery log page change)"
else
  echo "FAIL: no NVME_AEN=0x70f002 uevent from $disc"; cat /tmp/uevents; exit 1
fi
# What the udev rule starts (nvmf-connect@.service): connect-all through that controller.
nvme connect-all --device="$disc" --transport=tcp --traddr=10.0.2.100 --trsvcid="$DISC_PORT" \
  || echo "connect-all exit $? (entries already connected are fine)"
ctrl=""
lab_wait_for "for d in /sys/class/nvme/nvme*; do grep -qx \"\$NEW_NQN\" \$d/subsysnqn 2>/dev/null && ctrl=\$(basename \$d); done; [ -n \"\$ctrl\" ] && [ -b /dev/\${ctrl}n1 ]" \
  || { echo "FAIL: no controller with a namespace for $NEW_NQN after the event"; nvme list-subsys; exit 1; }
echo "== connected to $NEW_NQN as $ctrl after the change event"; nvme list
lab_fio_verify /dev/${ctrl}n1 2M || { echo "FAIL: fio verify on the new namespace"; rc=1; }
nvme disconnect-all || rc=1
exit $rc
' &
gpid=$!
rc=0
if wait_file "$work/discovering" 1800; then
  "$ctl" --socket "$sock" subsystem add "$new_nqn" || rc=1
  "$ctl" --socket "$sock" namespace add "$new_nqn" --nsid 1 --kind ram --size 16MiB || rc=1
  touch "$work/added"
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
