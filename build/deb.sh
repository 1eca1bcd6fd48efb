#!/bin/bash
# build/deb.sh -- Debian packages of both modules: libapache2-mod-pibalance
# and libapache2-mod-pistats, and of pi-telemetry-agent (a node's
# telemetry without Apache), for amd64, arm64 and armhf (make deb).
#
# Usage (as root, on Debian 12 amd64):
#   build/deb.sh [ARCH...]      ARCH: amd64 arm64 armhf (default: all three)
#
# Each package is built by dpkg-buildpackage (debhelper, dh_apache2) from
# a scratch copy of the tree: amd64 natively (configure, make, make check);
# arm64 and armhf cross (`-a ARCH -d`, debian/rules takes the modules from
# build/cross.sh, armhf built for ARMv6 so it runs on every 32-bit Pi),
# with the library dependencies of the native build (the same Debian
# release has the same library versions on every architecture).  Every
# package is checked with lintian: an error fails the build.
# Output: build/deb/out/*.deb (and each build's log).
#   sudo apt install ./build/deb/out/libapache2-mod-p*_amd64.deb
# installs both and enables them (a2enmod pibalance pistats is then a
# no-op).
# Environment: CROSS_DIR (build/cross.sh's cache, default build/cross);
#   PIB_DEB_NOCHECK=1: the amd64 build skips `make check` (nocheck), for a
#   caller that has just run the unit tests on the same tree
#   (build/run-tests.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=build/readable.sh
source "$top/build/readable.sh"
out=$top/build/deb/out
export CROSS_DIR=${CROSS_DIR:-$top/build/cross}
say() { printf 'deb: %s\n' "$*"; }

archs=${*:-amd64 arm64 armhf}
for a in $archs; do
    case $a in
        amd64|arm64|armhf) ;;
        *) sed -n '5,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[ "$(dpkg --print-architecture)" = amd64 ] ||
    { say "builds on amd64 only (the cross sysroots are amd64's)"; exit 2; }
need=""
for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian \
         fakeroot:fakeroot; do
    command -v "${t%%:*}" >/dev/null || need="$need ${t#*:}"
done
[ -z "$need" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends $need >/dev/null

mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.log "$out"/*.lintian "$out"/lintian.txt

# build ARCH: one dpkg-buildpackage in a fresh copy; the .debs to $out.
build() {
    local arch=$1 work log=$out/build-$1.log
    work=$(mktemp -d /tmp/pib-deb.XXXXXX)
    # shellcheck disable=SC2086 # a list of paths
    pib_copy_tree "$top" "$work/src" $PIB_COPY_SKIP
    (cd "$work/src" && make -s distclean >/dev/null 2>&1 || true)
    local opts="-b -us -uc"
    [ "$arch" = amd64 ] || opts="$opts -a$arch -d"
    say "$arch: dpkg-buildpackage $opts (log $log)"
    if ! (cd "$work/src" &&
          DEB_BUILD_OPTIONS="noautodbgsym${PIB_DEB_NOCHECK:+ nocheck}" \
              dpkg-buildpackage $opts) \
            > "$log" 2>&1; then
        tail -30 "$log"
        say "FAILED: $arch (log $log)"
        rm -rf "$work"
        return 1
    fi
    if [ "$arch" = amd64 ]; then
        sed -n 's/^shlibs:Depends=//p' \
            "$work/src/debian/libapache2-mod-pibalance.substvars" \
            > "$out/shlibs-depends"
        sed -n 's/^shlibs:Depends=//p' \
            "$work/src/debian/pi-telemetry-agent.substvars" \
            > "$out/shlibs-depends-agent"
    fi
    mv "$work"/*.deb "$out/"
    rm -rf "$work"
}

# shlibs_for ARCH: the native build's dependencies of the modules, less
# ISA-L where Debian has none (armhf: the build falls back to libdeflate
# and zlib, build/cross.sh).
shlibs_for() {
    case $1 in
        arm64) cat "$out/shlibs-depends" ;;
        *) sed 's/, *libisal2[^,]*//g; s/^ *libisal2[^,]*, *//' \
               "$out/shlibs-depends" ;;
    esac
}

# The cross builds take the native build's library dependencies.
case " $archs " in
    *" amd64 "*) ;;
    *) [ -s "$out/shlibs-depends" ] && [ -s "$out/shlibs-depends-agent" ] ||
           archs="amd64 $archs" ;;
esac
for a in amd64 arm64 armhf; do
    case " $archs " in *" $a "*) ;; *) continue ;; esac
    [ "$a" = amd64 ] || export PIB_DEB_SHLIBS="$(shlibs_for "$a")" \
        PIA_DEB_SHLIBS="$(cat "$out/shlibs-depends-agent")"
    build "$a"
done

# One lintian run for every package (it takes seconds to start): an error
# fails the build; its report, per package, in lintian.txt.
status=0
if lintian --fail-on error "$out"/*.deb > "$out/lintian.txt" 2>&1; then
    say "lintian: no error in $(ls "$out"/*.deb | wc -l) packages$(grep -c \
        '^W:' "$out/lintian.txt" | sed 's/^0$//;s/^[1-9].*/ (warnings: &, see lintian.txt)/')"
else
    say "lintian: ERRORS (report: $out/lintian.txt):"
    grep '^E:' "$out/lintian.txt" || cat "$out/lintian.txt"
    status=1
fi
ls -l "$out"/*.deb
exit $status
