#!/usr/bin/env bash
# A throwaway single-node Ceph cluster for trying and testing skiff's rbd backend: one monitor on
# 127.0.0.1, one OSD on memstore (or bluestore on a file), no manager (RBD I/O does not need
# one), a pool and an image. Everything lives under one directory; nothing listens beyond
# loopback. Run with --help.
set -euo pipefail

DIR=/tmp/skiff-ceph
PORT=3300
POOL=rbd
IMAGE=skiff-test
IMAGE_SIZE=1G
STORE=memstore
STORE_SIZE=2G

usage() {
    cat <<EOF
Usage: scripts/ceph-dev-cluster.sh COMMAND [options]

A throwaway single-node Ceph cluster (Debian's ceph-mon and ceph-osd; installed when missing)
for skiff's rbd backend. Loopback only, everything under one directory, nothing survives stop.

Commands:
  start       create the cluster (first time) and start the monitor and the OSD; creates
              pool "$POOL" and image "$POOL/$IMAGE" ($IMAGE_SIZE); prints the config to use
  stop        stop every daemon of the cluster and delete the directory
  status      which daemons run; the monitor's view when it answers
  stop-mon    stop the monitor only (the OSD keeps running): to watch skiff lose the cluster
  start-mon   start the monitor again after stop-mon

Options:
  --dir D         the cluster's directory (default $DIR); ceph.conf and the admin keyring are
                  D/ceph.conf and D/ceph.client.admin.keyring
  --port P        the monitor's port on 127.0.0.1 (msgr2; default $PORT)
  --store S       memstore (default: the OSD keeps data in memory, lost on OSD restart) or
                  bluestore (a sparse file D/osd/block)
  --store-size S  the OSD's capacity (default $STORE_SIZE)
  --image-size S  the test image's size (default $IMAGE_SIZE)
  -h, --help      this text

Then, for example:
  skiff-ctl namespace add nqn.2026-11.io.skiff:default --nsid 2 --kind rbd --pool $POOL \\
      --image $IMAGE --ceph-conf $DIR/ceph.conf
  SKIFF_CEPH_CONF=$DIR/ceph.conf ctest --test-dir build -R Rbd     # the cluster tests

The daemons use about 0.5-1 GiB of memory and some CPU while they run: stop the cluster when done.
EOF
}

cmd=${1:-}
[ -n "$cmd" ] || { usage >&2; exit 2; }
shift
while [ $# -gt 0 ]; do
    case "$1" in
    --dir) DIR=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --store) STORE=$2; shift 2 ;;
    --store-size) STORE_SIZE=$2; shift 2 ;;
    --image-size) IMAGE_SIZE=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "ceph-dev-cluster: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$cmd" in -h | --help) usage; exit 0 ;; esac
case "$STORE" in memstore | bluestore) ;; *) echo "ceph-dev-cluster: --store memstore or bluestore" >&2; exit 2 ;; esac

CONF=$DIR/ceph.conf
CEPH=(ceph -c "$CONF" --connect-timeout 10)

bytes() { numfmt --from=iec "$1"; }

install_missing() {
    local missing=()
    for p in ceph-mon ceph-osd ceph-common uuid-runtime; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "ceph-dev-cluster: installing ${missing[*]}"
    $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
}

