#!/bin/bash
# bench/callgrind.sh -- where an offloaded response's CPU goes, counted in
# instructions (valgrind --tool=callgrind), which load on a shared machine
# does not change: Apache (httpd -X, one process) with PiBalanceDeflate
# On in front of sim/pisim, N requests with the browser mix's four
# Accept-Encoding strings over keep-alive connections, then the
# instructions a request by shared object and the top functions
# (callgrind_annotate).  User space only: the kernel's TCP work is not
# counted (bench/offload.sh's perf profiles show it).
#
#   bench/callgrind.sh [PAGE] [REQUESTS] [MODULE.so] [MODE]
#     PAGE      default sim/phpinfo-bench.html
#     REQUESTS  default 400 (100 per Accept-Encoding string)
#     MODULE    default this tree's mod_pibalance.so
#     MODE      offload (default) or plain (no compression: Apache's own
#               cost of proxying the page)
# Writes bench/results/<UTC date>-<UTC time>-callgrind/ (or
# $PIB_BENCH_OUT): by-object.txt, functions.txt, the callgrind.out file,
# httpd.conf.  Bounded: each curl has a time limit, the whole run too.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
page=$(cd "$(dirname "${1:-$top/sim/phpinfo-bench.html}")" && pwd)/$(basename "${1:-phpinfo-bench.html}")
n=${2:-400}
mode=${4:-offload}
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"
so=${3:-$(module_so "$top" mod_pibalance)}
raw=$(results_dir callgrind)
work=$(mktemp -d /tmp/pib-cg.XXXXXX)
chmod 1777 "$work"                # callgrind writes as httpd's User
NODE=19191 APACHE=19190
node_pid=""

cleanup() {
    [ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null || true
    [ -f "$work/httpd.pid" ] && kill "$(cat "$work/httpd.pid")" 2>/dev/null || true
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT

make -s -C "$top/sim" pisim phpinfo-bench.html >/dev/null
cat > "$work/node.conf" <<SCEN
node cg port=$NODE slots=64 cpus=1 service=fixed:0 body=file:$page
SCEN
"$top/sim/pisim" "$work/node.conf" -j 1 -d 1800 > "$work/node.out" 2>&1 &
node_pid=$!
wait_port "$NODE"

extra=""
[ "$mode" = offload ] && extra="PiBalanceDeflate On"
cat > "$work/httpd.conf" <<CONF
$(apache_base "$work" warn)
LoadModule pibalance_module "$so"
User nobody
Group nogroup
Listen 127.0.0.1:$APACHE
ProxyIOBufferSize 65536
<Proxy "balancer://b">
    BalancerMember "http://127.0.0.1:$NODE"
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
$extra
CONF
cp "$work/httpd.conf" "$raw/httpd.conf"
# httpd -X runs as its User: the output file must be writable by it.
touch "$work/cg.out"
chmod 666 "$work/cg.out"
# Only what runs inside ap_run_process_connection is counted: the
# requests (and the warm-up ones), not start-up or the listener's wait.
timeout -s KILL 900 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
    --toggle-collect=ap_run_process_connection \
    /usr/sbin/apache2 -X -f "$work/httpd.conf" > "$work/valgrind.log" 2>&1 &
vg=$!
for _ in $(seq 600); do
    curl -s -o /dev/null -m 2 "http://127.0.0.1:$APACHE/" && break
    sleep 0.5
done
sleep 1
per=$((n / 4))
urls=()
for _ in $(seq "$per"); do urls+=("http://127.0.0.1:$APACHE/"); done
# then the mix, one keep-alive connection each (+1 request of start-up)
for ae in "gzip, deflate, br, zstd" "gzip, deflate, br, zstd" \
          "gzip, deflate, br, zstd" "gzip, deflate, br"; do
    timeout -s KILL 300 curl -s -m 240 -H "Accept-Encoding: $ae" \
        "${urls[@]}" > /dev/null
done
kill -TERM "$(cat "$work/httpd.pid")" 2>/dev/null || true
for _ in $(seq 60); do            # valgrind writes its file, then exits
    kill -0 "$vg" 2>/dev/null || break
    sleep 1
done
kill -KILL "$vg" "$(cat "$work/httpd.pid" 2>/dev/null)" 2>/dev/null || true
wait "$vg" 2>/dev/null || true
cp "$work/valgrind.log" "$raw/valgrind.log" 2>/dev/null || true
cp "$work/cg.out" "$raw/callgrind.out"
n=$((n / 4 * 4 + 1))             # and the readiness probe's request
total=$(callgrind_annotate "$raw/callgrind.out" 2>/dev/null \
            | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
{
    echo "# bench/callgrind.sh $(basename "$page") $n $mode, module $so ($(tree_commit "$top")), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# $total instructions for the $n requests (the mix and one probe): $((total / n)) a request"
    echo "# instructions  a request  share  object"
    callgrind_annotate --inclusive=no --threshold=100 "$raw/callgrind.out" \
        2>/dev/null | awk -v n="$n" -v t="$total" '
            /^ *[0-9,]+ / && /\[/ {
                ir = $1; gsub(",", "", ir)
                obj = $0; sub(/.*\[/, "", obj); sub(/\].*/, "", obj)
                sub(/.*\//, "", obj); s[obj] += ir }
            END { for (o in s)
                printf "%14.0f  %9.0f  %5.1f%%  %s\n", s[o], s[o] / n,
                       100 * s[o] / t, o }' \
        | sort -rn | head -n 25
} > "$raw/by-object.txt"
callgrind_annotate --inclusive=no --threshold=95 "$raw/callgrind.out" \
    2>/dev/null | head -n 70 > "$raw/functions.txt"
cat "$raw/by-object.txt"
echo "raw data: ${raw#"$top/"}/"
