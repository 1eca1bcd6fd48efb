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
#   MEM_STOCK=1                   Apache's own modules instead (byrequests,
#                                 mod_deflate level 1 on the front): the
#                                 reference, run beside ours
#   MEM_SMAPS=1                   keep the children's smaps at both points at
#                                 rest (memory-smaps-N-PID in the raw data)
#   MEM_CLOSE=1                   a new connection for every request
#                                 (Connection: close), to tell what grows
#                                 with a connection's life from what not
#
# The access log holds "pid tid" only: at the 10,000 point and at the
# end, the number of worker threads that have served so far.
#
# One plain pisim node (50 KB phpinfo page, 256 slots, no service time),
# the front with PiBalanceDeflate On (level 1) and mod_pistats, wrk with
# Accept-Encoding: gzip, 50 connections: first until the front's
# /pi-status (member "requests") has counted 10,000, then until TARGET (or
# MAX_SECONDS have passed).  After each, wrk stops and the children settle
# 2 s: the two points at rest, in the same state, are the verdict's; their
# resident memory is split by bench/rss-parts.py into the worker threads'
# stacks, glibc's heap, other anonymous memory and files.  Every second
# under load: requests so far, the sum of the children's VmRSS and those
# parts.  Appends a section to bench/RESULTS-memory.md unless NO_APPEND=1.
# Raw data (the .tsv, wrk's output, pisim's summary, the section as
# memory.md) in a new bench/results/<UTC date>-<UTC time>-memory/, or in
# $PIB_BENCH_OUT.  Bounded; trap-based cleanup.
set -eu
set -o pipefail
# shellcheck source=faults.sh
source "$(dirname "${BASH_SOURCE[0]}")/faults.sh"
target=${1:-1000000}
maxs=${2:-480}
raw=$(results_dir memory)

printf 'node m1 slots=256 cpus=4 service=fixed:0 body=file:%s\n' \
    "$top/sim/phpinfo.html" > "$work/mem.scen"
start_sim "$work/mem.scen" $((maxs + 60)) memory
if [ "${MEM_STOCK:-0}" = 1 ]; then
    # Apache's own: byrequests, mod_deflate on the front (the node answers
    # identity), the same level; mod_pistats still counts
    front_conf memory "$APACHE" byrequests "LoadModule filter_module \"$libexec/mod_filter.so\"
LoadModule deflate_module \"$libexec/mod_deflate.so\"
AddOutputFilterByType DEFLATE text/html
DeflateCompressionLevel 1
${MEM_EXTRA:-}" $sim_ports
    what="stock Apache: \`lbmethod=byrequests\`, mod_deflate level 1 on the front"
else
    front_conf memory "$APACHE" pi "PiBalanceDeflate On
PiBalanceDeflateLevel 1
${MEM_EXTRA:-}" $sim_ports
    what="\`lbmethod=pi\`, \`PiBalanceDeflate On\` level 1"
fi
# the access log: which thread served (pid tid), nothing else
sed -i -e 's|^LogFormat .*|LogFormat "%P %{tid}P" tid|' \
       -e "s|^CustomLog .*|CustomLog \"$work/memory/tids\" tid|" \
       "$work/memory.conf.httpd"
start_front memory "$APACHE"
ppid=$(front_pid memory)
# compressed on the front, whichever module does it
ce=$(curl -s -o /dev/null -D - -H "Accept-Encoding: gzip" "http://127.0.0.1:$APACHE/" \
     | awk -F': *' 'tolower($1) == "content-encoding" {print $2}' | tr -d '\r')
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
# the size a worker thread's stack is made with (ThreadStackSize unset:
# the stack rlimit), to tell the stacks in the children's smaps
stack_kib=$(ulimit -s)
[ "$stack_kib" = unlimited ] && stack_kib=8192
# parts: total stacks heap anon files (KiB, summed over the children)
parts() { python3 "$top/bench/rss-parts.py" "$stack_kib" $(pgrep -P "$ppid"); }
start=$(date +%s)
: > "$raw/memory.tsv"
base_r="" base_rss="" base_t="" base_b="" r100="" rss100="" r500="" rss500=""
last_rss="" last_r=""
# MEM_SMAPS=1: the children's smaps at rest, $raw/memory-smaps-N-PID
keep_smaps() {
    local c
    [ "${MEM_SMAPS:-0}" = 1 ] || return 0
    for c in $(pgrep -P "$ppid"); do
        cp "/proc/$c/smaps" "$raw/memory-smaps-$1-$c" 2>/dev/null || true
    done
}
# load UNTIL: wrk until the front has counted UNTIL requests (or the time
# is up), then stop it and let the children settle for 2 s.  Every second
# a row of the .tsv: seconds, requests, Σ VmRSS, connections to the node,
# then the parts (total stacks heap anon files).
load() {
    local until=$1 wpid r rss el
    timeout $((maxs + 20)) taskset -c 0 wrk -t1 -c"${MEM_CONNS:-50}" -d"${maxs}s" --timeout 10s \
        -H "Accept-Encoding: gzip" "${close[@]}" "http://127.0.0.1:$APACHE/" \
        >> "$raw/memory.wrk" 2>&1 &
    wpid=$!
    pids+=("$wpid")
    while kill -0 "$wpid" 2>/dev/null; do
        sleep 1
        r=$(reqs) rss=$(children_rss "$ppid") el=$(( $(date +%s) - start ))
        printf '%s\t%s\t%s\t%s\t%s\n' "$el" "$r" "$rss" "$(backends)" "$(parts)" >> "$raw/memory.tsv"
        if [ -z "$base_r" ] && [ "$r" -ge 10000 ]; then
            base_r=$r base_rss=$rss base_t=$(threads) base_b=$(backends)
        fi
        if [ -z "$r100" ] && [ "$r" -ge 100000 ]; then r100=$r rss100=$rss; fi
        if [ -z "$r500" ] && [ "$r" -ge 500000 ]; then r500=$r rss500=$rss; fi
        last_r=$r last_rss=$rss
        if [ "$r" -ge "$until" ] || [ "$el" -ge "$maxs" ]; then
            end_b=$(backends)
            kill "$wpid" 2>/dev/null || true
            break
        fi
    done
    wait "$wpid" 2>/dev/null || true
    sleep 2
}
: > "$raw/memory.wrk"
# at rest after the first 10,000, and after all of them: the same state
# (no client connection, no response in flight) at both points
load 10000
rest1_r=$(reqs) rest1=$(parts) rest1_t=$(threads)
keep_smaps 1
load "$target"
end_r=$(reqs) end_rss=$(children_rss "$ppid") el=$(( $(date +%s) - start ))
rest2=$(parts)
keep_smaps 2
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
inc="-I$top/mod_pistats -I$top/common -I$top/include $(apxs -q CFLAGS 2>/dev/null) -I$(apxs -q INCLUDEDIR) $(apr-1-config --includes 2>/dev/null || echo -I/usr/include/apr-1.0)"
# shellcheck disable=SC2086
gcc $inc -o "$work/sz" "$work/sz.c" 2>"$work/sz.err" && slot=$("$work/sz") || slot="(did not compile: $(head -1 "$work/sz.err"))"

