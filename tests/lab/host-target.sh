# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the sourcing scripts
# The host side shared by the lab tests that run skiff-target on the host from a configuration
# file while the guest drives the kernel initiator (auth, error-inject, live-namespace,
# multipath, reservations). Host and guest take turns through marker files in a work folder
# both see: the lab shares the checkout at the same path.
#
# Sourced from the checkout's root. Sets checkout, lab (tests/lab/vm), target and ctl (from
# SKIFF_TARGET / SKIFF_CTL, default build/bin/...), and gpid / tpid (the guest's and the
# target's pids, empty until started). Then:
#   lab_free_port              prints a free loopback TCP port the guest reaches
#   lab_work_dir NAME          work=build/lab-NAME-XXXXXX (shared with the guest), sock=$work/ctl.sock;
#                              the EXIT trap stops the guest and the target and removes it
#   lab_target_start           starts "$target" --config "$work/target.json" (log appended to
#                              $work/target.log: a restarted target keeps the first one's lines)
#   lab_target_wait_socket     waits up to 10 s for $sock; 1 if it never came
#   lab_target_wait_port PORT  waits up to 10 s for a listener on PORT; 1 if none came
#   lab_target_failed WHAT     prints "$me: WHAT", the target's log and "$me: FAIL"; exits 1
#   wait_file PATH TENTHS      polls for PATH while the guest lives; 1 when it ended or time ran out

checkout="$(pwd)"
lab="$checkout/tests/lab/vm"
target="${SKIFF_TARGET:-$checkout/build/bin/skiff-target}"
ctl="${SKIFF_CTL:-$checkout/build/bin/skiff-ctl}"
gpid=""
tpid=""
work=""

lab_free_port() { # one the shared lab session forwards, when there is one (tests/lab/vm/free-port)
  "$lab/free-port"
}

lab_cleanup() {
  [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  [ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
  [ -n "$work" ] && rm -rf "$work"
}

lab_work_dir() {
  work="$(mktemp -d "$checkout/build/lab-$1-XXXXXX")"
  sock="$work/ctl.sock"
  trap lab_cleanup EXIT
}

lab_target_start() {
  "$target" --config "$work/target.json" >>"$work/target.log" 2>&1 </dev/null &
  tpid=$!
}

lab_target_failed() {
  echo "$me: $1"
  cat "$work/target.log"
  echo "$me: FAIL"
  exit 1
}

lab_target_wait_socket() {
  for _ in $(seq 1 100); do [ -S "$sock" ] && return 0; sleep 0.1; done
  return 1
}

lab_target_wait_port() {
  for _ in $(seq 1 100); do ss -Hltn "sport = :$1" | grep -q . && return 0; sleep 0.1; done
  return 1
}

wait_file() { # wait_file PATH TENTHS
  for _ in $(seq 1 "$2"); do
    [ -e "$1" ] && return 0
    kill -0 "$gpid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# The guest wrote $work/keys-ready and not SKIP-FILE (which it writes first when it cannot run
# the test). The guest boots first: this allows it the whole VM timeout (a loaded host makes a
# TCG boot slow).
lab_guest_keys_ready() { # lab_guest_keys_ready SKIP-FILE
  wait_file "$work/keys-ready" $((${LAB_TIMEOUT:-400} * 10)) && [ ! -e "$1" ]
}
