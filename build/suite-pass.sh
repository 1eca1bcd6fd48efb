#!/bin/bash
# build/suite-pass.sh -- one pass of the Apache::Test suite under one MPM,
# in a scratch copy of the built tree, so that several passes can run at
# once (build/run-tests.sh, build/flake-check.sh -p).
#
# Usage: build/suite-pass.sh MPM PORT [t/TEST arguments...]
#   MPM    event, worker or prefork (PIB_MPM)
#   PORT   the suite's first port (APACHE_TEST_PORT); it takes ~40 above
#          it, so passes at once need bases at least 100 apart
# Environment: PIB_PASS_DIR (default /var/tmp/pib-suite-MPM-PORT), the
#   scratch copy; removed before the pass, kept after it (logs).
#
# The tree must be built (make all): the copy takes its modules as they
# are (tar keeps the times, so make finds nothing to rebuild).  The copy
# is world-readable because httpd's children run as an unprivileged user.
# Exit status: that of the pass (0: every test passed).
set -uo pipefail

[ $# -ge 2 ] || { sed -n '6,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
mpm=$1 port=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${PIB_PASS_DIR:-/var/tmp/pib-suite-$mpm-$port}

case $mpm in event|worker|prefork) ;; *) echo "suite-pass: MPM $mpm?" >&2
                                         exit 2 ;; esac
for so in mod_pibalance/mod_pibalance.so mod_pistats/mod_pistats.so; do
    [ -f "$top/$so" ] || { echo "suite-pass: $so not built" >&2; exit 2; }
done

# shellcheck source=build/readable.sh
source "$top/build/readable.sh"
# shellcheck disable=SC2086 # a list of paths
pib_copy_tree "$top" "$dir" $PIB_COPY_SKIP || exit 2
cd "$dir" || exit 2
perl t/TEST -clean >/dev/null 2>&1
rm -f t/conf/base.conf
# Verbose, kept whole in suite.log; printed brief, with what each failed
# test compared (build/tap-brief.pl).  -verbose given: printed whole.
brief="perl $top/build/tap-brief.pl"
case " $* " in *" -verbose "*) brief="cat" ;; esac
APACHE_TEST_PORT=$port PIB_MPM=$mpm make -s test-httpd \
    TEST_ARGS="-verbose $*" 2>&1 | tee "$dir/suite.log" | $brief
exit "${PIPESTATUS[0]}"
