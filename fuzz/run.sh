#!/bin/bash
# fuzz/run.sh -- builds the libFuzzer targets and runs them.
#
#   fuzz/run.sh --ci              each target 20 s (CI; fails on any finding)
#   fuzz/run.sh [-t SECONDS] [-n RUNS] [-j JOBS] [-T TIMEOUT] [target...]
#                                 long runs: up to RUNS executions or
#                                 SECONDS per target (default 10 million,
#                                 300 s), every target unless named;
#                                 -j: JOBS fuzzer processes at once on
#                                 the same corpus, RUNS/JOBS each (the
#                                 executions printed are their sum);
#                                 -T: per-input wall-clock timeout
#                                 (default 10 s; raise it when the run
#                                 may be paused, e.g. by SIGSTOP while a
#                                 benchmark measures)
#
# Seeds come from fuzz/corpus/<target>/ (committed, read only); inputs
# the fuzzer finds go to a scratch corpus under $FUZZ_WORK (default
# /tmp/pib-fuzz), crash inputs to $FUZZ_WORK/<target>/artifacts/.  Exits
# non-zero if any target reports a crash, a leak, a sanitizer report, a
# timeout or an out-of-memory.  Each run is bounded by time and by runs.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=${FUZZ_WORK:-/tmp/pib-fuzz}
secs=300
runs=10000000
jobs=1
timeout=10
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) secs=20; runs=100000000 ;;
        -t) secs=$2; shift ;;
        -n) runs=$2; shift ;;
        -j) jobs=$2; shift ;;
        -T) timeout=$2; shift ;;
        -*) echo "usage: $0 [--ci] [-t SECONDS] [-n RUNS] [-j JOBS] [-T TIMEOUT] [target...]" >&2
            exit 2 ;;
        *) targets+=("$1") ;;
    esac
    shift
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_telemetry fuzz_ae fuzz_etag
                                     fuzz_directives fuzz_render fuzz_codec
                                     fuzz_agent fuzz_sf fuzz_dict)

make -s -C "$here" "${targets[@]/#/bin/}" >/dev/null || { echo "fuzz: build failed" >&2; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fail=0
printf '%-16s %12s %10s %8s  %s\n' target executions exec/s seconds result
for t in "${targets[@]}"; do
    dir="$work/$t"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    log="$dir/log"
    start=$(date +%s)
    rm -f "$dir"/fuzz-*.log
    # -max_total_time and -runs bound the run; -timeout per input.
    if [ "$jobs" -gt 1 ]; then
        # Independent processes on one corpus directory (each reloads
        # what the others add); libFuzzer writes fuzz-<n>.log in the
        # working directory.
        (cd "$dir" && "$here/bin/$t" -jobs="$jobs" -workers="$jobs" \
            -max_total_time="$secs" -runs=$(( (runs + jobs - 1) / jobs )) \
            -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$dir/artifacts/" \
            "$dir/corpus" "$here/corpus/$t") >"$log" 2>&1
        rc=$?
        cat "$dir"/fuzz-*.log >>"$log"
        stats=("$dir"/fuzz-*.log)
    else
        "$here/bin/$t" -max_total_time="$secs" -runs="$runs" \
            -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$dir/artifacts/" \
            "$dir/corpus" "$here/corpus/$t" >"$log" 2>&1
        rc=$?
        stats=("$log")
    fi
    el=$(( $(date +%s) - start ))
    execs=0
    for f in "${stats[@]}"; do
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
        execs=$(( execs + ${n:-0} ))
    done
    [ "$execs" -gt 0 ] || execs='?'
    eps=$([ "$execs" != '?' ] && [ "$el" -gt 0 ] && echo $(( execs / el )))
    if [ $rc -ne 0 ] || grep -q -e 'ERROR: AddressSanitizer' \
            -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
            -e 'FUZZ ASSERT' "$log"; then
        result="FAILED (rc $rc, log $log)"
        fail=1
    else
        result=ok
    fi
    printf '%-16s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${eps:-?}" \
        "$el" "$result"
    if [ "$result" != ok ]; then
        grep -m 20 -e ERROR -e 'runtime error' -e 'FUZZ ASSERT' \
            -e '^    #' "$log" | head -40 >&2
        ls "$dir/artifacts" >&2
    fi
done
exit $fail
