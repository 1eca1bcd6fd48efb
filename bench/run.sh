#!/bin/bash
# bench/run.sh -- the balancer benchmark suite (issue 7): simulated Pi
# clusters (sim/pisim) behind Apache lbmethod pi / byrequests / bybusyness,
# HAProxy leastconn and nginx least_conn, closed-loop (wrk) and open-loop
# (bench/openloop.c) load, the per-request overhead benchmark, and a
# report with plots.
#
#   bench/run.sh            full suite, ~15 min: bench/RESULTS-run.md
#   bench/run.sh --quick    ~2 min smoke run: bench/RESULTS-run-quick.md
#   bench/run.sh --overhead the per-request overhead only, ~2 min: prints
#                           its table (bench/RESULTS-run-overhead.md
#                           quotes such tables, by hand)
#   bench/run.sh --only SCENARIO[,SCENARIO] [BALANCER,...]
#                           those scenarios of the full suite with those
#                           balancers (default all), no overhead part:
#                           report and raw data under /tmp/pib-only/
#   bench/run.sh --masters  1, 2 and 4 masters in front of the same
#                           nodes, ~6 min: bench/masters.sh (its
#                           variables), bench/RESULTS-masters.md
#   bench/run.sh --energy   joules per request (issue 31): sim/scenarios/
#                           mixed.conf (two Pi 4s, two Pi 5s) open loop at
#                           low, medium and high load behind lbmethod pi,
#                           pi with PiBalanceEnergy On and bybusyness, in
#                           interleaved rounds, ~12 min: rewrites the
#                           "Energy per request" section of
#                           bench/RESULTS-run.md (PIB_ENERGY_ROUNDS,
#                           PIB_ENERGY_SECS, PIB_ENERGY_LOADS,
#                           PIB_ENERGY_BALANCERS; PIB_ENERGY_OUT: write
#                           the section to that file instead)
#   --baseline DIR          (before the mode, or PIB_BASELINE_MODULES=DIR)
#                           every Apache run twice, back to back: with this
#                           tree's modules and with DIR's (mod_pibalance.so
#                           and mod_pistats.so in DIR or DIR/<module>/, e.g.
#                           a tree of another commit, built); the report
#                           gains a table of ratios this/baseline.  About
#                           1.6 times as long.  bench/compare-commits.sh
#                           builds both and runs this.
#   PIB_MODULES=DIR         this side's modules from DIR instead of this
#                           tree (same layout as --baseline's DIR)
#
# Raw data and plots go to a new bench/results/<UTC date>-<UTC time>-run
# (-quick, -overhead)/ directory, or to $PIB_BENCH_OUT; the RESULTS file
# names it, and the commit the modules were built from.
#
# Must run as root (installs wrk, haproxy, nginx-light if missing).  All
# on 127.0.0.1; pisim and the load generator on core 0, the front on core
# 1.  pisim is restarted for every balancer, so each starts cold (same
# temperatures, same failure schedule).  Every wait is bounded; a trap
# stops everything this script started.
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=full
only="" only_bal=""
baseline=${PIB_BASELINE_MODULES:-}
if [ "${1:-}" = --baseline ]; then
    baseline=${2:?--baseline needs a directory}
    shift 2
fi
case "${1:-}" in
    --quick) mode=quick ;;
    --overhead) mode=overhead ;;
    --only) mode=only; only=${2:?--only needs scenarios}; only_bal=${3:-} ;;
    --masters) exec "$top/bench/masters.sh" ;;
    --energy) mode=energy ;;
    "") ;;
    *) echo "usage: $0 [--baseline DIR] [--quick|--overhead|--masters|--energy|--only SCEN[,SCEN] [BAL,...]]" >&2
       exit 2 ;;
esac
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"

NODE_BASE=19301 APACHE=19280 HAPROXY=19282 NGINX=19283
BALANCERS="pi byrequests bybusyness haproxy nginx"
CLOSED_CONNS=64          # wrk connections, closed loop
OPEN_LOAD=0.70           # open loop: fraction of the scenario's capacity
OVH_CONNS=50             # overhead benchmark connections

