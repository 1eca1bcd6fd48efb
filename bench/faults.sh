#!/bin/bash
# bench/faults.sh -- fault injection under load (issue 8, item 3).
#
#   bench/faults.sh [PART...]     PART: restart nodefail telemetry reset
#                                 restartka (part 1 with keep-alive and
#                                 restarts only, REPEAT pairs, default 5)
#                                 (default: all four, ~9 min)
#
# The front is Apache (event MPM, 2 children x 64 threads, pinned to core 1)
# with mod_pistats and mod_pibalance, exactly as bench/run.sh builds it;
# nodes are sim/pisim (its own process) or small python servers from
# bench/faults-servers.py, wrk drives the front from core 0.  Everything
# on 127.0.0.1; every wait and loop is bounded; a trap stops everything
# this script started.  Raw data: a new bench/results/<UTC date>-<UTC
# time>-faults/ (or $PIB_BENCH_OUT), with one markdown section per part,
# <part>.md (bench/RESULTS-faults.md is put together from them by hand,
# naming each part's directory).  Access logs (start time, status, µs, member, path)
# are analysed, then only their non-200 lines are kept (*.access_nok).
set -eu
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
raw=""                          # set by main (or by memory.sh)
NODE_BASE=19401 APACHE=19380 APACHE2=19381 PYPORT=19390
work=$(mktemp -d /tmp/pib-faults.XXXXXX)
chmod 755 "$work"
libexec=$(apxs -q LIBEXECDIR)
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"
pids=()                         # background processes we started

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

stop_front() {                  # stop_front CONF
    local conf=${1:-$work/httpd.conf} pf i
    pf=$(sed -n 's/^PidFile "\(.*\)"/\1/p' "$conf" 2>/dev/null || true)
    [ -n "$pf" ] && [ -f "$pf" ] || return 0
    /usr/sbin/apache2 -f "$conf" -k stop 2>/dev/null || true
    for i in $(seq 100); do [ -f "$pf" ] || return 0; sleep 0.1; done
    echo "front still running after 10 s: $conf" >&2
}

stop_pids() {
    local p
    for p in "${pids[@]:-}"; do
        [ -n "$p" ] || continue
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    pids=()
}

