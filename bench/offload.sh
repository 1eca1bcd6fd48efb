#!/bin/bash
# bench/offload.sh -- the Pi-cluster offload experiment on one machine.
#
# A ~50 KB phpinfo-like page served by a simulated node (sim/pisim) pinned
# to core 0, the front (Apache master, HAProxy or nginx) pinned to core 1,
# wrk (load generator) sharing core 0 with the node.  Two pages, each run
# through every setup: sim/phpinfo.html (markup, ~6:1 at level 1) and
# sim/phpinfo-dense.html (token rows, ~2.4:1 -- the ~22 KB per page of
# issue 6's reference figures).  All on 127.0.0.1, level 1 everywhere:
#
#   node-gzip    node gzips itself (zlib 1), Apache master only proxies
#   offload      node plain, Apache master with PiBalanceDeflate On
#   mod_deflate  node plain, Apache master with mod_deflate (level 1)
#   haproxy      node plain, HAProxy "compression offload" (level 1)
#   nginx        node plain, nginx gzip 1, proxy_set_header AE ""
#   proxy-only   node plain, Apache master, no compression (reference)
#
# plus the single-core ceilings of zlib and libdeflate (bench/ceiling.c).
#
# "Per front core" figures divide the requests by the CPU time the
# front's own processes used during the run (utime + stime from /proc),
# so they hold on a shared, noisy machine where wall-clock pages/s do
# not; the ceilings are CPU time too.  The Apache setups all use
# ProxyIOBufferSize $PIB_BENCH_IOBUF (default 65536, docs/offload.md).
#
# Not a test: prints tables (bench/RESULTS-offload.md quotes them, by
# hand).  Every step is bounded; the whole run takes about 4 minutes
# (SECONDS_PER_RUN 2: about 1.5).  Installs wrk, haproxy, nginx-light if
# missing (root).  The printed tables (tables.md), wrk's output of every
# run and the offload codec logs go to a new bench/results/<UTC date>-
# <UTC time>-offload/ directory, or to $PIB_BENCH_OUT.
#
#   bench/offload.sh [--baseline DIR] [SECONDS_PER_RUN] [CONNECTIONS]
#   PIB_BENCH_PAGES="a.html b.html"   pages to serve (default: both above)
#   --baseline DIR (or PIB_BASELINE_MODULES=DIR): every Apache setup also
#       as SETUP@base, right after it, with the mod_pibalance.so in DIR or
#       DIR/mod_pibalance/ (a tree of another commit, built); each page's
#       tables gain one of ratios this/baseline.  bench/compare-commits.sh
#       builds both and runs this.
#   PIB_MODULES=DIR   this side's module from DIR instead of this tree
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
baseline=${PIB_BASELINE_MODULES:-}
if [ "${1:-}" = --baseline ]; then
    baseline=${2:?--baseline needs a directory}
    shift 2
fi
secs=${1:-8}
conns=${2:-50}
work=$(mktemp -d /tmp/pib-bench.XXXXXX)
chmod 755 "$work"
NODE=19181 APACHE=19180 HAPROXY=19182 NGINX=19183
pages=${PIB_BENCH_PAGES:-"$top/sim/phpinfo.html $top/sim/phpinfo-dense.html"}
iobuf=${PIB_BENCH_IOBUF:-65536}
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"
pids=()
raw=$(results_dir offload)
base_so=""
if [ -n "$baseline" ]; then
    baseline=$(cd "$baseline" && pwd)
    base_so=$(module_so "$baseline" mod_pibalance)
fi

cleanup() {
    local p
    for p in "${pids[@]:-}"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null || true
    done
    [ -f "$work/httpd.pid" ] && kill "$(cat "$work/httpd.pid")" 2>/dev/null
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT

"$top/build/setup-deps.sh" bench
for p in wrk haproxy nginx taskset curl; do
    command -v "$p" >/dev/null || { echo "missing: $p" >&2; exit 1; }
done
make -s -C "$top/sim" pisim phpinfo.html phpinfo-dense.html >/dev/null
if [ ! -f "$top/mod_pibalance/mod_pibalance.so" ]; then
    (cd "$top" && { [ -f Makefile ] || { autoconf && ./configure; }; } \
        && make -s) >/dev/null
fi
so=$(module_so "${PIB_MODULES:-$top}" mod_pibalance)
gcc -O2 -o "$work/ceiling" "$top/bench/ceiling.c" -lz -ldeflate

libexec=$(apxs -q LIBEXECDIR)

# ---- the node -------------------------------------------------------------
start_node() {                  # start_node GZIP_LEVEL (0 = plain) PAGE
    local gz=$1 page=$2 opt=""
    [ "$gz" -gt 0 ] && opt="gzip=$gz"
    cat > "$work/node.conf" <<SCEN
node bench port=$NODE slots=256 cpus=1 service=fixed:0 body=file:$page $opt
SCEN
    taskset -c 0 "$top/sim/pisim" "$work/node.conf" -j 1 -d 600 \
        -s "$work/node.summary" > "$work/node.out" 2>&1 &
    node_pid=$!
    pids+=("$node_pid")
    wait_port "$NODE"
}

stop_node() {
    kill "$node_pid" 2>/dev/null || true
    wait "$node_pid" 2>/dev/null || true
}

# ---- the fronts -------------------------------------------------------------
apache_conf() {                 # apache_conf MODE (offload|deflate|plain) SO
    local mode=$1 module=$2 extra=""
    case $mode in
        offload) extra="PiBalanceDeflate On
PiBalanceDeflateLevel 1
LogFormat %{pibalance-deflate-codec}n codec
CustomLog $work/codec_log$([ "$module" = "$so" ] || echo _base) codec" ;;
        deflate) extra="SetOutputFilter DEFLATE
