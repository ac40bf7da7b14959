#!/usr/bin/env bash
# Lab test: a host that connects, disconnects and reconnects 20 times in a row over NVMe/RDMA
# leaves nothing behind in the target. skiff-target runs inside the lab guest on soft-RoCE
# (rxe0, 192.168.77.1); the kernel nvme-rdma initiator in the same guest cycles; the guest's
# `rdma res` counts of queue pairs, memory registrations, PDs and CM ids (all, and those of the
# target process) and of the target's CQs must return to what they were before the first
# connect, and the target must still be running. (The kernel initiator keeps CQs in its
# device-wide pool after a controller goes away, so the guest's total CQ count may grow.)
#
#   tests/lab/rdma-reconnect.sh      (from the checkout; scripts/lab-tests.sh runs it)
# Each cycle is one admin and one I/O queue (depth 32).
# Environment: SKIFF_TARGET (default build/bin/skiff-target), CYCLES (default 20),
# TARGET_ARGS (more skiff-target options, e.g. "--rdma-srq-depth 64": the shared receive queue,
# whose SRQ, PD and MR must go with the last connection too), LAB_* knobs for tests/lab/vm/run.
# Exit 0 = pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
checkout="$(pwd)"
lab="$checkout/tests/lab/vm"
target="${SKIFF_TARGET:-$checkout/build/bin/skiff-target}"

# shellcheck disable=SC2016  # expanded in the guest
LAB_PASS_ENV="${LAB_PASS_ENV:-} TARGET CYCLES TARGET_ARGS" TARGET="$target" CYCLES="${CYCLES:-20}" \
TARGET_ARGS="${TARGET_ARGS:-}" \
LAB_TIMEOUT="${LAB_TIMEOUT:-300}" "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
me=rdma-reconnect
nqn=nqn.2026-11.io.skiff:lab-rdma-reconnect
TLOG=/lab-run/target.log
fail() { echo "$me: FAIL: $*"; [ -s $TLOG ] && { echo "--- target output"; tail -n 40 $TLOG; }; exit 1; }
addr="$(lab_rxe_up)" || fail "soft-RoCE (rxe0) did not come up"
setsid /lab/guest/host-libs "$TARGET" --transport rdma --listen "$addr:4420" --discovery none \
  --nqn $nqn --size 16MiB $TARGET_ARGS > $TLOG 2>&1 < /dev/null &
tpid=$!
trap "kill -TERM -- -$tpid 2>/dev/null" EXIT
lab_wait_listen rdma "$addr" 4420 30 || fail "no RDMA listener"
modprobe -a nvme-fabrics nvme-rdma
# "kind target/all" per resource kind: those the target process owns, and all in the guest.
# The kernel initiator keeps completion queues in its device-wide CQ pool after a controller
# goes away, so only the CQs of the target, and every QP, MR, PD and CM id, must come back.
counts() {
  local r out
  for r in qp mr pd cq cm_id srq; do
    out="$(rdma res show $r 2>/dev/null)"
    if [ $r = cq ] || [ $r = srq ]; then
      printf "%s %s " $r "$(printf "%s\n" "$out" | grep -c "comm skiff-target")"
    else
      printf "%s %s/%s " $r "$(printf "%s\n" "$out" | grep -c "comm skiff-target")" "$(printf "%s\n" "$out" | grep -c .)"
    fi
  done
}
before="$(counts)"
echo "== before: $before"
# One I/O queue of depth 32 keeps a cycle short under TCG; a 30 s keep-alive timeout because the
# emulated guest can be slower than the default 5 s between its admin and I/O queue connects.
for i in $(seq 1 "$CYCLES"); do
  nvme connect -t rdma -a "$addr" -s 4420 -n $nqn -i 1 -Q 32 -k 30 >/dev/null || fail "connect $i"
  if [ $i = 1 ]; then
    echo "== connected: $(counts)"
    # With a shared receive queue the target must really use one while connected.
    case " $TARGET_ARGS " in *" --rdma-srq-depth "*)
      rdma res show srq 2>/dev/null | grep -q "comm skiff-target" || fail "no SRQ of skiff-target while connected";;
    esac
  fi
  nvme disconnect -n $nqn >/dev/null || fail "disconnect $i"
  kill -0 $tpid 2>/dev/null || fail "the target exited during cycle $i"
done
after=""
for _ in $(seq 1 20); do after="$(counts)"; [ "$after" = "$before" ] && break; sleep 0.5; done
echo "== after $CYCLES cycles: $after"
[ "$after" = "$before" ] || { rdma res show qp; rdma res show mr; rdma res show cq; fail "RDMA resources leaked (before: $before; after: $after)"; }
kill -0 $tpid 2>/dev/null || fail "the target is not running"
echo "$me: PASS ($CYCLES connect/disconnect cycles, no leaked QPs, MRs, PDs, CQs or CM ids)"
'
