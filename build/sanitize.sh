#!/bin/bash
# build/sanitize.sh -- the Apache::Test suite with both modules built with
# AddressSanitizer + UndefinedBehaviorSanitizer, httpd started with the
# ASan runtime preloaded; or (--valgrind) under valgrind memcheck with one
# process (httpd -X).
#
#   build/sanitize.sh                 ASan+UBSan pass (CI: event MPM)
#   build/sanitize.sh --valgrind      memcheck pass (not in CI: slow)
#   build/sanitize.sh [--valgrind] -verbose t/pistats/restart.t
#                                     some tests only (t/TEST arguments)
#
# Works in a scratch copy of the tree (/var/tmp/pib-sanitize, readable by
# the unprivileged user httpd's children run as), built through the
# Makefile's CFLAGS/LDFLAGS overrides.  Sanitizer reports are written per
# process to $out/asan.* (ASan, UBSan) or $out/vg.* (valgrind) and kept.
# Fails when a report has a frame in our code (a pis_/pib_ function or a
# mod_pistats/ mod_pibalance source) -- reports that are only httpd's,
# APR's or Perl's own are counted and listed, not failed on.  Apache::Test
# failures fail the ASan pass, not the valgrind one (timing under
# valgrind is not the suite's business).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=asan
[ "${1:-}" = "--valgrind" ] && mode=valgrind && shift
# Further arguments go to t/TEST (e.g. -verbose t/pistats/restart.t).
stage=${PIB_SANITIZE_DIR:-/var/tmp/pib-sanitize}-$mode
out=$stage/reports
port=${PIB_SANITIZE_PORT:-9700}
log() { printf '\n=== %s\n' "$*"; }

log "sanitize ($mode): scratch copy in $stage"
rm -rf "$stage"
mkdir -p "$stage"
(cd "$top" && tar --exclude=./.git --exclude=./fuzz/bin --exclude=./fuzz/obj \
    -cf - .) | (cd "$stage" && tar -xf -)
mkdir -p "$out"
chmod -R a+rX "$stage"
chmod 1777 "$out"                    # children run as nobody
cd "$stage" || exit 1

[ -x configure ] && [ configure -nt configure.ac ] || autoconf
./configure >/dev/null || exit 1
make -s clean >/dev/null
if [ $mode = asan ]; then
    san="-fsanitize=address,undefined -fsanitize-recover=address,undefined"
    make -s all CFLAGS="-g -O1 -fno-omit-frame-pointer $san" \
        LDFLAGS="$san" || exit 1
else
    make -s all CFLAGS="-g -O1 -fno-omit-frame-pointer" || exit 1
fi

# httpd through a wrapper, so only the server gets the runtime (not the
# Perl test client).
httpd=$(apxs -q SBINDIR)/$(apxs -q TARGET)
wrap=$stage/httpd-$mode
if [ $mode = asan ]; then
    libasan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
    cat >"$wrap" <<EOW
#!/bin/sh
# detect_leaks=0: httpd frees its pools at exit only in part, by design.
export LD_PRELOAD=$libasan
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=0:log_path=$out/asan:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0:log_path=$out/ubsan
exec $httpd "\$@"
EOW
else
    cat >"$wrap" <<EOW
#!/bin/sh
case " \$* " in
    *" -X "*|*" ONE_PROCESS "*) exec valgrind --tool=memcheck --error-exitcode=0 \\
                  --trace-children=no --num-callers=30 \\
                  --log-file=$out/vg.%p $httpd "\$@" ;;
esac
exec $httpd "\$@"
EOW
fi
chmod 755 "$wrap"

log "Apache::Test suite ($mode, port $port)"
perl t/TEST -clean >/dev/null 2>&1 || true
rm -f t/conf/base.conf
perl -MApache::TestMM -e 'Apache::TestMM::generate_script("t/TEST")' \
    >/dev/null 2>&1
extra=""
[ $mode = valgrind ] && extra="-one-process -startup_timeout 180"
# shellcheck disable=SC2086
PIB_MPM=${PIB_MPM:-event} perl t/TEST -port "$port" -apxs "$(command -v apxs)" \
    -httpd "$wrap" $extra "$@" 2>&1 | tee "$out/suite.log"
suite=${PIPESTATUS[0]}
cp t/logs/error_log "$out/error_log" 2>/dev/null

log "reports"
ours='pis_[a-z_]*|pib_[a-z_]*|mod_pistats/|mod_pibalance/'
nrep=0; nours=0
for f in "$out"/asan.* "$out"/ubsan.* "$out"/vg.*; do
    [ -e "$f" ] || continue
    if [ $mode = valgrind ]; then
        n=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$f" | tail -1)
        n=${n:-0}
        echo "$f: $n valgrind errors"
        [ "$n" -gt 0 ] || continue
    else
        n=$(grep -c -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$f")
        echo "$f: $n reports"
    fi
    nrep=$((nrep + n))
    if grep -Eq "$ours" "$f"; then
        nours=$((nours + 1))
        echo "--- $f has frames in our code:"
        grep -E -B2 -A2 "$ours" "$f" | head -40
    fi
done
# UBSan without log_path falls back to stderr: httpd's error_log.
ube=$(grep -E 'runtime error:' "$out/error_log" 2>/dev/null | grep -Ec "$ours")
nours=$((nours + ube))
echo "sanitize ($mode): suite exit $suite; $nrep reports in all," \
     "$nours touching mod_pistats/mod_pibalance; reports in $out"
[ "$nours" -eq 0 ] || exit 1
[ $mode = valgrind ] || [ "$suite" -eq 0 ] || exit 1
exit 0
