#!/usr/bin/env bash
# Lab test: secure channel concatenation with the Linux host and the Linux target. The TLS PSK
# is not configured anywhere: both sides derive it from the admin queue's DH-HMAC-CHAP
# (nvmeof/TARGET.md, "Secure channel concatenation"). The guest boots trixie-backports' kernel
# (LAB_KERNEL=trixie-backports, 6.15 or later: its NVMe host and target have concatenation) on
# the Debian 13 root (tlshd, nvme-cli 2.13 with --concat). skiff-target runs on the lab host
# with a `secure_channel: "optional"` listener. In the guest:
#   1. `nvme gen-dhchap-key` makes host A's secret; the host gives it to the running target
#      (`skiff-ctl host add --dhchap-key`); `nvme connect --dhchap-secret ... --concat`: the
#      kernel authenticates the plaintext admin queue asking for a new TLS PSK, puts the PSK it
#      generated in its keyring, and reconnects over TLS through tlshd; fio verify;
#   2. skiff's initiator against the Linux target: nvmet in the guest exports a null_blk to host
#      A with the same secret on a port with TLS "not required"; `skiff-perf --concat` (through
#      host-libs) authenticates, reconnects over TLS with the PSK it derived itself, and runs
#      verified I/O: the handshake completes only if nvmet derived the same key.
# The host then checks the target's log: the concatenation and the TLS session of host A under
# the generated identity "NVMe1G01 ...", and no secret anywhere in it.
#
#   tests/lab/concat.sh        (for scripts/lab-tests.sh)
# Environment: SKIFF_TARGET, SKIFF_CTL, SKIFF_PERF (default build/bin/...), LAB_* knobs.
# Exit 0 = pass, 77 = skipped (the guest kernel has no concatenation, or no tlshd).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-concat
host_a=nqn.2014-08.org.nvmexpress:uuid:7150b0e0-0000-4000-8000-0000000000ca
perf="${SKIFF_PERF:-$(pwd)/build/bin/skiff-perf}"
me=concat
port="$(lab_free_port)"
lab_work_dir concat # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "disk", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "allowed_hosts": ["$host_a"],
                  "namespaces": [{"nsid": 1, "backend": "disk"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port, "secure_channel": "optional"}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_KERNEL="${LAB_KERNEL:-trixie-backports}" LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN WORK HOST_A FIO_SIZE PERF" \
  PORT="$port" NQN="$nqn" WORK="$work" HOST_A="$host_a" PERF="$perf" \
  FIO_SIZE="${FIO_VERIFY_SIZE:-4M}" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
# /dev/nvme-fabrics lists the connect options this kernel knows; "concat" is one from 6.15 on.
if ! grep -q concat /dev/nvme-fabrics 2>/dev/null || ! command -v tlshd >/dev/null; then
  echo "SKIP: this guest ($(uname -r)) has no secure channel concatenation in its kernel or no tlshd"
  touch "$WORK/no-concat" # first: the host reads keys-ready as "look at no-concat now"
  touch "$WORK/keys-ready"
  exit 77
fi
echo "kernel $(uname -r), $(nvme version | head -n 1), $(tlshd --version 2>&1 | head -n 1)"
# tlshd does the handshakes of both the host and nvmet; the kernel puts the generated PSKs in .nvme.
lab_tlshd_start "$WORK/tlshd.log"
key_a=$(nvme gen-dhchap-key -m 1 -n "$HOST_A") || { echo "FAIL: nvme gen-dhchap-key"; exit 1; }
echo "$key_a" >"$WORK/key-a"
touch "$WORK/keys-ready"
lab_wait_for "[ -e $WORK/secrets-set ]" || { echo "FAIL: the host never set the secret"; exit 1; }
rc=0

echo "== 1. the Linux host: nvme connect --dhchap-secret --concat"
lab_nvme_connect tcp 10.0.2.100 "$PORT" "$NQN" --hostnqn="$HOST_A" --hostid="${HOST_A##*:uuid:}" \
  --nr-io-queues=2 --dhchap-secret="$key_a" --concat \
  || { echo "FAIL: host A could not connect with --concat"; cat "$WORK/tlshd.log"; dmesg | tail -n 20; exit 1; }
dev=$(lab_nvme_disk "$NQN"); ctrl=$(lab_nvme_ctrl "$NQN")
echo "host A: $dev on $ctrl, tls_key $(cat /sys/class/nvme/${ctrl#/dev/}/tls_key 2>/dev/null || echo "?")"
echo "keys in .nvme:"; keyctl show %:.nvme 2>/dev/null | sed -n "2,\$p" | sed "s/^ */  /"
lab_fio_verify "$dev" "$FIO_SIZE" || { echo "FAIL: fio verify over the concatenated channel"; rc=1; }
nvme disconnect -n "$NQN" >/dev/null || rc=1

echo "== 2. skiff-perf --concat against the Linux target (nvmet, TLS not required)"
knqn=nqn.2026-11.io.skiff:kernel-nvmet-concat
nullb=$(lab_nullblk 1 1) || { echo "FAIL: null_blk"; exit 1; }
lab_nvmet_export "$knqn" tcp 127.0.0.1 4421 "$nullb" || { echo "FAIL: nvmet export"; exit 1; }
cfs=/sys/kernel/config/nvmet
echo 0 >"$cfs/subsystems/$knqn/attr_allow_any_host"
mkdir -p "$cfs/hosts/$HOST_A"
printf "%s" "$key_a" >"$cfs/hosts/$HOST_A/dhchap_key" || { echo "FAIL: nvmet has no DH-HMAC-CHAP"; exit 1; }
# nvmet picks the host entry'"'"'s group, null by default, which concatenation cannot use.
echo ffdhe2048 >"$cfs/hosts/$HOST_A/dhchap_dhgroup"
ln -s "$cfs/hosts/$HOST_A" "$cfs/subsystems/$knqn/allowed_hosts/$HOST_A"
port_dir=$(grep -l "^4421$" "$cfs"/ports/*/addr_trsvcid | head -n 1); port_dir=${port_dir%/addr_trsvcid}
# TLS not required: the first admin connection is plaintext. Re-enable the port with it.
rm -f "$port_dir/subsystems/$knqn"
echo tls1.3 >"$port_dir/addr_tsas" 2>/dev/null || { echo "FAIL: nvmet-tcp has no TLS (addr_tsas)"; exit 1; }
echo "not required" >"$port_dir/addr_treq"
ln -s "$cfs/subsystems/$knqn" "$port_dir/subsystems/$knqn"
lab_wait_listen tcp 127.0.0.1 4421 10 || { echo "FAIL: nvmet does not listen"; exit 1; }
/lab/guest/host-libs "$PERF" --addr 127.0.0.1 --port 4421 --nqn "$knqn" --hostnqn "$HOST_A" \
  --dhchap-secret-file "$WORK/key-a" --concat --rw randrw --bs 4k --qd 4 --time 2s --ramp 0 --verify --no-progress \
  >"$WORK/perf.log" 2>&1 || { echo "FAIL: skiff-perf --concat against nvmet"; cat "$WORK/perf.log"; dmesg | tail -n 20; rc=1; }
tail -n 4 "$WORK/perf.log"
dmesg | grep -iE "nvmet.*(tls|psk|concat|DH-HMAC)" | tail -n 5 | sed "s/^/  /"
echo "--- tlshd"; tail -n 8 "$WORK/tlshd.log"
exit $rc
' &
gpid=$!
rc=0
if lab_guest_keys_ready "$work/no-concat"; then
  chmod 600 "$work/key-a"
  "$ctl" --socket "$sock" host add "$nqn" "$host_a" --dhchap-key "$(cat "$work/key-a")" >/dev/null || rc=1
  touch "$work/secrets-set"
else
  rc=1
fi
wait "$gpid"; grc=$?; gpid=""
if [ $grc = 77 ]; then
  echo "$me: SKIPPED: the lab guest has no secure channel concatenation"
  exit 77
fi
[ $grc = 0 ] || rc=1
log="$work/target.log"
grep -E "secure channel concatenation: .* host $host_a " "$log" | head -n 1 \
  || { echo "$me: no concatenation of host A in the target's log"; rc=1; }
grep -E "TLS 1.3 established: identity 'NVMe1G0[12] $host_a $nqn " "$log" | head -n 1 \
  || { echo "$me: no TLS session of host A under a generated identity in the target's log"; rc=1; }
[ -s "$work/key-a" ] && grep -qF "$(cut -c11-34 "$work/key-a")" "$log" && { echo "$me: a secret is in the target's log"; rc=1; }
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 60 "$log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
