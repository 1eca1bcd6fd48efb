#!/bin/bash
# bench/lan.sh -- offload with the node behind a real (rate-limited) link.
#
# On loopback a node's whole body is in the socket before mod_proxy_http
# reads it.  On a network it arrives packet by packet, and mod_proxy_http
# passes a FLUSH each time a read would block.  This runs the node (an
# Apache serving static pages) in a network namespace of its own, behind
# a veth pair shaped by tbf to RATE (a Pi 4's port is 1 Gbit/s, a Pi 3's
# 100 Mbit/s, a Pi 3B+'s ~300), and drives the master with wrk, each
# setup in turn, RUNS times, in one run:
#
#   hold    PiBalanceDeflate On, defaults (held bodies keep one pass)
#   zlib    PiBalanceDeflate On, PiBalanceDeflateBuffer 0 (every body
#           streamed through zlib: what FLUSH-honouring did on a network)
#   before  PiBalanceDeflate On with the module in $LAN_OLD_SO, if set
#           (e.g. built from 76075df, which honoured every FLUSH), or
#           else in $PIB_BASELINE_MODULES (a directory, as run.sh's
#           --baseline: mod_pibalance.so in it or in its mod_pibalance/)
#   proxy   no compression (reference)
#
# Prints, per page and setup: pages/s, the master's CPU µs a page
# (utime + stime of its processes; noise-proof where pages/s are not:
# the link caps those), bytes a page on the wire, and how many responses
# went one pass (libdeflate) or zlib.  Not a test.  Bounded: each wrk run
# lasts SECS; the whole run about (setups × pages × RUNS × SECS) s.
#
#   bench/lan.sh [RATE] [SECS] [CONNS] [RUNS]     (300mbit 6 16 2)
#
# The printed table also goes to table.md in a new bench/results/<UTC
# date>-<UTC time>-lan/ (or $PIB_BENCH_OUT).  Needs root (ip netns, tc).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-300mbit}
secs=${2:-6}
conns=${3:-16}
runs=${4:-2}
ns=pib-lan-$$
host_if=pibl$$a node_if=pibl$$b
host_ip=10.213.0.1 node_ip=10.213.0.2
NODE=19281 APACHE=19280
work=$(mktemp -d /tmp/pib-lan.XXXXXX)
chmod 755 "$work"
libexec=$(apxs -q LIBEXECDIR)
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"

cleanup() {
    /usr/sbin/apache2 -f "$work/httpd.conf" -k stop 2>/dev/null || true
    ip netns exec "$ns" /usr/sbin/apache2 -f "$work/node.conf" -k stop \
        2>/dev/null || true
    sleep 0.5
    ip netns del "$ns" 2>/dev/null || true
    ip link del "$host_if" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "bench/lan.sh: needs root (ip netns)" >&2; exit 1; }
if [ -z "${LAN_OLD_SO:-}" ] && [ -n "${PIB_BASELINE_MODULES:-}" ]; then
    LAN_OLD_SO=$(module_so "$PIB_BASELINE_MODULES" mod_pibalance)
fi
raw=$(results_dir lan)
"$top/build/setup-deps.sh" bench
for p in wrk curl ip tc; do
    command -v "$p" >/dev/null || { echo "missing: $p" >&2; exit 1; }
done
make -s -C "$top/sim" phpinfo.html phpinfo-dense.html >/dev/null
[ -f "$top/mod_pibalance/mod_pibalance.so" ] || make -s -C "$top" >/dev/null

# ---- the link ---------------------------------------------------------------
ip netns add "$ns"
ip link add "$host_if" type veth peer name "$node_if"
ip link set "$node_if" netns "$ns"
ip addr add "$host_ip/24" dev "$host_if"
ip link set "$host_if" up
ip netns exec "$ns" ip addr add "$node_ip/24" dev "$node_if"
ip netns exec "$ns" ip link set "$node_if" up
ip netns exec "$ns" ip link set lo up
# node -> master is the direction the bodies take
ip netns exec "$ns" tc qdisc add dev "$node_if" root tbf rate "$rate" \
    burst 32kb latency 50ms

# ---- the node: Apache, static pages ---------------------------------------
mkdir -p "$work/www"
cp "$top/sim/phpinfo.html" "$work/www/p51k.html"
for i in 1 2 3 4 5 6; do cat "$top/sim/phpinfo.html"; done \
    > "$work/www/p300k.html"
