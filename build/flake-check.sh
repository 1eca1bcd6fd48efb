#!/bin/bash
# build/flake-check.sh -- runs the Apache::Test suite N times in a row while
# a CPU hog keeps every core busy, and prints passes and failures per test
# file.  A test that fails here assumes how fast the machine is.
#
# Usage: build/flake-check.sh [-m "event worker prefork"] [-p] [-j HOGS]
#                             [-T SECONDS] N [TEST-FILE...]
#        build/flake-check.sh -r LOGDIR     the table of a check again
#   N         runs of the suite (each: every MPM of -m, one after the other)
#   -m MPMS   the MPMs to run under, in order (default: event)
#   -p        the MPMs of a run at once, as build/run-tests.sh runs them
#             (build/suite-pass.sh: a copy each, ports 100 apart)
#   -j HOGS   busy loops at nice 0 (default: one per core, nproc; 0: none)
#   -T SECS   bound on the whole check (default: 1800 s a suite pass); the
#             hogs die at this bound even if this script is killed
#   TEST-FILE run only these files (t/TEST arguments), e.g. t/pibalance/*.t
# Environment: APACHE_TEST_PORT (the suite's first port, ~30 above it used).
#
# Installs what is missing (build/setup-deps.sh, as build/run-tests.sh),
# builds once (./configure --enable-werror, make all, make check), then
# each run is `perl t/TEST -clean; PIB_MPM=mpm make test-httpd`, its output
# kept in a log under a fresh directory printed at the start and the end.
# Prints a table: per test file and MPM, passes/runs, and the failed test
# numbers of each failing run.  Exit 0 when every run of every file passed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
usage() { sed -n '6,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

say() { printf 'flake-check: %s\n' "$*"; }

# parse_log RUN MPM EXIT LOG: one line per test file the run's log names,
# "RUN MPM FILE pass -" or "RUN MPM FILE fail WHAT"; a "(run)" line when
# the run failed without naming a file (no server, timeout).  Files come
# from the "t/<dir>/<name>.t ..... ok" lines and the summary report
# ("t/<dir>/<name>.t   (Wstat:
# ... Failed: 2)" then "  Failed tests:  12, 14" / "  Non-zero exit ...").
parse_log() {
    awk -v run="$1" -v mpm="$2" -v rc="$3" '
        function add(f) { if (!(f in seen)) { seen[f] = 1; order[++n] = f } }
        /^t\/[^ ]+\.t \.+/ { add($1) }
        /^Test Summary Report/ { rep = 1; next }
        rep && /^t\/[^ ]+\.t +\(/ { cur = $1; bad[cur] = ""; nbad++; add(cur)
                                    next }
        rep && cur != "" && /^  (Failed tests?|Non-zero|Parse errors)/ {
            s = $0; sub(/^ +/, "", s); gsub(/ +/, " ", s)
            bad[cur] = bad[cur] (bad[cur] == "" ? "" : "; ") s; next }
        rep && /^Files=/ { rep = 0 }
        END {
            for (k = 1; k <= n; k++) {
                f = order[k]
                if (f in bad)
                    printf "%s %s %s fail %s\n", run, mpm, f,
                           (bad[f] == "" ? "-" : bad[f])
                else
                    printf "%s %s %s pass -\n", run, mpm, f
            }
            if (n == 0 || (rc != 0 && nbad == 0))
                printf "%s %s (run) fail exit-%s\n", run, mpm, rc
        }' "$4"
}

# print_table MPMS RESULTS: per test file and MPM, passes/runs; then every
# failure with its run and what failed.
print_table() {
    awk -v mpms="$1" '
        BEGIN { nm = split(mpms, M, " ") }
        $4 == "notrun" { next }
        { key = $3 SUBSEP $2; runs[key]++; if (!($3 in seen)) { seen[$3] = 1; files[++nf] = $3 }
          if ($4 == "pass") pass[key]++
          else { fails[$3] = fails[$3] sprintf("\n    run %s %s: %s", $1, $2,
                                              substr($0, index($0, $5))) ; bad++ } }
        END {
            printf "%-34s", "test file"
            for (j = 1; j <= nm; j++) printf " %14s", M[j] " pass/runs"
            printf "\n"
            for (i = 1; i <= nf; i++) {
                printf "%-34s", files[i]
                for (j = 1; j <= nm; j++) {
                    key = files[i] SUBSEP M[j]
                    if (key in runs) printf " %14s", (pass[key] + 0) "/" runs[key]
                    else printf " %14s", "-"
                }
                printf "\n"
            }
            if (bad) {
                printf "\nfailures:"
                for (i = 1; i <= nf; i++) if (files[i] in fails) printf "\n  %s%s", files[i], fails[files[i]]
                printf "\n"
            }
        }' "$2"
}

# report LOGDIR: the table again, from a check's run logs.
report() {
    local dir=$1 f i m rc res mpms=""
    [ -d "$dir" ] || usage
    res=$(mktemp)
    for f in $(ls "$dir" | grep -E '^run-[0-9]+-[a-z]+\.log$' | sort -t- -k2,2n); do
        i=${f#run-}; i=${i%%-*}
        m=${f#run-*-}; m=${m%.log}
        case " $mpms " in *" $m "*) ;; *) mpms="$mpms $m" ;; esac
        grep -q '^Result: PASS' "$dir/$f" && rc=0 || rc=1
        parse_log "$i" "$m" "$rc" "$dir/$f" >> "$res"
    done
    [ -s "$dir/runs" ] && { cat "$dir/runs"; echo; }
    print_table "${mpms# }" "$res"
    awk '$4 != "pass" { bad = 1 } END { exit bad }' "$res"
    rc=$?
    rm -f "$res"
    exit $rc
}

mpms=event
hogs=$(nproc)
total=""
parallel=0
while getopts "m:pj:T:r:h" opt; do
    case $opt in
        r) report "$OPTARG" ;;
        m) mpms=$OPTARG ;;
        p) parallel=1 ;;
        j) hogs=$OPTARG ;;
        T) total=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
