#!/bin/bash
# bench/memory.sh -- resident memory of the master's children under
# offloaded load (issue 8, item 4), and sizeof(pis_slot).
#
#   bench/memory.sh [TARGET_REQUESTS] [MAX_SECONDS]     (1000000, 480)
#   MEM_EXTRA="MaxMemFree 128" bench/memory.sh     extra front directives
#   MEM_WARM=1 bench/memory.sh    first 4 s of 256 connections, so that every
#                                 worker thread has served before the
#                                 measured run (counted from its start)
#   MEM_CONNS=N                   wrk connections (default 50)
#   MEM_CLOSE=1                   a new connection for every request
#                                 (Connection: close), to tell what grows
#                                 with a connection's life from what not
#
# The access log holds "pid tid" only: at the 10,000 point and at the
# end, the number of worker threads that have served so far.
#
# One plain pisim node (50 KB phpinfo page, 256 slots, no service time),
# the front with PiBalanceDeflate On (level 1) and mod_pistats, wrk with
# Accept-Encoding: gzip, 50 connections, until TARGET requests have been
# counted by the front's /pi-status (member "requests") or MAX_SECONDS
# have passed.  Every second: requests so far and the sum of the children's
# VmRSS (/proc/PID/status).  Reports RSS at the first sample past 10,000
# requests and at the end.  Appends a section to bench/RESULTS-faults.md
# unless NO_APPEND=1.  Bounded; trap-based cleanup.
set -eu
set -o pipefail
# shellcheck source=faults.sh
source "$(dirname "${BASH_SOURCE[0]}")/faults.sh"
target=${1:-1000000}
maxs=${2:-480}
mkdir -p "$raw"

printf 'node m1 slots=256 cpus=4 service=fixed:0 body=file:%s\n' \
    "$top/sim/phpinfo.html" > "$work/mem.scen"
start_sim "$work/mem.scen" $((maxs + 60)) memory
front_conf memory "$APACHE" pi "PiBalanceDeflate On
PiBalanceDeflateLevel 1
${MEM_EXTRA:-}" $sim_ports
# the access log: which thread served (pid tid), nothing else
sed -i -e 's|^LogFormat .*|LogFormat "%P %{tid}P" tid|' \
       -e "s|^CustomLog .*|CustomLog \"$work/memory/tids\" tid|" \
       "$work/memory.conf.httpd"
start_front memory "$APACHE"
ppid=$(front_pid memory)
threads() { sort -u "$work/memory/tids" | wc -l; }
# the front's connections to the node (mod_proxy keeps them per child)
backends() { ss -Htn state established "( dport = :$sim_ports )" | wc -l; }
if [ "${MEM_WARM:-0}" = 1 ]; then
    timeout 30 taskset -c 0 wrk -t1 -c256 -d4s --timeout 10s \
        -H "Accept-Encoding: gzip" "http://127.0.0.1:$APACHE/" \
        > "$raw/memory.warm.wrk" 2>&1 || true
    sleep 1
fi
warm_r=$(members "$APACHE" | awk '{s += $3} END {print s + 0}')
warm_t=$(threads)
# children's pids for the record (MaxConnectionsPerChild 0: they live on)
kids0=$(pgrep -P "$ppid" | sort | tr '\n' ' ')

# requests of the measured run (the warm-up's not counted)
reqs() { members "$APACHE" | awk -v w="$warm_r" '{s += $3} END {print s - w}'; }

close=()
[ "${MEM_CLOSE:-0}" = 1 ] && close=(-H "Connection: close")
timeout $((maxs + 20)) taskset -c 0 wrk -t1 -c"${MEM_CONNS:-50}" -d"${maxs}s" --timeout 10s \
    -H "Accept-Encoding: gzip" "${close[@]}" "http://127.0.0.1:$APACHE/" \
    > "$raw/memory.wrk" 2>&1 &
wpid=$!
pids+=("$wpid")
start=$(date +%s)
: > "$raw/memory.tsv"
base_r="" base_rss="" base_t="" base_b="" r100="" rss100="" r500="" rss500=""
while kill -0 "$wpid" 2>/dev/null; do
    sleep 1
    r=$(reqs) rss=$(children_rss "$ppid") el=$(( $(date +%s) - start ))
    printf '%s\t%s\t%s\t%s\n' "$el" "$r" "$rss" "$(backends)" >> "$raw/memory.tsv"
    if [ -z "$base_r" ] && [ "$r" -ge 10000 ]; then
        base_r=$r base_rss=$rss base_t=$(threads) base_b=$(backends)
    fi
    if [ -z "$r100" ] && [ "$r" -ge 100000 ]; then r100=$r rss100=$rss; fi
    if [ -z "$r500" ] && [ "$r" -ge 500000 ]; then r500=$r rss500=$rss; fi
    if [ "$r" -ge "$target" ] || [ "$el" -ge "$maxs" ]; then
        kill "$wpid" 2>/dev/null || true
        break
    fi
