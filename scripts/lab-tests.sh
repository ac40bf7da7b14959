#!/usr/bin/env bash
# Lab tests: skiff against the real Linux NVMe-oF initiators in the lab VM (tests/lab/vm, see its
# README; the image is built on first use). Called by scripts/test.sh unless SKIFF_SKIP_LAB=1.
#
#   scripts/lab-tests.sh [test ...]      (default: every test below)
#   scripts/lab-tests.sh --list          the default tests' names, one a line
#
# Tests:
#   host-target-tcp   build/bin/skiff-target on the host; in the guest nvme discover, nvme connect,
#                     id-ctrl/id-ns must show the serial, model and size given on the command line,
#                     fio crc32c verify (4k random + 128k sequential), disconnect.
#   kernel-initiator-options  tests/lab/kernel-initiator-options.sh: the kernel initiator against
#                     skiff-target with header + data digests, 2 I/O queues of depth 32, KATO
#                     15 s; fio verify; disconnect; the target exits 0 on SIGTERM.
#   live-namespace    tests/lab/live-namespace.sh: skiff-target from a config file; the guest
#                     keeps fio verify running on namespace 1 while skiff-ctl adds namespace 2
#                     (the guest sees /dev/nvmeXn2 appear without reconnecting) and removes it
#                     (it disappears).
#   discovery-change  tests/lab/discovery-change.sh: the guest keeps a persistent discovery
#                     controller (nvme discover -p); skiff-ctl adds a subsystem and namespace; the
#                     guest kernel's NVME_AEN=0x70f002 uevent (discovery log page change) leads to
#                     nvme connect-all through that controller, as nvme-cli's udev rule does; the
#                     new namespace passes fio verify.
#   namespace-resize  tests/lab/namespace-resize.sh: skiff-ctl namespace resize grows a RAM
#                     namespace under fio verify; the guest sees the new size (lsblk) without
#                     reconnecting and fio verify passes in the grown range.
#   namespace-scale   tests/lab/namespace-scale.sh: 1024 namespaces in one subsystem; host A sees
#                     all (nvme list; fio verify on the first and the last), host B 1023 (nsid
#                     1024 is host A's only); skiff-ctl namespace host add / remove shows and
#                     hides nsid 1024 for the connected host B without a reconnect.
#   error-inject      tests/lab/error-inject.sh: namespace 1 on an `error` backend, namespace 2 on
#                     RAM; skiff-ctl arms an Unrecovered Read Error (with and without DNR) and a
#                     Write Fault; the guest's read fails (the kernel logs the status) or is
#                     retried, fio reports the write error, fio verify on namespace 2 never fails.
#   auth              tests/lab/auth.sh, on the backports kernel (LAB_KERNEL=backports, 6.12: its
#                     NVMe host has DH-HMAC-CHAP): the kernel initiator authenticates; secrets from
#                     nvme gen-dhchap-key in the guest, set with skiff-ctl host add; host A with
#                     --dhchap-secret (SHA-256, null group) passes fio verify; host B with a wrong
#                     secret is refused (the target logs why) while A keeps working; host B with
#                     --dhchap-ctrl-secret (bidirectional, SHA-512, ffdhe4096) passes fio verify.
#   tls               tests/lab/tls.sh, on the trixie guest (LAB_KERNEL=trixie: Debian 13, kernel
#                     6.12 with NVMe/TCP TLS, tlshd, nvme-cli 2.13): a listener that requires TLS;
#                     keys from nvme gen-tls-key --insert in the guest, given to the target with
#                     skiff-ctl host add --tls-psk-file; nvme connect --tls as host A passes fio
#                     verify; nvme discover --tls reads the discovery log; host B with a key the
#                     target does not have is refused while A keeps working; then a skiff-target
#                     inside the guest (whose kernel has kTLS) serves host A over the loopback:
#                     fio verify, and its log says the kernel took the session keys.
#   concat            tests/lab/concat.sh, on the trixie guest with trixie-backports' kernel
#                     (LAB_KERNEL=trixie-backports, 6.15 or later): secure channel concatenation.
#                     Host A has only a DH-HMAC-CHAP secret (nvme gen-dhchap-key, given to the
#                     target with skiff-ctl host add); nvme connect --dhchap-secret --concat through
#                     a listener with secure_channel optional, fio verify over the TLS channel keyed
#                     by the authentication; then skiff-perf --concat against nvmet in the guest
#                     (verified I/O: both sides derived the same PSK).
#   initiator-vs-nvmet  skiff's own initiator (build/bin/host_check) against the reference target,
#                     the Linux kernel's nvmet-tcp, both inside the guest: discovery, connect,
#                     identify, write/read-verify up to MDTS with and without digests, 4 I/O
#                     queues with commands in flight, flush / write zeroes / deallocate, the
#                     statuses of bad commands, shutdown.
#   hostmem-tcp       build/bin/skiff-host exporting 64 MiB and skiff-target --backend hostmem on
#                     the host; in the guest the kernel initiator connects (it reads the ANA log
#                     at connect: group 1 must be optimized), fio crc32c verify through the DMA
#                     path, disconnect; SIGTERM stops both (skiff-host revokes its export).
#   rbd-tcp           only with SKIFF_CEPH_CONF (scripts/ceph-dev-cluster.sh start prints it; not
#                     part of the default list): skiff-target on the host serves the dev cluster's
#                     image (pool SKIFF_CEPH_POOL, default rbd; image SKIFF_CEPH_IMAGE, default
#                     skiff-test) from a config file; in the guest the kernel initiator reads the
#                     ANA log (optimized) and runs fio crc32c verify. The guest talks NVMe/TCP to
#                     the target only; the target talks to the cluster on the host's loopback.
#   hostmem-rdma      skiff-host and skiff-target --transport rdma --backend hostmem INSIDE the guest
#                     on soft-RoCE; the kernel nvme-rdma initiator reads the ANA log (optimized),
#                     fio crc32c verify through DMA into the RDMA queue pairs' regions.
#   rdma-target       skiff-target --transport rdma INSIDE the guest on soft-RoCE (rxe0,
#                     192.168.77.1); the kernel nvme-rdma initiator discovers, connects, fio crc32c
#                     verify (4k random + 128k sequential), disconnects.
#   rdma-target-dpa   rdma-target with --datapath dpa: every I/O queue runs on a DPA thread (2
#                     emulated EUs); the target's log must show the I/O queues on the DPA; the
#                     same discover, connect, fio crc32c verify (4k random + 128k sequential) and
#                     disconnect.
#   rdma-reconnect    tests/lab/rdma-reconnect.sh: 20 nvme-rdma connect/disconnect cycles; the
#                     guest's `rdma res` QP/MR/PD/CQ/CM-id counts return to their starting values.
#   rdma-srq-target   rdma-target with --rdma-srq-depth 256: one shared receive queue for the
#                     admin and both I/O queues (the guest's `rdma res` must show it), fio verify.
#   rdma-srq-reconnect  rdma-reconnect with --rdma-srq-depth 64: the SRQ, its PD and MR go with
#                     the last connection, so the counts (SRQs too) return to their start.
#   perf-vs-nvmet     bench's skiff-perf (build/bin/skiff-perf) as a generic NVMe/TCP initiator
#                     against the Linux kernel's nvmet-tcp in the guest: 2 s of 4k randrw with
#                     --verify on 2 queues, then 1 s of 128k sequential reads; both must finish
#                     with I/O done and no verify error.
#   doca-rdma         tests/helpers/rdma_pingpong INSIDE the guest on rxe0: two doca_rdma contexts
#                     (server and client processes) do connect with private data, send/receive,
#                     RDMA write (+imm) and RDMA read with byte checks, disconnect.
#   doca-rdma-no-cm   the same helper with --no-cm: the connection is made by doca_rdma_export /
#                     doca_rdma_connect (QP to RTR/RTS by hand), descriptors swapped over TCP.
#   dpa-rdma-pingpong tests/helpers/dpa_rdma_pingpong INSIDE the guest on rxe0: two processes, each a
#                     doca_rdma context on the DPA data path with one DPA thread; exports exchanged by
#                     device-side sends, 64 ping-pongs by device-side send/receive, RDMA write with
#                     immediate both ways, atomic fetch-add, remote sync event set/add, RDMA read,
#                     every byte verified on the DPA thread or the host.
#   multipath         tests/lab/multipath.sh: skiff-target with two listeners (port A optimized, B
#                     non-optimized); the guest's native NVMe multipath (nvme_core.multipath=Y,
#                     checked) connects through both and runs fio verify on the multipath disk
#                     while skiff-ctl ana set makes A inaccessible (through the change state): path
#                     A's sysfs ana_state turns inaccessible, path B carries the writes, no I/O or
#                     verify error; then A optimized again (failback, seen in sysfs).
#   reservations      tests/lab/reservations.sh: two kernel-initiator identities (--hostnqn /
#                     --hostid) connected to one namespace in one guest (nvme_core.multipath=N);
#                     nvme resv-register / resv-acquire (Write Exclusive) / resv-report from each;
#                     the non-holder's write fails with Reservation Conflict, its read succeeds;
#                     preempt moves the reservation; after a target restart (PTPL on) the reports
#                     are the same.
#   copy-verify       tests/lab/copy-verify.sh: nvme-cli in the guest against a RAM namespace:
#                     id-ctrl ONCS has Copy and Verify, id-ns MSSRL/MCL/MSRC; nvme copy of two
#                     ranges reads back at the destination; nvme verify of a good range passes,
#                     past the end fails with LBA Out of Range; descriptor format 1 and an
#                     overlapping destination fail with Invalid Field in Command.
#   ipv6              tests/lab/ipv6.sh: skiff-target INSIDE the guest on fd00:77::1 (dummy0, with
#                     rxe0 on it; the lab's network reaches the host over IPv4 only), a TCP, an RDMA
#                     and a discovery listener; nvme discover over IPv6 lists both ports as ipv6;
#                     nvme connect -t tcp and -t rdma over IPv6, fio verify on each; exit 0 on SIGTERM.
#   mdns              tests/lab/mdns.sh, on a boot of its own: a system D-Bus, avahi-daemon and
#                     skiff-target (mdns.announce)
#                     INSIDE the guest; avahi-browse finds the discovery listener as _nvme-disc._tcp
#                     (port 8009, TXT nqn=<discovery NQN>, p=tcp), nvme discover at the resolved
#                     address lists the subsystem, the target announces again after avahi-daemon
#                     restarts, and the announcement goes with the target (SIGTERM, exit 0).
#   service           tests/lab/service.sh: the guest boots systemd, installs the amd64 .debs of
#                     scripts/package.sh, `systemd-analyze verify` of both units is clean,
#                     `systemctl start skiff-target`, nvme connect + fio verify, a namespace
#                     added to /etc/skiff/target.json appears after `systemctl reload`,
#                     `systemctl stop` ends it with status 0.
#
# Environment: LAB_TIMEOUT and the other LAB_* knobs are passed on to tests/lab/vm/run;
# SKIFF_LAB_PORT is the target port on the host (default: a free one, so parallel runs on one
# machine do not collide; the guest reaches a host port through 10.0.2.100); FIO_VERIFY_SIZE
# (default 8M, the guest runs under TCG emulation: keep it small); LAB_RETRIES (default 1: a
# failed test runs once more, see below; 0: never).
# Ends with "lab: N passed, N failed, N skipped" (a test exits 77 when the guest kernel lacks what
# it needs, e.g. auth without CONFIG_NVME_AUTH); exit 0 only if none failed.
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then # this header, without its comment marks
  sed -n '2,/^set -uo pipefail/{/^set /d; s/^# \{0,1\}//; p}' "$0"
  exit 0