if [ "$mode" = energy ]; then
    # Energy per request: one scenario, three loads, interleaved rounds.
    raw=$(results_dir energy)
    plots="$raw"
    out=${PIB_ENERGY_OUT:-$top/bench/RESULTS-run.md}    # a trial: elsewhere
    ENERGY_CONF=mixed.conf
    ENERGY_ROUNDS=${PIB_ENERGY_ROUNDS:-3}
    ENERGY_SECS=${PIB_ENERGY_SECS:-20}
    # name:fraction of the ideal capacity (1,400 req/s)
    ENERGY_LOADS=${PIB_ENERGY_LOADS:-"low:0.15 medium:0.45 high:0.80"}
    BALANCERS=${PIB_ENERGY_BALANCERS:-"pi pi+energy bybusyness"}
    SCENARIOS="" OVH_SECS=0 OVH_REPS=0
elif [ "$mode" = overhead ]; then
    # Only the per-request overhead, Apache's three methods, 5 rounds:
    # prints the table (raw data in its results dir), writes no report.
    raw=$(results_dir run-overhead)
    plots="$raw"
    out=/dev/null
    BALANCERS="pi byrequests bybusyness"
    SCENARIOS=""
    OVH_SECS=4 OVH_REPS=5
elif [ "$mode" = quick ]; then
    out="$top/bench/RESULTS-run-quick.md"
    raw=$(results_dir run-quick)
    plots="$raw/plots"
    # scenario:file:duration:loads
    SCENARIOS="hetero:hetero.conf:5:closed heat-fast:bench-heat-fast.conf:9:closed"
    OVH_SECS=2 OVH_REPS=1
else
    out="$top/bench/RESULTS-run.md"
    SCENARIOS="homogeneous:homogeneous.conf:6:closed,open
hetero:hetero.conf:10:closed,open
heat-fast:bench-heat-fast.conf:18:closed,open
heat-slow:bench-heat-slow.conf:18:closed,open
failover:bench-failover.conf:12:closed,open"
    OVH_SECS=4 OVH_REPS=3
fi
if [ "$mode" = only ]; then
    # a scratch run: its own report, not a RESULTS file; replaced each time
    out=/tmp/pib-only/RESULTS.md
    raw=${PIB_BENCH_OUT:-/tmp/pib-only/raw}
    plots=$raw/plots
    [ -n "${PIB_BENCH_OUT:-}" ] || rm -rf "$raw"
    raw=$(PIB_BENCH_OUT=$raw results_dir run-only)
    SCENARIOS=$(grep -E "^(${only//,/|}):" <<<"$SCENARIOS" || true)
    [ -n "$SCENARIOS" ] || { echo "no such scenario: $only" >&2; exit 2; }
    [ -z "$only_bal" ] || BALANCERS=${only_bal//,/ }
    OVH_REPS=0
elif [ "$mode" = full ]; then
    raw=$(results_dir run)
    plots="$raw/plots"
fi
mods=${PIB_MODULES:-$top}       # the modules of an Apache front: this tree
if [ -n "$baseline" ]; then
    baseline=$(cd "$baseline" && pwd)
    module_so "$baseline" mod_pibalance >/dev/null
    module_so "$baseline" mod_pistats >/dev/null
    # each Apache method also as METHOD@base, right after it
    BALANCERS=$(for b in $BALANCERS; do
                    case $b in haproxy|nginx) echo "$b" ;;
                               *) echo "$b $b@base" ;; esac
                done | tr '\n' ' ')
fi

work=$(mktemp -d /tmp/pib-suite.XXXXXX)
chmod 755 "$work"
sim_pid="" hap_pid="" sampler_pid="" front_port=""
libexec=""

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

