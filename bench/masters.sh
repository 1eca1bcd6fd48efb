#!/bin/bash
# bench/masters.sh -- several masters in front of the same simulated
# nodes (issue 21 item 3; bench/run.sh --masters runs it).
#
# The heat-fast cluster (sim/scenarios/bench-heat-fast.conf: pi3 the
# fastest and badly cooled) behind 1, 2 and 4 masters, each its own
# front on its own port, the closed-loop load split evenly between them
# (one wrk per master, 64 connections in all), for:
#   pi           lbmethod pi, other masters' load counted (BusyWorkers)
#   pi-noremote  lbmethod pi with PiBalanceRemoteMaxAge 0 (each master
#                counts only its own requests: the code before issue 21)
#   bybusyness   Apache's lbmethod bybusyness
#   haproxy      HAProxy leastconn, one HAProxy per master
# Measured per run: req/s (sum over masters), p99 (the worst master's),
# seconds pi3 spent throttled (pisim's summary), pi3's share per second
# (pisim's trace: mean and standard deviation, the oscillation), and for
# lbmethod pi each master's drain / re-admit times (PIB10201 in its
# error log) and how far apart the masters did the same change.
#
#   bench/masters.sh                 ~6 min: RESULTS-masters.md's data
#   MASTERS_COUNTS="2" MASTERS_BALANCERS="pi bybusyness" bench/masters.sh
#   MASTERS_SECS=18                  seconds of load per run
#
# Raw data in bench/results/<UTC date>-<UTC time>-masters/ (or
# $PIB_BENCH_OUT): runs.tsv, per run the pisim summary/trace/events,
# each master's wrk output and error log, drains.tsv, table.md (what
# RESULTS-masters.md quotes).  Root (as run.sh: User nobody, wrk,
# haproxy).  All on 127.0.0.1; pisim and wrk on core 0, the masters on
# core 1.  Every wait is bounded; a trap stops what it started (by pid).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"

NODE_BASE=19401 MASTER_BASE=19380
SECS=${MASTERS_SECS:-18}
COUNTS=${MASTERS_COUNTS:-1 2 4}
BALANCERS=${MASTERS_BALANCERS:-pi pi-noremote bybusyness haproxy}
CONNS=64
SCEN="$top/sim/scenarios/bench-heat-fast.conf"
HOT=pi3

work=$(mktemp -d /tmp/pib-masters.XXXXXX)
chmod 755 "$work"
sim_pid="" hap_pids="" apache_dirs=""
log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

stop_fronts() {
    local d p
    for d in $apache_dirs; do
        [ -f "$d/httpd.conf" ] || continue
        /usr/sbin/apache2 -f "$d/httpd.conf" -k stop 2>/dev/null || true
    done
    for d in $apache_dirs; do
        for _ in $(seq 50); do
            [ -f "$d/httpd.pid" ] || break
            sleep 0.1
        done
    done
    apache_dirs=""
    for p in $hap_pids; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    hap_pids=""
}

stop_sim() {
    if [ -n "$sim_pid" ]; then
        kill "$sim_pid" 2>/dev/null || true
        wait "$sim_pid" 2>/dev/null || true
        sim_pid=""
    fi
}

cleanup() { stop_fronts; stop_sim; rm -rf "$work"; }
trap cleanup EXIT

apache_master() {               # apache_master DIR PORT METHOD NODEPORTS...
    local d=$1 port=$2 method=$3 p members="" extra=""
    shift 3
    for p in "$@"; do
        members="$members    BalancerMember \"http://127.0.0.1:$p\" retry=2
"
    done
    case $method in
        pi-noremote) method=pi; extra="    PiBalanceRemoteMaxAge 0" ;;
    esac
    mkdir -p "$d"
    chmod 755 "$d"
    cat > "$d/httpd.conf" <<CONF
$(apache_base "$d" notice)
LoadModule lbmethod_bybusyness_module "$(apxs -q LIBEXECDIR)/mod_lbmethod_bybusyness.so"
LoadModule pistats_module "$(module_so "$top" mod_pistats)"
LoadModule pibalance_module "$(module_so "$top" mod_pibalance)"
User nobody
Group nogroup
Listen 127.0.0.1:$port
StartServers 1
ServerLimit 1
ThreadsPerChild 64
MaxRequestWorkers 64
MaxConnectionsPerChild 0
KeepAliveTimeout 30
MaxKeepAliveRequests 0
PiStatsProbeInterval 500ms
PiStatsProbeTimeout 400ms
PiStatsNodeName master-$port
<Location "/pi-status">
    SetHandler pi-status