fi
cd "$(dirname "$0")/.." || exit 1
checkout="$(pwd)"
lab="$checkout/tests/lab/vm"

# The image first, so that its build (minutes, once) is not charged to the first test.
if ! "$lab/build-image" --quiet; then
  echo "lab-tests: the lab image could not be built ($lab/build-image)"
  echo "lab: 0 passed, 1 failed"
  exit 1
fi

target="$checkout/build/bin/skiff-target"
host_check="$checkout/build/bin/host_check"
if [ ! -x "$target" ] || [ ! -x "$host_check" ]; then
  echo "== lab-tests: building the release flavour for $target"
  scripts/build.sh release >/dev/null || { echo "lab: 0 passed, 1 failed"; exit 1; }
fi
if [ ! -x "$target" ]; then
  echo "lab-tests: $target does not exist after the build (no dataplane/apps/skiff-target yet?)"
  echo "lab: 0 passed, 1 failed"
  exit 1
fi

# What the target is told to present, and what the guest must then see.
LAB_SERIAL=SKIFFLAB0001
LAB_MODEL="skiff-lab-target"
LAB_SIZE_MIB=64
LAB_BLOCK=4096
LAB_NSZE=$(printf '0x%x' $((LAB_SIZE_MIB * 1024 * 1024 / LAB_BLOCK)))

