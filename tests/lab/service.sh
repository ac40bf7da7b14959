#!/usr/bin/env bash
# Lab test: skiff as a Debian service. The guest boots systemd as init, installs the amd64
# .debs (libskiff-core, skiff) from scripts/package.sh without network (the image carries their
# run-time dependencies), and then:
#   1. `systemd-analyze verify` of skiff-target.service and skiff-host.service prints nothing,
#      and `systemd-analyze security` rates both units "OK" or better (exposure 3.0 at most);
#      the package made the user skiff and installed /etc/skiff/target.json 0640 root:skiff;
#   2. /etc/skiff/target.json gets one 64 MiB RAM namespace on 127.0.0.1:4420 and
#      `systemctl start skiff-target` must leave it active (Type=notify: READY=1 came), running as
#      the user skiff with CAP_IPC_LOCK alone, its management socket 0660 group skiff: root's
#      skiff-ctl works, nobody's (setpriv) is refused;
#   3. the kernel initiator connects over TCP and fio verifies namespace 1;
#   4. target.json gains namespace 2 and `systemctl reload skiff-target` (SIGHUP) must make it
#      appear to the connected host as a second disk, without reconnecting;
#   5. skiff-host.service (the same user, hardened the same way) lends its memory and namespace 3
#      on it appears after a reload: fio verifies it (the target moves the bytes out of
#      skiff-host's memory through /proc/<pid>/mem across the two services);
#   6. `skiff-ctl save /etc/skiff/target.json` writes it as the service's user, mode 0600, and a
#      reload of that file changes nothing;
#   7. after the disconnect, `systemctl stop skiff-target` must end it cleanly: inactive, result
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
# write_config NSIDS...: target.json with one 64 MiB namespace per NSID: RAM, or skiff-host
# memory for an NSID written hN (hostmem, the channel of /etc/skiff/host.conf)
write_config() {
  local backends="" namespaces="" n kind
  for n in "$@"; do
    kind="\"kind\": \"ram\""
    case "$n" in h*) n=${n#h}; kind="\"kind\": \"hostmem\", \"channel\": \"skiff-host\"" ;; esac
    backends+="${backends:+, }{\"name\": \"ns$n\", $kind, \"size\": \"64MiB\"}"
    namespaces+="${namespaces:+, }{\"nsid\": $n, \"backend\": \"ns$n\", \"block_size\": 4096, \"ana_group\": $n}"
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
for unit in skiff-target skiff-host; do
  exposure="$(systemd-analyze security "$unit.service" 2>&1 | grep -o "Overall exposure level.*" | grep -oE "[0-9]+\.[0-9]+ [A-Z]+")"
  echo "== systemd-analyze security $unit.service: $exposure"
  awk -v e="${exposure%% *}" "BEGIN { exit !(e != \"\" && e <= 3.0) }" || fail "$unit.service: exposure \"$exposure\", expected 3.0 or less"
done
getent passwd skiff >/dev/null || fail "the package made no user skiff"
[ "$(stat -c "%a %U %G" /etc/skiff/target.json)" = "640 root skiff" ] || fail "/etc/skiff/target.json is $(stat -c "%a %U %G" /etc/skiff/target.json), expected 640 root skiff"

write_config 1
echo "== systemctl start skiff-target"
systemctl start skiff-target || fail "systemctl start"
[ "$(systemctl is-active skiff-target)" = active ] || fail "skiff-target is not active"
skiff-ctl list >/dev/null || fail "skiff-ctl list on the default socket"
pid="$(systemctl show -p MainPID --value skiff-target)"
echo "== skiff-target runs as $(ps -o user= -p "$pid"), $(grep CapEff /proc/"$pid"/status | tr -s "\t " " "); socket $(stat -c "%a %U:%G" /run/skiff/target.sock)"
[ "$(ps -o user= -p "$pid")" = skiff ] || fail "skiff-target does not run as the user skiff"
grep -q "^CapEff:.*0000000000004000$" /proc/"$pid"/status || fail "skiff-target has other capabilities than CAP_IPC_LOCK"
[ "$(stat -c "%a %G" /run/skiff/target.sock)" = "660 skiff" ] || fail "the management socket is not 0660 group skiff"
if setpriv --reuid=nobody --regid=nogroup --clear-groups skiff-ctl --socket /run/skiff/target.sock list >/tmp/nobody.out 2>&1; then
  cat /tmp/nobody.out; fail "nobody can use the management socket"
fi
echo "== nobody: $(cat /tmp/nobody.out)"

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

echo "== systemctl start skiff-host; target.json gains namespace 3 on its memory; reload"
systemctl start skiff-host || { journalctl -u skiff-host --no-pager | tail -n 20; fail "systemctl start skiff-host"; }
write_config 1 2 h3
systemctl reload skiff-target || fail "systemctl reload (hostmem)"
for _ in $(seq 300); do [ "$(disks | wc -l)" = 3 ] && break; sleep 0.1; done
[ "$(disks | wc -l)" = 3 ] || { disks; journalctl -u skiff-host --no-pager | tail -n 20; fail "namespace 3 (hostmem) did not appear"; }
hostmem=""
for d in $(disks); do [ "$(cat /sys/block/${d#/dev/}/nsid 2>/dev/null)" = 3 ] && hostmem=$d; done
[ -n "$hostmem" ] || fail "no disk with nsid 3 among $(disks | tr "\n" " ")"
echo "== hostmem namespace: $hostmem"
ok=""
for _ in $(seq 100); do
  if lab_fio_verify "$hostmem" "$SIZE" >/tmp/fio-hostmem.log 2>&1; then ok=1; break; fi
  sleep 0.2 # ANA inaccessible until skiff-host has joined
done
[ -n "$ok" ] || { cat /tmp/fio-hostmem.log; journalctl -u skiff-host --no-pager | tail -n 20; fail "fio verify on the hostmem namespace"; }
echo "== fio verified the hostmem namespace"

echo "== skiff-ctl save /etc/skiff/target.json; reload the saved file"
skiff-ctl save /etc/skiff/target.json >/dev/null || fail "skiff-ctl save"
[ "$(stat -c "%a %U" /etc/skiff/target.json)" = "600 skiff" ] || fail "the saved target.json is $(stat -c "%a %U" /etc/skiff/target.json), expected 600 skiff"
systemctl reload skiff-target || fail "systemctl reload of the saved file"
[ "$(systemctl is-active skiff-target)" = active ] || fail "skiff-target is not active after reloading the saved file"

nvme disconnect -n "$nqn" >/dev/null || fail "nvme disconnect"
echo "== systemctl stop skiff-target"
systemctl stop skiff-target || fail "systemctl stop"
state="$(systemctl show -p ActiveState -p Result -p ExecMainStatus skiff-target | sort | tr "\n" " ")"
echo "== after the stop: $state"
[ "$state" = "ActiveState=inactive ExecMainStatus=0 Result=success " ] || fail "skiff-target did not stop cleanly"
echo "service: PASS"'
