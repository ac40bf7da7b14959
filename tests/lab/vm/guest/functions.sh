# shellcheck shell=bash
# Helpers for commands that run in the lab guest:   . /lab/guest/functions.sh
#
#   lab_nullblk [GiB] [keep-data 0|1]     null_blk device; prints /dev/nullb0 (1: keeps written
#                                         data, which a verify job needs)
#   lab_nvmet_export NQN tcp|rdma ADDR PORT DEVICE
#                                         the kernel's nvmet exports DEVICE as namespace 1 of NQN
#                                         (any host) on one port
#   lab_rxe_up                            soft-RoCE rxe0 on a guest-private dummy0 (LAB_RDMA_IP,
#                                         default 192.168.77.1/24); prints the address
#   lab_nvme_connect tcp|rdma ADDR PORT NQN [nvme connect options]
#                                         kernel initiator (keep-alive 30 s unless given);
#                                         waits for the first namespace, prints its block
#                                         device (/dev/nvmeXnY)
#   lab_nvme_ctrl NQN                     prints the controller (/dev/nvmeX) connected to NQN
#   lab_nvme_show CTRL DEV                the main id-ctrl and id-ns fields
#   lab_wait_listen tcp|rdma ADDR PORT [seconds]
#                                         waits until something in the guest listens there
#   lab_fio_verify DEV [SIZE]             fio writes SIZE (default 8M) of 4k random blocks, then SIZE
#                                         of 128k sequential blocks after it, and reads both back
#                                         with crc32c checks; fails on any error or mismatch
set -o pipefail

lab_nullblk() {
  local gib="${1:-1}" keep="${2:-0}" i
  modprobe null_blk nr_devices=1 gb="$gib" queue_mode=2 irqmode=0 memory_backed="$keep" >&2 || return 1
  for ((i = 0; i < 50; i++)); do [ -b /dev/nullb0 ] && break; sleep 0.1; done
  [ -b /dev/nullb0 ] && echo /dev/nullb0
}

lab_nvmet_export() {
  local nqn="$1" trtype="$2" addr="$3" port="$4" dev="$5"
  local cfs=/sys/kernel/config/nvmet subsys port_dir
  modprobe -a nvmet "nvmet-$trtype" >&2 || return 1
  subsys="$cfs/subsystems/$nqn"
  mkdir -p "$subsys/namespaces/1" || return 1
  echo 1 >"$subsys/attr_allow_any_host"
  printf '%s' "$dev" >"$subsys/namespaces/1/device_path" || return 1
  echo 1 >"$subsys/namespaces/1/enable" || return 1
  port_dir="$cfs/ports/$((1 + $(find "$cfs/ports" -mindepth 1 -maxdepth 1 | wc -l)))"
  mkdir -p "$port_dir"
  echo ipv4 >"$port_dir/addr_adrfam"
  echo "$trtype" >"$port_dir/addr_trtype"
  echo "$addr" >"$port_dir/addr_traddr"
  echo "$port" >"$port_dir/addr_trsvcid"
  ln -s "$subsys" "$port_dir/subsystems/$nqn"
}

lab_rxe_up() {
  local ip="${LAB_RDMA_IP:-192.168.77.1}" i
  modprobe rdma_rxe >&2 || return 1
  if [ ! -e /sys/class/net/dummy0 ]; then
    # numdummies=0: the module would otherwise make dummy0 itself, racing the `ip link add`.
    modprobe dummy numdummies=0 >&2
    ip link add dummy0 type dummy && ip addr add "$ip/24" dev dummy0 && ip link set dummy0 up || return 1
  fi
  # rdma_cm cannot resolve addresses on an rxe bound to lo: hence the dummy interface.
  rdma link show rxe0 >/dev/null 2>&1 || rdma link add rxe0 type rxe netdev dummy0 || return 1
  modprobe rdma_ucm >&2
  for ((i = 0; i < 50; i++)); do [ -e /dev/infiniband/uverbs0 ] && break; sleep 0.1; done
  echo "$ip"
}

lab_nvme_ctrl() {
  local c
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] && { echo "/dev/${c##*/}"; return 0; }
  done
  echo "lab_nvme_ctrl: no controller is connected to $1" >&2
  return 1
}

# The first namespace's block device of subsystem NQN: a disk of the subsystem (native
# multipath, Debian's default) or of the controller (without multipath).
lab_nvme_disk() {
  local parent disk
  for parent in /sys/class/nvme-subsystem/*/ /sys/class/nvme/*/; do
    [ "$(cat "$parent/subsysnqn" 2>/dev/null)" = "$1" ] || continue
    for disk in "$parent"nvme*n*; do
      [ -b "/dev/${disk##*/}" ] && { echo "/dev/${disk##*/}"; return 0; }
    done
  done
  return 1
}

