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
# checkout under a private directory (/root, mode 700; mktemp -d) is not
# readable to them: then test a copy in a world-readable place (with the
# cross-builds' cache, build/cross, if there is one).
# shellcheck source=build/readable.sh
source "$top/build/readable.sh"
if pib_private "$top/t/TEST.PL"; then
    stage=/var/tmp/pibalance-test-${APACHE_TEST_PORT:-8529}
    log "$(pib_private_msg 'the checkout' "$top"): testing a copy in $stage"
    pib_copy_tree "$top" "$stage"
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

# Then, at once (each in a copy of its own, on ports of its own; the
# suites wait on conditions with bounded deadlines, so a busy machine slows
# them but does not fail them):
#  - the suite under each MPM: per-member statistics must be right across
#    processes (prefork), threads (worker) and the event MPM alike;
#  - the suite with ASan+UBSan (event MPM);
#  - the libFuzzer targets, 20 s each;
#  - the cross-builds and the qemu smoke test (arm64, armv7, armv6), then
#    the Debian packages (amd64, arm64, armhf; lintian) and the install
#    test again through the amd64 packages (apt-get install, then purge).
# PIB_TEST_JOBS bounds how many run at once (default: all six).
base=${APACHE_TEST_PORT:-8529}
# Checks that do not depend on the MPM or on a sanitizer (the docs, the log
# tags, the exported symbols, make's targets, the alert rules and the
# dashboard, a real Prometheus scraping the page, the page in a real
# browser, the tree started from a private directory) run in the event
# pass only; the worker, prefork and ASan passes
# take every other test file.
once='config/(alerts|anywhere|dashboard|design_tree|docs|logtags|make|masters_prom|openloop|prometheus_server|soak_report|symbols)|pistats/browser|offload/dictionary_browser'
per_mpm=$(ls t/*/*.t | grep -Ev "^t/($once)\.t\$" | tr '\n' ' ')
log "suites (event, worker, prefork, ASan), fuzzing, cross-builds: ${PIB_TEST_JOBS:-6} at once (build/parallel.sh)"
build/parallel.sh -j "${PIB_TEST_JOBS:-6}" -T 3600 \
    suite-event   "build/suite-pass.sh event $base" \
    suite-worker  "build/suite-pass.sh worker $((base + 100)) $per_mpm" \
    suite-prefork "build/suite-pass.sh prefork $((base + 200)) $per_mpm" \
    asan-event    "PIB_MPM=event PIB_SANITIZE_PORT=$((base + 300)) build/sanitize.sh $per_mpm" \
    fuzz          "fuzz/run.sh --ci" \
    cross-deb     "build/cross.sh && PIB_DEB_NOCHECK=1 build/deb.sh && build/install-test.sh --deb build/deb/out"

log "all tests passed"
