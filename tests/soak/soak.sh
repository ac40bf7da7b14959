#!/usr/bin/env bash
# Soak (by hand, not in CI): the lab VM's Linux kernel initiator runs fio crc32c verify against
# skiff-target for a set time while a driver on the host keeps breaking things around it:
#   - kills the TCP relay of one of the fio host's connections (the kernel's nvme-tcp sees the
#     connection die, recovers and reconnects; fio's I/O must survive it),
#   - adds and removes a namespace with skiff-ctl (the kernel rescans),
#   - rewrites the configuration file and sends SIGHUP: a valid change (a namespace added to or
#     dropped from the file) and an invalid file (must be refused, nothing changed),
#   - kills skiff-host (SIGKILL) under a hostmem namespace and starts it again,
# while in the guest a second host (another host NQN) connects and disconnects in a loop.
# At the end it prints a summary: I/Os done, verify errors (must be 0), reconnects, the target's
# RSS and open file descriptors at the start and the end (bounded growth), and each action's count.
#
#   tests/soak/soak.sh [--minutes N] [--seed S]      (default 10 minutes)
#   tests/soak/soak.sh --help
# Needs build/bin/{skiff-target,skiff-host,skiff-ctl} (scripts/build.sh release) and the lab image
# (tests/lab/vm/build-image; built on first use). Exit 0 only when the target survived, fio saw no
# verify error and the growth bounds held. Logs stay in the work folder it names at the end.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
checkout="$(pwd)"
lab="$checkout/tests/lab/vm"
bin="${SKIFF_BIN:-$checkout/build/bin}"

minutes=10
seed=$$
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
RANDOM=$seed
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
# Bounds on the target's growth between the first and the last sample (after warm-up).
fd_bound=16
rss_bound_kib=$((64 * 1024))

nqn=nqn.2026-11.io.skiff:soak
channel="skiff-soak-$$"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port="$(free_port)"
# Host B's own listener: nvme-cli 2.4 answers "already connected" to a second connection to the
# same address and subsystem even from another host NQN (-D does not lift it), so each host
# connects through its own port.
port_b="$(free_port)"
work="$(mktemp -d "$checkout/build/soak-XXXXXX")" # shared with the guest (marker files, logs)
sock="$work/ctl.sock"

