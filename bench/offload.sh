#!/bin/bash
# bench/offload.sh -- pages per master core: the offload against HAProxy's
# compression offload and nginx gzip (issue 32), on one machine.
#
# A phpinfo()-like page served by a simulated node (sim/pisim) pinned to
# core 0, the front (Apache master, HAProxy or nginx) pinned to core 1,
# wrk (load generator) sharing core 0 with the node.  Two pages, each
# through every setup: sim/phpinfo-bench.html (the ~67 KB page of issue
# 32's figures, 3.3:1 at level 1) and sim/phpinfo.html (markup, ~6:1).
# wrk sends a browser mix of Accept-Encoding strings (bench/browser-
# mix.lua: Chrome, Edge, Firefox with zstd, Safari without), so every
# front gives each client what it accepts and chooses.  Level 1
# everywhere.  Setups (PIB_BENCH_SETUPS, in this order every round):
#
#   offload      node plain, Apache master with PiBalanceDeflate On, this
#                tree's module and its defaults
#   offload@base the same with the baseline's module (--baseline: the
#                offload as shipped before), right after it
#   proxy-only   node plain, Apache master, no compression (Apache's own
#                cost of proxying the page)
#   haproxy      node plain, HAProxy "compression offload" (level 1)
#   nginx        node plain, nginx gzip 1, proxy_set_header AE ""
#   node-gzip    (optional) the node gzips itself, Apache only proxies
#   mod_deflate  (optional) node plain, Apache with mod_deflate (level 1)
#   offload+V    (optional) offload with one Apache variant V (item 3 of
#                issue 32): iobuf8k (ProxyIOBufferSize 8192), threads25
#                (ThreadsPerChild 25), noreuse (disablereuse=On), ka
#                (keepalive=On on the member), 1child (one child of 64
#                threads)
#
# plus the encoder-only ceiling: the CPU time the gzip encoder the
# offload uses takes for the page alone (bench/codings.c, the module's own
# codec rows, pinned to core 1, the least of 5 rounds).
#
# Rounds are interleaved (PIB_BENCH_ROUNDS, default 3): each round runs
# every setup once, in the order above; the tables give the median
# round.  "Per front core" figures divide the requests by the CPU time
# the front's own processes used during the run (utime + stime from
# /proc), so they hold on a shared, noisy machine where wall-clock
# pages/s do not.  Mean bytes are wrk's bytes a response over the mix,
# headers included.  The Apache setups use ProxyIOBufferSize
# $PIB_BENCH_IOBUF (default 65536, docs/offload.md).
#
# Not a test: prints tables (bench/RESULTS-offload.md quotes them, by
# hand).  Every step is bounded: about (setups x pages x rounds x (SECS +
# 3)) s, ~5 min for 5 setups, 2 pages, 3 rounds and SECS 8.  Installs
# wrk, haproxy, nginx-light if missing (root).  The printed tables
# (tables.md), wrk's output of every run and the offload codec counts go to
# a new bench/results/<UTC date>-<UTC time>-offload/ directory, or to
# $PIB_BENCH_OUT.
#
#   bench/offload.sh [--baseline DIR] [SECONDS_PER_RUN] [CONNECTIONS]
#   PIB_BENCH_PAGES="a.html b.html"   pages to serve (default: both above)
#   PIB_BENCH_SETUPS="offload haproxy ..."  the setups (default: offload,
#       offload@base with --baseline, proxy-only, haproxy, nginx)
#   PIB_BENCH_ROUNDS=3                interleaved rounds
#   PIB_BENCH_PERF="offload haproxy"  perf profiles of those, round 1
#   --baseline DIR (or PIB_BASELINE_MODULES=DIR): DIR's mod_pibalance.so
#       (or DIR/mod_pibalance/'s, a built tree of another commit) for the
#       SETUP@base rows; bench/compare-commits.sh builds one and runs this.
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
rounds=${PIB_BENCH_ROUNDS:-3}
work=$(mktemp -d /tmp/pib-bench.XXXXXX)
chmod 755 "$work"
NODE=19181 APACHE=19180 HAPROXY=19182 NGINX=19183
pages=${PIB_BENCH_PAGES:-"$top/sim/phpinfo-bench.html $top/sim/phpinfo.html"}
iobuf=${PIB_BENCH_IOBUF:-65536}
setups=${PIB_BENCH_SETUPS:-"offload${baseline:+ offload@base} proxy-only haproxy nginx"}
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
make -s -C "$top/sim" pisim phpinfo.html phpinfo-bench.html >/dev/null
if [ ! -f "$top/mod_pibalance/mod_pibalance.so" ]; then
    (cd "$top" && { [ -f Makefile ] || { autoconf && ./configure; }; } \
        && make -s) >/dev/null
