# bench/cpu.sh -- sourced by run.sh and offload.sh: a front's own CPU time.
# Both scripts keep the front's files in $work (httpd.conf, haproxy.cfg,
# nginx.pid).

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
