#!/bin/bash
# bench/compare-commits.sh -- the modules of two commits side by side in
# one run of bench/run.sh --quick and of bench/offload.sh (issue 17: "no
# behaviour changes ... before and after").
#
#   bench/compare-commits.sh BASE [HEAD]
#
# BASE and HEAD are commits of this repository; without HEAD the other
# side is this tree as it is (make all is run in it first; uncommitted
# changes count).  Each commit is exported (git archive, no
# worktree is registered) into a temporary directory and built there
# (./configure && make all); this tree's bench/ scripts then run with
# --baseline BASE's build, so every Apache measurement is made twice,
# back to back, with HEAD's and with BASE's modules, and print ratios
# HEAD / BASE.  On a shared, noisy machine only these ratios of adjacent
# runs mean anything; two builds of the same code show how far they
# stray from 1.00 by noise alone.
#
# Writes: bench/RESULTS-run-quick.md (with a "This tree beside a baseline
# build" section) and two new bench/results/<date>-<time>-{run-quick,
# offload}/ directories.  Prints the ratio tables at the end.  Needs root
# (like run.sh and offload.sh).  Takes about 5 minutes plus the builds:
#   COMPARE_OFFLOAD_SECS=N   seconds of each offload.sh run (default 3)
#   COMPARE_OVERHEAD=1       also bench/run.sh --overhead --baseline (5
#                            alternating repetitions, ~3 more minutes)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: $0 BASE [HEAD]}
head=${2:-}
tmp=$(mktemp -d /tmp/pib-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

build() {                       # build COMMIT DIR: export and build
    local sha
    sha=$(git -C "$top" rev-parse --short "$1^{commit}")
    mkdir -p "$2"
    git -C "$top" archive "$sha" | tar -x -C "$2"
    echo "$sha" > "$2/.pib-commit"
    log "building $sha in $2"
    (cd "$2" && autoconf && ./configure >/dev/null && make -s all) \
        > "$2.build.log" 2>&1 \
        || { tail -20 "$2.build.log" >&2; return 1; }
}

t0=$SECONDS
build "$base" "$tmp/base"
if [ -n "$head" ]; then
    build "$head" "$tmp/head"
    export PIB_MODULES=$tmp/head
else
    # this tree: make brings stale modules up to date
    (cd "$top" && { [ -f Makefile ] || { autoconf && ./configure; }; } \
        && make -s all) >/dev/null
fi
log "built in $((SECONDS - t0)) s"

log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
t1=$SECONDS
"$top/bench/run.sh" --baseline "$tmp/base" --quick
log "run.sh --quick --baseline: $((SECONDS - t1)) s"
t2=$SECONDS
offload_out=$("$top/bench/offload.sh" --baseline "$tmp/base" \
                  "${COMPARE_OFFLOAD_SECS:-3}" | tee >(cat >&2))
log "offload.sh --baseline: $((SECONDS - t2)) s"
if [ "${COMPARE_OVERHEAD:-0}" = 1 ]; then
    t3=$SECONDS
    overhead_out=$("$top/bench/run.sh" --baseline "$tmp/base" --overhead \
                       | tee >(cat >&2))
    log "run.sh --overhead --baseline: $((SECONDS - t3)) s"
fi

echo
echo "== bench/run.sh --quick (bench/RESULTS-run-quick.md)"
sed -n '/^## This tree beside a baseline build/,/^## Targets/p' \
    "$top/bench/RESULTS-run-quick.md" | sed '$d'
echo "== bench/offload.sh $(head -1 <<<"$offload_out" | sed 's/^# bench\/offload.sh //')"
awk '/^## /{print; next} /^This tree/{on = 1} on && /^$/ && n++ > 0 {on = 0; n = 0}
     on' <<<"$offload_out"
if [ -n "${overhead_out:-}" ]; then
    echo
    echo "== bench/run.sh --overhead"
    sed -n '/^this tree \/ baseline/,$p' <<<"$overhead_out"
fi
log "compare-commits: $((SECONDS - t0)) s in all; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
