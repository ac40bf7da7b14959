#!/usr/bin/env bash
# Lab test: NVMe/TCP over TLS 1.3 with the Linux host on the wire. skiff-target runs on the lab
# host with a listener that requires TLS; the guest is Debian 13 (LAB_KERNEL=trixie: its 6.12
# kernel has NVMe/TCP TLS, CONFIG_NVME_TCP_TLS; tlshd from ktls-utils does the handshake for it;
# nvme-cli 2.13 makes and inserts the keys). In the guest:
#   1. `nvme gen-tls-key --insert` makes host A's configured PSK and puts the TLS PSK derived from
#      it in the kernel's .nvme keyring; the host gives the same key to the running target
#      (`skiff-ctl host add --tls-psk`); `nvme connect --tls` as host A, fio verify;
#   2. the discovery log read over TLS (`nvme discover --tls`, the key inserted for the
#      discovery NQN too);
#   3. host B connects with a key the target does not have for it: refused; host A's fio verify
#      still passes afterwards;
#   4. the kTLS data path: a second skiff-target runs inside the guest, whose kernel has kTLS
#      (the lab host's has none), with host A's key from its configuration file; host A
#      connects to it over the guest's loopback with --tls, fio verify, and that target's log
#      must say the kernel took the session keys ("record layer kernel kTLS").
# The host then checks the target's log: the TLS sessions of host A with the PSK identity the
# kernel offered, the refusal of host B, and no key anywhere in it.
#
#   tests/lab/tls.sh        (for scripts/lab-tests.sh)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs. Exit 0 = pass,
# 77 = skipped (the guest kernel has no NVMe/TCP TLS).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-tls
host_a=nqn.2014-08.org.nvmexpress:uuid:7150b0e0-0000-4000-8000-00000000000a
host_b=nqn.2014-08.org.nvmexpress:uuid:7150b0e0-0000-4000-8000-00000000000b
me=tls
port="$(lab_free_port)"
lab_work_dir tls # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "disk", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "allowed_hosts": ["$host_a", "$host_b"],
                  "namespaces": [{"nsid": 1, "backend": "disk"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port, "secure_channel": "required"}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_KERNEL="${LAB_KERNEL:-trixie}" LAB_HOST_PORTS="$port" LAB_PASS_ENV="PORT NQN WORK HOST_A HOST_B FIO_SIZE TARGET" \
  PORT="$port" NQN="$nqn" WORK="$work" HOST_A="$host_a" HOST_B="$host_b" TARGET="$target" \
  FIO_SIZE="${FIO_VERIFY_SIZE:-4M}" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
# nvme_tcp has its tls_handshake_timeout parameter only when built with CONFIG_NVME_TCP_TLS.
if [ ! -e /sys/module/nvme_tcp/parameters/tls_handshake_timeout ] || ! command -v tlshd >/dev/null; then
  echo "SKIP: this guest ($(uname -r)) has no NVMe/TCP TLS in its kernel or no tlshd"
  touch "$WORK/no-tls" # first: the host reads keys-ready as "look at no-tls now"
  touch "$WORK/keys-ready"
  exit 77
fi
echo "kernel $(uname -r), $(nvme version | head -n 1), $(tlshd --version 2>&1 | head -n 1)"
lab_tlshd_start "$WORK/tlshd.log"
discovery=nqn.2014-08.org.nvmexpress.discovery
# gen-tls-key prints the configured PSK in the interchange format; with --insert it also derives
# the retained and the TLS PSK for this host and subsystem and stores that in .nvme under the
# identity "NVMe0R01 <host> <subsystem>".
key_a=$(nvme gen-tls-key --hmac=1 --hostnqn="$HOST_A" --subsysnqn="$NQN" --insert | grep -o "NVMeTLSkey-1:[^ ]*") \
  || { echo "FAIL: nvme gen-tls-key"; exit 1; }
nvme check-tls-key --keydata="$key_a" --hostnqn="$HOST_A" --subsysnqn="$discovery" --insert >/dev/null \
  || { echo "FAIL: nvme check-tls-key --insert for the discovery NQN"; exit 1; }
# Host B gets a key of its own in the guest; the target gets another one for it (not inserted).
nvme gen-tls-key --hmac=1 --hostnqn="$HOST_B" --subsysnqn="$NQN" --insert >/dev/null \
  || { echo "FAIL: nvme gen-tls-key for host B"; exit 1; }
nvme gen-tls-key --hmac=1 | grep -o "NVMeTLSkey-1:[^ ]*" >"$WORK/key-b-target" || { echo "FAIL: nvme gen-tls-key"; exit 1; }
echo "keys in .nvme:"; keyctl show %:.nvme 2>/dev/null | sed -n "2,\$p" | sed "s/^ */  /"
echo "$key_a" >"$WORK/key-a"
touch "$WORK/keys-ready"
lab_wait_for "[ -e $WORK/secrets-set ]" || { echo "FAIL: the host never set the keys"; exit 1; }
rc=0

echo "== 1. host A: nvme connect --tls"
lab_nvme_connect tcp 10.0.2.100 "$PORT" "$NQN" --hostnqn="$HOST_A" --hostid="${HOST_A##*:uuid:}" \
  --nr-io-queues=2 --tls || { echo "FAIL: host A could not connect over TLS"; cat "$WORK/tlshd.log"; dmesg | tail -n 20; exit 1; }
dev=$(lab_nvme_disk "$NQN"); ctrl=$(lab_nvme_ctrl "$NQN")
echo "host A: $dev on $ctrl, tls_key $(cat /sys/class/nvme/${ctrl#/dev/}/tls_key 2>/dev/null || echo "?")"
lab_fio_verify "$dev" "$FIO_SIZE" || { echo "FAIL: fio verify over TLS"; rc=1; }

echo "== 2. the discovery log over TLS"
log=$(nvme discover -t tcp -a 10.0.2.100 -s "$PORT" --hostnqn="$HOST_A" --hostid="${HOST_A##*:uuid:}" --tls 2>&1)
echo "$log" | grep -E "subnqn|treq|sectype" | sed "s/^/  /"
echo "$log" | grep -q "subnqn: *$NQN" || { echo "FAIL: no discovery log over TLS"; echo "$log"; rc=1; }
echo "$log" | grep -qiE "sectype: *tls" || { echo "FAIL: the discovery log entry does not say TLS"; rc=1; }

echo "== 3. host B with a key the target does not have"
if nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --hostnqn="$HOST_B" --hostid="${HOST_B##*:uuid:}" \
    --tls --keep-alive-tmo=30 2>&1; then
  echo "FAIL: host B connected with a wrong PSK"; rc=1
else echo "== refused, as it must be"; fi
lab_fio_verify "$dev" "$FIO_SIZE" || { echo "FAIL: host A stopped working after host B was refused"; rc=1; }
nvme disconnect -n "$NQN" >/dev/null || rc=1

echo "== 4. skiff-target inside the guest (its kernel has kTLS), host A over the loopback"
# The lab host built the target against bookworm: host-libs lends it the libraries trixie lacks.
/lab/guest/host-libs "$TARGET" --config "$WORK/guest-target.json" >"$WORK/guest-target.log" 2>&1 &
lab_wait_listen tcp 127.0.0.1 4430 30 || { echo "FAIL: the guest target does not listen"; cat "$WORK/guest-target.log"; exit 1; }
lab_wait_for "[ -z \"\$(lab_nvme_disk $NQN)\" ]" || true # the first controller is gone
lab_nvme_connect tcp 127.0.0.1 4430 "$NQN" --hostnqn="$HOST_A" --hostid="${HOST_A##*:uuid:}" --nr-io-queues=2 --tls \
  || { echo "FAIL: host A could not connect to the guest target"; tail -n 20 "$WORK/guest-target.log"; exit 1; }
dev=$(lab_nvme_disk "$NQN")
lab_fio_verify "$dev" "$FIO_SIZE" || { echo "FAIL: fio verify through the guest target"; rc=1; }
nvme disconnect -n "$NQN" >/dev/null || rc=1
grep "TLS 1.3 established" "$WORK/guest-target.log" | sed -n "1p;\$p" | sed "s/^.*: TLS/  TLS/"
if ! grep -q "TLS 1.3 established: .*record layer kernel kTLS (send and receive)" "$WORK/guest-target.log"; then
  echo "FAIL: the guest target did not hand its sessions to the kernel (kTLS)"; rc=1
fi
echo "--- tlshd"; tail -n 8 "$WORK/tlshd.log"
exit $rc
' &
gpid=$!
rc=0
if lab_guest_keys_ready "$work/no-tls"; then
  key_a="$(cat "$work/key-a")"
  # phase 4's target, inside the guest; host A's key in its configuration
  cat >"$work/guest-target.json" <<JSON
{
  "target": {"cores": 1, "management_socket": "/tmp/skiff-guest-ctl.sock"},
  "backends": [{"name": "disk", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "allowed_hosts": ["$host_a"], "namespaces": [{"nsid": 1, "backend": "disk"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": 4430, "secure_channel": "required"}],
  "hosts": [{"nqn": "$host_a", "tls_psk": "$key_a"}],
  "discovery": null
}
JSON
  chmod 600 "$work/guest-target.json"
  "$ctl" --socket "$sock" host add "$nqn" "$host_a" --tls-psk-file "$work/key-a" >/dev/null || rc=1
  # host B's key on the target is not the one in the guest's keyring
  "$ctl" --socket "$sock" host add "$nqn" "$host_b" --tls-psk-file "$work/key-b-target" >/dev/null || rc=1
  touch "$work/secrets-set"
else
  rc=1
fi
wait "$gpid"; grc=$?; gpid=""
if [ $grc = 77 ]; then
  echo "$me: SKIPPED: the lab guest has no NVMe/TCP TLS"
  exit 77
fi
[ $grc = 0 ] || rc=1
log="$work/target.log"
grep -E "TLS" "$log" | grep -F "$host_a" | head -n 2 \
  || { echo "$me: no TLS session of host A in the target's log"; rc=1; }
grep -E "TLS" "$log" | grep -F "$host_b" | head -n 2 \
  || { echo "$me: the refusal of host B is not in the target's log"; rc=1; }
grep -qF "${key_a:16:24}" "$log" && { echo "$me: a key is in the target's log"; rc=1; }
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 60 "$log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