# ---- life cycle -------------------------------------------------------------
stop_front() {
    if [ -f "$work/httpd.pid" ]; then
        /usr/sbin/apache2 -f "$work/httpd.conf" -k stop 2>/dev/null || true
        wait_gone "$work/httpd.pid"
    fi
    if [ -n "$hap_pid" ]; then
        kill "$hap_pid" 2>/dev/null || true
        wait "$hap_pid" 2>/dev/null || true
        hap_pid=""
    fi
    if [ -f "$work/nginx.pid" ]; then
        kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
        wait_gone "$work/nginx.pid"
    fi
}

stop_sim() {
    if [ -n "$sim_pid" ]; then
        kill "$sim_pid" 2>/dev/null || true
        wait "$sim_pid" 2>/dev/null || true
        sim_pid=""
    fi
}

cleanup() {
    stop_sampler
    stop_front
    stop_sim
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_gone() {                   # wait_gone PIDFILE, at most 5 s
    local i
    for i in $(seq 50); do
        [ -f "$1" ] || return 0
        sleep 0.1
    done
    echo "still running after 5 s: $1" >&2
}

wait_port() {                   # wait_port PORT, at most 5 s
    local i
    for i in $(seq 50); do
        curl -s -o /dev/null -m 1 "http://127.0.0.1:$1/pi-status?auto" \
            && return 0
        sleep 0.1
    done
    echo "nothing answers on port $1" >&2
    return 1
}

prepare() {
    "$top/build/setup-deps.sh" bench
    local p
    for p in wrk haproxy nginx taskset curl python3 gcc; do
        command -v "$p" >/dev/null || { echo "missing: $p" >&2; exit 1; }
    done
    if [ ! -f "$top/mod_pibalance/mod_pibalance.so" ] \
        || [ ! -f "$top/mod_pistats/mod_pistats.so" ]; then
        (cd "$top" && { [ -f Makefile ] || { autoconf && ./configure; }; } \
            && make -s) >/dev/null
    fi
    make -s -C "$top/sim" >/dev/null
    gcc -O2 -Wall -Wextra -o "$work/openloop" "$top/bench/openloop.c"
    libexec=$(apxs -q LIBEXECDIR)
    mkdir -p "$raw" "$plots"
}

# ---- the simulated nodes --------------------------------------------------
start_sim() {                   # start_sim CONF RUNDIR SECONDS
    local conf=$1 dir=$2 secs=$3 port
    taskset -c 0 "$top/sim/pisim" "$conf" -p "$NODE_BASE" -d "$secs" \
        -s "$dir.summary" -t "$dir.trace" -l "$dir.events" \
        > "$work/sim.out" 2>&1 &
    sim_pid=$!
    sleep 0.2
    for port in $(node_ports); do
        wait_port "$port"
    done
}

node_ports() {                  # the ports pisim said it listens on
    local i
    for i in $(seq 20); do
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

# ---- the fronts -------------------------------------------------------------
apache_conf() {                 # apache_conf LBMETHOD[+energy][@base] PORTS...
    local method=${1%@base} p members="" dir=$mods extra=""
    [ "$1" = "$method" ] || dir=$baseline
    if [ "${method%+energy}" != "$method" ]; then
        method=${method%+energy}
        extra="    PiBalanceEnergy On
"
    fi
    shift
    for p in "$@"; do
        members="$members    BalancerMember \"http://127.0.0.1:$p\" retry=2
"
    done
    cat > "$work/httpd.conf" <<CONF
$(apache_base "$work" notice)
LoadModule lbmethod_byrequests_module "$libexec/mod_lbmethod_byrequests.so"
LoadModule lbmethod_bybusyness_module "$libexec/mod_lbmethod_bybusyness.so"
LoadModule pistats_module "$(module_so "$dir" mod_pistats)"
LoadModule pibalance_module "$(module_so "$dir" mod_pibalance)"
User nobody
Group nogroup
Listen 127.0.0.1:$APACHE
StartServers 2
ServerLimit 2
ThreadsPerChild 64
MaxRequestWorkers 128
MaxConnectionsPerChild 0
KeepAliveTimeout 30
MaxKeepAliveRequests 0
PiStatsProbeInterval 500ms
PiStatsProbeTimeout 400ms
<Location "/pi-status">
    SetHandler pi-status
</Location>
ProxyPass "/pi-status" "!"
<Proxy "balancer://b">
$members    ProxySet lbmethod=$method
$extra</Proxy>
ProxyPass "/" "balancer://b/"
CONF
}

haproxy_conf() {                # haproxy_conf PORTS...
    local p i=0
    cat > "$work/haproxy.cfg" <<CONF
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
    bind 127.0.0.1:$HAPROXY
    default_backend b
backend b
    balance leastconn
    option httpchk GET /pi-status?auto
CONF
    for p in "$@"; do
        i=$((i + 1))
        echo "    server n$i 127.0.0.1:$p check inter 1s fall 1 rise 1" \
            >> "$work/haproxy.cfg"
    done
}

nginx_conf() {                  # nginx_conf PORTS...
    local p servers=""
    for p in "$@"; do
        servers="$servers        server 127.0.0.1:$p max_fails=1 fail_timeout=2s;
"
    done
    cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/nb;
    proxy_temp_path $work/np;
    fastcgi_temp_path $work/nf;
    uwsgi_temp_path $work/nu;
    scgi_temp_path $work/ns;
    upstream b {
        least_conn;
$servers        keepalive 64;
    }
    server {
        listen 127.0.0.1:$NGINX;
        location / {
            proxy_pass http://b;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout;
        }
    }
}
CONF
}

# start_front BALANCER PORTS...: starts the front, sets front_port.  Not
# to be called in $( ): HAProxy is a child of this shell, and stop_front
# must find its pid (in a subshell it was lost, and every run left its
# HAProxy running on $HAPROXY).
start_front() {
    local bal=$1
    shift
    case $bal in
        haproxy)
            haproxy_conf "$@"
            taskset -c 1 haproxy -f "$work/haproxy.cfg" \
                > "$work/haproxy.log" 2>&1 &
            hap_pid=$!
            wait_port "$HAPROXY" >&2
            front_port=$HAPROXY ;;
        nginx)
            nginx_conf "$@"
            taskset -c 1 nginx -c "$work/nginx.conf"
            wait_port "$NGINX" >&2
            front_port=$NGINX ;;
        *)
            apache_conf "$bal" "$@"
            : > "$work/error_log"
            taskset -c 1 /usr/sbin/apache2 -f "$work/httpd.conf" -k start
            wait_port "$APACHE" >&2
            front_port=$APACHE ;;
    esac
}

