#!/usr/bin/env bash
# Lab test: a namespace grows under the Linux kernel initiator. skiff-target runs on the host
# from a configuration file with a management socket; the guest connects (nvme-tcp) and keeps
# fio verify running on namespace 1 while the host grows it with `skiff-ctl namespace resize`;
# the guest must see the new size (lsblk, /sys/block/*/size) without reconnecting (the
# namespace-attribute-changed event makes the kernel revalidate it), fio verify then runs on the
# grown range's last MiB, and fio on the namespace never fails.
#
# Host and guest take turns through marker files in a folder both see (the lab shares the
# checkout at the same path): guest "connected" -> host resizes -> "resized" -> guest checks.
#
#   tests/lab/namespace-resize.sh        (scripts/lab-tests.sh runs it)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-resize
me=namespace-resize
port="$(lab_free_port)"
old_mib=32 new_mib=96
lab_work_dir resize # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "${old_mib}MiB"}],
  "subsystems": [{"nqn": "$nqn", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN WORK OLD_MIB NEW_MIB" PORT="$port" NQN="$nqn" WORK="$work" \
  OLD_MIB="$old_mib" NEW_MIB="$new_mib" LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --nr-io-queues 2 || exit 1
ctrl=""
lab_wait_for "for d in /sys/class/nvme/nvme*; do grep -qx \"\$NQN\" \$d/subsysnqn 2>/dev/null && ctrl=\$(basename \$d); done; [ -n \"\$ctrl\" ] && [ -b /dev/\${ctrl}n1 ]" \
  || { echo "FAIL: no /dev/nvmeXn1"; exit 1; }
dev=/dev/${ctrl}n1
sectors() { cat /sys/block/${ctrl}n1/size; }
echo "controller $ctrl, $(lsblk -bno SIZE $dev) bytes"
[ "$(sectors)" = $((OLD_MIB * 2048)) ] || { echo "FAIL: $dev is not $OLD_MIB MiB"; exit 1; }
( while [ ! -e "$WORK/stop" ]; do lab_fio_verify $dev 2M >"/tmp/fio.log" 2>&1 || { cat /tmp/fio.log; exit 1; }; echo pass >>/tmp/fio.passes; done ) &
fio_pid=$!
rc=0
touch "$WORK/connected"
lab_wait_for "[ -e $WORK/resized ]" || { echo "FAIL: the host never resized the namespace"; rc=1; }
if lab_wait_for "[ \$(sectors) = $((NEW_MIB * 2048)) ]"; then
  echo "== $dev grew without reconnecting: lsblk says $(lsblk -bno SIZE $dev) bytes"; nvme list
else
  echo "FAIL: $dev still has $(sectors) sectors"; rc=1
fi
dmesg | grep -i "capacity change" | tail -n 2
touch "$WORK/stop"
wait $fio_pid || { echo "FAIL: fio verify on the namespace failed while it grew"; rc=1; }
passes=$(cat /tmp/fio.passes 2>/dev/null | wc -l)
echo "fio verify passes while the namespace grew: $passes"
[ "$passes" -ge 1 ] || { echo "FAIL: no fio verify pass completed"; rc=1; }
# The grown range takes I/O: verify the last MiB.
fio --name=tail --filename=$dev --offset=$(((NEW_MIB - 1) * 1048576)) --size=1M --rw=randwrite --bs=4k \
  --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c --do_verify=1 --verify_state_save=0 --eta=never --output=/tmp/fio-tail.log \
  || { cat /tmp/fio-tail.log; echo "FAIL: fio verify in the grown range"; rc=1; }
[ $rc = 0 ] && echo "== fio verify passed in the grown range (last MiB)"
ctrl_after=""
for d in /sys/class/nvme/nvme*; do grep -qx "$NQN" $d/subsysnqn 2>/dev/null && ctrl_after=$(basename $d); done
[ "$ctrl_after" = "$ctrl" ] || { echo "FAIL: the controller changed ($ctrl -> $ctrl_after): a reconnect"; rc=1; }
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
rc=0
if wait_file "$work/connected" 1800; then
  "$ctl" --socket "$sock" namespace resize "$nqn" 1 --size "${new_mib}MiB" || rc=1
  touch "$work/resized"
fi
wait "$gpid"; grc=$?; gpid=""
[ $grc = 0 ] || rc=1
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