# A TCP port on the host's loopback that nothing listens on right now (one the shared session
# forwards, when there is one).
free_port() {
  "$lab/free-port"
}

test_host_target_tcp() {
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab \
  TARGET_PORT="${SKIFF_LAB_PORT:-$(free_port)}" \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-8M}" \
  TARGET_CMD="exec $target"' --listen $TARGET_ADDR:$TARGET_PORT --nqn $TARGET_NQN --discovery none'" \
--serial $LAB_SERIAL --model $LAB_MODEL --size ${LAB_SIZE_MIB}MiB --block-size $LAB_BLOCK --backend ram" \
  GUEST_CHECK_CMD="nvme id-ctrl \$CTRL | grep -Eq '^sn +: $LAB_SERIAL *\$' || { echo 'id-ctrl: serial is not $LAB_SERIAL'; exit 1; }; nvme id-ctrl \$CTRL | grep -Eq '^mn +: $LAB_MODEL *\$' || { echo 'id-ctrl: model is not $LAB_MODEL'; exit 1; }; nvme id-ns \$DEV | grep -Eq '^nsze +: $LAB_NSZE\$' || { echo 'id-ns: nsze is not $LAB_NSZE'; exit 1; }; echo 'GUEST_CHECK: sn $LAB_SERIAL, mn $LAB_MODEL, nsze $LAB_NSZE as configured'" \
    "$lab/tcp-host-target"
}