done
end_b=$(backends)
wait "$wpid" 2>/dev/null || true
sleep 1
end_r=$(reqs) end_rss=$(children_rss "$ppid") el=$(( $(date +%s) - start ))
end_t=$(threads)
kids1=$(pgrep -P "$ppid" | sort | tr '\n' ' ')
codec=$(curl -s "http://127.0.0.1:$APACHE/pi-status?json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["balancers"][0]["members"][0]
print(m["bytes_in"], m["bytes_out"])')
stop_front "$work/memory.conf.httpd"
stop_sim

# sizeof(pis_slot), from the module's own header
cat > "$work/sz.c" <<'C'
#include <stdio.h>
#include "pis_slot.h"
int main(void) { printf("%zu\n", sizeof(pis_slot)); return 0; }
C
inc="-I$top/mod_pistats $(apxs -q CFLAGS 2>/dev/null) -I$(apxs -q INCLUDEDIR) $(apr-1-config --includes 2>/dev/null || echo -I/usr/include/apr-1.0)"
# shellcheck disable=SC2086
gcc $inc -o "$work/sz" "$work/sz.c" 2>"$work/sz.err" && slot=$("$work/sz") || slot="(did not compile: $(head -1 "$work/sz.err"))"

pct=$(awk -v a="$base_rss" -v b="$end_rss" 'BEGIN {if (a > 0) printf "%+.1f%%", 100 * (b - a) / a; else printf "(no 10,000 point)"}')
sect="$raw/memory.md"
{
    echo "## 5. Memory (bench/memory.sh)"
    echo
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC'): one plain pisim node (50 KB page), front with"
    echo "\`PiBalanceDeflate On\` level 1 (2 children × 64 threads, MaxConnectionsPerChild 0),"
    echo "wrk ${MEM_CONNS:-50} connections, \`Accept-Encoding: gzip\`; RSS = Σ VmRSS of the parent's children."
    echo "Extra front directives: \`${MEM_EXTRA:-none}\`.  Connections: $([ "${MEM_CLOSE:-0}" = 1 ] && echo "one a request (Connection: close)" || echo "keep-alive")."
    if [ "${MEM_WARM:-0}" = 1 ]; then
        echo "Warm-up first: 4 s of wrk with 256 connections ($warm_r requests, $warm_t worker threads"
        echo "served); the run's counts start after it."
    fi
    echo "Children before: ${kids0}; after: ${kids1}(same pids: $([ "$kids0" = "$kids1" ] && echo yes || echo NO))."
    echo
    echo "| point | offloaded requests (front's counter) | Σ children RSS (KiB) | worker threads that have served | connections to the node |"
    echo "|---|---:|---:|---:|---:|"
    echo "| first sample ≥ 10,000 | $base_r | $base_rss | $base_t | $base_b |"
    echo "| first sample ≥ 100,000 | $r100 | $rss100 | | |"
    echo "| first sample ≥ 500,000 | $r500 | $rss500 | | |"
    echo "| end ($el s) | $end_r | $end_rss | $end_t | $end_b |"
    echo "| change, first ≥ 10,000 → end | | **$pct** (target ±5%) | | |"
    echo "| change, first ≥ 500,000 → end | | $(awk -v a="$rss500" -v b="$end_rss" 'BEGIN {if (a > 0) printf "%+.1f%%", 100 * (b - a) / a}') | | |"
    echo
    echo "Bytes in/out at the end (member counters): $codec.  Samples every second:"
    echo "raw-faults/memory.tsv (seconds, requests, RSS KiB, connections to the node)."
    echo
    echo "**Shared memory per member**: \`sizeof(pis_slot)\` = **$slot bytes** on this"
    echo "machine ($(uname -m)), compiled from mod_pistats/pis_slot.h; docs/metrics.md says"
    echo "\"10,984 bytes a member (x86-64)\"; limit 16 KiB = 16,384."
} > "$sect"
cat "$sect"
if [ "${NO_APPEND:-0}" != 1 ]; then
    { echo; cat "$sect"; } >> "$top/bench/RESULTS-faults.md"
fi
