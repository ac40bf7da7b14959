#!/usr/bin/env bash
# The rbd backend losing its cluster's monitor under load, as a timeline: skiff-target serves
# the dev cluster's image, skiff-perf writes at queue depth 32, the monitor is stopped, and the
# script prints when the first ANA-inaccessible error reached the initiator, when the monitor
# came back and when writes succeeded again, then verifies the data. Run with --help.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=/tmp/skiff-ceph
BUILD=build
PORT=4460
POOL=rbd
IMAGE=skiff-test
BEFORE=5
DOWN=30
OP_TIMEOUT=5
QD=32
NQN=nqn.2026-11.io.skiff:monitor-loss

usage() {
    cat <<EOF
Usage: scripts/ceph-monitor-loss.sh [options]

Stops the dev cluster's only monitor while skiff-perf writes to an rbd namespace through
skiff-target, and prints a timeline (seconds after the monitor was stopped):
  - the first write that failed, with its NVMe status (expected: ANA Inaccessible, sct 3h sc 02h),
  - whether a new write then fails at once (the namespace is inaccessible up front),
  - the monitor started again, and the first write that succeeded after that,
  - skiff-perf --verify over the image afterwards,
  - the target's rbd log lines (inaccessible / stuck I/O answered early / accessible again).
Exit status 0 when writes failed with ANA Inaccessible (not a hang), resumed and verified.

Needs a running dev cluster (scripts/ceph-dev-cluster.sh start --dir D) and a release build
(skiff-target, skiff-perf). Everything runs under nice -n 19. Takes about DOWN + 30 s.

Options:
  --dir D          the dev cluster's directory (default $DIR; its ceph.conf is D/ceph.conf)
  --build B        the build directory (default $BUILD)
  --port P         skiff-target's NVMe/TCP port on 127.0.0.1 (default $PORT)
  --pool P, --image I   the image (default $POOL/$IMAGE)
  --before S       seconds of writing before the monitor is stopped (default $BEFORE)
  --down S         seconds the monitor stays stopped (default $DOWN)
  --op-timeout S   the namespace's op_timeout_s (default $OP_TIMEOUT): librados' timeouts and the
                   age after which an I/O inside librbd turns the namespace inaccessible
  --qd N           skiff-perf's queue depth (default $QD)
  -h, --help       this text
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
    --dir) DIR=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --pool) POOL=$2; shift 2 ;;
    --image) IMAGE=$2; shift 2 ;;
    --before) BEFORE=$2; shift 2 ;;
    --down) DOWN=$2; shift 2 ;;
    --op-timeout) OP_TIMEOUT=$2; shift 2 ;;
    --qd) QD=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "ceph-monitor-loss: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

CONF=$DIR/ceph.conf
BIN=$BUILD/bin
CLUSTER=(nice -n 19 scripts/ceph-dev-cluster.sh)
for b in skiff-target skiff-perf; do
    [ -x "$BIN/$b" ] || { echo "ceph-monitor-loss: $BIN/$b missing (scripts/build.sh release)" >&2; exit 1; }