test_kernel_initiator_options() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/kernel-initiator-options.sh"
}

test_live_namespace() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/live-namespace.sh"
}

test_discovery_change() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/discovery-change.sh"
}

test_namespace_resize() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/namespace-resize.sh"
}

test_namespace_scale() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/namespace-scale.sh"
}

test_error_inject() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/error-inject.sh"
}

test_auth() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/auth.sh"
}

test_tls() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/tls.sh"
}

test_concat() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/concat.sh"
}

test_initiator_vs_nvmet() {
  local nqn=nqn.2026-11.io.skiff:kernel-nvmet
  # null_blk with memory_backed=1 keeps what is written, so read-back can be verified.
  LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" "set -e
. /lab/guest/functions.sh
dev=\$(lab_nullblk 1 1)
lab_nvmet_export $nqn tcp 127.0.0.1 4420 \$dev
/lab/guest/host-libs $host_check --addr 127.0.0.1 --port 4420 --nqn $nqn"
}

test_hostmem_tcp() {
  local channel="skiff-lab-host-$$"
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab-hostmem \
  TARGET_PORT="${SKIFF_LAB_PORT:-$(free_port)}" \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-8M}" \
  TARGET_CMD="$checkout/build/bin/skiff-host --channel $channel --size ${LAB_SIZE_MIB}MiB & exec $target"' --listen $TARGET_ADDR:$TARGET_PORT --nqn $TARGET_NQN --discovery none'" \
