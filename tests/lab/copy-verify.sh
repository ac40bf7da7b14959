#!/usr/bin/env bash
# Lab test: NVMe Copy and Verify from the Linux host's nvme-cli. skiff-target runs on the host
# from a configuration file (one 16 MiB RAM namespace, 512-byte blocks); the guest connects
# (nvme-tcp) and checks, on the namespace's character device:
# id-ctrl shows ONCS Copy and Verify; id-ns shows MSSRL, MCL and MSRC; nvme write puts two
# patterns at blocks 0-7 and 8-15; nvme copy copies ranges (8, 4 blocks) and (0, 2 blocks) to
# block 100 and nvme read at 100 returns exactly those 6 blocks; nvme verify of a good range
# succeeds, of a range past the end fails with LBA Out of Range; a copy in descriptor format 1,
# and one whose destination overlaps its source, fail with Invalid Field in Command.
#
#   tests/lab/copy-verify.sh        (scripts/lab-tests.sh copy-verify)
# Environment: SKIFF_TARGET (default build/bin/skiff-target), LAB_* knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-copy
me=copy-verify
port="$(lab_free_port)"
lab_work_dir copy # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 1, "management_socket": "none"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "16MiB"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFCOPY1", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_port "$port" || lab_target_failed "skiff-target did not listen on $port"

# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN" PORT="$port" NQN="$nqn" LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
modprobe -a nvme-fabrics nvme-tcp
. /lab/guest/functions.sh
nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --nr-io-queues 1 || { echo "FAIL: nvme connect"; exit 1; }
ctrl=""
lab_wait_for "for d in /sys/class/nvme/nvme*; do grep -qx \"\$NQN\" \$d/subsysnqn 2>/dev/null && ctrl=\$(basename \$d); done; [ -n \"\$ctrl\" ] && [ -b /dev/\${ctrl}n1 ]" \
  || { echo "FAIL: no /dev/nvmeXn1"; exit 1; }
dev=/dev/${ctrl}n1
rc=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; rc=1; fi; }
field() { awk -v k="$1" '\''$1 == k {print $3}'\''; }
oncs=$(nvme id-ctrl $dev | field oncs)
echo "oncs $oncs"
check "ONCS has Verify (bit 7)" "[ \$(( oncs & 0x80 )) -ne 0 ]"
check "ONCS has Copy (bit 8)" "[ \$(( oncs & 0x100 )) -ne 0 ]"
nvme id-ns $dev | grep -E "^(mssrl|mcl|msrc)"
check "MSSRL 16384 blocks" "[ \"\$(nvme id-ns $dev | field mssrl)\" = 16384 ]"
check "MCL 16384 blocks" "[ \"\$(nvme id-ns $dev | field mcl)\" = 16384 ]"
check "MSRC 127 (0-based)" "[ \"\$(nvme id-ns $dev | field msrc)\" = 127 ]"
head -c 4096 /dev/urandom >/tmp/a; head -c 4096 /dev/urandom >/tmp/b
check "write blocks 0-7" "nvme write $dev --start-block=0 --block-count=7 --data-size=4096 --data=/tmp/a"
check "write blocks 8-15" "nvme write $dev --start-block=8 --block-count=7 --data-size=4096 --data=/tmp/b"
check "copy (8, 4 blocks) and (0, 2 blocks) to 100" "nvme copy $dev --sdlba=100 --slbs=8,0 --blocks=3,1"
{ head -c 2048 /tmp/b; head -c 1024 /tmp/a; } >/tmp/want
check "read 6 blocks at 100" "nvme read $dev --start-block=100 --block-count=5 --data-size=3072 --data=/tmp/got"
check "the destination holds the sources" "cmp /tmp/want /tmp/got"
check "verify blocks 0-4095" "nvme verify $dev --start-block=0 --block-count=4095"
nvme verify $dev --start-block=32767 --block-count=1 >/tmp/v.log 2>&1; cat /tmp/v.log
check "verify past the end fails with LBA Out of Range" "grep -qi \"lba.out.of.range\" /tmp/v.log"
# nvme-cli itself refuses more than 128 ranges, so the size limit is left to the gtests.
nvme copy $dev --sdlba=1000 --slbs=0 --blocks=0 --format=1 >/tmp/c.log 2>&1; cat /tmp/c.log
check "descriptor format 1 fails with Invalid Field" "grep -qi \"invalid.field\" /tmp/c.log"
nvme copy $dev --sdlba=102 --slbs=100 --blocks=3 >/tmp/o.log 2>&1; cat /tmp/o.log
check "a destination overlapping its source fails with Invalid Field" "grep -qi \"invalid.field\" /tmp/o.log"
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
wait "$gpid"; rc=$?; gpid=""
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 40 "$work/target.log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
