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
      zlib1g-dev libdeflate-dev autoconf make gcc curl perl procps openssl
      clang libclang-rt-14-dev prometheus
      debhelper dpkg-dev fakeroot lintian"
BENCH_PKGS="wrk haproxy nginx-light varnish"

case "${1:-}" in
    bench) PKGS="$PKGS $BENCH_PKGS" ;;
    valgrind) PKGS="$PKGS valgrind" ;;
    "") ;;
    *) echo "usage: $0 [bench|valgrind]" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
            | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

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
echo "setup-deps: done"