cat > "$work/node.conf" <<CONF
ServerRoot "$work"
ServerName node
PidFile "$work/node.pid"
ErrorLog "$work/node_error_log"
DefaultRuntimeDir "$work"
Mutex file:$work default
LoadModule mpm_event_module "$libexec/mod_mpm_event.so"
LoadModule authz_core_module "$libexec/mod_authz_core.so"
LoadModule mime_module "$libexec/mod_mime.so"
User nobody
Group nogroup
Listen $node_ip:$NODE
TypesConfig /etc/mime.types
DocumentRoot "$work/www"
MaxKeepAliveRequests 0
KeepAliveTimeout 30
CONF
ip netns exec "$ns" /usr/sbin/apache2 -f "$work/node.conf" -k start

# ---- the master --------------------------------------------------------------
master_conf() {                 # master_conf SETUP
    local so="$top/mod_pibalance/mod_pibalance.so" extra="PiBalanceDeflate On"
    case $1 in
        zlib) extra="$extra
PiBalanceDeflateBuffer 0" ;;
        before) so=$LAN_OLD_SO ;;
        proxy) extra="" ;;
    esac
    cat > "$work/httpd.conf" <<CONF
$(apache_base "$work" warn)
LoadModule pibalance_module "$so"
User nobody
Group nogroup
Listen 127.0.0.1:$APACHE
StartServers 2
ServerLimit 2
ThreadsPerChild 32
MaxRequestWorkers 64
KeepAliveTimeout 30
MaxKeepAliveRequests 0
<Proxy "balancer://b">
    BalancerMember "http://$node_ip:$NODE"
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
PiBalanceDeflateLevel 1
$extra
LogFormat "%{pibalance-deflate-codec}n %O" codec
CustomLog "$work/codec_log" codec
CONF
}

# run SETUP PAGE: one wrk run; prints a table row.
run() {
    local setup=$1 page=$2 t0 t1 n
    master_conf "$setup"
    rm -f "$work/codec_log"
    /usr/sbin/apache2 -f "$work/httpd.conf" -k start
    wait_port "$APACHE"
    curl -s -o /dev/null -H 'Accept-Encoding: gzip' \
        "http://127.0.0.1:$APACHE/$page"
    : > "$work/codec_log"
    t0=$(cpu_ticks $(front_pids apache))
    wrk -t 2 -c "$conns" -d "${secs}s" -H 'Accept-Encoding: gzip' \
        "http://127.0.0.1:$APACHE/$page" > "$work/wrk.out" 2>&1 || true
    t1=$(cpu_ticks $(front_pids apache))
    /usr/sbin/apache2 -f "$work/httpd.conf" -k stop
    for _ in $(seq 50); do [ -f "$work/httpd.pid" ] || break; sleep 0.1; done
    n=$(awk '/requests in/ {print $1}' "$work/wrk.out")
    awk -v s="$setup" -v p="$page" -v n="${n:-0}" -v secs="$secs" \
        -v us="$(us_per_request $((t1 - t0)) "${n:-0}")" '
        { c[$1]++; b += $2; k++ }
        END { printf "| %-8s | %-6s | %8.0f | %8s | %8.0f | %7d | %7d |\n",
                     p, s, n / secs, us, (k ? b / k : 0),
                     c["oneshot"], c["zlib"] }' "$work/codec_log"
}

setups="hold zlib proxy"
[ -n "${LAN_OLD_SO:-}" ] && setups="hold before zlib proxy"
exec > >(tee "$raw/table.md")
echo "<!-- bench/lan.sh $rate $secs $conns $runs, $(date -u '+%Y-%m-%d %H:%M UTC')," \
     "modules built from $(tree_commit "$top")${LAN_OLD_SO:+, before: $LAN_OLD_SO} -->"
echo "# node behind $rate (tbf, netns), wrk -c $conns, ${secs}s a run," \
     "$runs runs; level 1"
echo "| page     | setup  |  pages/s | CPU µs/p | B/page   | oneshot |    zlib |"
echo "|----------|--------|---------:|---------:|---------:|--------:|--------:|"
for r in $(seq "$runs"); do
    for page in p51k.html p300k.html; do
        for s in $setups; do
            run "$s" "$page" | sed "s/\.html//"
        done
    done
done
