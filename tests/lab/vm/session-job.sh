# shellcheck shell=bash
# shellcheck disable=SC2154  # shares and script are run's
# Sourced by tests/lab/vm/run when LAB_SESSION names a shared session (tests/lab/vm/session):
# whether the session's guest can run this command, and running it there as one job.
# Uses run's variables: LAB_KERNEL, LAB_CMDLINE, LAB_SMP, LAB_MEM, LAB_HOST_PORTS, shares,
# script, mode, and the command's words ("$@" of run, passed on).

session_key() { # session_key DIR NAME -> the value the session was booted with
  sed -n "s/^$2=//p" "$1/key"
}

session_alive() { # session_alive DIR: its qemu runs and it has not been marked dead
  local pid
  [ -f "$1/key" ] && [ ! -e "$1/dead" ] && [ ! -e "$1/stop" ] || return 1
  pid="$(cat "$1/qemu.pid" 2>/dev/null)" && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

mem_mib() { # 2G -> 2048, 3072M -> 3072
  case "$1" in
    *G | *g) echo $((${1%?} * 1024)) ;;
    *M | *m) echo "${1%?}" ;;
    *) echo "$1" ;;
  esac
}

session_fits() { # session_fits DIR
  local dir="$1" port s d covered
  session_alive "$dir" || return 1
  [ "$(session_key "$dir" kernel)" = "$LAB_KERNEL" ] || return 1
  # shellcheck disable=SC2086,SC2116  # word splitting normalises the spaces
  [ "$(session_key "$dir" cmdline)" = "$(echo ${LAB_CMDLINE:-})" ] || return 1
  [ "$(session_key "$dir" smp)" = "$LAB_SMP" ] || return 1
  [ "$(mem_mib "$(session_key "$dir" mem)")" -ge "$(mem_mib "$LAB_MEM")" ] || return 1
  for port in ${LAB_HOST_PORTS-4420 8009}; do
    case " $(session_key "$dir" ports) " in *" $port "*) ;; *) return 1 ;; esac
  done
  for d in "${shares[@]}"; do
    covered=0
    while read -r _ s _; do
      case "$d/" in "$s"/*) covered=1 ;; esac
    done <"$dir/shares"
    [ $covered = 1 ] || return 1
  done
  return 0
}

# Runs the command as the session's next job and streams its output, like a boot of its own
# would; the exit status is the command's (124 after LAB_TIMEOUT: the session is then ended, as
# its guest may be stuck; 125 when the session died under the job).
session_run_job() { # session_run_job DIR COMMAND...
  local dir="$1" n=1 job name start took rc timeout_s="${LAB_TIMEOUT:-600}" tail_pid qemu_pid
  shift
  qemu_pid="$(cat "$dir/qemu.pid")"
  mkdir -p "$dir/jobs"
  until mkdir "$dir/jobs/$n" 2>/dev/null; do n=$((n + 1)); done
  job="$dir/jobs/$n"
  if [ -n "$script" ]; then cp "$script" "$job/cmd.sh"; else printf '%s\n' "$*" >"$job/cmd.sh"; fi
  : >"$job/env"
  for name in ${LAB_PASS_ENV:-}; do
    [ -n "${!name+set}" ] && printf '%s=%q\n' "$name" "${!name}" >>"$job/env"
  done
  local cwd=/root
  for s in "${shares[@]}"; do case "$PWD/" in "$s"/*) cwd="$PWD" ;; esac; done
  echo "$cwd" >"$job/cwd"
  : >"$job/output.log"
  chmod -R a+rwX "$job"
  touch "$job/go"
  # Waiting for the guest to boot is part of the session's cost, not of this job's time limit.
  until [ -e "$dir/ready" ]; do
    session_alive "$dir" || { lab_say "the session ($dir) ended before its guest was ready"; return 125; }
    sleep 0.2
  done
  start=$SECONDS
  trap 'touch "$job/cancel"; exit 130' INT
  trap 'touch "$job/cancel"; exit 143' TERM HUP
  tail -n +1 -s 0.2 -f "$job/output.log" &
  tail_pid=$!
  rc=""
  while [ -z "$rc" ]; do
    if [ -e "$job/rc" ]; then rc="$(cat "$job/rc")"; [ -n "$rc" ] && break; fi
    if ! kill -0 "$qemu_pid" 2>/dev/null; then
      kill "$tail_pid" 2>/dev/null
      lab_say "the session's guest ended during job $n; its console's last lines ($dir/console.log):"
      tail -n 25 "$dir/console.log" >&2
      return 125
    fi
    if [ $((SECONDS - start)) -ge "$timeout_s" ]; then
      kill "$tail_pid" 2>/dev/null
      lab_say "job $n timed out after ${timeout_s} s; the session ($dir) is ended with it; console's last lines:"
      tail -n 15 "$dir/console.log" >&2
      touch "$dir/dead"
      kill -TERM "$qemu_pid" 2>/dev/null
      return 124
    fi
    sleep 0.2
  done
  sleep 0.3 # the last lines of output.log
  kill "$tail_pid" 2>/dev/null
  wait "$tail_pid" 2>/dev/null
  trap - INT TERM HUP
  took=$((SECONDS - start))
  if [ "$rc" != 0 ] && [ -s "$job/dmesg.txt" ]; then
    lab_say "the command failed; the guest kernel's last messages ($job/dmesg.txt):"
    tail -n 20 "$job/dmesg.txt" >&2
  fi
  if [ "${LAB_QUIET:-0}" != 1 ] || [ "$rc" != 0 ]; then
    lab_say "guest exit $rc after ${took} s (job $n of the shared session), logs in $job"
  fi
  return "$rc"
}