fi
so=$(module_so "${PIB_MODULES:-$top}" mod_pibalance)
pib=$top/mod_pibalance
isal=$(sed -n 's/^ISAL_LIBS *= *//p' "$top/Makefile" 2>/dev/null || true)
# shellcheck disable=SC2086
gcc -O2 -I"$pib" -o "$work/codings" "$top/bench/codings.c" \
    "$pib/pib_codec.o" "$pib/pib_codec_zstd.o" "$pib/pib_codec_br.o" \
    "$pib/pib_codec_igzip.o" "$pib/pib_pool.o" "$pib/pib_coding_table.o" \
    -lz -ldeflate -lzstd -lbrotlienc $isal -pthread

libexec=$(apxs -q LIBEXECDIR)

# ---- the node -------------------------------------------------------------
node_gz=-1
start_node() {                  # start_node GZIP_LEVEL (0 = plain) PAGE
    local gz=$1 page=$2 opt=""
    [ "$gz" = "$node_gz" ] && return 0
    [ "$node_gz" = -1 ] || stop_node
    [ "$gz" -gt 0 ] && opt="gzip=$gz"
    cat > "$work/node.conf" <<SCEN
node bench port=$NODE slots=256 cpus=1 service=fixed:0 body=file:$page $opt
SCEN
    taskset -c 0 "$top/sim/pisim" "$work/node.conf" -j 1 -d 3600 \
        -s "$work/node.summary" > "$work/node.out" 2>&1 &
    node_pid=$!
    node_gz=$gz
    pids+=("$node_pid")
    wait_port "$NODE"
}

stop_node() {
    kill "$node_pid" 2>/dev/null || true
    wait "$node_pid" 2>/dev/null || true
    node_gz=-1
}

# ---- the fronts -------------------------------------------------------------
# apache_conf MODE (offload|deflate|plain) SO [VARIANT]
apache_conf() {
    local mode=$1 module=$2 variant=${3:-} extra="" member=""
    local threads=64 servers=2 buf=$iobuf
    case $mode in
        offload) extra="PiBalanceDeflate On
LogFormat %{pibalance-deflate-codec}n codec
CustomLog $work/codec_log$([ "$module" = "$so" ] || echo _base) codec" ;;
        deflate) extra="SetOutputFilter DEFLATE
DeflateCompressionLevel 1" ;;
    esac
    case $variant in
        "") ;;
        iobuf8k) buf=8192 ;;
        threads25) threads=25 ;;
        noreuse) member="disablereuse=On" ;;
        ka) member="keepalive=On" ;;
        1child) servers=1 ;;
        *) echo "unknown variant: $variant" >&2; exit 2 ;;
    esac
    cat > "$work/httpd.conf" <<CONF
$(apache_base "$work" warn)
LoadModule deflate_module "$libexec/mod_deflate.so"
LoadModule pibalance_module "$module"
User nobody
Group nogroup
Listen 127.0.0.1:$APACHE
StartServers $servers
ServerLimit $servers
ThreadsPerChild $threads
MaxRequestWorkers $((servers * threads))
MaxConnectionsPerChild 0
KeepAliveTimeout 30
MaxKeepAliveRequests 0
ProxyIOBufferSize $buf
<Proxy "balancer://b">
    BalancerMember "http://127.0.0.1:$NODE" $member
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
$extra
CONF
    cp "$work/httpd.conf" "$raw/httpd-$mode${variant:++$variant}.conf"
}

start_apache() {                # start_apache MODE SO [VARIANT]
    apache_conf "$1" "$2" "${3:-}"
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
    cp "$work/haproxy.cfg" "$raw/haproxy.cfg"
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
    cp "$work/nginx.conf" "$raw/nginx.conf"
    taskset -c 1 nginx -c "$work/nginx.conf"
    wait_port "$NGINX"
}

# ---- measuring ------------------------------------------------------------
declare -A core rate us mix body    # [setup round] -> value