done
[ -f "$CONF" ] || { echo "ceph-monitor-loss: no $CONF (scripts/ceph-dev-cluster.sh start --dir $DIR)" >&2; exit 1; }
cluster_status=$("${CLUSTER[@]}" status --dir "$DIR" 2>&1 || true)
grep -q "^mon.a: running" <<<"$cluster_status" ||
    { echo "ceph-monitor-loss: the cluster's monitor does not run (scripts/ceph-dev-cluster.sh start --dir $DIR)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/skiff-monitor-loss-XXXXXX)
target_pid="" perf_pid=""
cleanup() {
    [ -n "$perf_pid" ] && kill "$perf_pid" 2>/dev/null || true
    [ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null && wait "$target_pid" 2>/dev/null || true
    # Never leave the cluster without its monitor.
    "${CLUSTER[@]}" start-mon --dir "$DIR" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%6.1f", b - a }'; }
before() { awk -v a="$1" -v b="$(now)" -v d="$2" 'BEGIN { exit !(b - a < d) }'; } # now < $1 + $2 s
# A short skiff-perf run in the foreground (bounded: a hang shows as exit 124).
perf() { timeout 60 nice -n 19 "$BIN/skiff-perf" --port "$PORT" --nqn "$NQN" --no-progress "$@"; }
# The long skiff-perf run in the background. A watcher subshell records its exit (WORK/perf.rc,
# and the time in WORK/perf.end), so neither a zombie nor a wrapper process can make it look
# alive; perf_pid is skiff-perf itself (nice execs it), the process to stop.
start_perf() {
    (
        nice -n 19 "$BIN/skiff-perf" --port "$PORT" --nqn "$NQN" --no-progress "$@" \
            >"$WORK/perf.out" 2>"$WORK/perf.err" &
        echo $! >"$WORK/perf.pid"
        rc=0
        wait $! || rc=$?
        now >"$WORK/perf.end"
        echo "$rc" >"$WORK/perf.rc.tmp" && mv "$WORK/perf.rc.tmp" "$WORK/perf.rc"
    ) &
    until [ -s "$WORK/perf.pid" ]; do sleep 0.05; done
    perf_pid=$(cat "$WORK/perf.pid")
}
perf_exited() { [ -s "$WORK/perf.rc" ]; }

cat >"$WORK/target.json" <<EOF
{"target": {"cores": 1, "log_level": "info"},
 "backends": [{"name": "rbd0", "kind": "rbd", "pool": "$POOL", "image": "$IMAGE", "ceph_conf": "$CONF",
               "op_timeout_s": $OP_TIMEOUT}],
 "subsystems": [{"nqn": "$NQN", "namespaces": [{"nsid": 1, "backend": "rbd0", "block_size": 4096}]}],
 "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $PORT}],
 "discovery": null}
EOF
nice -n 19 "$BIN/skiff-target" --config "$WORK/target.json" >"$WORK/target.log" 2>&1 &
target_pid=$!
for _ in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    kill -0 "$target_pid" 2>/dev/null || { cat "$WORK/target.log" >&2; exit 1; }
    sleep 0.1
done

echo "ceph-monitor-loss: skiff-perf randwrite 4k QD$QD on $POOL/$IMAGE (op_timeout_s $OP_TIMEOUT); monitor down for $DOWN s"
start_perf --rw randwrite --bs 4k --qd "$QD" --time 600s --ramp 0
sleep "$BEFORE"
if perf_exited; then
    echo "ceph-monitor-loss: skiff-perf stopped before the monitor did:" >&2
    cat "$WORK/perf.err" >&2
    exit 1
fi
t_stop=$(now)
"${CLUSTER[@]}" stop-mon --dir "$DIR" >/dev/null
t_stopped=$(now)

# skiff-perf stops at its first failed I/O. A hang shows as no exit while the monitor is away.
t_err="" hang=0
while before "$t_stop" "$DOWN"; do
    if perf_exited; then t_err=$(cat "$WORK/perf.end"); break; fi
    sleep 0.1
done
first_error=$(grep -o "failed with NVMe status.*" "$WORK/perf.err" | head -1 || true)

# A new write while the monitor is away: refused at once?
t_probe=$(now)
probe_err=$(perf --rw randwrite --bs 4k --qd 1 --time 1s --ramp 0 2>&1 >/dev/null | grep -o "failed with NVMe status.*" | head -1 || true)
t_probe_end=$(now)

while before "$t_stop" "$DOWN"; do sleep 0.2; done
t_back=$(now)
"${CLUSTER[@]}" start-mon --dir "$DIR" >/dev/null
if [ -z "$t_err" ]; then
    # No error reached skiff-perf while the monitor was away: it is still writing, or stuck.
    echo "ceph-monitor-loss: skiff-perf still running $DOWN s after the monitor stopped (no error reached it)"
    hang=1
    kill "$perf_pid" 2>/dev/null || true
    for _ in $(seq 100); do perf_exited && break; sleep 0.1; done
    if ! perf_exited; then
        echo "ceph-monitor-loss: skiff-perf ignored SIGTERM for 10 s: killed" >&2
        kill -9 "$perf_pid" 2>/dev/null || true
        for _ in $(seq 50); do perf_exited && break; sleep 0.1; done
    fi
    t_err=$(cat "$WORK/perf.end" 2>/dev/null || now)
    first_error=$(grep -o "failed with NVMe status.*" "$WORK/perf.err" | head -1 || true)
fi
perf_rc=$(cat "$WORK/perf.rc" 2>/dev/null || echo "?")
perf_pid=""

t_resumed="" attempts=0
while before "$t_back" 120; do
    attempts=$((attempts + 1))
    t_try=$(now)
    if perf --rw randwrite --bs 4k --qd 1 --time 1s --ramp 0 >/dev/null 2>&1; then t_resumed=$t_try; break; fi
    sleep 0.3
done

verify_rc=0
verify=$(perf --rw randrw --bs 4k --qd "$QD" --time 5s --ramp 0 --verify 2>&1) || verify_rc=$?

echo
echo "timeline (s after the monitor was stopped; wall clock $(date -u -d @"$t_stop" +%T.%3N) UTC):"
echo "  $(since "$t_stop" "$t_stop")  monitor stop requested (ceph-dev-cluster.sh stop-mon; it returned at +$(since "$t_stop" "$t_stopped" | tr -d ' ') s)"
if [ -n "$first_error" ]; then
    echo "  $(since "$t_stop" "$t_err")  skiff-perf QD$QD: first failed write: $first_error; skiff-perf exited $perf_rc"
else
    echo "  $(since "$t_stop" "$t_err")  skiff-perf QD$QD ended (exit $perf_rc) without an I/O error: $(tail -1 "$WORK/perf.err")"
fi
echo "  $(since "$t_stop" "$t_probe")  a new QD1 writer: ${probe_err:-no error} (it ran $(since "$t_probe" "$t_probe_end" | tr -d ' ') s)"
echo "  $(since "$t_stop" "$t_back")  monitor started again"
if [ -n "$t_resumed" ]; then
    echo "  $(since "$t_stop" "$t_resumed")  first successful write (attempt $attempts; $(since "$t_back" "$t_resumed" | tr -d ' ') s after the monitor's return)"
else
    echo "           writes did not resume within 120 s of the monitor's return"
fi
echo "  skiff-perf --verify (randrw 4k QD$QD, 5 s) afterwards: $([ "$verify_rc" = 0 ] && echo passed || echo "FAILED (exit $verify_rc)")"
[ "$verify_rc" = 0 ] || echo "$verify" | tail -3 | sed 's/^/    /'
echo
echo "skiff-target's rbd log lines:"
grep -E "rbd backend" "$WORK/target.log" | grep -vE "features" | sed 's/^/  /' | head -40

ok=1
[[ "$first_error" == *"sct 3h sc 02h"* ]] || ok=0
[ "$hang" = 0 ] || ok=0
[ -n "$t_resumed" ] || ok=0
[ "$verify_rc" = 0 ] || ok=0
if [ "$ok" = 1 ]; then echo "ceph-monitor-loss: passed"; else echo "ceph-monitor-loss: FAILED"; exit 1; fi
