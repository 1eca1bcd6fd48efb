#!/bin/bash
# build/parallel.sh -- runs named commands, at most J at once, each one's
# output in a log of its own; prints when each starts and ends, then every
# log in the order given, then a table of results and times.
#
# Usage: build/parallel.sh [-j J] [-d LOGDIR] [-T SECS] NAME CMD [NAME CMD]...
#   -j J       at most J commands at once (default 4)
#   -d LOGDIR  where the logs go (default: a new directory under /tmp)
#   -T SECS    bound on each command (default 2400): then it is killed
#              and counts as failed (exit 124)
#   NAME CMD   CMD runs under bash -c, started in the order given
# Exit status: 0 when every command exited 0, else 1.
set -uo pipefail

usage() { sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
jobs=4 dir= bound=2400
while getopts j:d:T: o; do
    case $o in j) jobs=$OPTARG ;; d) dir=$OPTARG ;; T) bound=$OPTARG ;;
               *) usage ;; esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || usage
[[ $jobs =~ ^[1-9][0-9]*$ && $bound =~ ^[1-9][0-9]*$ ]] || usage
[ -n "$dir" ] || dir=$(mktemp -d /tmp/pib-parallel.XXXXXX)
mkdir -p "$dir" || exit 2

names=() cmds=()
while [ $# -gt 0 ]; do names+=("$1"); cmds+=("$2"); shift 2; done
declare -A pidof rc secs t0
running=0 next=0 failed=0

stamp() { date +%H:%M:%S; }
start() {
    local i=$1 n=${names[$1]}
    # setsid: the command's process group is its own, so a bound or an
    # interrupt stops everything it started (httpd, node simulators).
    setsid timeout --kill-after=30 "$bound" bash -c "${cmds[$i]}" \
        >"$dir/$n.log" 2>&1 </dev/null &
    pidof[$!]=$i t0[$i]=$SECONDS
    running=$((running + 1))
    echo "[$(stamp)] $n: started (log $dir/$n.log)"
}
stop_all() {
    local p
    for p in "${!pidof[@]}"; do kill -TERM -- -"$p" 2>/dev/null; done
    exit 130
}
trap stop_all INT TERM

while [ $next -lt ${#names[@]} ] || [ $running -gt 0 ]; do
    while [ $running -lt "$jobs" ] && [ $next -lt ${#names[@]} ]; do
        start $next
        next=$((next + 1))
    done
    wait -n -p done_pid
    r=$?
    [ -n "${done_pid:-}" ] && [ -n "${pidof[$done_pid]+x}" ] || continue
    i=${pidof[$done_pid]}
    unset "pidof[$done_pid]"
    running=$((running - 1))
    rc[$i]=$r secs[$i]=$((SECONDS - t0[$i]))
    [ "$r" -eq 0 ] || failed=1
    echo "[$(stamp)] ${names[$i]}: $([ "$r" -eq 0 ] && echo ok || echo "FAILED (exit $r)") in ${secs[$i]} s"
done

for i in "${!names[@]}"; do
    printf '\n=== %s (exit %s, %s s)\n' "${names[$i]}" "${rc[$i]}" "${secs[$i]}"
    cat "$dir/${names[$i]}.log"
done
printf '\n=== summary (logs in %s)\n' "$dir"
for i in "${!names[@]}"; do
    printf '  %-16s %-8s %5s s\n' "${names[$i]}" \
        "$([ "${rc[$i]}" -eq 0 ] && echo ok || echo "FAILED")" "${secs[$i]}"
done
exit $failed