measure() {                     # measure NAME ROUND PORT FRONT
    local name=$1 r=$2 port=$3 front=$4 out n t0 t1 u
    body[$name $r]=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null \
                 -w '%{size_download}' "http://127.0.0.1:$port/")
    timeout 10 taskset -c 0 wrk -t1 -c"$conns" -d1s \
        -s "$top/bench/browser-mix.lua" "http://127.0.0.1:$port/" >/dev/null
    # shellcheck disable=SC2046
    t0=$(cpu_ticks $(front_pids "$front"))
    perf_start "$name" "$r" "$front"
    out=$(timeout $((secs + 10)) taskset -c 0 wrk -t1 -c"$conns" \
              -d"${secs}s" --latency -s "$top/bench/browser-mix.lua" \
              "http://127.0.0.1:$port/")
    # shellcheck disable=SC2046
    t1=$(cpu_ticks $(front_pids "$front"))
    perf_stop
    printf '%s\n' "$out" > "$raw/$pname-$name-r$r.wrk"
    n=$(awk '/requests in/ {print $1}' <<<"$out")
    rate[$name $r]=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
    mix[$name $r]=$(awk '/^MIXBYTES/ {print $2}' <<<"$out")
    u=$(us_per_request $((t1 - t0)) "$n")
    us[$name $r]=$u
    core[$name $r]=$(awk -v u="$u" 'BEGIN {printf "%.0f", (u > 0 ? 1e6 / u : 0)}')
    printf '  r%s %-18s %6s pages/s  %6.1f us of front CPU a page  %6s B\n' \
        "$r" "$name" "${rate[$name $r]}" "$u" "${mix[$name $r]}" >&2
}

# PIB_BENCH_PERF="offload haproxy": a profile of those fronts in round 1
# (perf record -e cpu-clock -g: software clock, as hardware counters are
# missing on VMs), reported by shared object and by symbol into the run
# directory (NAME.perf-dso.txt, NAME.perf-sym.txt, with call chains
# NAME.perf-calls.txt).  It costs the front some CPU while it records.
perf_pid=""
perf_start() {                  # perf_start NAME ROUND FRONT
    case " ${PIB_BENCH_PERF:-} " in *" $1 "*) ;; *) return 0 ;; esac
    [ "$2" = 1 ] || return 0
    command -v perf >/dev/null || { echo "no perf: linux-perf" >&2; return 0; }
    perf_out=$raw/$pname-$1
    # shellcheck disable=SC2046
    perf record -q -e cpu-clock -g -o "$work/perf.data" \
        -p "$(front_pids "$3" | paste -sd,)" -- sleep "$secs" \
        >/dev/null 2>&1 &
    perf_pid=$!
}

perf_stop() {
    [ -n "$perf_pid" ] || return 0
    wait "$perf_pid" 2>/dev/null || true
    perf_pid=""
    { perf report -i "$work/perf.data" --no-children --sort dso \
          --stdio -g none 2>/dev/null || true; } | grep -v '^$' \
        | sed -n '1,40p' > "$perf_out.perf-dso.txt"
    { perf report -i "$work/perf.data" --no-children --sort dso,sym \
          --stdio -g none 2>/dev/null || true; } | grep -v '^$' \
        | sed -n '1,90p' > "$perf_out.perf-sym.txt"
    { perf report -i "$work/perf.data" --children --sort sym --stdio \
          -g none --percent-limit 1.5 2>/dev/null || true; } | grep -v '^$' \
        | sed -n '1,90p' > "$perf_out.perf-calls.txt"
    rm -f "$work/perf.data"
}

one_setup() {                   # one_setup NAME ROUND
    local name=$1 r=$2
    case $name in
        node-gzip) start_node 1 "$page"; start_apache plain "$so"
                   measure "$name" "$r" "$APACHE" apache; stop_apache ;;
        proxy-only) start_node 0 "$page"; start_apache plain "$so"
                    measure "$name" "$r" "$APACHE" apache; stop_apache ;;
        mod_deflate) start_node 0 "$page"; start_apache deflate "$so"
                     measure "$name" "$r" "$APACHE" apache; stop_apache ;;
        offload) start_node 0 "$page"; start_apache offload "$so"
                 measure "$name" "$r" "$APACHE" apache; stop_apache ;;
        offload@base) start_node 0 "$page"; start_apache offload "$base_so"
                      measure "$name" "$r" "$APACHE" apache; stop_apache ;;
        offload+*) start_node 0 "$page"
                   start_apache offload "$so" "${name#offload+}"
                   measure "$name" "$r" "$APACHE" apache; stop_apache ;;
        haproxy) start_node 0 "$page"; start_haproxy
                 measure "$name" "$r" "$HAPROXY" haproxy
                 kill "$hap_pid" 2>/dev/null || true
                 wait "$hap_pid" 2>/dev/null || true ;;
        nginx) start_node 0 "$page"; start_nginx
               measure "$name" "$r" "$NGINX" nginx
               kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
               sleep 0.3 ;;
        *) echo "unknown setup: $name" >&2; exit 2 ;;
    esac
}

