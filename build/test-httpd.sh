#!/bin/bash
# build/test-httpd.sh -- `make test-httpd`: the Apache::Test suite (t/TEST)
# through a real httpd, in this tree; or, when httpd's children could not
# read the tree (started as root, a checkout under /root or another
# private directory: build/readable.sh), in a world-readable copy of the
# built tree, which it names, and whose logs (t/logs) stay there.
#
# Usage: build/test-httpd.sh PERL APXS [t/TEST arguments...]
# Environment: APACHE_TEST_PORT (the suite's first port; it also names
#   the copy), PIB_TEST_HTTPD_DIR (the copy, default
#   /var/tmp/pib-test-httpd-PORT; emptied first).
# Exit status: t/TEST's (2 when the copy cannot be made).
set -uo pipefail

[ $# -ge 2 ] || { sed -n '8,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
perl=$1 apxs=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=build/readable.sh
source "$top/build/readable.sh"
cd "$top" || exit 2

if ! pib_private "$top/t/TEST.PL"; then
    # shellcheck disable=SC2086 # PERL may carry options, as make's does
    exec $perl t/TEST -apxs "$apxs" "$@"
fi
stage=${PIB_TEST_HTTPD_DIR:-/var/tmp/pib-test-httpd-${APACHE_TEST_PORT:-8529}}
echo "test-httpd: $(pib_private_msg 'the tree' "$top"): testing a copy" \
     "in $stage" >&2
# shellcheck disable=SC2086 # a list of paths
pib_copy_tree "$top" "$stage" $PIB_COPY_SKIP \
    || { echo "test-httpd: cannot copy the tree to $stage" >&2; exit 2; }
cd "$stage" || exit 2
# shellcheck disable=SC2086
$perl t/TEST -clean >/dev/null 2>&1
rm -f t/conf/base.conf
# shellcheck disable=SC2086
$perl t/TEST -apxs "$apxs" "$@"
rc=$?
echo "test-httpd: the suite ran in a copy, $stage (logs: $stage/t/logs)" >&2
exit $rc
