#!/bin/bash
# build/run-tests.sh -- the one command that runs every test.
#
# On a fresh Debian 12 machine, as root: installs what is missing, builds
# both modules warning-free (-Werror), runs the C unit tests and the
# Apache::Test suite through a real httpd (children as an unprivileged
# user).  Exits non-zero if anything fails.  This is what CI runs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log() { printf '\n=== %s\n' "$*"; }

log "dependencies"
build/setup-deps.sh

# httpd's children run as an unprivileged user and must read t/.  A
# checkout under a private directory (mktemp -d is mode 0700) is not
# readable to them: then test a copy in a world-readable place.
if ! runuser -u nobody -- test -r "$top/t/TEST.PL" 2>/dev/null; then
    stage=/var/tmp/pibalance-test
    log "checkout not readable by 'nobody': testing a copy in $stage"
    rm -rf "$stage"
    mkdir -p "$stage"
    (cd "$top" && tar --exclude=./.git -cf - .) | (cd "$stage" && tar -xf -)
    chmod -R a+rX "$stage"
    cd "$stage"
fi

log "build"
[ -x configure ] && [ configure -nt configure.ac ] || autoconf
./configure --enable-werror >/dev/null
make -s clean
make -s all

log "C unit tests (make check)"
make -s check
log "the README's install path: make install, a2enmod, apache2ctl -t, /pi-status (build/install-test.sh)"
build/install-test.sh
log "libFuzzer targets, 20 s each (fuzz/run.sh --ci)"; fuzz/run.sh --ci

# The suite under each MPM: per-member statistics must be right across
# processes (prefork), threads (worker) and the event MPM alike.
for mpm in event worker prefork; do
    log "Apache::Test suite under the $mpm MPM (PIB_MPM=$mpm make test-httpd)"
    perl t/TEST -clean >/dev/null 2>&1 || true
    rm -f t/conf/base.conf
    PIB_MPM=$mpm make -s test-httpd
done

log "ASan+UBSan suite, event MPM (make sanitize)"; PIB_MPM=event build/sanitize.sh

log "cross-build and qemu smoke test: arm64, armv7, armv6 (build/cross.sh)"
build/cross.sh

log "all tests passed"