# ---- load -------------------------------------------------------------------
to_ms() {                       # wrk's "12.3ms" / "850.00us" / "1.2s"
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0;
        else if (v ~ /s$/) n *= 1000
        printf "%.2f", n }'
}

load_closed() {                 # load_closed PORT SECONDS OUTFILE -> tsv
    local port=$1 secs=$2 o=$3 rps p50 p99 err
    timeout $((secs + 20)) taskset -c 0 wrk -t1 -c"$CLOSED_CONNS" \
        -d"${secs}s" --timeout 10s --latency \
        "http://127.0.0.1:$port/" > "$o" 2>&1 || true
    rps=$(awk '/^Requests\/sec/ {printf "%.1f", $2}' "$o")
    p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$o")")
    p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$o")")
    err=$(awk '/Socket errors/ {gsub(",", ""); s += $4 + $6 + $8 + $10}
               /Non-2xx/ {s += $NF} END {print s + 0}' "$o")
    printf '%s\t%s\t%s\t%s\n' "${rps:-0}" "$p50" "$p99" "$err"
}

load_open() {                   # load_open PORT SECONDS RATE OUTFILE -> tsv
    local port=$1 secs=$2 rate=$3 o=$4
    timeout $((secs + 30)) taskset -c 0 "$work/openloop" -r "$rate" \
        -d "$secs" -c 512 -T 10 -w 10 "http://127.0.0.1:$port/" \
        > "$o" 2>&1 || true
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           printf "%s\t%s\t%s\t%d\n", v["achieved_rps"], v["p50_ms"],
                  v["p99_ms"], v["errors"] + v["non2xx"] + v["unsent"] }' "$o"
}

