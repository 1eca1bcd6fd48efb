#!/bin/bash
# bench/syscalls.sh -- system calls a request of the Apache front on the
# offload path (strace -c -f on its child during a short wrk run), for
# comparing configurations (issue 32 item 3): counts, unlike CPU time,
# do not move with the load on a shared machine.
#
#   bench/syscalls.sh [PAGE]    default sim/phpinfo-bench.html
#   PIB_SC_IOBUF=65536          ProxyIOBufferSize
#   PIB_SC_MEMBER=""            BalancerMember options (disablereuse=On ...)
#   PIB_SC_DEFLATE=On           PiBalanceDeflate
#   PIB_SC_EXTRA=""             more configuration lines
# Prints the requests and strace's table with a column of calls a
# request.  One child of 64 threads; 10 keep-alive connections, 3 s,
# Accept-Encoding: gzip.  Bounded: strace and wrk each by timeout.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=cpu.sh
source "$top/bench/cpu.sh"
page=$(cd "$(dirname "${1:-$top/sim/phpinfo-bench.html}")" && pwd)/$(basename "${1:-phpinfo-bench.html}")
work=$(mktemp -d /tmp/pib-sc.XXXXXX)
chmod 755 "$work"
NODE=19171 APACHE=19170
np=""
cleanup() {
    [ -f "$work/httpd.conf" ] && /usr/sbin/apache2 -f "$work/httpd.conf" -k stop 2>/dev/null || true
    [ -n "$np" ] && kill "$np" 2>/dev/null || true
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT
cat > "$work/node.conf" <<S
node b port=$NODE slots=64 cpus=1 service=fixed:0 body=file:$page
S
"$top/sim/pisim" "$work/node.conf" -j 1 -d 120 > "$work/node.out" 2>&1 &
np=$!
wait_port "$NODE"
cat > "$work/httpd.conf" <<C
$(apache_base "$work" warn)
LoadModule pibalance_module $(module_so "$top" mod_pibalance)
User nobody
Group nogroup
Listen 127.0.0.1:$APACHE
StartServers 1
ServerLimit 1
ThreadsPerChild 64
MaxRequestWorkers 64
KeepAliveTimeout 30
MaxKeepAliveRequests 0
ProxyIOBufferSize ${PIB_SC_IOBUF:-65536}
<Proxy "balancer://b">
    BalancerMember "http://127.0.0.1:$NODE" ${PIB_SC_MEMBER:-}
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
PiBalanceDeflate ${PIB_SC_DEFLATE:-On}
${PIB_SC_EXTRA:-}
C
/usr/sbin/apache2 -f "$work/httpd.conf" -k start
wait_port "$APACHE"
kid=$(pgrep -P "$(cat "$work/httpd.pid")" | head -n 1)
timeout -s INT 20 strace -c -f -p "$kid" -o "$work/st.txt" 2>/dev/null &
sp=$!
sleep 1
n=$(timeout 15 wrk -t1 -c10 -d3s -H 'Accept-Encoding: gzip' \
        "http://127.0.0.1:$APACHE/" | awk '/requests in/ {print $1}')
sleep 0.5
kill -INT "$sp" 2>/dev/null || true
wait "$sp" 2>/dev/null || true
echo "# $(basename "$page"): $n requests; ProxyIOBufferSize ${PIB_SC_IOBUF:-65536}, member [${PIB_SC_MEMBER:-}], PiBalanceDeflate ${PIB_SC_DEFLATE:-On}${PIB_SC_EXTRA:+, $PIB_SC_EXTRA}"
awk -v n="${n:-1}" '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
        printf "%-14s %8d calls  %6.2f a request\n", $NF, $4, $4 / n }' \
    "$work/st.txt" | sort -k2 -rn | head -n 12
