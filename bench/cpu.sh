# bench/cpu.sh -- sourced by run.sh, offload.sh, lan.sh and faults.sh: a
# front's own CPU time, waiting for a port, the start of an Apache
# front's httpd.conf, where a run's raw data goes and which build of the
# modules a front loads.  The scripts keep the front's files in $work
# (httpd.conf, haproxy.cfg, nginx.pid) and the tree's top in $top.

# results_dir NAME: the directory a run's raw data goes to, created
# empty -- $PIB_BENCH_OUT if set, else bench/results/<UTC date>-<UTC
# time>-NAME/.  Refuses a directory that already holds files (a second
# run in the same minute, or a PIB_BENCH_OUT in use): data is never
# overwritten.  Prints its absolute path.
results_dir() {
    local d=${PIB_BENCH_OUT:-$top/bench/results/$(date -u +%Y-%m-%d-%H%M)-$1}
    if [ -d "$d" ] && [ -n "$(ls -A "$d")" ]; then
        echo "results directory not empty: $d (set PIB_BENCH_OUT)" >&2
        return 1
    fi
    mkdir -p "$d" && (cd "$d" && pwd)
}

# module_so DIR NAME: NAME.so in DIR, or in DIR/NAME/ (DIR a built tree
# such as a baseline's, see bench/README.md); fails when neither exists.
module_so() {
    if [ -f "$1/$2.so" ]; then
        echo "$1/$2.so"
    elif [ -f "$1/$2/$2.so" ]; then
        echo "$1/$2/$2.so"
    else
        echo "no $2.so in $1 nor in $1/$2/" >&2
        return 1
    fi
}

# tree_commit DIR: the commit DIR was checked out from, "+dirty" when
# its tracked files differ, or the content of DIR/.pib-commit (written by
# bench/compare-commits.sh into an exported tree), or "unknown".
tree_commit() {
    if [ -f "$1/.pib-commit" ]; then
        cat "$1/.pib-commit"
    elif git -C "$1" rev-parse --short HEAD >/dev/null 2>&1; then
        printf '%s%s\n' "$(git -C "$1" rev-parse --short HEAD)" \
            "$(git -C "$1" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo +dirty)"
    else
        echo unknown
    fi
}

# wait_port PORT: until something answers HTTP on 127.0.0.1:PORT, at
# most 5 s (run.sh has its own, asking for /pi-status).
wait_port() {
    local i
    for i in $(seq 50); do
        curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
        sleep 0.1
    done
    echo "nothing answers on port $1" >&2
    return 1
}

# apache_base DIR LOGLEVEL: the lines every Apache front's httpd.conf
# starts with -- its files in DIR, the event MPM and mod_proxy's balancer
# (the scripts add our modules, MPM sizes, Listen and the balancer).
apache_base() {
    local libexec
    libexec=$(apxs -q LIBEXECDIR)
    cat <<CONF
ServerRoot "$1"
ServerName 127.0.0.1
PidFile "$1/httpd.pid"
ErrorLog "$1/error_log"
LogLevel $2
DefaultRuntimeDir "$1"
Mutex file:$1 default
LoadModule mpm_event_module "$libexec/mod_mpm_event.so"
LoadModule authz_core_module "$libexec/mod_authz_core.so"
LoadModule proxy_module "$libexec/mod_proxy.so"
LoadModule proxy_http_module "$libexec/mod_proxy_http.so"
LoadModule proxy_balancer_module "$libexec/mod_proxy_balancer.so"
LoadModule slotmem_shm_module "$libexec/mod_slotmem_shm.so"
CONF
}

# front_pids KIND: the front's processes -- nginx's master and workers,
# HAProxy, or (any other KIND) Apache's parent and children.
front_pids() {
    case $1 in
        haproxy) pgrep -f "$work/haproxy.cfg" || true ;;
        nginx) local m
               m=$(cat "$work/nginx.pid" 2>/dev/null) || return 0
               echo "$m"; pgrep -P "$m" || true ;;
        *) pgrep -f "$work/httpd.conf" || true ;;
    esac
}

# cpu_ticks PID...: utime + stime (clock ticks), summed.
cpu_ticks() {
    local t=0 p v
    for p in "$@"; do
        v=$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$p/stat" \
                2>/dev/null) || continue
        t=$((t + ${v:-0}))
    done
    echo "$t"
}

# us_per_request TICKS REQUESTS: µs of CPU a request (0 when none).
us_per_request() {
    awk -v d="$1" -v n="${2:-0}" -v hz="$(getconf CLK_TCK)" \
        'BEGIN {printf "%.2f", (n > 0 ? d * 1e6 / hz / n : 0)}'
}