--size ${LAB_SIZE_MIB}MiB --block-size $LAB_BLOCK --backend hostmem --hostmem-channel $channel" \
  GUEST_CHECK_CMD="nvme ana-log \$CTRL | tee /dev/stderr | grep -Eiq 'state[[:space:]]*:[[:space:]]*optimized' || { echo 'ana-log: group not optimized'; exit 1; }; echo 'GUEST_CHECK: ANA group optimized'" \
    "$lab/tcp-host-target"
}

test_rbd_tcp() {
  if [ -z "${SKIFF_CEPH_CONF:-}" ]; then
    echo "lab-tests: rbd-tcp needs SKIFF_CEPH_CONF (scripts/ceph-dev-cluster.sh start)"
    return 1
  fi
  local cfg
  cfg=$(mktemp /tmp/skiff-lab-rbd-XXXXXX.json)
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab-rbd \
  TARGET_PORT="${SKIFF_LAB_PORT:-$(free_port)}" \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-8M}" \
  TARGET_CMD='printf "%s" "{\"target\": {\"cores\": 1},
 \"backends\": [{\"name\": \"rbd0\", \"kind\": \"rbd\", \"pool\": \"'"${SKIFF_CEPH_POOL:-rbd}"'\", \"image\": \"'"${SKIFF_CEPH_IMAGE:-skiff-test}"'\", \"size\": \"'"$LAB_SIZE_MIB"'MiB\", \"ceph_conf\": \"'"$SKIFF_CEPH_CONF"'\"}],
 \"subsystems\": [{\"nqn\": \"$TARGET_NQN\", \"namespaces\": [{\"nsid\": 1, \"backend\": \"rbd0\", \"block_size\": '"$LAB_BLOCK"'}]}],
 \"listeners\": [{\"trtype\": \"tcp\", \"addr\": \"$TARGET_ADDR\", \"port\": $TARGET_PORT}], \"discovery\": null}" >'"$cfg"'; exec '"$target"' --config '"$cfg" \
  GUEST_CHECK_CMD="nvme ana-log \$CTRL | tee /dev/stderr | grep -Eiq 'state[[:space:]]*:[[:space:]]*optimized' || { echo 'ana-log: group not optimized'; exit 1; }; echo 'GUEST_CHECK: ANA group optimized'" \
    "$lab/tcp-host-target"
  local rc=$?
  rm -f "$cfg"
  return $rc
}

test_rdma_target() {
  # The target runs in the guest (the host has no RDMA); the guest sees the checkout at the same
  # path and takes any library the image lacks from the host through host-libs.
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab-rdma \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-8M}" \
  TARGET_CMD="exec /lab/guest/host-libs $target"' --transport rdma --listen $TARGET_ADDR:$TARGET_PORT --nqn $TARGET_NQN --discovery none'" \
--serial $LAB_SERIAL --model $LAB_MODEL --size ${LAB_SIZE_MIB}MiB --block-size $LAB_BLOCK --backend ram" \
  GUEST_CHECK_CMD="nvme id-ctrl \$CTRL | grep -Eq '^sn +: $LAB_SERIAL *\$' || { echo 'id-ctrl: serial is not $LAB_SERIAL'; exit 1; }; nvme id-ns \$DEV | grep -Eq '^nsze +: $LAB_NSZE\$' || { echo 'id-ns: nsze is not $LAB_NSZE'; exit 1; }; echo 'GUEST_CHECK: sn $LAB_SERIAL, nsze $LAB_NSZE as configured'" \
    "$lab/rdma-guest-target"
}

test_rdma_target_dpa() {
  # As rdma-target, on the dpa data path. GUEST_CHECK runs after the connect, so the I/O queues'
  # Fabrics Connect already went through their DPA threads.
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab-rdma-dpa \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-8M}" \
  TARGET_CMD="exec /lab/guest/host-libs $target"' --transport rdma --listen $TARGET_ADDR:$TARGET_PORT --nqn $TARGET_NQN --discovery none'" \