pct() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0) printf "%+.1f%%", 100 * (b - a) / a; else printf "(none)"}'; }
kib() { echo "$1" | cut -f"$2"; }
pct=$(pct "$(kib "$rest1" 1)" "$(kib "$rest2" 1)")
sect="$raw/memory.md"
{
    echo "## bench/memory.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC'): one plain pisim node (50 KB page), front with"
    echo "$what (2 children × 64 threads, MaxConnectionsPerChild 0;"
    echo "a response's Content-Encoding: ${ce:-none}),"
    echo "wrk ${MEM_CONNS:-50} connections, \`Accept-Encoding: gzip\`; RSS = Σ over the parent's children."
    echo "Extra front directives: \`${MEM_EXTRA:-none}\`.  Connections: $([ "${MEM_CLOSE:-0}" = 1 ] && echo "one a request (Connection: close)" || echo "keep-alive")."
    if [ "${MEM_WARM:-0}" = 1 ]; then
        echo "Warm-up first: 4 s of wrk with 256 connections ($warm_r requests, $warm_t worker threads"
        echo "served); the run's counts start after it."
    fi
    echo "Children before: ${kids0}; after: ${kids1}(same pids: $([ "$kids0" = "$kids1" ] && echo yes || echo NO))."
    echo
    echo "At rest (wrk stopped at 10,000 and at the end, then 2 s), from the children's"
    echo "smaps (bench/rss-parts.py; stacks = the worker threads' stacks):"
    echo
    echo "| point | offloaded requests | RSS (KiB) | stacks | heap | other anonymous | files | worker threads that have served |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    echo "| at rest after ≥ 10,000 | $rest1_r | $(echo "$rest1" | sed 's/\t/ | /g') | $rest1_t |"
    echo "| at rest at the end | $end_r | $(echo "$rest2" | sed 's/\t/ | /g') | $end_t |"
    echo "| change | | **$pct** (target ±5%) | $(pct "$(kib "$rest1" 2)" "$(kib "$rest2" 2)") | $(pct "$(kib "$rest1" 3)" "$(kib "$rest2" 3)") | $(pct "$(kib "$rest1" 4)" "$(kib "$rest2" 4)") | $(pct "$(kib "$rest1" 5)" "$(kib "$rest2" 5)") | |"
    echo
    echo "Under load (Σ VmRSS, samples every second):"
    echo
    echo "| point | offloaded requests (front's counter) | Σ children RSS (KiB) | connections to the node |"
    echo "|---|---:|---:|---:|"
    echo "| first sample ≥ 10,000 | $base_r | $base_rss | $base_b |"
    echo "| first sample ≥ 100,000 | $r100 | $rss100 | |"
    echo "| first sample ≥ 500,000 | $r500 | $rss500 | |"
    echo "| last sample under load | $last_r | $last_rss | $end_b |"
    echo "| change, first ≥ 10,000 → last | | $(pct "$base_rss" "$last_rss") | |"
    echo "| change, first ≥ 500,000 → last | | $(pct "$rss500" "$last_rss") | |"
    echo
    echo "Bytes in/out at the end (member counters): $codec.  Samples every second:"
    echo "${raw#"$top/bench/"}/memory.tsv (seconds, requests, Σ VmRSS KiB, connections to the node,"
    echo "then total, stacks, heap, other anonymous, files KiB from smaps)."
    echo
    echo "**Shared memory per member**: \`sizeof(pis_slot)\` = **$slot bytes** on this"
    echo "machine ($(uname -m)), compiled from mod_pistats/pis_slot.h; docs/metrics.md says"
    echo "\"10,984 bytes a member (x86-64)\"; limit 16 KiB = 16,384."
    echo
    echo "Modules built from $(tree_commit "$top"); raw data: ${raw#"$top/"}/."
} > "$sect"
cat "$sect"
if [ "${NO_APPEND:-0}" != 1 ]; then
    { echo; cat "$sect"; } >> "$top/bench/RESULTS-memory.md"
fi
