#!/bin/sh
# build/setup-deps.sh -- installs every Debian package this project needs.
#
# Idempotent: installs only what is missing, and says nothing when all is
# present.  Must run as root (it calls apt-get).  Usage:
#   build/setup-deps.sh            build + test dependencies
#   build/setup-deps.sh bench      also the benchmark peers (wrk, haproxy, nginx,
#                                  varnish)
#   build/setup-deps.sh valgrind   also valgrind (make valgrind)
set -eu

PKGS="apache2 apache2-dev libapache2-mod-perl2 libwww-perl libjson-pp-perl
      zlib1g-dev libdeflate-dev libzstd-dev libbrotli-dev libssl-dev zstd brotli
      autoconf make gcc curl perl procps openssl
      clang libclang-rt-14-dev prometheus chromium libfaketime
      debhelper dpkg-dev fakeroot lintian"
BENCH_PKGS="wrk haproxy nginx-light varnish linux-perf valgrind"
# ISA-L (igzip for gzip) is optional, and Debian has it for amd64 and
# arm64 only: elsewhere the build falls back to libdeflate and zlib.
case "$(dpkg --print-architecture 2>/dev/null)" in
    amd64|arm64) PKGS="$PKGS libisal-dev" ;;
esac

case "${1:-}" in
    bench) PKGS="$PKGS $BENCH_PKGS" ;;
    valgrind) PKGS="$PKGS valgrind" ;;
    "") ;;
    *) echo "usage: $0 [bench|valgrind]" >&2; exit 2 ;;
esac

# The browser test (t/pistats/browser.t) drives Debian's chromium (in
# PKGS) with the npm package puppeteer-core, pinned, installed into
# build/browser/ (never a browser download: PUPPETEER_SKIP_DOWNLOAD).
# Without node and npm (this machine's own, else Debian's) it installs
# them.
PUPPETEER_VERSION=24.43.1
browser_driver() {
    dir="$(cd "$(dirname "$0")" && pwd)/browser"
    pkg="$dir/node_modules/puppeteer-core/package.json"
    if [ -f "$pkg" ] && grep -q "\"version\": \"$PUPPETEER_VERSION\"" "$pkg"; then
        return 0
    fi
    if ! command -v npm >/dev/null; then
        echo "setup-deps: installing Debian's nodejs and npm (puppeteer-core)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends nodejs npm >/dev/null
    fi
    echo "setup-deps: installing puppeteer-core $PUPPETEER_VERSION into $dir"
    mkdir -p "$dir"
    PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$dir" --no-save \
        --no-audit --no-fund --loglevel=error \
        "puppeteer-core@$PUPPETEER_VERSION" >/dev/null
}

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
            | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    browser_driver
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "setup-deps: missing Debian packages:$missing" >&2
    echo "setup-deps: run this script as root (sudo $0) to install them" >&2
    exit 1
fi

echo "setup-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
# prometheus is here for promtool (the suite checks the alert rules) and
# for one test's own Prometheus on a free 127.0.0.1 port: the system
# service its package starts (on :9090) is not ours to leave running.
case " $missing " in
    *" prometheus "*)
        if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
            systemctl disable --now prometheus >/dev/null 2>&1 || true
        fi ;;
esac
browser_driver
echo "setup-deps: done"