# ---- what lbmethod pi sees: the master's /pi-status?json each second ----
start_sampler() {               # start_sampler SECONDS DIR
    local secs=$1 d=$2
    mkdir -p "$d"
    (
        i=0
        while [ "$i" -lt "$((secs + 1))" ]; do
            curl -s -m 1 -o "$d/$i.json" \
                "http://127.0.0.1:$APACHE/pi-status?json" || true
            i=$((i + 1))
            sleep 1
        done
    ) &
    sampler_pid=$!
}

stop_sampler() {
    if [ -n "$sampler_pid" ]; then
        kill "$sampler_pid" 2>/dev/null || true
        wait "$sampler_pid" 2>/dev/null || true
        sampler_pid=""
    fi
}

# ---- one run ------------------------------------------------------------------
run_one() {                     # run_one SCEN CONF LOAD BAL SECONDS
    local scen=$1 conf=$2 load=$3 bal=$4 secs=$5 dir port res rate
    dir="$raw/$scen-$load-$bal"
    start_sim "$top/sim/scenarios/$conf" "$dir" $((secs + 8))
    # shellcheck disable=SC2046
    start_front "$bal" $(node_ports)
    port=$front_port
    sleep 1                     # every balancer: probe has run twice
    if [ "${bal%@base}" = pi ]; then  # the same extra work for pi@base
        start_sampler "$secs" "$work/samples"
    fi
    if [ "$load" = closed ]; then
        res=$(load_closed "$port" "$secs" "$dir.load")
    else
        rate=$(python3 "$top/bench/report.py" capacity \
                   "$top/sim/scenarios/$conf" "$OPEN_LOAD")
        res=$(load_open "$port" "$secs" "$rate" "$dir.load")
    fi
    if [ "${bal%@base}" = pi ]; then
        curl -s -m 2 "http://127.0.0.1:$APACHE/pi-status?json" \
            > "$dir.pistatus.json" || true
        grep 'PIB10[2-9]' "$work/error_log" > "$dir.piblog" || true
        stop_sampler
        python3 "$top/bench/report.py" samples "$work/samples" \
            > "$dir.pisamples.tsv" || true
        rm -rf "$work/samples"
    fi
    case $bal in            # an Apache front's error log, for the record
        haproxy|nginx) ;;
        *) cp "$work/error_log" "$dir.error_log" 2>/dev/null || true ;;
    esac
    stop_front
    stop_sim
    printf '%s\t%s\t%s\t%s\t%s\n' "$scen" "$load" "$bal" "$secs" "$res" \
        >> "$raw/runs.tsv"
    log "  $scen $load $bal: $(cut -f1 <<<"$res") req/s," \
        "p99 $(cut -f3 <<<"$res") ms, errors $(cut -f4 <<<"$res")"
}

