#!/bin/bash
# bench/soak.sh -- a soak that shows nothing is lost (issue 28 item 9).
#
#   bench/soak.sh [-d SECONDS] [-s SEED] [-n NODES] [-r RATE]
#                 (default: 600 s, seed 1, 4 nodes, 200 requests/s)
#   bench/soak.sh -d 120        a short one, to try it
#
# The simulated cluster, under a bounded load, for SECONDS, while it is
# hurt on a schedule drawn from SEED (bench/soak.py plan): nodes killed
# (SIGKILL of the node's own pisim process) and started again, hung and
# released (pisim's control FIFO), one node heated past the hard limit
# and cooled again (its scenario's heat events), a graceful restart of
# the front every minute, and the front's /pi-status?json scraped every
# second.  Then bench/soak.py report puts in report.md:
#   - child crashes in the front's error log (none allowed);
#   - every failed request, against the requests in flight to a node when
#     it was killed or hung (nothing else may fail): openloop's line per
#     request (-o) joined with the front's access log (X-Request-Id);
#   - every drain, re-admission, failure and return the nodes' own logs,
#     traces and the kill times show, against the events /pi-status
#     recorded (each once, nothing extra);
#   - the seconds each node spent throttled.
# Exit status: 0 when all of that holds, 1 when something does not (the
# report says what), 2 usage or set-up.
#
# As bench/faults.sh (whose front, nodes' helpers and cleanup it uses):
# the front is Apache (event MPM, lbmethod pi, mod_pistats, PiBalanceDeflate
# On) pinned to core 1; the nodes (one pisim process each, so that one can
# be killed) and openloop (bench/openloop.c, fixed rate, Accept-Encoding:
# gzip) on core 0; every wait bounded, a trap stops what it started.
# Ports: front 30380, nodes 30401.. (PIB_SOAK_PORT, PIB_SOAK_NODE_BASE).
# Raw data: a new bench/results/<UTC date>-<UTC time>-soak/ (or
# $PIB_BENCH_OUT): the plan and scenarios, each node's log, trace and
# summary, actions.log (what was done when), requests.txt (one line a
# request), the access and error logs, status.jsonl.gz (the scrapes),
# report.md.  Run it as `flock /work/bench.lock bench/soak.sh` on a
# shared machine.
set -eu
set -o pipefail

usage() { sed -n '4,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
SECS=600 SEED=1 NODES=4 RATE=200
while getopts d:s:n:r:h opt; do
    case $opt in
        d) SECS=$OPTARG ;;
        s) SEED=$OPTARG ;;
        n) NODES=$OPTARG ;;
        r) RATE=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage
case "$SECS$SEED$NODES$RATE" in *[!0-9]*) usage ;; esac
[ "$SECS" -ge 60 ] && [ "$SECS" -le 3600 ] || { echo "soak: -d 60..3600" >&2; exit 2; }
[ "$NODES" -ge 3 ] && [ "$NODES" -le 8 ] || { echo "soak: -n 3..8" >&2; exit 2; }
[ "$RATE" -ge 1 ] && [ "$RATE" -le 2000 ] || { echo "soak: -r 1..2000" >&2; exit 2; }

# shellcheck source=faults.sh
source "$(dirname "${BASH_SOURCE[0]}")/faults.sh"
APACHE=${PIB_SOAK_PORT:-30380}
NODE_BASE=${PIB_SOAK_NODE_BASE:-30401}
raw=$(results_dir soak) || exit 2
soak_py() { python3 "$top/bench/soak.py" "$@"; }

for p in taskset curl python3 gcc; do
    command -v "$p" >/dev/null || { echo "soak: $p is missing" >&2; exit 2; }
done
[ -f "$top/mod_pibalance/mod_pibalance.so" ] \
    && [ -f "$top/mod_pistats/mod_pistats.so" ] \
    || { echo "soak: build the modules first (make all)" >&2; exit 2; }
make -s -C "$top/sim" pisim >/dev/null
gcc -O2 -Wall -Wextra -o "$work/openloop" "$top/bench/openloop.c"

# ---- the plan: what happens when, from the seed -----------------------------
soak_py plan --seed "$SEED" --secs "$SECS" --nodes "$NODES" \
    --port-base "$NODE_BASE" --out "$raw"
names=$(awk '$1 == "node" {print $2}' "$raw/nodes.txt")
log "bench/soak.sh: ${SECS} s, seed $SEED, $NODES nodes, $RATE requests/s;" \
    "raw data in $raw ($(tree_commit "$top"))"

# ---- nodes: one pisim process each ----------------------------------------
declare -A node_pid=() node_port=() node_runs=()
while read -r _ name port _; do
    node_port[$name]=$port