runs=$1
shift
case "$runs$hogs${total:-0}" in *[!0-9]*) usage ;; esac
[ "$runs" -ge 1 ] || usage
for m in $mpms; do
    case $m in event | worker | prefork) ;; *) usage ;; esac
done
npass=$(echo $mpms | wc -w)
[ $parallel = 1 ] && npass=1
total=${total:-$((runs * npass * 1800))}

logdir=$(mktemp -d "${TMPDIR:-/tmp}/flake-check.XXXXXX")
chmod 755 "$logdir"
say "logs in $logdir"

# what the suite needs, as build/run-tests.sh installs it (the browser
# test's puppeteer-core lives in build/browser/: installed
# before a private checkout is copied, as build/run-tests.sh does)
say "dependencies (build/setup-deps.sh)"
build/setup-deps.sh > "$logdir/deps.log" 2>&1 ||
    { say "FAILED: build/setup-deps.sh, see $logdir/deps.log"; exit 2; }
# httpd's children must read t/: as build/run-tests.sh, test a copy in a
# world-readable place when the checkout is private.
# shellcheck source=build/readable.sh
source "$top/build/readable.sh"
if pib_private "$top/t/TEST.PL"; then
    stage=$logdir/tree
    say "$(pib_private_msg 'the checkout' "$top"): testing a copy in $stage"
    # shellcheck disable=SC2086 # a list of paths
    pib_copy_tree "$top" "$stage" $PIB_COPY_SKIP || exit 2
    cd "$stage" || exit 2
fi

say "build (once)"
{ [ -x configure ] && [ configure -nt configure.ac ] || autoconf; } &&
    ./configure --enable-werror > "$logdir/build.log" 2>&1 &&
    make -s all >> "$logdir/build.log" 2>&1 &&
    make -s check >> "$logdir/build.log" 2>&1 ||
    { say "FAILED: build or unit tests, see $logdir/build.log"; exit 2; }

# -- the CPU hog: busy loops at nice 0, each bounded by the total time ----
hog_pids=()
stop_hogs() {
    local p
    for p in "${hog_pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${hog_pids[@]}"; do      # disowned: wait by hand, 10 s
        for _ in $(seq 1 100); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
    done
    hog_pids=()
}
stop_suite() {                  # an httpd a killed run left behind
    perl t/TEST -stop-httpd > /dev/null 2>&1
}
trap 'stop_hogs; stop_suite' EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP
for _ in $(seq 1 "$hogs"); do
    timeout -s KILL "$total" nice -n 0 bash -c 'while :; do :; done' &
    hog_pids+=($!)
    disown $!                   # no "Killed" notice when the bound hits
