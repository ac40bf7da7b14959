#!/usr/bin/env bash
# Lab test: NVMe/TCP and NVMe/RDMA over IPv6 with the Linux host's initiators. The lab's user
# network reaches the host over IPv4 only (qemu's guestfwd takes IPv4 addresses), so the target
# runs INSIDE the guest, on a guest-private IPv6 address: fd00:77::1 on dummy0, which also carries
# soft-RoCE (rxe0). skiff-target from a configuration file serves one RAM namespace through a TCP
# listener ([fd00:77::1]:4420) and an RDMA listener ([fd00:77::1]:4421), and discovery on
# [fd00:77::1]:8009. In the guest:
#   1. nvme discover over IPv6: both ports listed with adrfam ipv6 and traddr fd00:77::1;
#   2. nvme connect -t tcp to [fd00:77::1]:4420, fio crc32c verify, disconnect;
#   3. nvme connect -t rdma to [fd00:77::1]:4421, fio crc32c verify, disconnect;
#   4. the target exits 0 on SIGTERM.
#
#   tests/lab/ipv6.sh        (scripts/lab-tests.sh ipv6)
# Environment: SKIFF_TARGET (default build/bin/skiff-target), FIO_VERIFY_SIZE (default 4M), LAB_*
# knobs. Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
me=ipv6
nqn=nqn.2026-11.io.skiff:lab-ipv6
addr=fd00:77::1
lab_work_dir ipv6 # shared with the guest: the configuration and the target's log
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 1, "management_socket": "none"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFIPV6", "namespaces": [{"nsid": 1, "backend": "ram1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "$addr", "port": 4420},
                {"trtype": "rdma", "addr": "$addr", "port": 4421}],
  "discovery": {"trtype": "tcp", "addr": "$addr", "port": 8009}
}
JSON

# shellcheck disable=SC2016  # expanded in the guest
LAB_MEM="${LAB_MEM:-3G}" LAB_HOST_PORTS="" LAB_PASS_ENV="TARGET WORK NQN ADDR SIZE" TARGET="$target" WORK="$work" \
  NQN="$nqn" ADDR="$addr" SIZE="${FIO_VERIFY_SIZE:-4M}" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
tpid=""
fail() { lab_guest_target_fail "$WORK/target.log" "$tpid" "$@"; }
lab_rxe_up >/dev/null || fail "soft-RoCE (rxe0) did not come up"
ip -6 addr add "$ADDR/64" dev dummy0 nodad || fail "no IPv6 address on dummy0"
/lab/guest/host-libs "$TARGET" --config "$WORK/target.json" >"$WORK/target.log" 2>&1 </dev/null &
tpid=$!
lab_wait_listen tcp "$ADDR" 8009 60 || fail "no discovery listener on [$ADDR]:8009"
lab_wait_listen tcp "$ADDR" 4420 60 || fail "no TCP listener on [$ADDR]:4420"
lab_wait_listen rdma "$ADDR" 4421 60 || fail "no RDMA listener on [$ADDR]:4421"
modprobe -a nvme-fabrics nvme-tcp nvme-rdma

echo "== nvme discover -t tcp -a $ADDR -s 8009"
dlog="$(nvme discover -t tcp -a "$ADDR" -s 8009)" || fail "nvme discover over IPv6"
printf "%s\n" "$dlog" | grep -E "^(trtype|adrfam|traddr|trsvcid|subnqn)"
# "ADRFAM TRADDR TRSVCID" of each entry of the discovery log for NQN on transport $1 (an entry is
# the lines after a "=====Discovery Log Entry N======" line; nvme-cli prints traddr after subnqn).
entries() {
  printf "%s\n" "$dlog" | awk -v t="$1" -v nqn="$NQN" '\''
    function flush() { if (n == nqn && tr == t) print af, a, p; n = tr = af = a = p = "" }
    /^=====/ { flush() }
    $1 == "trtype:" { tr = $2 }
    $1 == "adrfam:" { af = $2 }
    $1 == "traddr:" { a = $2 }
    $1 == "trsvcid:" { p = $2 }
    $1 == "subnqn:" { n = $2 }
    END { flush() }'\''
}
[ "$(entries tcp)" = "ipv6 $ADDR 4420" ] || fail "the discovery log has no ipv6 tcp entry for [$ADDR]:4420 (got: $(entries tcp))"
[ "$(entries rdma)" = "ipv6 $ADDR 4421" ] || fail "the discovery log has no ipv6 rdma entry for [$ADDR]:4421 (got: $(entries rdma))"
echo "ok: the discovery log lists both ports as ipv6"

for t in tcp:4420 rdma:4421; do
  tr=${t%%:*} port=${t##*:}
  echo "== nvme connect -t $tr -a $ADDR -s $port"
  dev="$(lab_nvme_connect "$tr" "$ADDR" "$port" "$NQN")" || fail "nvme connect -t $tr over IPv6"
  ctrl="$(lab_nvme_ctrl "$NQN")" || fail "no controller"
  cat "/sys/class/nvme/${ctrl#/dev/}/address"
  grep -q "traddr=$ADDR" "/sys/class/nvme/${ctrl#/dev/}/address" || fail "the controller is not on $ADDR"
  lab_fio_verify "$dev" "$SIZE" || fail "fio verify over $tr/IPv6"
  nvme disconnect -n "$NQN" >/dev/null || fail "nvme disconnect ($tr)"
  for _ in $(seq 100); do lab_nvme_ctrl "$NQN" >/dev/null 2>&1 || break; sleep 0.1; done
done

kill -TERM "$tpid"
wait "$tpid"; st=$?; tpid=""
[ $st = 0 ] || fail "the target exited with status $st on SIGTERM"
echo "ok: the target exited 0"
' &
gpid=$!
wait "$gpid"; rc=$?; gpid=""
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target log"; tail -n 40 "$work/target.log" 2>/dev/null; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