pid_of() { # the pid of a daemon of this cluster, if it runs
    local f=$DIR/run/$1.pid
    [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}

write_conf() {
    mkdir -p "$DIR"/{run,log,mon,osd}
    cat >"$CONF" <<EOF
[global]
fsid = $(cat "$DIR/fsid")
mon_host = [v2:127.0.0.1:$PORT]
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_ipv4 = true
ms_bind_ipv6 = false
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
run_dir = $DIR/run
pid_file = $DIR/run/\$name.pid
admin_socket = $DIR/run/\$name.asok
log_file = $DIR/log/\$name.log
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
osd_crush_chooseleaf_type = 0
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 1
mon_data_avail_crit = 0
auth_allow_insecure_global_id_reclaim = false

[client]
keyring = $DIR/ceph.client.admin.keyring

[mon]
mon_data = $DIR/mon/\$name
keyring = $DIR/mon/\$name/keyring

[osd]
osd_data = $DIR/osd/\$name
keyring = $DIR/osd/\$name/keyring
osd_objectstore = $STORE
memstore_device_bytes = $(bytes "$STORE_SIZE")
bluestore_block_path = $DIR/osd/block
bluestore_block_size = $(bytes "$STORE_SIZE")
bluestore_block_create = true
osd_memory_target = 939524096
osd_op_num_shards = 1
osd_op_num_threads_per_shard = 2
EOF
}

start_mon() {
    [ -n "$(pid_of mon.a)" ] && return
    ceph-mon -c "$CONF" -i a
}

create() {
    echo "ceph-dev-cluster: creating a cluster in $DIR"
    mkdir -p "$DIR"
    cat /proc/sys/kernel/random/uuid >"$DIR/fsid"
    write_conf
    ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool --create-keyring "$DIR/ceph.client.admin.keyring" --gen-key -n client.admin \
        --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
    ceph-authtool "$DIR/mon.keyring" --import-keyring "$DIR/ceph.client.admin.keyring" >/dev/null
    monmaptool --create --fsid "$(cat "$DIR/fsid")" --addv a "[v2:127.0.0.1:$PORT]" "$DIR/monmap" >/dev/null
    ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring"
    start_mon
    local uuid
    uuid=$(cat /proc/sys/kernel/random/uuid)
    local id
    id=$("${CEPH[@]}" osd new "$uuid")
    mkdir -p "$DIR/osd/osd.$id"
    # The OSD's key first: mkfs asks the monitor for the cluster's maps as osd.N.
    ceph-authtool --create-keyring "$DIR/osd/osd.$id/keyring" --gen-key -n "osd.$id" >/dev/null
    "${CEPH[@]}" auth add "osd.$id" osd 'allow *' mon 'allow profile osd' -i "$DIR/osd/osd.$id/keyring" >/dev/null
    if ! ceph-osd -c "$CONF" -i "$id" --mkfs --osd-uuid "$uuid" >"$DIR/log/osd-mkfs.log" 2>&1; then
        echo "ceph-dev-cluster: ceph-osd --mkfs failed:" >&2
        tail -5 "$DIR/log/osd-mkfs.log" >&2
        exit 1
    fi
    echo "$id" >"$DIR/osd-id"
}

start() {
    install_missing
    if [ ! -f "$DIR/osd-id" ]; then
        create
    else
        start_mon
    fi
    local id
    id=$(cat "$DIR/osd-id")
    [ -n "$(pid_of "osd.$id")" ] || ceph-osd -c "$CONF" -i "$id"
    if ! "${CEPH[@]}" osd pool ls | grep -qx "$POOL"; then
        "${CEPH[@]}" osd pool create "$POOL" 8 8 >/dev/null 2>&1
        "${CEPH[@]}" osd pool set "$POOL" size 1 --yes-i-really-mean-it >/dev/null 2>&1
        "${CEPH[@]}" osd pool application enable "$POOL" rbd >/dev/null 2>&1
    fi
    # The first write waits for the placement groups to go active.
    if ! timeout 120 rbd -c "$CONF" info "$POOL/$IMAGE" >/dev/null 2>&1; then
        timeout 120 rbd -c "$CONF" create "$POOL/$IMAGE" --size "$IMAGE_SIZE"
    fi
    echo "ceph-dev-cluster: up: monitor 127.0.0.1:$PORT, osd.$id ($STORE), image $POOL/$IMAGE"
    echo "  ceph.conf: $CONF (keyring $DIR/ceph.client.admin.keyring, client.admin)"
    echo "  backend:   {\"kind\": \"rbd\", \"pool\": \"$POOL\", \"image\": \"$IMAGE\", \"ceph_conf\": \"$CONF\"}"
}

stop_daemon() { # SIGTERM by pid, then wait (SIGKILL after 20 s)
    local pid
    pid=$(pid_of "$1") || return 0
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 200); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    echo "ceph-dev-cluster: $1 (pid $pid) did not stop: SIGKILL" >&2
    kill -9 "$pid" 2>/dev/null || true
}

stop() {
    [ -d "$DIR" ] || { echo "ceph-dev-cluster: nothing in $DIR"; return; }
    [ -f "$DIR/fsid" ] || { echo "ceph-dev-cluster: $DIR is not a cluster directory; left alone" >&2; exit 1; }
    for f in "$DIR"/run/osd.*.pid; do [ -e "$f" ] && stop_daemon "$(basename "$f" .pid)"; done
    stop_daemon mon.a
    rm -rf "$DIR"
    echo "ceph-dev-cluster: stopped, $DIR removed"
}

status() {
    [ -f "$DIR/fsid" ] || { echo "ceph-dev-cluster: no cluster in $DIR"; exit 1; }
    local up=0
    for f in "$DIR"/run/*.pid; do
        [ -e "$f" ] || continue
        local name
        name=$(basename "$f" .pid)
        if pid=$(pid_of "$name"); then echo "$name: running (pid $pid)"; up=1; else echo "$name: stopped"; fi
    done
    [ "$up" = 1 ] && timeout 15 "${CEPH[@]}" -s 2>/dev/null || true
}

case "$cmd" in
start) start ;;
stop) stop ;;
status) status ;;
stop-mon) stop_daemon mon.a; echo "ceph-dev-cluster: monitor stopped" ;;
start-mon) start_mon; echo "ceph-dev-cluster: monitor started" ;;
*) echo "ceph-dev-cluster: unknown command $cmd (see --help)" >&2; exit 2 ;;
esac