run_scenarios() {
    local line scen conf secs loads load bal
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        IFS=: read -r scen conf secs loads <<<"$line"
        for load in ${loads//,/ }; do
            log "scenario $scen, $load loop, ${secs} s per balancer"
            for bal in $BALANCERS; do
                run_one "$scen" "$conf" "$load" "$bal" "$secs"
            done
        done
    done <<<"${SCENARIOS// /$'\n'}"
}

# ---- energy per request (issue 31) ------------------------------------------
# energy_order ROUND: the balancers of a round, rotated by the round, so
# that none always runs first or last.
energy_order() {
    local -a b
    local n i
    read -ra b <<<"$BALANCERS"
    n=${#b[@]}
    for i in $(seq 0 $((n - 1))); do
        printf '%s ' "${b[$(( (i + $1) % n ))]}"
    done
}

run_energy() {
    local conf="$top/sim/scenarios/$ENERGY_CONF" round spec load frac rate
    local bal dir port res
    log "energy: $ENERGY_CONF, $ENERGY_SECS s a run, $ENERGY_ROUNDS rounds"
    : > "$raw/energy.tsv"
    for round in $(seq "$ENERGY_ROUNDS"); do
        for spec in $ENERGY_LOADS; do
            load=${spec%%:*} frac=${spec#*:}
            rate=$(python3 "$top/bench/report.py" ideal "$conf" "$frac")
            for bal in $(energy_order "$round"); do
                dir="$raw/$load-$bal-$round"
                start_sim "$conf" "$dir" $((ENERGY_SECS + 8))
                # shellcheck disable=SC2046
                start_front "$bal" $(node_ports)
                port=$front_port
                sleep 1         # the probe has read every node twice
                res=$(load_open "$port" "$ENERGY_SECS" "$rate" "$dir.load")
                curl -s -m 2 "http://127.0.0.1:$APACHE/pi-status?json" \
                    > "$dir.pistatus.json" || true
                cp "$work/error_log" "$dir.error_log" 2>/dev/null || true
                stop_front
                stop_sim
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$load" "$bal" \
                    "$rate" "$ENERGY_SECS" "$res" >> "$raw/energy.tsv"
                log "  round $round $load ($rate/s) $bal: $(cut -f1 <<<"$res")" \
                    "req/s, p99 $(cut -f3 <<<"$res") ms," \
                    "$(python3 "$top/bench/report.py" joules "$dir.trace")"
            done
        done
    done
}

# ---- per-request overhead ---------------------------------------------------
# overhead_order REP: the balancers of repetition REP; with a baseline,
# every other repetition runs METHOD@base before METHOD, so that neither
# build always goes second.
overhead_order() {
    local b
    if [ -z "$baseline" ] || [ $(($1 % 2)) = 1 ]; then
        echo "$BALANCERS"
        return
    fi
    for b in $BALANCERS; do
        case $b in
            haproxy|nginx) echo "$b" ;;
            *@base) echo "$b ${b%@base}" ;;
        esac
    done | tr '\n' ' '
}

run_overhead() {
    local rep bal port res t0 t1 n us
    cat > "$work/ovh.conf" <<SCEN
defaults slots=256 cpus=4 service=fixed:0 body=size:200
node f1
node f2
node f3
SCEN
    log "overhead: 200-byte page, $OVH_CONNS connections, $OVH_REPS x"
    for rep in $(seq "$OVH_REPS"); do
        for bal in $(overhead_order "$rep"); do
            start_sim "$work/ovh.conf" "$work/ovh" 600
            # shellcheck disable=SC2046
            start_front "$bal" $(node_ports)
            port=$front_port
            timeout 10 taskset -c 0 wrk -t1 -c"$OVH_CONNS" -d1s \
                "http://127.0.0.1:$port/" > /dev/null 2>&1 || true
            CLOSED_CONNS=$OVH_CONNS
            # shellcheck disable=SC2046
            t0=$(cpu_ticks $(front_pids "$bal"))
            res=$(load_closed "$port" "$OVH_SECS" \
                      "$raw/overhead-$bal-$rep.load")
            # shellcheck disable=SC2046
            t1=$(cpu_ticks $(front_pids "$bal"))
            CLOSED_CONNS=64
            n=$(awk '/requests in/ {print $1}' "$raw/overhead-$bal-$rep.load")
            us=$(us_per_request $((t1 - t0)) "$n")
            stop_front
            stop_sim
            printf '%s\t%s\t%s\t%s\n' "$bal" "$rep" "$res" "$us" \
                >> "$raw/overhead.tsv"
            log "  overhead $bal #$rep: $(cut -f1 <<<"$res") req/s, $us us of front CPU a request"
        done
    done
}

# ---- generator self-check -----------------------------------------------------
check_generator() {             # openloop straight at a zero-time node
    printf 'node g slots=256 cpus=4 service=fixed:0 body=file:%s\n' \
        "$top/sim/phpinfo.html" > "$work/gen.conf"
    start_sim "$work/gen.conf" "$work/gen" 60
    local r
    for r in 1000 2000; do
        taskset -c 0 "$work/openloop" -r "$r" -d 3 -c 512 \
            "http://127.0.0.1:$NODE_BASE/" >> "$raw/generator.txt" 2>&1 \
            || true
    done
    stop_sim
    log "generator self-check:"
    sed 's/^/    /' "$raw/generator.txt" >&2
}

# ---- report -----------------------------------------------------------------
machine_info() {
    {
        echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
        echo "mode=$mode"
        echo "nproc=$(nproc)"
        echo "cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
        echo "kernel=$(uname -r)"
        echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
        echo "apache=$(/usr/sbin/apache2 -v | sed -n 's/Server version: //p')"
        echo "haproxy=$(haproxy -v | head -1)"
        echo "nginx=$(nginx -v 2>&1 | sed 's/.*version: //')"
        echo "wrk=$(dpkg-query -W -f='${Version}' wrk)"
        echo "open_load=$OPEN_LOAD"
        echo "closed_conns=$CLOSED_CONNS"
        echo "ovh_conns=$OVH_CONNS"
        echo "ovh_secs=$OVH_SECS"
        echo "ovh_reps=$OVH_REPS"
        echo "scenarios=${SCENARIOS//$'\n'/ }"
        [ "$mode" != energy ] || echo "energy=$ENERGY_CONF rounds=$ENERGY_ROUNDS secs=$ENERGY_SECS loads=${ENERGY_LOADS// /,} balancers=${BALANCERS// /,}"
        echo "commit=$(tree_commit "$mods")"
        echo "baseline=$baseline"
        [ -z "$baseline" ] || echo "baseline_commit=$(tree_commit "$baseline")"
    } > "$raw/machine.txt"
}

# Median req/s and front CPU µs a request of each balancer in
# raw/overhead.tsv, and their ratios to byrequests.
overhead_table() {
    python3 - "$raw/overhead.tsv" <<'PY'
import statistics, sys
runs, cpu = {}, {}
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split('\t')
    runs.setdefault(f[0], []).append(float(f[2].split()[0]))
    cpu.setdefault(f[0], []).append(float(f[6]) if len(f) > 6 else 0.0)
base = statistics.median(runs['byrequests'])
cbase = statistics.median(cpu['byrequests'])
print('%-12s %10s %8s %10s %9s  %s' % ('balancer', 'median/s', 'ratio',
                                       'us CPU/req', 'capacity', 'runs'))
for bal, v in runs.items():
    m = statistics.median(v)
    c = statistics.median(cpu[bal])
    print('%-12s %10.0f %8.3f %10.1f %9.3f  %s' % (
        bal, m, m / base, c, cbase / c if c else 0,
        ' '.join('%.0f' % x for x in v)))
if any(b.endswith('@base') for b in runs):
    print('\nthis tree / baseline (medians; 1.000 = no change; one run on '
          'this machine)')
    print('%-12s %10s %14s' % ('balancer', 'req/s', 'us CPU/req'))
    for bal in runs:
        if bal + '@base' in runs:
            b = bal + '@base'
            print('%-12s %10.3f %14.3f' % (
                bal, statistics.median(runs[bal]) / statistics.median(runs[b]),
                statistics.median(cpu[bal]) / statistics.median(cpu[b])))
PY
}

main() {
    local t0=$SECONDS
    prepare
    log "bench/run.sh ($mode): raw data in $raw"
    [ -z "$baseline" ] || log "baseline modules: $baseline"
    machine_info
    : > "$raw/runs.tsv"
    : > "$raw/overhead.tsv"
    if [ "$mode" = overhead ]; then
        run_overhead
        overhead_table | tee "$raw/overhead.txt"
        return
    fi
    if [ "$mode" = energy ]; then
        run_energy
        python3 "$top/bench/report.py" energy "$raw" \
            "$top/sim/scenarios/$ENERGY_CONF" "$out" "$((SECONDS - t0))"
        log "done in $((SECONDS - t0)) s: $out (section Energy per request)"
        return
    fi
    check_generator
    run_scenarios
    run_overhead
    python3 "$top/bench/report.py" report "$raw" "$top/sim/scenarios" \
        "$plots" "$out" "$((SECONDS - t0))"
    log "done in $((SECONDS - t0)) s: $out"
}

main