cleanup() {
    local c
    for c in "$work"/*.conf.httpd; do
        [ -f "$c" ] && stop_front "$c"
    done
    stop_pids
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_url() {                    # wait_url URL, at most 5 s
    local i
    for i in $(seq 50); do
        curl -s -o /dev/null -m 1 "$1" && return 0
        sleep 0.1
    done
    echo "nothing answers: $1" >&2
    return 1
}

# ---- nodes ----------------------------------------------------------------
start_sim() {                   # start_sim SCENARIO_FILE SECONDS NAME
    local conf=$1 secs=$2 name=$3 i
    taskset -c 0 "$top/sim/pisim" "$conf" -p "$NODE_BASE" -d "$secs" \
        -s "$raw/$name.summary" -l "$raw/$name.events" \
        > "$work/$name.sim.out" 2>&1 &
    pids+=("$!")
    sim_pid=$!
    for i in $(seq 50); do
        grep -q listening "$work/$name.sim.out" 2>/dev/null && break
        sleep 0.1
    done
    sim_ports=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
                "$work/$name.sim.out")
    [ -n "$sim_ports" ] || { cat "$work/$name.sim.out" >&2; return 1; }
}

stop_sim() {
    kill "$sim_pid" 2>/dev/null || true
    wait "$sim_pid" 2>/dev/null || true
}

start_py() {                    # start_py MODE [PORT]: faults-servers.py
    local mode=$1 port=${2:-$PYPORT}
    taskset -c 0 python3 "$top/bench/faults-servers.py" "$mode" "$port" \
        > "$work/py-$port.out" 2>&1 &
    pids+=("$!")
    py_pid=$!
    wait_url "http://127.0.0.1:$port/ready"
}

stop_py() {
    kill "$py_pid" 2>/dev/null || true
    wait "$py_pid" 2>/dev/null || true
}

# ---- the front (as bench/run.sh, plus an access log that names the member
# and the status, so every failure can be attributed) -----------------------
front_conf() {                  # front_conf NAME PORT LBMETHOD EXTRA MEMBERS...
    local name=$1 port=$2 method=$3 extra=$4 m members="" d
    shift 4
    d="$work/$name"
    mkdir -p "$d"
    for m in "$@"; do
        members="$members    BalancerMember \"http://127.0.0.1:$m\" retry=2 ${MEMBER_OPTS:-}
"
    done
    cat > "$d.conf.httpd" <<CONF
$(apache_base "$d" "${FRONT_LOGLEVEL:-notice}")
LoadModule lbmethod_byrequests_module "$libexec/mod_lbmethod_byrequests.so"
LoadModule pistats_module "$top/mod_pistats/mod_pistats.so"
LoadModule pibalance_module "$top/mod_pibalance/mod_pibalance.so"
User nobody
Group nogroup
Listen 127.0.0.1:$port
StartServers 2
# room for the old generation's children, still finishing their requests
# at a graceful restart, beside the new one's (else AH03490: scoreboard
# is full; bench/RESULTS-soak.md finding 3)
ServerLimit 4
ThreadsPerChild 64
MaxRequestWorkers 128
MaxConnectionsPerChild 0
KeepAliveTimeout 30
MaxKeepAliveRequests 0
GracefulShutdownTimeout 10
PiStatsProbeInterval 500ms
PiStatsProbeTimeout 400ms
LogFormat "%{%s}t.%{msec_frac}t %s %D %{BALANCER_WORKER_NAME}e %U" fault
CustomLog "$d/access_log" fault
<Location "/pi-status">
    SetHandler pi-status
</Location>
ProxyPass "/pi-status" "!"
$extra
<Proxy "balancer://b">
$members    ProxySet lbmethod=$method
</Proxy>
ProxyPass "/" "balancer://b/"
CONF
}

start_front() {                 # start_front NAME PORT
    local name=$1 port=$2
    : > "$work/$name/error_log" 2>/dev/null || true
    taskset -c 1 /usr/sbin/apache2 -f "$work/$name.conf.httpd" -k start
    wait_url "http://127.0.0.1:$port/pi-status?auto"
}

front_pid() { cat "$work/$1/httpd.pid"; }

# shared mappings (rw-s) of the front's parent, the slotmem/pistats segments
shm_count() { grep -c ' rw-s ' "/proc/$(front_pid "$1")/maps" || true; }

# sum of the children's RSS in KiB
children_rss() {
    local ppid=$1 c s=0 r
    for c in $(pgrep -P "$ppid"); do
        r=$(awk '/^VmRSS:/ {print $2}' "/proc/$c/status" 2>/dev/null || echo 0)
        s=$((s + ${r:-0}))
    done
    echo "$s"
}

# ---- load ---------------------------------------------------------------------
wrk_run() {                     # wrk_run PORT SECONDS OUT [wrk args...]
    local port=$1 secs=$2 o=$3
    shift 3
    timeout $((secs + 20)) taskset -c 0 wrk -t1 -c"${CONNS:-64}" \
        -d"${secs}s" --timeout 10s --latency "$@" \
        -s "$top/bench/faults-status.lua" \
        "http://127.0.0.1:$port${WRK_PATH:-/}" > "$o" 2>&1 || true
}

# wrk_sum OUT -> "requests rps p99_ms connect read write timeout non2xx"
wrk_sum() {
    awk '
    function ms(v,    x) { x = v + 0; if (v ~ /us$/) x /= 1000;
                     else if (v ~ /ms$/) x += 0; else if (v ~ /s$/) x *= 1000;
                     return x }
    / requests in / { req = $1 }
    /^Requests\/sec/ { rps = $2 }
    $1 == "99%" { p99 = ms($2) }
    /Socket errors/ { gsub(",", ""); c = $4; r = $6; w = $8; t = $10 }
    /Non-2xx/ { n = $NF }
    END { printf "%d %.0f %.1f %d %d %d %d %d\n", req, rps, p99, c, r, w, t, n }' "$1"
}

# access-log failures (status >= 500) by status and member
log_failures() {                # log_failures ACCESS_LOG
    awk '$2 >= 500 { k = $2 " " ($4 == "-" ? "(no member)" : $4); n[k]++ }
         END { for (k in n) printf "%s: %d; ", k, n[k] }' "$1"
}

# per-member counters from the front's /pi-status?json, "member requests ..."
pistatus_json() { curl -s -m 2 "http://127.0.0.1:$1/pi-status?json"; }

# members PORT -> one line a member: name state requests 5xx proxy_errors
#                 thermal probe_error
members() {
    pistatus_json "$1" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception as e:
    print("no-json", e); sys.exit(0)
for b in d["balancers"]:
    for m in b["members"]:
        print(m["name"], m["state"], m["requests"], m["responses"]["5xx"],
              m["proxy_errors"], m.get("thermal_state"),
              repr(m.get("probe_error")).replace(" ", "_"))'
}

errlog_summary() {              # errlog_summary ERROR_LOG -> "AHxxxxx: n; ..."
    grep -o '\(AH\|PIB\|PIS\)[0-9]\{5\}' "$1" 2>/dev/null | sort | uniq -c \
        | awk '{printf "%s x%d; ", $2, $1}'
    grep -c 'exit signal' "$1" 2>/dev/null | awk '$1 > 0 {printf "EXIT SIGNAL x%d", $1}'
}

# one run of part 1: restart_run NAME METHOD keepalive|close RESTARTS MD
# appends a table row to MD and the run's message ids to $errlogs
restart_run() {
    local name=$1 method=$2 ka=$3 nrest=$4 md=$5
    local args o res before after shm0 shm1 pid0 pid1 i kept sum0 sum1 wpid
    local req rps p99 c r w t n
    args=()
    [ "$ka" = close ] && args=(-H "Connection: close")
    front_conf "$name" "$APACHE" "$method" "" $sim_ports
    start_front "$name" "$APACHE"
    sleep 1.5
    # a little traffic so every member has counters to keep
    timeout 10 wrk -t1 -c8 -d1s "http://127.0.0.1:$APACHE/" >/dev/null 2>&1 || true
    sleep 0.6
    before=$(members "$APACHE")
    shm0=$(shm_count "$name") pid0=$(front_pid "$name")
    o="$raw/$name.wrk"
    wrk_run "$APACHE" 30 "$o" "${args[@]}" &
    wpid=$!
    sleep 3
    for i in $(seq 20); do
        [ "$nrest" -gt 0 ] && /usr/sbin/apache2 -f "$work/$name.conf.httpd" -k graceful
        sleep 1
    done
    wait "$wpid" || true
    sleep 1
    after=$(members "$APACHE")
    shm1=$(shm_count "$name") pid1=$(front_pid "$name")
    printf '%s\n' "$before" > "$raw/$name.before"
    printf '%s\n' "$after" > "$raw/$name.after"
    kept=$(join <(sort <<<"$before") <(sort <<<"$after") \
           | awk '{ if ($9 < $3) bad++ } END { print bad ? "NO (" bad " went back)" : "yes" }')
    sum0=$(awk '{s += $3} END {print s + 0}' <<<"$before")
    sum1=$(awk '{s += $3} END {print s + 0}' <<<"$after")
    res=$(wrk_sum "$o")
    cp "$work/$name/error_log" "$raw/$name.error_log"
    cp "$work/$name/access_log" "$raw/$name.access_log"
    read -r req rps p99 c r w t n <<<"$res"
    printf '| %s | %s | %s | %d | %d | %s | %d | %d | %d | %d | %d | **%d** | %s | %s→%s | %s | %s | %d → %d (Δ %d, wrk %d) |\n' \
        "$method" "$ka" "$nrest" "$req" "$rps" "$p99" "$c" "$r" "$w" "$t" "$n" \
        $((c + r + w + t + n)) "$(log_failures "$raw/$name.access_log")" \
        "$shm0" "$shm1" "$([ "$pid0" = "$pid1" ] && echo yes || echo NO)" \
        "$kept" "$sum0" "$sum1" $((sum1 - sum0)) "$req" >> "$md"
    echo "$name error_log: $(errlog_summary "$raw/$name.error_log")" >> "$errlogs"
    stop_front "$work/$name.conf.httpd"
    log "  $name: $res"
}

# ---- part 1: graceful restarts -------------------------------------------------
part_restart() {
    local md="$raw/restart.md" method ka name args o res before after
    local shm0 shm1 pid0 pid1 i kept sum0 sum1
    log "restart: 20 graceful restarts under wrk, pi vs byrequests, keep-alive on/off"
    printf 'defaults slots=64 cpus=4 service=fixed:2 body=size:4096\nnode r1\nnode r2\nnode r3\n' \
        > "$work/restart.scen"
    start_sim "$work/restart.scen" 400 restart
    errlogs="$raw/restart.errlogs"
    {
        echo "## 1. 20 graceful restarts under load"
        echo
        echo "3 pisim nodes (own process, 64 slots, 2 ms, 4 KiB page); wrk 1 thread,"
        echo "64 connections, 30 s; from t≈3 s, \`apache2 -f … -k graceful\` 20 times,"
        echo "1 s apart; *restarts 0* = the same run without restarts (the control)."
        echo "errors = wrk socket errors (connect/read/write/timeout) + non-2xx."
        echo
        echo "| lbmethod | connections | restarts | requests | req/s | p99 ms | connect | read | write | timeout | non-2xx | failed | 5xx in access log (member) | rw-s maps before→after | parent pid same | member counters kept | Σ member requests: before → after (Δ vs wrk) |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|---|"
    } > "$md"
    for nrest in 20 0; do
    for ka in keepalive close; do
        for method in pi byrequests; do
            restart_run "restart-$method-$ka-$nrest" "$method" "$ka" "$nrest" "$md"
        done
    done
    done
    stop_sim
    {
        echo
        echo "Error-log message ids per run (AH = httpd, PIB/PIS = ours):"
        echo
        sed 's/^/- /' "$raw/restart.errlogs"
    } >> "$md"
}

# ---- part 1b: the keep-alive restart race, repeated ---------------------------
# REPEAT (default 5) pairs of the keep-alive, 20-restart run, pi and
# byrequests alternating in ABBA order so that neither always runs first
# on a warmer machine; per-run failures and failures per 1000 requests,
# then each method's totals.
part_restartka() {
    local md="$raw/restartka.md" k order method name
    local reps=${REPEAT:-5}
    log "restartka: $reps x (pi, byrequests), keep-alive, 20 graceful restarts"
    printf 'defaults slots=64 cpus=4 service=fixed:2 body=size:4096\nnode r1\nnode r2\nnode r3\n' \
        > "$work/restart.scen"
    start_sim "$work/restart.scen" $((reps * 2 * 45 + 60)) restartka
    errlogs="$raw/restartka.errlogs"
    {
        echo "## 1b. The keep-alive race, repeated"
        echo
        echo "As part 1, keep-alive and 20 restarts only, $reps runs of each method,"
        echo "alternating (pi first in odd pairs, byrequests first in even ones)."
        echo
        echo "| lbmethod | connections | restarts | requests | req/s | p99 ms | connect | read | write | timeout | non-2xx | failed | 5xx in access log (member) | rw-s maps before→after | parent pid same | member counters kept | Σ member requests: before → after (Δ vs wrk) |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|---|"
    } > "$md"
    for k in $(seq "$reps"); do
        order="pi byrequests"
        [ $((k % 2)) -eq 0 ] && order="byrequests pi"
        for method in $order; do
            name="restartka-$method-$k"
            restart_run "$name" "$method" keepalive 20 "$md"
        done
    done
    stop_sim
    {
        echo
        echo "| lbmethod | runs | failed per run (each) | mean failed | requests | failed per 1000 requests |"
        echo "|---|---:|---|---:|---:|---:|"
        for method in pi byrequests; do
            awk -F'|' -v m="$method" '
                $2 ~ "^ " m " $" { gsub(/[ *]/, "", $13); gsub(/ /, "", $5);
                    f[++n] = $13; tf += $13; tr += $5 }
                END { if (n == 0 || tr == 0) { printf "| %s | 0 | | | | |\n", m; exit }
                      l = f[1]; for (i = 2; i <= n; i++) l = l ", " f[i];
                      printf "| %s | %d | %s | %.1f | %d | %.3f |\n",
                             m, n, l, tf / n, tr, 1000 * tf / tr }' "$md"
        done
        echo
        echo "Error-log message ids per run:"
        echo
        sed 's/^/- /' "$errlogs"
    } >> "$md"
}

# sample the front's members every 0.5 s: epoch name state inflight requests probe_error
start_sampler() {               # start_sampler PORT SECONDS OUT
    local port=$1 secs=$2 out=$3
    (
        for i in $(seq $((secs * 2))); do
            pistatus_json "$port" | python3 -c '
import json, sys, time
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for b in d["balancers"]:
    for m in b["members"]:
        print("%.1f" % time.time(), m["name"], m["state"], m["inflight"],
              m["requests"], m.get("thermal_state"),
              repr(m.get("probe_error")).replace(" ", "_"))' >> "$out" || true
            sleep 0.5
        done
    ) &
    pids+=("$!")
    sampler_pid=$!
}

# ---- part 2: a node killed, a node hung ------------------------------------
part_nodefail() {
    local md="$raw/nodefail.md" method name o t0 res
    log "nodefail: n2 down 6-14 s, n3 hung 20-28 s, wrk 34 s; pi and byrequests"
    {
        echo "## 2. A node killed, a node hung"
        echo
        echo "3 pisim nodes (8 slots, exp:20 ms, 4 KiB page); pisim scenario: **n2 down**"
        echo "(listener and connections closed) at 6 s, up at 14 s; **n3 hung** (accepts,"
        echo "reads, answers nothing, telemetry too) at 20 s, answers again at 28 s."
        echo "Members \`retry=2 timeout=3\` (a request to a hung node gives up after 3 s)."
        echo "wrk 64 connections, 34 s, from t≈1.5 s.  Failures from the front's access"
        echo "log (start time, status, member); *in flight* = started before the event"
        echo "(its time shifted by pisim's start delay, measured from the moment n2's"
        echo "requests all fail, last column)."
        echo
        echo "| lbmethod | requests | req/s | p99 ms | failed (wrk) | n2 down: 5xx in flight / sent later | n3 hang: 5xx in flight / sent later | other 5xx | n2 shown Err / probe error | n3 shown probe error | back (n2 Ok, n3 probe ok) | pisim's start delay (s) |"
        echo "|---|---:|---:|---:|---:|---|---|---|---|---|---|---:|"
    } > "$md"
    printf 'defaults slots=8 cpus=4 service=exp:20 body=size:4096
node n1
node n2 down_at=6 up_at=14
node n3 hang_at=20 unhang_at=28
' \
        > "$work/nodefail.scen"
    for method in pi byrequests; do
        name="nodefail-$method"
        t0=$(date +%s.%N)
        start_sim "$work/nodefail.scen" 40 "$name"
        MEMBER_OPTS="timeout=3" front_conf "$name" "$APACHE" "$method" "" $sim_ports
        start_front "$name" "$APACHE"
        start_sampler "$APACHE" 36 "$raw/$name.samples"
        sleep 1
        o="$raw/$name.wrk"
        wrk_run "$APACHE" 34 "$o"
        sleep 1
        kill "$sampler_pid" 2>/dev/null || true
        wait "$sampler_pid" 2>/dev/null || true
        cp "$work/$name/error_log" "$raw/$name.error_log"
        cp "$work/$name/access_log" "$raw/$name.access_log"
        stop_front "$work/$name.conf.httpd"
        stop_sim
        res=$(wrk_sum "$o")
        read -r req rps p99 c r w t n <<<"$res"
        python3 - "$t0" "$raw/$name.access_log" "$raw/$name.samples" "$method" \
            "$req" "$rps" "$p99" $((c + r + w + t + n)) "${sim_ports}" >> "$md" <<'PY'
import sys
t0, alog, samples, method, req, rps, p99, failed, ports = sys.argv[1:10]
t0 = float(t0)
ports = ports.split()
n2, n3 = "http://127.0.0.1:" + ports[1], "http://127.0.0.1:" + ports[2]
ev = {"down": 6, "up": 14, "hang": 20, "unhang": 28}
# t0 is taken before pisim starts, so its events happen a little later
# than t0 + their time: the requests in flight to n2 all fail at the
# moment it goes down, so the first of their ends (from 5 s on) is that
# moment; every event is shifted by the same delay.
ends = []
for line in open(alog):
    f = line.split()
    if len(f) >= 5 and f[1].isdigit() and int(f[1]) >= 500 and f[3] == n2:
        e = float(f[0]) - t0 + int(f[2]) / 1e6
        if ev["down"] - 1 <= e < ev["up"]:
            ends.append(e)
delay = min(ends) - ev["down"] if ends else 0.0
if not 0 <= delay < 1:
    delay = 0.0
ev = {k: v + delay for k, v in ev.items()}
cnt = {k: 0 for k in ("n2in", "n2late", "n3in", "n3late", "other")}
last3 = 0.0                     # the last "sent later" to n3, s after the hang
other = {}
for line in open(alog):
    f = line.split()
    if len(f) < 5 or not f[1].isdigit() or int(f[1]) < 500:
        continue
    start = float(f[0]) - t0
    end = start + int(f[2]) / 1e6
    if f[3] == n2 and start < ev["up"] + 1 and end >= ev["down"]:
        cnt["n2in" if start < ev["down"] else "n2late"] += 1
    elif f[3] == n3 and start < ev["unhang"] + 1 and end >= ev["hang"]:
        cnt["n3in" if start < ev["hang"] else "n3late"] += 1
        if start >= ev["hang"]:
            last3 = max(last3, start - ev["hang"])
    else:
        cnt["other"] += 1
        k = f[1] + " " + f[3]
        other[k] = other.get(k, 0) + 1
def first(member, pred, after):
    for line in open(samples):
        f = line.split()
        if len(f) < 7 or f[1] != member:
            continue
        t = float(f[0]) - t0
        if t >= after and pred(f):
            return "%.1f s (%s, %s)" % (t, f[2], f[6].replace("_", " ").strip("'"))
    return "never"
n2err = first(n2, lambda f: f[2] != "Ok" or f[6] != "None", ev["down"])
n3err = first(n3, lambda f: f[6] != "None", ev["hang"])
n2back = first(n2, lambda f: f[2] == "Ok" and f[6] == "None", ev["up"])
n3back = first(n3, lambda f: f[6] == "None" and f[2] == "Ok", ev["unhang"])
print("| %s | %s | %s | %s | **%s** | %d / %d | %d / %d (last %.0f ms after) | %d %s | %s | %s | n2 %s; n3 %s | %.3f |" % (
    method, req, rps, p99, failed, cnt["n2in"], cnt["n2late"], cnt["n3in"],
    cnt["n3late"], last3 * 1000, cnt["other"], "; ".join("%s: %d" % kv for kv in other.items()),
    n2err, n3err, n2back, n3back, delay))
PY
        log "  $name: $res"
    done
    {
        echo
        echo "Samples of /pi-status?json every 0.5 s: ${raw#"$top/bench/"}/nodefail-*.samples"
        echo "(epoch, member, state, in flight, requests, thermal state, probe error)."
    } >> "$md"
}

# ---- part 3: hostile telemetry ----------------------------------------------
part_telemetry() {
    local md="$raw/telemetry.md" mode name o res st
    log "telemetry: a 4th member whose /pi-status is ok / garbage / 10 MB / 1 byte/s"
    {
        echo "## 3. A member whose telemetry is garbage, 10 MB, or 1 byte a second"
        echo
        echo "3 pisim nodes (8 slots, exp:20 ms, 4 KiB) + a 4th member, bench/faults-servers.py"
        echo "(python, 20 ms, 4 KiB page) whose /pi-status answers as the mode says; lbmethod pi,"
        echo "probe every 500 ms, timeout 400 ms; wrk 64 connections, 15 s.  During the run"
        echo "/pi-status?json and ?auto of the front are fetched 20 times each (curl time_total)."
        echo
        echo "| telemetry of member 4 | requests | req/s | p99 ms | failed | member 4 share | /pi-status json median / max ms | ?auto median / max ms | member 4 as shown (state, probe error) | error log |"
        echo "|---|---:|---:|---:|---:|---:|---|---|---|---|"
    } > "$md"
    printf 'defaults slots=8 cpus=4 service=exp:20 body=size:4096\nnode t1\nnode t2\nnode t3\n' \
        > "$work/tel.scen"
    for mode in tel-ok tel-garbage tel-big tel-slow; do
        name="telemetry-$mode"
        start_sim "$work/tel.scen" 40 "$name"
        start_py "$mode"
        front_conf "$name" "$APACHE" pi "" $sim_ports "$PYPORT"
        start_front "$name" "$APACHE"
        sleep 2
        o="$raw/$name.wrk"
        wrk_run "$APACHE" 15 "$o" &
        local wpid=$!
        sleep 2
        : > "$raw/$name.stime"
        for i in $(seq 20); do
            curl -s -o /dev/null -m 5 -w 'json %{time_total}\n' "http://127.0.0.1:$APACHE/pi-status?json" >> "$raw/$name.stime" || echo "json 5" >> "$raw/$name.stime"
            curl -s -o /dev/null -m 5 -w 'auto %{time_total}\n' "http://127.0.0.1:$APACHE/pi-status?auto" >> "$raw/$name.stime" || echo "auto 5" >> "$raw/$name.stime"
            sleep 0.5
        done
        wait "$wpid" || true
        st=$(members "$APACHE" | awk -v p="$PYPORT" '$1 ~ p {print $2 ", " $7}')
        cp "$work/$name/error_log" "$raw/$name.error_log"
        cp "$work/$name/access_log" "$raw/$name.access_log"
        stop_front "$work/$name.conf.httpd"
        stop_py
        stop_sim
        res=$(wrk_sum "$o")
        read -r req rps p99 c r w t n <<<"$res"
        printf '| %s | %d | %d | %s | %d | %s | %s | %s | %s | %s |\n' "$mode" "$req" "$rps" "$p99" \
            $((c + r + w + t + n)) \
            "$(awk -v p="$PYPORT" '$4 != "-" {a++; if ($4 ~ p) b++} END {printf "%.1f%%", 100 * b / a}' "$raw/$name.access_log")" \
            "$(awk '$1 == "json" {print $2 * 1000}' "$raw/$name.stime" | sort -n | awk '{v[NR] = $1} END {printf "%.1f / %.1f", v[int((NR + 1) / 2)], v[NR]}')" \
            "$(awk '$1 == "auto" {print $2 * 1000}' "$raw/$name.stime" | sort -n | awk '{v[NR] = $1} END {printf "%.1f / %.1f", v[int((NR + 1) / 2)], v[NR]}')" \
            "${st//_/ }" "$(errlog_summary "$raw/$name.error_log")" >> "$md"
        log "  $name: $res"
    done
}

# ---- part 4: a node resets mid-way through a compressed response ---------
part_reset() {
    local md="$raw/reset.md" mode name o res i rc gz ok trunc complete
    log "reset: member sends headers + 20000 of 60000 bytes then RST, PiBalanceDeflate On"
    {
        echo "## 4. A node resets the connection in the middle of a compressed response"
        echo
        echo "Front with \`PiBalanceDeflate On\`: \`/\` → balancer://b (3 pisim nodes, plain 4 KiB page,"
        echo "driven by wrk, 64 connections, 20 s); \`/bad\` and \`/good\` → balancer://r, one member,"
        echo "bench/faults-servers.py: every /bad answer is headers (Content-Length 60000, or chunked)"
        echo "+ 20000 bytes of HTML, then RST; /good is a full 4 KiB page.  During the wrk run,"
        echo "100 × curl /bad with \`Accept-Encoding: gzip\`, 20 × without, then 50 × /good (gzip)."
        echo "*complete-looking* = curl exit 0 **and** the body gunzips without error."
        echo
        echo "| node answer | curl /bad (gzip): exit codes | gunzip of body | complete-looking | curl /bad identity: exit codes | /good after (gzip ok) | wrk requests / failed | exit signal in error log |"
        echo "|---|---|---|---:|---|---|---|---|"
    } > "$md"
    printf 'defaults slots=16 cpus=4 service=fixed:2 body=size:4096\nnode d1\nnode d2\nnode d3\n' \
        > "$work/reset.scen"
    for mode in reset reset-chunked; do
        name="reset-$mode"
        start_sim "$work/reset.scen" 60 "$name"
        start_py "$mode"
        front_conf "$name" "$APACHE" pi "PiBalanceDeflate On
<Proxy \"balancer://r\">
    BalancerMember \"http://127.0.0.1:$PYPORT\" retry=0
    ProxySet lbmethod=pi
</Proxy>
ProxyPass \"/bad\" \"balancer://r/bad\"
ProxyPass \"/good\" \"balancer://r/good\"" $sim_ports
        start_front "$name" "$APACHE"
        o="$raw/$name.wrk"
        wrk_run "$APACHE" 20 "$o" -H "Accept-Encoding: gzip" &
        local wpid=$!
        sleep 1
        : > "$raw/$name.curl"
        for i in $(seq 100); do
            rc=0
            curl -s -m 10 -H 'Accept-Encoding: gzip' -o "$work/body" -D "$work/hdr" \
                "http://127.0.0.1:$APACHE/bad" || rc=$?
            gz=0
            gzip -t < "$work/body" 2>/dev/null || gz=1
            echo "gzip $rc $gz $(grep -ci '^content-encoding: gzip' "$work/hdr") $(stat -c %s "$work/body")" >> "$raw/$name.curl"
        done
        for i in $(seq 20); do
            rc=0
            curl -s -m 10 -o "$work/body" "http://127.0.0.1:$APACHE/bad" || rc=$?
            echo "identity $rc 0 0 $(stat -c %s "$work/body")" >> "$raw/$name.curl"
        done
        ok=0
        for i in $(seq 50); do
            curl -s -m 10 -H 'Accept-Encoding: gzip' "http://127.0.0.1:$APACHE/good" \
                | gzip -dc 2>/dev/null | grep -q '</body></html>' && ok=$((ok + 1))
        done
        wait "$wpid" || true
        cp "$work/$name/error_log" "$raw/$name.error_log"
        cp "$work/$name/access_log" "$raw/$name.access_log"
        stop_front "$work/$name.conf.httpd"
        stop_py
        stop_sim
        res=$(wrk_sum "$o")
        read -r req rps p99 c r w t n <<<"$res"
        printf '| %s | %s | %s | **%s** | %s | %d/50 | %d / %d | %s |\n' \
            "$([ "$mode" = reset ] && echo "Content-Length 60000, 20000 sent, RST" || echo "chunked, one 20000-byte chunk, RST")" \
            "$(awk '$1 == "gzip" {n[$2]++} END {for (k in n) printf "%s×%d ", k, n[k]}' "$raw/$name.curl")" \
            "$(awk '$1 == "gzip" {if ($3) f++; else g++} END {printf "fails %d, ok %d", f, g}' "$raw/$name.curl")" \
            "$(awk '$1 == "gzip" && $2 == 0 && $3 == 0 {k++} END {print k + 0}' "$raw/$name.curl")" \
            "$(awk '$1 == "identity" {n[$2]++} END {for (k in n) printf "%s×%d ", k, n[k]}' "$raw/$name.curl")" \
            "$ok" "$req" $((c + r + w + t + n)) \
            "$(grep -c 'exit signal' "$raw/$name.error_log" || true)" >> "$md"
        log "  $name: $res"
    done
    {
        echo
        echo "curl exit codes: 18 = transfer closed with data outstanding (partial file),"
        echo "56 = failure receiving data (connection reset), 0 = complete."
        echo "Per-request lines: ${raw#"$top/bench/"}/reset-*.curl (variant, curl exit, gzip -t failed, Content-Encoding gzip, bytes)."
    } >> "$md"
}

main() {
    local parts=${*:-restart nodefail telemetry reset} p
    raw=$(results_dir faults)
    log "bench/faults.sh $parts: raw data in $raw ($(tree_commit "$top"))"
    for p in $parts; do
        rm -f "$raw/$p".* "$raw/$p-"* 2>/dev/null || true
        "part_$p"
        # the access logs are big: keep the lines that are not 200 only
        for f in "$raw/$p"-*.access_log; do
            [ -f "$f" ] || continue
            awk '$2 != 200' "$f" > "${f%.access_log}.access_nok"
            rm -f "$f"
        done
    done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