done < <(awk '$1 == "node"' "$raw/nodes.txt")

actions="$raw/actions.log"
: > "$actions"
act() { printf '%s %s\n' "$(date +%s.%N | cut -c1-14)" "$*" >> "$actions"; }

# start_node NAME: until it listens (5 s).  Each process of a node appends
# to its log and writes a trace and a summary of its own (NAME.trace.N,
# NAME.summary.N: a killed one writes no summary).
start_node() {
    local name=$1 out="$work/$1.out" i n
    n=$(( ${node_runs[$name]:-0} + 1 ))
    node_runs[$name]=$n
    : > "$out"
    taskset -c 0 "$top/sim/pisim" "$raw/$name.scen" -d $((SECS + 120)) \
        -l "$raw/$name.log" -t "$raw/$name.trace.$n" \
        -s "$raw/$name.summary.$n" -c "$work/$name.ctl" \
        < /dev/null > "$out" 2>&1 &
    node_pid[$name]=$!
    pids+=("$!")
    for i in $(seq 50); do
        grep -q listening "$out" && return 0
        sleep 0.1
    done
    echo "soak: node $name did not start: $(cat "$out")" >&2
    return 1
}

kill_node() {                   # kill_node NAME: SIGKILL, reaped
    local name=$1
    kill -KILL "${node_pid[$name]}" 2>/dev/null || true
    wait "${node_pid[$name]}" 2>/dev/null || true
}

for name in $names; do
    start_node "$name"
    act start "$name"
done

# ---- the front: bench/faults.sh's, the access log names each request -------
ports=""
for name in $names; do ports="$ports ${node_port[$name]}"; done
# shellcheck disable=SC2086 # the member ports
MEMBER_OPTS="timeout=3" front_conf soak "$APACHE" pi "PiBalanceDeflate On
PiBalanceThermal 65 75
PiBalanceSlowStart 5" $ports
sed -i 's|^LogFormat .*|LogFormat "%{%s}t.%{msec_frac}t %s %D %{BALANCER_WORKER_NAME}e %U %{X-Request-Id}i" soak|
        s|^CustomLog \(.*\) fault$|CustomLog \1 soak|' "$work/soak.conf.httpd"
cp "$work/soak.conf.httpd" "$raw/front.conf"
start_front soak "$APACHE"
act front-start -

# ---- the scraper and the load ------------------------------------------------
t0=$(date +%s.%N)
python3 "$top/bench/soak.py" scrape --port "$APACHE" --secs $((SECS + 20)) \
    --out "$raw/status.jsonl" &
pids+=("$!")
scraper=$!
taskset -c 0 "$work/openloop" -r "$RATE" -d "$SECS" -c 256 -T 10 -w 15 \
    -H "Accept-Encoding: gzip" -o "$raw/requests.txt" \
    "http://127.0.0.1:$APACHE/page" > "$raw/openloop.txt" 2>&1 &
pids+=("$!")
load=$!
act load-start "$RATE/s"

# ---- the schedule: plan.tsv, "SECONDS ACTION NODE" --------------------------
while read -r at what name <&3; do
    case $at in \#*) continue ;; esac
    wait_s=$(awk -v t0="$t0" -v at="$at" -v now="$(date +%s.%N)" \
        'BEGIN { w = t0 + at - now; print (w > 0 ? w : 0) }')
    sleep "$wait_s"
    case $what in
        kill) kill_node "$name" ;;
        start) start_node "$name" ;;
        hang | answer) echo "$what $name" > "$work/$name.ctl" ;;
        graceful) /usr/sbin/apache2 -f "$work/soak.conf.httpd" -k graceful \
                      < /dev/null ;;
        *) echo "soak: plan: '$what'?" >&2; exit 2 ;;
    esac
    act "$what" "$name"
    log "  $(printf '%6.1f' "$at") s: $what $name"
done 3< "$raw/plan.tsv"

wait "$load" || true
act load-end -
sleep 3                          # the last events reach /pi-status
kill "$scraper" 2>/dev/null || true
wait "$scraper" 2>/dev/null || true
cp "$work/soak/error_log" "$raw/error_log"
cp "$work/soak/access_log" "$raw/access_log"
stop_front "$work/soak.conf.httpd"
for name in $names; do           # SIGTERM: each writes its summary
    kill -TERM "${node_pid[$name]}" 2>/dev/null || true
    wait "${node_pid[$name]}" 2>/dev/null || true
done
act end -

rc=0
soak_py report "$raw" > "$raw/report.md" || rc=$?
gzip -9 "$raw/status.jsonl" "$raw/access_log" "$raw/requests.txt"
cat "$raw/report.md"
log "report: $raw/report.md"
[ "$rc" = 0 ] || exit 1
