#!/usr/bin/env bash
# Lab test: skiff as a Debian service. The guest boots systemd as init, installs the amd64
# .debs (libskiff-core, skiff) from scripts/package.sh without network (the image carries their
# run-time dependencies), and then:
#   1. `systemd-analyze verify` of skiff-target.service and skiff-host.service prints nothing;
#   2. /etc/skiff/target.json gets one 64 MiB RAM namespace on 127.0.0.1:4420 and
#      `systemctl start skiff-target` must leave it active (Type=notify: READY=1 came);
#   3. the kernel initiator connects over TCP and fio verifies namespace 1;
#   4. target.json gains namespace 2 and `systemctl reload skiff-target` (SIGHUP) must make it
#      appear to the connected host as a second disk, without reconnecting;
#   5. after the disconnect, `systemctl stop skiff-target` must end it cleanly: inactive, result
#      "success", main process status 0.
#
#   tests/lab/service.sh         (scripts/lab-tests.sh runs it)
# Environment: SKIFF_DEBS (a folder with the .debs; default: dist/amd64, rebuilt by
# scripts/package.sh), FIO_VERIFY_SIZE (default 4M), LAB_* knobs for tests/lab/vm/run.
# Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
checkout="$(pwd)"
lab="$checkout/tests/lab/vm"
me=service

debs="${SKIFF_DEBS:-}"
if [ -z "$debs" ]; then
  echo "== $me: scripts/package.sh amd64 (incremental after the first time)"
  nice -n 5 scripts/package.sh amd64 >/dev/null || { echo "$me: scripts/package.sh failed"; echo "$me: FAIL"; exit 1; }
  debs="$checkout/dist/amd64"
fi
debs="$(cd "$debs" && pwd)" || { echo "$me: no folder $debs"; exit 1; }
ls "$debs"/libskiff-core_*.deb "$debs"/skiff_*.deb >/dev/null || { echo "$me: no skiff .debs in $debs"; exit 1; }

# shellcheck disable=SC2016  # expanded in the guest
LAB_PASS_ENV="DEBS SIZE" DEBS="$debs" SIZE="${FIO_VERIFY_SIZE:-4M}" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" \
  LAB_HOST_PORTS="" "$lab/run" --systemd '
set -uo pipefail
. /lab/guest/functions.sh
nqn=nqn.2026-11.io.skiff:lab-service
fail() {
  echo "service: FAIL: $*"
  systemctl status --no-pager skiff-target 2>&1 | tail -n 5
  echo "--- journal of skiff-target"; journalctl -u skiff-target --no-pager | tail -n 40
  exit 1
}
# write_config NSIDS...: target.json with one 64 MiB RAM namespace per NSID
write_config() {
  local backends="" namespaces="" n
  for n in "$@"; do
    backends+="${backends:+, }{\"name\": \"ram$n\", \"kind\": \"ram\", \"size\": \"64MiB\"}"
    namespaces+="${namespaces:+, }{\"nsid\": $n, \"backend\": \"ram$n\", \"block_size\": 4096}"
  done
  cat >/etc/skiff/target.json <<JSON
{
  "target": {"cores": 1},
  "backends": [$backends],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFSVC1", "allow_any_host": true, "namespaces": [$namespaces]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": 4420}],
  "discovery": null
}
JSON
}
# disks: the block devices of the subsystem, one per line
disks() {
  local parent disk
  for parent in /sys/class/nvme-subsystem/*/ /sys/class/nvme/*/; do
    [ "$(cat "$parent/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
    for disk in "$parent"nvme*n*; do [ -b "/dev/${disk##*/}" ] && echo "/dev/${disk##*/}"; done
  done | sort -u
}

echo "== systemd $(systemctl --version | head -n1 | cut -d" " -f2) is PID 1: $(cat /proc/1/comm)"
echo "== dpkg -i $(cd "$DEBS" && echo libskiff-core_*.deb skiff_*.deb)"
dpkg -i "$DEBS"/libskiff-core_*.deb "$DEBS"/skiff_*.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -i"; }

echo "== systemd-analyze verify skiff-target.service skiff-host.service"
verify="$(systemd-analyze verify skiff-target.service skiff-host.service 2>&1)"
st=$?
[ $st = 0 ] && [ -z "$verify" ] || { printf "%s\n" "$verify"; fail "systemd-analyze verify (status $st)"; }

write_config 1
echo "== systemctl start skiff-target"
systemctl start skiff-target || fail "systemctl start"
[ "$(systemctl is-active skiff-target)" = active ] || fail "skiff-target is not active"
skiff-ctl list >/dev/null || fail "skiff-ctl list on the default socket"

dev="$(lab_nvme_connect tcp 127.0.0.1 4420 "$nqn")" || fail "nvme connect"
echo "== connected: $dev"
lab_fio_verify "$dev" "$SIZE" || fail "fio verify"

echo "== target.json gains namespace 2; systemctl reload skiff-target"
write_config 1 2
systemctl reload skiff-target || fail "systemctl reload"
for _ in $(seq 300); do [ "$(disks | wc -l)" = 2 ] && break; sleep 0.1; done
[ "$(disks | wc -l)" = 2 ] || { disks; fail "namespace 2 did not appear after the reload"; }
echo "== the host sees: $(disks | tr "\n" " ")"
[ "$(systemctl is-active skiff-target)" = active ] || fail "skiff-target is not active after the reload"

nvme disconnect -n "$nqn" >/dev/null || fail "nvme disconnect"
echo "== systemctl stop skiff-target"
systemctl stop skiff-target || fail "systemctl stop"
state="$(systemctl show -p ActiveState -p Result -p ExecMainStatus skiff-target | sort | tr "\n" " ")"
echo "== after the stop: $state"
[ "$state" = "ActiveState=inactive ExecMainStatus=0 Result=success " ] || fail "skiff-target did not stop cleanly"
echo "service: PASS"'