done
say "$hogs busy loop(s) running (pids ${hog_pids[*]:-none}), up to ${total}s"

# -- the runs --------------------------------------------------------------
start=$(date +%s)
results=$logdir/results             # run mpm file verdict failed-tests
: > "$results"
printf '%-5s %-8s %8s  %s\n' run mpm seconds result > "$logdir/runs"
# finish_run RUN MPM RC SECS LOG: the run's verdict into the results
finish_run() {
    local i=$1 mpm=$2 rc=$3 secs=$4 log=$5 nfail verdict
    parse_log "$i" "$mpm" "$rc" "$log" >> "$results"
    nfail=$(awk -v r="$i" -v m="$mpm" '$1 == r && $2 == m && $4 == "fail"' \
            "$results" | wc -l)
    verdict=$([ "$rc" -eq 0 ] && echo ok || echo "FAIL (exit $rc, $nfail)")
    [ "$rc" -eq 124 ] && verdict="FAIL (timed out)"
    printf '%-5s %-8s %8s  %s\n' "$i" "$mpm" "$secs" "$verdict" \
        >> "$logdir/runs"
    say "run $i/$runs $mpm: ${secs}s, $verdict ($log)"
}
# parallel_run RUN LEFT: every MPM at once, each in its own copy
parallel_run() {
    local i=$1 left=$2 k=0 mpm t0 pids=() rcs=()
    local base=${APACHE_TEST_PORT:-8529}
    t0=$(date +%s)
    for mpm in $mpms; do
        PIB_PASS_DIR=$logdir/pass-$mpm timeout -s TERM "$left" \
            "$PWD/build/suite-pass.sh" "$mpm" $((base + 100 * k)) "$@" \
            > "$logdir/run-$i-$mpm.log" 2>&1 &
        pids+=($!)
        k=$((k + 1))
    done
    for k in "${!pids[@]}"; do wait "${pids[$k]}"; rcs[$k]=$?; done
    k=0
    for mpm in $mpms; do
        [ "${rcs[$k]}" -eq 124 ] &&      # an httpd the killed pass left
            (cd "$logdir/pass-$mpm" && perl t/TEST -stop-httpd) >/dev/null 2>&1
        finish_run "$i" "$mpm" "${rcs[$k]}" $(( $(date +%s) - t0 )) \
            "$logdir/run-$i-$mpm.log"
        k=$((k + 1))
    done
}
for i in $(seq 1 "$runs"); do
    if [ $parallel = 1 ]; then
        left=$((start + total - $(date +%s)))
        if [ "$left" -le 60 ]; then
            say "run $i: not started, the ${total}s bound is reached"
            for mpm in $mpms; do echo "$i $mpm (run) notrun -" >> "$results"; done
            continue
        fi
        parallel_run "$i" "$left" "$@"
        continue
    fi
    for mpm in $mpms; do
        left=$((start + total - $(date +%s)))
        log=$logdir/run-$i-$mpm.log
        if [ "$left" -le 60 ]; then
            say "run $i $mpm: not started, the ${total}s bound is reached"
            echo "$i $mpm (run) notrun -" >> "$results"
            continue
        fi
        perl t/TEST -clean > /dev/null 2>&1
        rm -f t/conf/base.conf
        t0=$(date +%s)
        PIB_MPM=$mpm timeout -s TERM "$left" \
            make -s test-httpd TEST_ARGS="$*" > "$log" 2>&1
        rc=$?
        [ "$rc" -eq 124 ] && stop_suite
        finish_run "$i" "$mpm" "$rc" $(( $(date +%s) - t0 )) "$log"
    done
done
stop_hogs

# -- the table -------------------------------------------------------------
echo
cat "$logdir/runs"
echo
print_table "$mpms" "$results"
echo
elapsed=$(( $(date +%s) - start ))
if awk '$4 != "pass" { bad = 1 } END { exit !bad }' "$results"; then
    say "FAILURES in ${elapsed}s; logs in $logdir"
    exit 1
fi
say "all $runs run(s) green under $mpms with $hogs busy loop(s), ${elapsed}s; logs in $logdir"
exit 0