--size ${LAB_SIZE_MIB}MiB --block-size $LAB_BLOCK --backend ram --datapath dpa --dpa-eus 2" \
  GUEST_CHECK_CMD="grep -q 'dpa data path: 2 execution unit' /lab-run/target.log || { echo 'target log: no DPA started'; exit 1; }; grep -Eq 'qid [1-9][0-9]* runs on DPA thread' /lab-run/target.log || { echo 'target log: no I/O queue on a DPA thread'; exit 1; }; echo \"GUEST_CHECK: \$(grep -Ec 'runs on DPA thread' /lab-run/target.log) I/O queue(s) on DPA threads\"" \
    "$lab/rdma-guest-target"
}

test_hostmem_rdma() {
  # hostmem behind NVMe/RDMA: skiff-host and skiff-target both in the guest (the host has no
  # RDMA); the DMA lands straight in the RDMA queue pair's registered region.
  local channel=skiff-lab-host region=/tmp/skiff-lab-host.region
  # skiff-target starts once skiff-host has exported (its region file is there): the target must
  # find a host to import from.
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab-hostmem-rdma \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-8M}" \
  TARGET_CMD="/lab/guest/host-libs $checkout/build/bin/skiff-host --channel $channel --size ${LAB_SIZE_MIB}MiB --test-region-file $region & \
for i in \$(seq 300); do [ -f $region ] && break; sleep 0.1; done; \
exec /lab/guest/host-libs $target"' --transport rdma --listen $TARGET_ADDR:$TARGET_PORT --nqn $TARGET_NQN --discovery none'" \
--size ${LAB_SIZE_MIB}MiB --block-size $LAB_BLOCK --backend hostmem --hostmem-channel $channel" \
  GUEST_CHECK_CMD="nvme ana-log \$CTRL | tee /dev/stderr | grep -Eiq 'state[[:space:]]*:[[:space:]]*optimized' || { echo 'ana-log: group not optimized'; exit 1; }; echo 'GUEST_CHECK: ANA group optimized'" \
    "$lab/rdma-guest-target"
}

test_multipath() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/multipath.sh"
}

test_reservations() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/reservations.sh"
}

test_copy_verify() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/copy-verify.sh"
}

test_ipv6() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/ipv6.sh"
}

test_mdns() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/mdns.sh"
}

test_service() {
  "$checkout/tests/lab/service.sh"
}

test_rdma_reconnect() {
  SKIFF_TARGET="$target" "$checkout/tests/lab/rdma-reconnect.sh"
}

# The shared receive queue: 256 capsules for the admin queue (32) and the guest's two I/O queues
# (128 each): more entries than the SRQ holds, so the queues really share it.
test_rdma_srq_target() {
  # shellcheck disable=SC2016  # TARGET_* are expanded by the lab driver's bash -c
  TARGET_NQN=nqn.2026-11.io.skiff:lab-rdma-srq \
  FIO_VERIFY_SIZE="${FIO_VERIFY_SIZE:-4M}" \
  TARGET_CMD="exec /lab/guest/host-libs $target"' --transport rdma --listen $TARGET_ADDR:$TARGET_PORT --nqn $TARGET_NQN --discovery none'" \
--rdma-srq-depth 256 --size ${LAB_SIZE_MIB}MiB --block-size $LAB_BLOCK --backend ram" \
  GUEST_CHECK_CMD="grep -q 'shared receive queue of 256 capsules' /lab-run/target.log || { echo 'target log: no shared receive queue'; exit 1; }; rdma res show srq | grep 'comm skiff-target' || { echo 'rdma res: no SRQ of skiff-target'; exit 1; }; echo 'GUEST_CHECK: the target serves through its shared receive queue'" \
    "$lab/rdma-guest-target"
}

test_rdma_srq_reconnect() {
  SKIFF_TARGET="$target" TARGET_ARGS="--rdma-srq-depth 64" "$checkout/tests/lab/rdma-reconnect.sh"
}