lab_nvme_connect() {
  local trtype="$1" addr="$2" port="$3" nqn="$4" i
  shift 4
  modprobe -a nvme-fabrics "nvme-$trtype" >&2 || return 1
  # A 30 s keep-alive unless the caller chose one: under TCG on a busy host, setting up each RDMA
  # I/O queue can take seconds, and the kernel's 5 s default would then time the emulator out
  # between the admin queue's connect and the first keep-alive.
  case " $* " in *" -k "* | *" --keep-alive-tmo"*) ;; *) set -- --keep-alive-tmo=30 "$@" ;; esac
  nvme connect -t "$trtype" -a "$addr" -s "$port" -n "$nqn" "$@" >&2 || return 1
  for ((i = 0; i < 100; i++)); do # the disk appears once the kernel has scanned the namespaces
    lab_nvme_disk "$nqn" && return 0
    sleep 0.1
  done
  echo "lab_nvme_connect: connected to $nqn, but no namespace block device appeared" >&2
  return 1
}

lab_nvme_show() {
  nvme id-ctrl "$1" | grep -E '^(vid|sn|mn|fr|mdts|cntlid|ver|nn|subnqn|ioccsz|iorcsz) +:' &&
    nvme id-ns "$2" | grep -E '^(nsze|ncap|nuse|flbas) +:|in use'
}

lab_wait_listen() {
  local trtype="$1" addr="$2" port="$3" seconds="${4:-30}" i
  for ((i = 0; i < seconds * 5; i++)); do
    case "$trtype" in
      tcp) ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && return 0 ;;
      rdma) rdma res show cm_id 2>/dev/null | grep -w LISTEN |
        grep -qE "src-addr ($addr|0\.0\.0\.0):$port( |$)" && return 0 ;;
      *) echo "lab_wait_listen: transport is tcp or rdma, not $trtype" >&2; return 2 ;;
    esac
    sleep 0.2
  done
  echo "lab_wait_listen: nothing listens on $trtype $addr:$port after $seconds s" >&2
  return 1
}

# Polls COND (a shell condition, eval'ed) every 0.1 s until it holds; 1 after TENTHS tries
# (default 600: a minute).
# tlshd (ktls-utils) in the background, logging to LOG: it does the TLS handshakes the kernel's
# NVMe host and target hand up (net/handshake), with the .nvme keyring linked, where nvme-cli and
# the kernel put the TLS PSKs.
lab_tlshd_start() { # lab_tlshd_start LOG
  printf "[debug]\nloglevel=1\ntls=1\nnl=0\n[authenticate]\nkeyrings=.nvme\n" >/etc/tlshd.conf
  tlshd -s >"$1" 2>&1 &
}

lab_wait_for() { # lab_wait_for COND [TENTHS]
  local _lab_try # (a name COND will not use: it runs in this function's scope)
  for ((_lab_try = 0; _lab_try < ${2:-600}; _lab_try++)); do
    eval "$1" && return 0
    sleep 0.1
  done
  return 1
}

# For a guest script that runs a target itself: says FAIL and why, shows the target's last log
# lines, stops it (PID may be empty) and exits 1.
lab_guest_target_fail() { # lab_guest_target_fail LOG PID MESSAGE...
  local log="$1" pid="$2"
  shift 2
  echo "FAIL: $*"
  echo "--- the target's output"
  tail -n 40 "$log"
  [ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null
  exit 1
}

lab_fio_verify() {
  local dev="$1" size="${2:-8M}" bytes report rc=0
  bytes="$(numfmt --from=iec "$size")" || return 1
  if [ "$(blockdev --getsize64 "$dev")" -lt $((2 * bytes)) ]; then
    echo "lab_fio_verify: $dev is smaller than 2 x $size" >&2
    return 1
  fi
  report="$(mktemp)"
  # --disk_util=0: fio's disk statistics find the device by walking every folder under
  # /sys/block; with the 1024 namespaces of the namespace-scale test that walk took most of a
  # 4 MiB verify's 38 s under TCG, and nothing here reads those statistics.
  fio --eta=never --disk_util=0 --filename="$dev" --ioengine=libaio --direct=1 --iodepth=16 --size="$size" \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 --exitall_on_error=1 \
    --name=random-4k --rw=randwrite --bs=4k --offset=0 \
    --name=sequential-128k --stonewall --rw=write --bs=128k --offset="$size" >"$report" 2>&1 || rc=$?
  # Two jobs, each with a write phase and a read-back phase: anything less means fio skipped one.
  if [ $rc = 0 ] && { [ "$(grep -cE '^ *write: IOPS=' "$report")" != 2 ] || [ "$(grep -cE '^ *read: IOPS=' "$report")" != 2 ]; }; then
    echo "lab_fio_verify: fio did not write and read back both jobs" >&2
    rc=1
  fi
  if [ $rc = 0 ]; then
    grep -E '^(random|sequential)|^ *(read|write): IOPS=' "$report" | sed -E 's/^ +/  /; s/: \(groupid.*//'
    echo "lab_fio_verify: $dev verified (crc32c; 4k random + 128k sequential, $size each)"
  else
    cat "$report"
    echo "lab_fio_verify: FAILED on $dev (fio exit $rc)" >&2
  fi
  rm -f "$report"
  return $rc
}
