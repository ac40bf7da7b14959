#!/usr/bin/env bash
# Lab test: DH-HMAC-CHAP in-band authentication with the Linux kernel initiator. The guest makes
# the secrets with `nvme gen-dhchap-key`; the host gives them to the running skiff-target with
# `skiff-ctl host add --dhchap-key ...`; then, in the guest:
#   1. host A connects with --dhchap-secret (the target allows SHA-256 with the null group only),
#      fio verify passes;
#   2. host B connects with host A's secret: nvme connect fails, and host A's fio verify still
#      passes afterwards;
#   3. host B connects with its own --dhchap-secret and --dhchap-ctrl-secret (bidirectional; the
#      target allows SHA-512 with ffdhe4096 only), fio verify passes.
# The host then checks the target's log: both successes with the negotiated hash and group, the
# refusal naming host B and why, and no secret anywhere in it.
#
# The guest boots the lab's backports kernel (LAB_KERNEL=backports: bookworm-backports' 6.12,
# CONFIG_NVME_HOST_AUTH=y); bookworm's own 6.1 is built without CONFIG_NVME_AUTH. A guest kernel
# without it (LAB_KERNEL=default) cannot run the test: it then exits 77 and
# scripts/lab-tests.sh counts it as skipped, not passed. The guest runs with
# nvme_core.multipath=N, so each host's controller is its own block device (fio as host B goes
# through host B's connection), and host B connects through a second listener: nvme-cli 2.4
# refuses a second controller to the same address, port and subsystem.
#
#   tests/lab/auth.sh        (for scripts/lab-tests.sh)
# Environment: SKIFF_TARGET, SKIFF_CTL (default build/bin/...), LAB_* knobs (LAB_KERNEL
# defaults to backports here). Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lab/host-target.sh
nqn=nqn.2026-11.io.skiff:lab-auth
host_a=nqn.2014-08.org.nvmexpress:uuid:1ab0b0e0-0000-4000-8000-00000000000a
host_b=nqn.2014-08.org.nvmexpress:uuid:1ab0b0e0-0000-4000-8000-00000000000b
me=auth
port="$(lab_free_port)"   # host A
port_b="$(lab_free_port)" # host B
lab_work_dir auth # shared with the guest
cat >"$work/target.json" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock"},
  "backends": [{"name": "disk", "kind": "ram", "size": "64MiB"}],
  "subsystems": [{"nqn": "$nqn", "allowed_hosts": ["$host_a", "$host_b"],
                  "namespaces": [{"nsid": 1, "backend": "disk"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port},
                {"trtype": "tcp", "addr": "127.0.0.1", "port": $port_b}],
  "discovery": null
}
JSON

lab_target_start
lab_target_wait_socket || lab_target_failed "skiff-target did not open $sock"

# shellcheck disable=SC2016  # expanded in the guest
LAB_KERNEL="${LAB_KERNEL:-backports}" LAB_CMDLINE="${LAB_CMDLINE:-} nvme_core.multipath=N" \
  LAB_HOST_PORTS="$port $port_b" LAB_PASS_ENV="PORT PORT_B NQN WORK HOST_A HOST_B FIO_SIZE" \
  PORT="$port" PORT_B="$port_b" NQN="$nqn" WORK="$work" HOST_A="$host_a" HOST_B="$host_b" \
  FIO_SIZE="${FIO_VERIFY_SIZE:-4M}" LAB_TIMEOUT="${LAB_TIMEOUT:-400}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
# A kernel built without CONFIG_NVME_AUTH has no DH-HMAC-CHAP in its initiator at all (with it,
# nvme_auth_negotiate is in nvme_core: "ADDR t nvme_auth_negotiate<TAB>[nvme_core]").
if ! grep -qw nvme_auth_negotiate /proc/kallsyms; then
  echo "SKIP: this kernel ($(uname -r)) is built without CONFIG_NVME_AUTH: its initiator cannot authenticate"
  touch "$WORK/no-auth" # first: the host reads keys-ready as "look at no-auth now"
  touch "$WORK/keys-ready"
  exit 77
fi
dev_of() { # dev_of HOSTNQN -> /dev/nvmeXn1 of the controller that host connected
  local d; for d in /sys/class/nvme/nvme*; do
    grep -qx "$NQN" $d/subsysnqn 2>/dev/null && grep -qx "$1" $d/hostnqn 2>/dev/null && echo /dev/$(basename $d)n1
  done; }
key_a=$(nvme gen-dhchap-key -m 1 -n "$HOST_A") || exit 1
key_b=$(nvme gen-dhchap-key -m 3 -n "$HOST_B") || exit 1
key_ctrl=$(nvme gen-dhchap-key -m 3 -n "$NQN") || exit 1
printf "%s\n%s\n%s\n" "$key_a" "$key_b" "$key_ctrl" >"$WORK/keys"
touch "$WORK/keys-ready"
lab_wait_for "[ -e $WORK/secrets-set ]" || { echo "FAIL: the host never set the secrets"; exit 1; }
rc=0
echo "kernel $(uname -r), nvme_core.multipath=$(cat /sys/module/nvme_core/parameters/multipath), $(nvme version | head -n 1)"
# connect PORT HOSTNQN [nvme connect options]. Each host gets the host id of its NQN: 6.12 refuses
# (EINVAL) a second host NQN with the host id already in use, which nvme-cli would otherwise
# take from /etc/nvme/hostid for both. Keep-alive 30 s: the emulated CPU computes an ffdhe4096
# key for seconds, during which the host sends nothing; with the default 5 s the target (like
# nvmet) tears the controller down for keep-alive before the Reply arrives.
connect() {
  local p="$1" h="$2"; shift 2
  nvme connect -t tcp -a 10.0.2.100 -s "$p" -n "$NQN" --hostnqn "$h" --hostid "${h##*:uuid:}" --nr-io-queues 2 \
    --keep-alive-tmo 30 "$@"
}

echo "== 1. host A, --dhchap-secret (SHA-256, null group)"
connect "$PORT" "$HOST_A" --dhchap-secret "$key_a" || { echo "FAIL: host A could not connect"; exit 1; }
lab_wait_for "[ -n \"\$(dev_of $HOST_A)\" ] && [ -b \$(dev_of $HOST_A) ]" || { echo "FAIL: no namespace for host A"; exit 1; }
dev_a=$(dev_of "$HOST_A"); echo "host A: $dev_a"
lab_fio_verify $dev_a "$FIO_SIZE" || { echo "FAIL: fio verify as host A"; rc=1; }

echo "== 2. host B with a wrong secret"
if connect "$PORT_B" "$HOST_B" --dhchap-secret "$key_a" 2>&1; then
  echo "FAIL: host B connected with host A'"'"'s secret"; rc=1
else echo "== refused, as it must be"; fi
dmesg | grep -iE "authentication failed|qid 0: .*(fail|error)" | tail -n 3
lab_fio_verify $dev_a "$FIO_SIZE" || { echo "FAIL: host A stopped working after host B was refused"; rc=1; }

echo "== 3. host B, --dhchap-secret and --dhchap-ctrl-secret (bidirectional, SHA-512, ffdhe4096)"
connect "$PORT_B" "$HOST_B" --dhchap-secret "$key_b" --dhchap-ctrl-secret "$key_ctrl" \
  || { echo "FAIL: host B could not connect"; exit 1; }
lab_wait_for "[ -n \"\$(dev_of $HOST_B)\" ] && [ -b \$(dev_of $HOST_B) ]" || { echo "FAIL: no namespace for host B"; exit 1; }
dev_b=$(dev_of "$HOST_B"); echo "host B: $dev_b"
lab_fio_verify $dev_b "$FIO_SIZE" || { echo "FAIL: fio verify as host B"; rc=1; }
nvme disconnect -n "$NQN" || rc=1
exit $rc
' &
gpid=$!
rc=0
if lab_guest_keys_ready "$work/no-auth"; then
  mapfile -t keys <"$work/keys"
  "$ctl" --socket "$sock" host add "$nqn" "$host_a" --dhchap-key "${keys[0]}" --dhchap-hash sha256 \
    --dhchap-dhgroup null >/dev/null || rc=1
  "$ctl" --socket "$sock" host add "$nqn" "$host_b" --dhchap-key "${keys[1]}" --dhchap-ctrl-key "${keys[2]}" \
    --dhchap-hash sha512 --dhchap-dhgroup ffdhe4096 >/dev/null || rc=1
  # skiff-ctl list shows that a key is set, never the key.
  listed="$("$ctl" --socket "$sock" list)"
  grep -qF "${keys[0]}" <<<"$listed" && { echo "$me: skiff-ctl list shows a secret"; rc=1; }
  touch "$work/secrets-set"
else
  rc=1
fi
wait "$gpid"; grc=$?; gpid=""
if [ $grc = 77 ]; then
  echo "$me: SKIPPED: the lab kernel's initiator has no DH-HMAC-CHAP (CONFIG_NVME_AUTH is not set);"
  echo "$me: skiff's own initiator covers the protocol in tests/integration/dhchap_test.cpp"
  exit 77
fi
[ $grc = 0 ] || rc=1
log="$work/target.log"
grep -E "authenticated: .* host $host_a .*DH-HMAC-CHAP sha256, null" "$log" | head -n 1 \
  || { echo "$me: no SHA-256/null authentication of host A in the log"; rc=1; }
grep -E "authenticated: .* host $host_b .*DH-HMAC-CHAP sha512, ffdhe4096, bidirectional" "$log" | head -n 1 \
  || { echo "$me: no bidirectional SHA-512/ffdhe4096 authentication of host B in the log"; rc=1; }
grep -E "authentication failed: .* host $host_b .*wrong secret" "$log" | head -n 1 \
  || { echo "$me: the refusal of host B's wrong secret is not in the log"; rc=1; }
if [ -s "$work/keys" ]; then
  while read -r k; do grep -qF "${k:10:24}" "$log" && { echo "$me: a secret is in the target's log"; rc=1; }; done <"$work/keys"
fi
if [ $rc = 0 ]; then echo "$me: PASS"; else echo "--- target output"; tail -n 60 "$log"; echo "$me: FAIL (rc=$rc)"; fi
exit $rc