# median VALUE...: the middle one (the lower middle of an even count)
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
# med ARRAY NAME: the median over the rounds of ARRAY[NAME r]
med() {
    local -n a=$1
    local r v=()
    for r in $(seq "$rounds"); do v+=("${a[$2 $r]:-0}"); done
    median "${v[@]}"
}
spread() {                      # spread ARRAY NAME: "least-most"
    local -n a=$1
    local r v=()
    for r in $(seq "$rounds"); do v+=("${a[$2 $r]:-0}"); done
    printf '%s\n' "${v[@]}" | sort -g | awk 'NR == 1 {l=$1} {h=$1} END {printf "%s-%s", l, h}'
}

one_page() {                    # one_page FILE: every setup, every round
    local page=$1 pname r s ceil enc_us enc_name ceil_core hc hb oc ob
    pname=$(basename "$page" .html)
    echo "bench: $pname, $rounds rounds of: $setups; $secs s a run, $conns connections" >&2
    rm -f "$work/codec_log" "$work/codec_log_base"
    for r in $(seq "$rounds"); do
        for s in $setups; do
            one_setup "$s" "$r"
        done
    done
    stop_node
    ceil=$(taskset -c 1 "$work/codings" "$page" 0.1 5 quick)
    printf '%s\n' "$ceil" > "$raw/$pname-codings.txt"
    # the encoder this tree's offload used for most responses
    enc_name=$(sort "$work/codec_log" 2>/dev/null | uniq -c | sort -rn \
                   | awk 'NR == 1 {print $2}')
    enc_us=$(awk -v r="${enc_name:-oneshot}" '$1 == "gzip" && $2 == 1 && $3 == r {print $6}' <<<"$ceil" | head -n 1)
    ceil_core=$(awk -v u="${enc_us:-0}" 'BEGIN {printf "%.0f", (u > 0 ? 1e6 / u : 0)}')

    echo
    echo "## $pname ($(wc -c < "$page") bytes): browser mix, level 1, $conns connections, ${secs} s a run, $rounds interleaved rounds, one front core"
    echo
    echo "Medians of the rounds (every round's pages per front core in the last column):"
    echo
    echo '| setup | pages/s | µs CPU/page | pages/s per front core | ÷ HAProxy | mean B/response | ÷ HAProxy | gzip body B | per core, each round |'
    echo '|---|---:|---:|---:|---:|---:|---:|---:|---|'
    hc=$(med core haproxy); hb=$(med mix haproxy)
    for s in $setups; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$s" \
            "$(med rate "$s")" "$(med us "$s")" "$(med core "$s")" \
            "$(ratio "$(med core "$s")" "$hc")" "$(med mix "$s")" \
            "$(ratio "$(med mix "$s")" "$hb")" "$(med body "$s")" \
            "$(spread core "$s")"
    done
    echo
    echo "Offload codec per response (this tree; one-pass and streamed rows):"
    sort "$work/codec_log" 2>/dev/null | uniq -c | sed 's/^/    /'
    sort "$work/codec_log" 2>/dev/null | uniq -c \
        > "$raw/$pname-offload.codec_log.counts" || true
    if [ -f "$work/codec_log_base" ]; then
        echo "Baseline:"
        sort "$work/codec_log_base" | uniq -c | sed 's/^/    /'
    fi
    if [ -n "$baseline" ]; then
        echo
        echo "This tree ($(tree_commit "${PIB_MODULES:-$top}")) / baseline ($(tree_commit "$baseline")), one run on this machine (1.00 = no change):"
        echo
        echo '| setup | pages/s per front core this / base | pages/s this / base | mean bytes this / base |'
        echo '|---|---:|---:|---:|'
        echo "| offload | $(ratio "$(med core offload)" "$(med core offload@base)") | $(ratio "$(med rate offload)" "$(med rate offload@base)") | $(ratio "$(med mix offload)" "$(med mix offload@base)") |"
    fi
    oc=$(med core offload); ob=$(med mix offload)
    echo
    echo "Encoder-only ceiling: ${enc_name:-?} level 1 takes ${enc_us:-?} µs of CPU for this page alone (least of 5 rounds) = $ceil_core pages/s on one core."
    echo
    echo '| target (per front core, medians) | measured | goal |'
    echo '|---|---:|---:|'
    echo "| offload / HAProxy, pages per core | $(ratio "$oc" "$hc") | ≥ 1.0 (aim 1.2) |"
    echo "| offload / HAProxy, mean bytes | $(ratio "$ob" "$hb") | ≤ 0.80 |"
    echo "| offload / nginx, pages per core | $(ratio "$oc" "$(med core nginx)") | |"
    echo "| offload / encoder-only ceiling | $(ratio "$oc" "$ceil_core") | |"
    echo "| bound: 1 / (proxy-only µs + encoder µs) over the ceiling | $(awk -v p="$(med us proxy-only)" -v e="${enc_us:-0}" 'BEGIN {printf "%.2f", (p + e > 0 ? e / (p + e) : 0)}') | |"
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