</Location>
ProxyPass "/pi-status" "!"
<Proxy "balancer://b">
$members    ProxySet lbmethod=$method
$extra
</Proxy>
ProxyPass "/" "balancer://b/"
CONF
    taskset -c 1 /usr/sbin/apache2 -f "$d/httpd.conf" -k start
    apache_dirs="$apache_dirs $d"
}

haproxy_master() {              # haproxy_master DIR PORT NODEPORTS...
    local d=$1 port=$2 p i=0
    shift 2
    mkdir -p "$d"
    cat > "$d/haproxy.cfg" <<CONF
global
    nbthread 1
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 2
    option redispatch
    http-reuse always
frontend f
    bind 127.0.0.1:$port
    default_backend b
backend b
    balance leastconn
    option httpchk GET /pi-status?auto
CONF
    for p in "$@"; do
        i=$((i + 1))
        echo "    server n$i 127.0.0.1:$p check inter 1s fall 1 rise 1" \
            >> "$d/haproxy.cfg"
    done
    taskset -c 1 haproxy -f "$d/haproxy.cfg" > "$d/haproxy.log" 2>&1 &
    hap_pids="$hap_pids $!"
}

node_ports() {
    local i
    for i in $(seq 50); do
        if grep -q listening "$work/sim.out" 2>/dev/null; then
            sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
                "$work/sim.out"
            return 0
        fi
        sleep 0.1
    done
    echo "pisim did not start: $(cat "$work/sim.out")" >&2
    return 1
}

run_one() {                     # run_one MASTERS BALANCER
    local m=$1 bal=$2 out="$raw/$bal-m$1" i port ports c wpids=""
    mkdir -p "$out"
    # pisim outlives the load by far (it is stopped at the end): four
    # fronts may take many seconds to start on a busy machine
    taskset -c 0 "$top/sim/pisim" "$SCEN" -p "$NODE_BASE" -d $((SECS + 120)) \
        -s "$out/summary" -t "$out/trace" -l "$out/events" \
        > "$work/sim.out" 2>&1 &
    sim_pid=$!
    ports=$(node_ports)
    for i in $(seq 0 $((m - 1))); do
        port=$((MASTER_BASE + i))
        # shellcheck disable=SC2086
        case $bal in
            haproxy) haproxy_master "$work/m$i" "$port" $ports ;;
            *) apache_master "$work/m$i" "$port" "$bal" $ports ;;
        esac
        wait_port "$port" >&2
    done
    sleep 1.5                   # the probes have run (500 ms interval)
    c=$((CONNS / m))
    for i in $(seq 0 $((m - 1))); do
        port=$((MASTER_BASE + i))
        timeout $((SECS + 20)) taskset -c 0 wrk -t1 -c"$c" -d"${SECS}s" \
            --timeout 10s --latency "http://127.0.0.1:$port/" \
            > "$out/wrk-m$i.txt" 2>&1 &
        wpids="$wpids $!"
    done
    for i in $wpids; do
        wait "$i" || true
    done
    kill -USR1 "$sim_pid" 2>/dev/null || true   # the summary, now
    sleep 0.3
    for i in $(seq 0 $((m - 1))); do
        [ -f "$work/m$i/error_log" ] \
            && cp "$work/m$i/error_log" "$out/error_log-m$i"
    done
    stop_fronts
    stop_sim
    rm -rf "$work"/m*
    python3 "$top/bench/masters.py" run "$out" "$HOT" "$m" "$bal" \
        >> "$raw/runs.tsv"
    log "  $m masters, $bal: $(tail -1 "$raw/runs.tsv" | cut -f3-6)"
}

main() {
    [ "$(id -u)" = 0 ] || { echo "run as root (User nobody)" >&2; exit 1; }
    for p in wrk haproxy taskset curl python3 apxs; do
        command -v "$p" >/dev/null || { echo "missing: $p" >&2; exit 1; }
    done
    make -s -C "$top/sim" >/dev/null
    raw=$(results_dir masters)
    {
        echo "commit=$(tree_commit "$top")"
        echo "date=$(date -u +%FT%TZ) secs=$SECS conns=$CONNS"
        echo "counts=$COUNTS balancers=$BALANCERS"
        echo "nproc=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg)"
    } > "$raw/machine.txt"
    python3 "$top/bench/masters.py" header > "$raw/runs.tsv"
    local m bal
    for m in $COUNTS; do
        for bal in $BALANCERS; do
            run_one "$m" "$bal"
        done
    done
    python3 "$top/bench/masters.py" table "$raw" > "$raw/table.md"
    cat "$raw/table.md"
    echo "raw data: $raw" >&2
}

main "$@"