# The configuration: namespace 1 on RAM (fio verify), namespace 2 on skiff-host's memory.
# with_ns4=1 adds namespace 4 (the valid SIGHUP change toggles it).
write_config() {
  local ns4=""
  [ "${1:-0}" = 1 ] && ns4=', {"nsid": 4, "backend": "ram4"}'
  cat >"$work/target.json.new" <<JSON
{
  "target": {"cores": 2, "management_socket": "$sock", "log_level": "info"},
  "backends": [{"name": "ram1", "kind": "ram", "size": "64MiB"},
               {"name": "ram4", "kind": "ram", "size": "8MiB"},
               {"name": "host0", "kind": "hostmem", "size": "16MiB", "channel": "$channel"}],
  "subsystems": [{"nqn": "$nqn", "serial": "SKIFFSOAK1", "allow_any_host": true,
                  "namespaces": [{"nsid": 1, "backend": "ram1"}, {"nsid": 2, "backend": "host0"}$ns4]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": $port},
                {"trtype": "tcp", "addr": "127.0.0.1", "port": $port_b}],
  "discovery": null
}
JSON
  mv "$work/target.json.new" "$work/target.json"
}
write_config 0

tpid="" hpid="" gpid=""
start_host() {
  "$bin/skiff-host" --channel "$channel" --size 16MiB >>"$work/skiff-host.log" 2>&1 </dev/null &
  hpid=$!
}
cleanup() {
  [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  [ -n "$hpid" ] && kill -TERM "$hpid" 2>/dev/null
  [ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null
  wait 2>/dev/null
}
trap cleanup EXIT

"$bin/skiff-target" --config "$work/target.json" >"$work/target.log" 2>&1 </dev/null &
tpid=$!
start_host
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "soak: skiff-target did not open $sock"; tail -n 20 "$work/target.log"; exit 1; }

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$tpid/status" 2>/dev/null; }
fds() { find "/proc/$tpid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
alive() { kill -0 "$tpid" 2>/dev/null; }

# The guest: host A keeps fio verify running on namespace 1 (time-based passes of 4k random
# writes, each read back with crc32c); host B connects and disconnects in a loop. It writes its
# counts to $WORK/guest-summary when the host touches $WORK/stop.
# shellcheck disable=SC2016  # expanded in the guest
LAB_HOST_PORTS="$port $port_b" LAB_PASS_ENV="PORT PORT_B NQN WORK" PORT="$port" PORT_B="$port_b" NQN="$nqn" WORK="$work" \
  LAB_TIMEOUT=$((seconds + 600)) "$lab/run" '
set -uo pipefail
. /lab/guest/functions.sh
modprobe -a nvme-fabrics nvme-tcp
wait_for() { for _ in $(seq 1 600); do eval "$1" && return 0; sleep 0.1; done; return 1; }
nvme connect -t tcp -a 10.0.2.100 -s "$PORT" -n "$NQN" --nr-io-queues 2 --ctrl-loss-tmo=-1 --reconnect-delay=1 \
  --keep-alive-tmo=5 || exit 1
ctrl=""
wait_for "for d in /sys/class/nvme/nvme*; do grep -qx \"\$NQN\" \$d/subsysnqn 2>/dev/null && ctrl=\$(basename \$d); done; [ -n \"\$ctrl\" ] && [ -b /dev/\${ctrl}n1 ]" \
  || { echo "FAIL: no /dev/nvmeXn1"; exit 1; }
dev=/dev/${ctrl}n1
echo "host A: $ctrl, fio on $dev"
touch "$WORK/connected"
ios=0 verify_errors=0 passes=0 failed_passes=0
( cycles=0 fails=0
  hostb=nqn.2014-08.org.nvmexpress:uuid:5eed5eed-0000-4000-8000-00000000000b
  while [ ! -e "$WORK/stop" ]; do
    # Its own host NQN, host ID and listener port (see port_b on the host).
    if nvme connect -t tcp -a 10.0.2.100 -s "$PORT_B" -n "$NQN" -q "$hostb" -I 5eed5eed-0000-4000-8000-00000000000b \
        --nr-io-queues 1 >/tmp/hostb.err 2>&1; then
      sleep $((1 + RANDOM % 3))
      # Host B only (by its controller; "disconnect -n" would take host A too).
      for d in /sys/class/nvme/nvme*; do
        [ "$(cat $d/hostnqn 2>/dev/null)" = "$hostb" ] && nvme disconnect -d "$(basename $d)" >/dev/null 2>&1
      done
      cycles=$((cycles + 1))
    else
      [ $fails = 0 ] && { echo "host B: connect failed:"; cat /tmp/hostb.err; }
      fails=$((fails + 1)); sleep 1
    fi
  done
  echo "hostb_cycles=$cycles hostb_connect_failures=$fails" >/tmp/hostb ) &
hostb_pid=$!
while [ ! -e "$WORK/stop" ]; do
  fio --eta=never --filename="$dev" --ioengine=libaio --direct=1 --iodepth=8 --size=8M \
    --name=soak --rw=randwrite --bs=4k --verify=crc32c --do_verify=1 --verify_fatal=1 \
    --verify_state_save=0 >/tmp/fio.out 2>&1
  rc=$?
  passes=$((passes + 1))
  n=$(awk -F"[=,]" "/issued rwts: total=/ { print \$2 + \$3 }" /tmp/fio.out | head -n 1)
  ios=$((ios + ${n:-0}))
  if [ $rc != 0 ]; then
    failed_passes=$((failed_passes + 1))
    if grep -qiE "verify|bad magic|crc32c" /tmp/fio.out; then verify_errors=$((verify_errors + 1)); fi
    echo "== fio pass $passes failed (exit $rc):"; tail -n 15 /tmp/fio.out
  fi
done
wait $hostb_pid
reconnects=$(dmesg | grep -c "Successfully reconnected")
echo "ios=$ios verify_errors=$verify_errors fio_passes=$passes fio_failed_passes=$failed_passes kernel_reconnects=$reconnects $(cat /tmp/hostb)" | tee "$WORK/guest-summary"
dmesg | grep -E "nvme" | tail -n 20
nvme disconnect-all
' >"$work/guest.log" 2>&1 &
gpid=$!

for _ in $(seq 1 3000); do [ -e "$work/connected" ] && break; kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
[ -e "$work/connected" ] || { echo "soak: the guest never connected"; tail -n 30 "$work/guest.log"; exit 1; }
sleep 5 # warm-up: the connections, buffers and channels the steady state holds
rss0=$(rss_kib) fd0=$(fds)

declare -A done_count=()
count() { done_count[$1]=$((${done_count[$1]:-0} + 1)); }
ns3=0 ns4=0
end=$((SECONDS + seconds))
while [ $SECONDS -lt $end ] && alive && kill -0 "$gpid" 2>/dev/null; do
  sleep $((2 + RANDOM % 5))
  case $((RANDOM % 5)) in
    0) # kill the relay of one of the guest's connections: the kernel must reconnect
       # Only socat processes (qemu's own command line names the same socat arguments).
       mapfile -t relays < <(pgrep -a -x socat | awk -v p="TCP4:127.0.0.1:$port," 'index($0, p) { print $1 }')
       if [ ${#relays[@]} -gt 0 ]; then kill -KILL "${relays[RANDOM % ${#relays[@]}]}" 2>/dev/null && count relay-kill; fi ;;
    1) if [ $ns3 = 0 ]; then
         "$bin/skiff-ctl" --socket "$sock" namespace add "$nqn" --nsid 3 --kind ram --size 8MiB >/dev/null && ns3=1 && count ns-add
       else
         "$bin/skiff-ctl" --socket "$sock" namespace remove "$nqn" 3 >/dev/null && ns3=0 && count ns-remove
       fi ;;
    2) # a valid change in the file: namespace 4 in or out. skiff-ctl changes (namespace 3) are
       # not in the file, so a reload drops them: the file is the truth after SIGHUP.
       ns4=$((1 - ns4)); write_config $ns4; kill -HUP "$tpid" && count sighup-valid; ns3=0 ;;
    3) echo '{"backends": [{"name": "broken", "kind": "ram"}], "subsystems": 7' >"$work/target.json"
       kill -HUP "$tpid" && count sighup-invalid
       sleep 1; write_config $ns4 ;;
    4) kill -KILL "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null; count skiff-host-kill
       sleep 1; start_host ;;
  esac