DeflateCompressionLevel 1" ;;
    esac
    cat > "$work/httpd.conf" <<CONF
$(apache_base "$work" warn)
LoadModule deflate_module "$libexec/mod_deflate.so"
LoadModule pibalance_module "$module"
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
ProxyIOBufferSize $iobuf
<Proxy "balancer://b">
    BalancerMember "http://127.0.0.1:$NODE"
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
$extra
CONF
}

start_apache() {                # start_apache MODE [SO]
    apache_conf "$1" "${2:-$so}"
    taskset -c 1 /usr/sbin/apache2 -f "$work/httpd.conf" -k start
    wait_port "$APACHE"
}

stop_apache() {
    /usr/sbin/apache2 -f "$work/httpd.conf" -k stop 2>/dev/null || true
    local i
    for i in $(seq 50); do
        [ -f "$work/httpd.pid" ] || break
        sleep 0.1
    done
}

start_haproxy() {
    cat > "$work/haproxy.cfg" <<CONF
global
    nbthread 1
    tune.comp.maxlevel 1
    pidfile $work/haproxy.pid
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend f
    bind 127.0.0.1:$HAPROXY
    default_backend b
backend b
    compression algo gzip
    compression type text/html
    compression offload
    http-reuse always
    server n 127.0.0.1:$NODE
CONF
    taskset -c 1 haproxy -f "$work/haproxy.cfg" > "$work/haproxy.log" 2>&1 &
    pids+=("$!")
    hap_pid=$!
    wait_port "$HAPROXY"
}

start_nginx() {
    cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nb;
    proxy_temp_path $work/np;
    fastcgi_temp_path $work/nf;
    uwsgi_temp_path $work/nu;
    scgi_temp_path $work/ns;
    gzip on;
    gzip_comp_level 1;
    gzip_proxied any;
    upstream node { server 127.0.0.1:$NODE; keepalive 64; }
    server {
        listen 127.0.0.1:$NGINX;
        location / {
            proxy_pass http://node;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Accept-Encoding "";
        }
    }
}
CONF
    taskset -c 1 nginx -c "$work/nginx.conf"
    wait_port "$NGINX"
}

# ---- measuring ------------------------------------------------------------
results=()
declare -A core                 # core[setup] = pages per front CPU-second
declare -A rate                 # rate[setup] = pages/s (wall clock)

measure() {                     # measure NAME PORT FRONT (apache|haproxy|nginx)
    local name=$1 port=$2 front=$3 bytes out rps p99 mbs n t0 t1 us pc
    bytes=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null \
                 -w '%{size_download}' "http://127.0.0.1:$port/")
    timeout 10 taskset -c 0 wrk -t1 -c"$conns" -d1s \
        -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/" >/dev/null
    # shellcheck disable=SC2046
    t0=$(cpu_ticks $(front_pids "$front"))
    out=$(timeout $((secs + 10)) taskset -c 0 wrk -t1 -c"$conns" \
              -d"${secs}s" --latency -H 'Accept-Encoding: gzip' \
              "http://127.0.0.1:$port/")
    printf '%s\n' "$out" > "$raw/$(basename "$page" .html)-$name.wrk"
    # shellcheck disable=SC2046
    t1=$(cpu_ticks $(front_pids "$front"))
    n=$(awk '/requests in/ {print $1}' <<<"$out")
    rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    mbs=$(awk -v r="$rps" -v b="$bytes" 'BEGIN {printf "%.1f", r * b / 1e6}')
    us=$(printf '%.0f' "$(us_per_request $((t1 - t0)) "$n")")
    pc=$(awk -v us="$us" 'BEGIN {printf "%.0f", (us > 0 ? 1e6 / us : 0)}')
    core[$name]=$pc
    rate[$name]=$rps
    results+=("$(printf '| %-12s | %8s | %9s | %9s | %8s | %7s | %8s |' \
                 "$name" "$rps" "$us" "$pc" "$bytes" "$mbs" "$p99")")
    printf '  %-12s %6s pages/s  %5s us of front CPU per page\n' \
        "$name" "$rps" "$us" >&2
}