test_perf_vs_nvmet() {
  local nqn=nqn.2026-11.io.skiff:kernel-nvmet perf="$checkout/build/bin/skiff-perf"
  [ -x "$perf" ] || { echo "lab-tests: $perf missing"; return 1; }
  LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" "set -e
. /lab/guest/functions.sh
dev=\$(lab_nullblk 1 1)
lab_nvmet_export $nqn tcp 127.0.0.1 4420 \$dev
run() { /lab/guest/host-libs $perf --addr 127.0.0.1 --port 4420 --nqn $nqn --no-progress --ramp 0 \"\$@\"; }
run --rw randrw --bs 4k --qd 8 --queues 2 --time 2s --verify
run --rw read --bs 128k --qd 8 --time 1s --json"
}

# Runs a two-process RDMA helper (--server / --client, one line per check, exit 0 = pass) INSIDE
# the guest on rxe0: the server first, the client once the server listens.
#   run_rdma_pair NAME BINARY PORT [EXTRA_FLAG]
run_rdma_pair() {
  local name="$1" binary="$2" port="$3" extra="${4:-}"
  [ -x "$binary" ] || { echo "$name: $binary is missing (scripts/build.sh release)"; return 1; }
  # shellcheck disable=SC2016  # expanded in the guest
  LAB_PASS_ENV="${LAB_PASS_ENV:-} PAIR_NAME PAIR_BINARY PAIR_PORT PAIR_EXTRA" PAIR_NAME="$name" PAIR_BINARY="$binary" \
  PAIR_PORT="$port" PAIR_EXTRA="$extra" LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
addr="$(lab_rxe_up)" || { echo "$PAIR_NAME: FAIL: soft-RoCE (rxe0) did not come up"; exit 1; }
/lab/guest/host-libs "$PAIR_BINARY" --server --device rxe0 --port "$PAIR_PORT" $PAIR_EXTRA > /lab-run/server.log 2>&1 &
spid=$!
# Start the client once the server listens (its listener must be up first).
for _ in $(seq 1 120); do grep -q "^listening" /lab-run/server.log 2>/dev/null && break; kill -0 $spid 2>/dev/null || break; sleep 0.5; done
timeout 120 /lab/guest/host-libs "$PAIR_BINARY" --client --device rxe0 --addr "$addr" --port "$PAIR_PORT" $PAIR_EXTRA > /lab-run/client.log 2>&1
crc=$?
wait $spid; src=$?
echo "--- server"; cat /lab-run/server.log
echo "--- client"; cat /lab-run/client.log
echo "$PAIR_NAME: server exit $src, client exit $crc"
[ $src = 0 ] && [ $crc = 0 ]'
}

test_doca_rdma() {
  run_rdma_pair doca-rdma "${RDMA_PINGPONG:-$checkout/build/bin/rdma_pingpong}" 7471
}

test_doca_rdma_no_cm() {
  run_rdma_pair doca-rdma-no-cm "${RDMA_PINGPONG:-$checkout/build/bin/rdma_pingpong}" 7473 --no-cm
}

test_dpa_rdma_pingpong() {
  run_rdma_pair dpa-rdma-pingpong "${DPA_RDMA_PINGPONG:-$checkout/build/bin/dpa_rdma_pingpong}" 7472
}

all_tests=(host-target-tcp kernel-initiator-options live-namespace discovery-change namespace-resize namespace-scale error-inject auth tls concat initiator-vs-nvmet rdma-target rdma-target-dpa rdma-reconnect rdma-srq-target rdma-srq-reconnect perf-vs-nvmet doca-rdma doca-rdma-no-cm dpa-rdma-pingpong hostmem-tcp hostmem-rdma multipath reservations copy-verify ipv6 mdns service)
if [ "${1:-}" = --list ]; then printf '%s\n' "${all_tests[@]}"; exit 0; fi
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("${all_tests[@]}")

# A test that fails runs once more (LAB_RETRIES, default 1): the guest runs under TCG emulation on
# a shared CI machine, where a boot or a step can take many times its usual time. A second failure
# is a failure; a pass on a rerun is counted as passed and named in the summary. Each
# failed run's last lines are printed again at the end, where a CI log's tail shows them.
retries="${LAB_RETRIES:-1}"
logs_dir="$(mktemp -d "${TMPDIR:-/tmp}/skiff-lab-tests-XXXXXX")"

# One shared guest boot (tests/lab/vm/session) serves every test whose guest needs the default
# kernel and command line; the others (auth's backports kernel, tls' and concat's trixie guest, reservations'
# multipath=N, the service test's systemd) boot their own, as does every rerun of a failed test,
# so that a retry never depends on what an earlier test left in a shared guest. A session that
# ended (a job timed out) is replaced before the next test. LAB_SHARED_BOOT=0: a boot for every
# test.
session=""
session_start() {
  [ "${LAB_SHARED_BOOT:-1}" = 1 ] || return 0
  if [ -n "$session" ] && "$lab/session" status "$session"; then return 0; fi
  [ -z "$session" ] || "$lab/session" stop "$session"
  session="$("$lab/session" start)" || { echo "lab-tests: no shared session; each test boots its own guest"; session=""; }
}
session_stop() { [ -z "$session" ] || "$lab/session" stop "$session"; }
trap 'session_stop; rm -rf "$logs_dir"' EXIT
passed=0 failed=0 skipped=0 failed_names=() skipped_names=() retried_names=() failed_logs=()
run_one() { # run_one FUNCTION LOG -> the test's exit code; its output goes to the terminal and LOG
  "$1" 2>&1 | tee "$2"
  return "${PIPESTATUS[0]}"
}
for t in "${tests[@]}"; do
  fn="test_${t//-/_}"
  if ! declare -F "$fn" >/dev/null; then
    echo "lab-tests: unknown test '$t' (known: ${all_tests[*]})"
    failed=$((failed + 1)); failed_names+=("$t"); continue
  fi
  run=1
  while :; do
    if [ $run = 1 ]; then echo "== lab test $t"; else echo "== lab test $t (run $run, a boot of its own)"; fi
    t0=$SECONDS
    if [ $run = 1 ]; then
      session_start
      LAB_SESSION="$session" run_one "$fn" "$logs_dir/$t.$run.log"; trc=$?
    else
      LAB_SESSION="" run_one "$fn" "$logs_dir/$t.$run.log"; trc=$?
    fi
    if [ $trc = 0 ]; then
      passed=$((passed + 1)); [ $run -gt 1 ] && retried_names+=("$t")
      echo "== lab test $t: PASS ($((SECONDS - t0)) s)"
    elif [ $trc = 77 ]; then # the guest cannot run it (a kernel feature missing): said, not passed
      skipped=$((skipped + 1)); skipped_names+=("$t"); echo "== lab test $t: SKIPPED ($((SECONDS - t0)) s)"
    else
      failed_logs+=("$logs_dir/$t.$run.log")
      echo "== lab test $t: FAIL ($((SECONDS - t0)) s)"
      if [ $run -le "$retries" ]; then run=$((run + 1)); continue; fi
      failed=$((failed + 1)); failed_names+=("$t")
    fi
    break
  done
done

for log in "${failed_logs[@]}"; do
  name="$(basename "$log" .log)"
  echo "== the failed run ${name%.*} (run ${name##*.}): its lines that say FAIL or timed out, then its last 60"
  grep -E -m 20 "FAIL|timed out" "$log"
  echo "--"
  tail -n 60 "$log"
done
[ ${#retried_names[@]} = 0 ] || echo "lab-tests: passed only on a rerun: ${retried_names[*]}"
[ $failed = 0 ] || echo "lab-tests: failed: ${failed_names[*]}"
[ $skipped = 0 ] || echo "lab-tests: skipped (exit 77: the guest lacks what they need): ${skipped_names[*]}"
echo "lab: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