done
target_alive=yes
alive || target_alive=NO
rss1=$(rss_kib) fd1=$(fds)
touch "$work/stop"
wait "$gpid"; grc=$?; gpid=""
refused=$(grep -c "reload refused" "$work/target.log")

echo "== soak summary ($minutes min, seed $seed, work folder $work)"
cat "$work/guest-summary" 2>/dev/null || echo "(no guest summary: the guest failed, see $work/guest.log)"
for k in "${!done_count[@]}"; do printf '%s=%s ' "$k" "${done_count[$k]}"; done; echo
echo "invalid reloads refused by the target: $refused"
echo "target alive: $target_alive; RSS ${rss0:-?} -> ${rss1:-?} KiB (bound +$rss_bound_kib); open fds ${fd0:-?} -> ${fd1:-?} (bound +$fd_bound)"
rc=0
[ "$target_alive" = yes ] || rc=1
[ $grc = 0 ] || { echo "soak: the guest failed (exit $grc)"; rc=1; }
grep -q "verify_errors=0 " "$work/guest-summary" 2>/dev/null || { echo "soak: verify errors (or no summary)"; rc=1; }
if [ -n "${rss1:-}" ] && [ $((rss1 - rss0)) -gt $rss_bound_kib ]; then echo "soak: RSS grew beyond the bound"; rc=1; fi
if [ -n "${fd1:-}" ] && [ $((fd1 - fd0)) -gt $fd_bound ]; then echo "soak: open fds grew beyond the bound"; rc=1; fi
[ $rc = 0 ] && echo "soak: PASS" || { tail -n 30 "$work/guest.log"; echo "soak: FAIL"; }
exit $rc