# apache_setup MODE NAME: measure an Apache setup; with a baseline, then
# the same with the baseline's module as NAME@base.
apache_setup() {
    start_apache "$1"
    measure "$2" "$APACHE" apache
    stop_apache
    if [ -n "$baseline" ]; then
        start_apache "$1" "$base_so"
        measure "$2@base" "$APACHE" apache
        stop_apache
    fi
}

# base_table: this tree's Apache setups against the baseline's, side by
# side in this run.
base_table() {
    local s
    echo
    echo "This tree ($(tree_commit "${PIB_MODULES:-$top}")) / baseline ($(tree_commit "$baseline")), one run on this machine (1.00 = no change):"
    echo
    echo '| setup | pages/s per front core this / base | pages/s this / base |'
    echo '|---|---:|---:|'
    for s in node-gzip proxy-only offload mod_deflate; do
        echo "| $s | $(ratio "${core[$s]}" "${core[$s@base]}") | $(ratio "${rate[$s]}" "${rate[$s@base]}") |"
    done
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

one_page() {                    # one_page FILE: every setup, then tables
    local page=$1 ceil ld1 z1
    results=()
    echo "bench: $(basename "$page"), $secs s per run, $conns connections" >&2
    start_node 1 "$page"
    apache_setup plain node-gzip
    stop_node

    start_node 0 "$page"
    apache_setup plain proxy-only
    rm -f "$work/codec_log" "$work/codec_log_base"
    apache_setup offload offload
    apache_setup deflate mod_deflate
    start_haproxy
    measure haproxy "$HAPROXY" haproxy
    kill "$hap_pid" 2>/dev/null || true
    start_nginx
    measure nginx "$NGINX" nginx
    kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    stop_node

    ceil=$(taskset -c 1 "$work/ceiling" "$page" 0.3)
    ld1=$(awk '$1 == "libdeflate" && $2 == 1 {print $3}' <<<"$ceil")
    z1=$(awk '$1 == "zlib" && $2 == 1 {print $3}' <<<"$ceil")

    echo
    echo "## $(basename "$page") ($(wc -c < "$page") bytes): level 1, $conns connections, ${secs} s, one front core"
    echo
    echo '| setup        |  pages/s | µs CPU/page | pages/s per front core | B/page | MB/s out | p99 |'
    echo '|--------------|---------:|----------:|----------:|---------:|--------:|---------:|'
    printf '%s\n' "${results[@]}"
    echo
    echo "Offload codec per response (one-shot libdeflate vs zlib stream):"
    sort "$work/codec_log" 2>/dev/null | uniq -c | sed 's/^/    /'
    cp "$work/codec_log" "$raw/$(basename "$page" .html)-offload.codec_log" \
        2>/dev/null || true
    [ -z "$baseline" ] || base_table
    echo
    echo "Single-core ceilings (CPU time), level 1: libdeflate $ld1 pages/s, zlib $z1 pages/s."
    echo
    echo '| target (per front core) | measured | goal |'
    echo '|---|---:|---:|'
    echo "| offload / mod_deflate | $(ratio "${core[offload]}" "${core[mod_deflate]}") | ≥ 2 |"
    echo "| offload / nginx | $(ratio "${core[offload]}" "${core[nginx]}") | ≥ 1.8 |"
    echo "| offload / libdeflate ceiling | $(ratio "${core[offload]}" "$ld1") | ≥ 0.70 |"
    echo "| bound on the line above: proxy-only cost + libdeflate cost, nothing else | $(awk -v p="${core[proxy-only]}" -v c="$ld1" 'BEGIN {printf "%.2f", p / (p + c)}') | |"
    echo
    echo '```'
    echo "$ceil"
    echo '```'
}

exec > >(tee "$raw/tables.md")
based=""
[ -z "$baseline" ] || based=" (baseline: $(tree_commit "$baseline"))"
echo "# bench/offload.sh ${baseline:+--baseline $baseline }$secs $conns," \
     "$(date -u '+%Y-%m-%d %H:%M UTC') (load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg)), modules built from" \
     "$(tree_commit "${PIB_MODULES:-$top}")$based; raw data: ${raw#"$top/"}/"
for page in $pages; do
    one_page "$page"
done
