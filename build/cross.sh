#!/bin/bash
# build/cross.sh -- cross-build mod_pibalance + mod_pistats for Raspberry Pi
# targets and smoke-test them inside Debian's own ARM apache2 under qemu-user.
#
# Usage (as root, on Debian 12 amd64):
#   build/cross.sh [--no-smoke] [TARGET...]     TARGET: arm64 armv7 armv6
#
#   arm64  Pi 3/4/5, 64-bit OS            Debian arm64 baseline
#   armv7  Pi 2/3/4, Debian armhf          Debian armhf baseline (ARMv7, Thumb-2)
#   armv6  Pi 1/Zero, Raspberry Pi OS 32   -mcpu=arm1176jzf-s, linked without
#          (runs on every 32-bit Pi)       the ARMv7 start files/libgcc.a
#
# Steps, each cached under build/cross/ (see build/cross/README.md):
#   1. toolchain: cross gcc, libc6-dev-*-cross, qemu-user (apt-get; skipped
#      when present).
#   2. sysroot per Debian arch from Debian's own .debs, through a private apt
#      state.  Never `dpkg --add-architecture`: on this project's mirror it
#      breaks every later `apt-get update` (shared/notes/cross-arch.md §2).
#   3. build: a scratch copy of the tree, the project's Makefile.in with every
#      configure variable set on the make command line, the native warnings
#      plus -Werror=format -Werror.  armv6 must be `Tag_CPU_arch: v6`/`v6KZ`
#      with no ARMv7-only instruction; armv7/armv6 must call glob64, never
#      the 32-bit glob.  -> build/cross/out/<target>/*.so
#   4. smoke: the arch's apache2 under qemu-user on 127.0.0.1: a balancer
#      with lbmethod=pi over two node vhosts with fixture temperatures.
#
# Environment:
#   CROSS_DIR=DIR               cache and output dir (default build/cross)
#   CROSS_MPMS="event prefork"  MPMs to smoke-test per target
#   CROSS_REFRESH=1             rebuild the sysroots from fresh apt indices
#   CROSS_KEEP=1                keep the smoke run directories (in /tmp)
#   CROSS_REBUILD=1             build even when a build of the same sources,
#                               flags, sysroot and compiler is in out/
# Exit status: 0 all passed; 1 a target failed (build, arch check or smoke);
#   2 usage; 3 setup failed (toolchain, sysroot, source tree).
set -eu

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=build/readable.sh
source "$ROOT/build/readable.sh"
CROSS_DIR=${CROSS_DIR:-$ROOT/build/cross}
OUT=$CROSS_DIR/out
ALL_TARGETS="arm64 armv7 armv6"
CROSS_MPMS=${CROSS_MPMS:-event prefork}
SYSROOT_VERSION=3               # bump to force a sysroot rebuild

# Target packages unpacked into each sysroot: headers and libraries to build
# against, and the closure of NEEDED libraries of apache2 and of the modules
# the smoke test loads (14 debs of the notes, + libdeflate, + libatomic1,
# + libzstd and libbrotli for the zstd and br codings, + libssl for dcz's
# SHA-256).
SYSROOT_PKGS="apache2-bin apache2-dev libapr1 libapr1-dev libaprutil1
  libaprutil1-dev libc6 libgcc-s1 libcrypt1 libexpat1 libpcre2-8-0 libuuid1
  zlib1g zlib1g-dev libdeflate0 libdeflate-dev libatomic1
  libzstd1 libzstd-dev libbrotli1 libbrotli-dev libssl3 libssl-dev"
# ISA-L (igzip for gzip) where Debian builds it: arm64, not armhf.  The
# armv7/armv6 builds fall back to libdeflate and zlib (configure.ac's
# optional check, here set on make's command line: isal_vars).
SYSROOT_PKGS_arm64="libisal2 libisal-dev"
HOST_PKGS="make curl tar debian-archive-keyring
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
# Modules of the sysroot's apache2 the smoke test loads (besides an MPM).
SMOKE_MODULES="authn_core authz_core headers slotmem_shm proxy proxy_http
  proxy_balancer"
ARMV6_FLAGS="-mcpu=arm1176jzf-s -mfpu=vfp -mfloat-abi=hard -marm"
# Instructions ARMv6/ARMv6KZ lacks: Thumb-2 (it blocks, cbz, .w forms),
# ARMv6T2 bitfield/movw/movt/mls, ARMv7 barriers, preload and division.
# (awk ERE without intervals: mawk.)  ARM-mode ldrt/strt are ARMv4, not here.
ARMV7_ONLY_RE='^(it[te]*|cbn?z|movw|movt|mls|ubfx|sbfx|bfi|bfc|rbit|ldrht|strht|ldrsbt|ldrsht|dmb|dsb|isb|pli|pldw|sdiv|udiv|tbb|tbh)([a-z][a-z])?$|[.]w$'

# -- small helpers -----------------------------------------------------------

log() { printf 'cross: %s\n' "$*"; }
warn() { printf 'cross: warning: %s\n' "$*" >&2; }
die() {                         # die STATUS MESSAGE
    local status=$1
    shift
    printf 'cross: FAILED %s\n' "$*" >&2
    exit "$status"
}
# Per-target failure: loud, names the target, the caller returns 1.
fail() {                        # fail TARGET STEP MESSAGE
    printf 'cross: FAILED %s: %s: %s\n' "$1" "$2" "$3" >&2
}
now_ns() { date +%s%N; }
elapsed() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
show_tail() {                   # show_tail FILE [LINES]
    [ -s "$1" ] || return 0
    sed -n "1,${2:-25}p" "$1" | sed 's/^/    | /' >&2
}

target_arch() {                 # Debian architecture of a target
    case $1 in
        arm64) echo arm64 ;;
        armv7 | armv6) echo armhf ;;
    esac
}
arch_triplet() {
    case $1 in
        arm64) echo aarch64-linux-gnu ;;
        armhf) echo arm-linux-gnueabihf ;;
    esac
}
target_cflags() {
    case $1 in
        armv6) echo "$ARMV6_FLAGS" ;;
        *) echo "" ;;
    esac
}
# CPU qemu emulates: the Pi's core where Debian's userland runs on it.  No
# ARMv6 model can run Debian armhf (ARMv7) userland, so armv6 is loaded into
# the ARMv7 apache (the module is checked statically for ARMv6 above).
target_qemu_cpu() {
    case $1 in
        arm64) echo cortex-a72 ;;
        *) echo cortex-a7 ;;
    esac
}
qemu_bin() {                    # qemu_bin ARCH: qemu-user(-static) binary
    local name
    case $1 in
        arm64) name=qemu-aarch64 ;;
        armhf) name=qemu-arm ;;
    esac
    if command -v "$name-static" >/dev/null 2>&1; then
        echo "$name-static"
    else
        echo "$name"
    fi
}

# -- 1. host toolchain --------------------------------------------------------

missing_pkgs() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null \
            | grep -qx installed || echo "$p"
    done
}

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=120 \
        install --no-install-recommends "$@"
}

install_toolchain() {
    local missing qemu_pkg=qemu-user alog=$OUT/toolchain.log t0
    if [ -z "$(missing_pkgs qemu-user-static)" ]; then
        qemu_pkg=qemu-user-static
    fi
    # shellcheck disable=SC2086 # word splitting of the package lists
    missing=$(missing_pkgs $HOST_PKGS $qemu_pkg | tr '\n' ' ')
    if [ -z "$missing" ]; then
        log "toolchain: present ($qemu_pkg)"
        return 0
    fi
    [ "$(id -u)" = 0 ] || die 3 "toolchain: run as root to install: $missing"
    log "toolchain: installing $missing"
    t0=$(now_ns)
    # shellcheck disable=SC2086
    if ! apt_install $missing >"$alog" 2>&1; then
        log "toolchain: install failed, refreshing the system's apt lists"
        apt-get -q -o DPkg::Lock::Timeout=120 update >>"$alog" 2>&1 \
            || warn "apt-get update failed (see $alog); trying anyway"
        # shellcheck disable=SC2086
        apt_install $missing >>"$alog" 2>&1 || {
            tail -n 20 "$alog" | sed 's/^/    | /' >&2
            die 3 "toolchain: apt-get install failed (log: $alog)"
        }
    fi
    log "toolchain: installed in $(elapsed "$t0")s"
}

# -- 2. sysroots --------------------------------------------------------------

# One apt root per architecture: own lists, cache and (empty) dpkg status;
# the Debian suites the host uses, restricted to that architecture.
write_apt_state() {             # write_apt_state ARCH DIR
    local arch=$1 dir=$2 codename uri release
    local key=signed-by=/usr/share/keyrings/debian-archive-keyring.gpg
    # shellcheck disable=SC1091
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" \
        "$dir/sources.list.d" "$dir/preferences.d"
    : >"$dir/state/status"
    : >"$dir/sources.list"
    # shellcheck disable=SC2016 # apt's own $(FIELD) syntax
    apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
        'Identifier: Packages' 2>/dev/null | sort -u |
        while read -r uri release; do
            case $release in
                "$codename" | "$codename-updates" | "$codename-security")
                    echo "deb [arch=$arch $key] $uri $release main" ;;
            esac
        done >"$dir/sources.list"
    if [ ! -s "$dir/sources.list" ]; then
        warn "no Debian $codename source on the host; using deb.debian.org"
        {
            echo "deb [arch=$arch $key] http://deb.debian.org/debian $codename main"
            echo "deb [arch=$arch $key] http://deb.debian.org/debian $codename-updates main"
            echo "deb [arch=$arch $key] http://deb.debian.org/debian-security $codename-security main"
        } >"$dir/sources.list"
    fi
    cat >"$dir/apt.conf" <<EOF
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
Dir::State "$dir/state";
Dir::State::status "$dir/state/status";
Dir::Cache "$dir/cache";
Dir::Etc::SourceList "$dir/sources.list";
Dir::Etc::SourceParts "$dir/sources.list.d";
Dir::Etc::Preferences "$dir/preferences";
Dir::Etc::PreferencesParts "$dir/preferences.d";
Acquire::Languages "none";
EOF
}

# Absolute symlinks dangle in a `dpkg -x` tree, and ld then silently links
# libz.a statically; point them back inside the sysroot.
fix_symlinks() {
    local sr=$1 l
    find "$sr" -type l -lname '/*' | while read -r l; do
        ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" \
            "$sr$(readlink "$l")")" "$l"
    done
}

sysroot_extra() {               # sysroot_extra ARCH: its own packages
    case $1 in
        arm64) echo "$SYSROOT_PKGS_arm64" ;;
    esac
}

# isal_vars TARGET: ISA-L's make variables (Makefile.in), set for the
# targets whose sysroot has it.
isal_vars() {
    case $1 in
        arm64) echo "ISAL_LIBS=-lisal ISAL_CPPFLAGS=-DPIB_HAVE_ISAL=1" ;;
        *) echo "ISAL_LIBS= ISAL_CPPFLAGS=" ;;
    esac
}

make_sysroot() {                # make_sysroot ARCH
    local arch=$1
    local sr=$CROSS_DIR/sysroot-$arch state=$CROSS_DIR/sysroot-cache/$arch
    local alog=$CROSS_DIR/sysroot-cache/$arch.log stamp want t0 d pkgs
    pkgs="$SYSROOT_PKGS $(sysroot_extra "$arch")"
    want="v$SYSROOT_VERSION $(echo "$pkgs" | tr -s ' \n' ' ')"
    stamp=$sr/.cross-stamp
    if [ -z "${CROSS_REFRESH:-}" ] && [ -f "$stamp" ] \
        && [ "$(sed -n 1p "$stamp")" = "$want" ]; then
        log "sysroot $arch: cached ($(sed -n 2p "$stamp"))"
        return 0
    fi
    t0=$(now_ns)
    rm -rf "$state"
    mkdir -p "$state/debs"
    : >"$alog"
    write_apt_state "$arch" "$state"
    export APT_CONFIG=$state/apt.conf
    # A partial failure is tolerated (the mirror here lacks armhf security
    # updates; armhf then gets bookworm's apache2): what matters is that
    # every package below has a candidate, which `download` checks.
    apt-get -q -o Dir::Cache::pkgcache="$state/cache/pkgcache.bin" update \
        >>"$alog" 2>&1 \
        || warn "sysroot $arch: apt-get update partly failed, continuing:" \
            "$(grep -m 1 '^E:' "$alog" | cut -c 1-160) (log: $alog)"
    chown _apt "$state/debs" 2>/dev/null || true
    # shellcheck disable=SC2086
    (cd "$state/debs" && apt-get -q -o Dir::Cache::pkgcache="$state/cache/pkgcache.bin" \
        download $pkgs) >>"$alog" 2>&1 || {
        unset APT_CONFIG
        tail -n 15 "$alog" | sed 's/^/    | /' >&2
        die 3 "sysroot $arch: apt-get download failed (log: $alog)"
    }
    unset APT_CONFIG
    rm -rf "$sr.tmp" "$sr"
    mkdir -p "$sr.tmp"
    for d in "$state/debs"/*.deb; do
        dpkg-deb -x "$d" "$sr.tmp" || die 3 "sysroot $arch: cannot unpack $d"
    done
    fix_symlinks "$sr.tmp"
    mv "$sr.tmp" "$sr"
    check_sysroot "$arch"
    {
        echo "$want"
        d=$(cd "$state/debs" && echo apache2-bin_*.deb)
        echo "apache2 $(echo "$d" | sed 's/^apache2-bin_\(.*\)_.*/\1/; s/%3a/:/')"
        (cd "$state/debs" && printf '%s\n' *.deb)
    } >"$stamp"
    log "sysroot $arch: built in $(elapsed "$t0")s ($(sed -n 2p "$stamp"))"
    # The debs are unpacked; keep the (small) apt indices, drop the archives.
    rm -rf "$state/debs" "$state/cache/archives"
}

# Every library apache2 and the smoke modules NEED is in the sysroot, so
# qemu never falls back to a host (amd64) file.
check_sysroot() {
    local arch=$1 t lib m f missing="" files
    local sr=$CROSS_DIR/sysroot-$arch
    t=$(arch_triplet "$arch")
    files="usr/sbin/apache2"
    for m in $SMOKE_MODULES mpm_event mpm_prefork; do
        files="$files usr/lib/apache2/modules/mod_$m.so"
    done
    [ -x "$sr/usr/sbin/apache2" ] || die 3 "sysroot $arch: no usr/sbin/apache2"
    [ -f "$sr/usr/include/apache2/httpd.h" ] || die 3 "sysroot $arch: no httpd.h"
    [ -f "$sr/usr/include/apr-1.0/apr.h" ] || die 3 "sysroot $arch: no apr.h"
    for f in $files; do
        [ -f "$sr/$f" ] || die 3 "sysroot $arch: missing /$f"
        for lib in $(readelf -d "$sr/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            [ -e "$sr/lib/$t/$lib" ] || [ -e "$sr/usr/lib/$t/$lib" ] \
                || [ -e "$sr/lib/$lib" ] || missing="$missing $lib"
        done
    done
    [ -z "$missing" ] \
        || die 3 "sysroot $arch: NEEDED libraries missing:$(echo "$missing" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
}

# -- 3. build -----------------------------------------------------------------

# Configure variables of Makefile.in this script sets on the make command
# line; any other @VAR@ found there is reported (it would be empty).
KNOWN_SUBSTS="APXS CC HTTPD_INCLUDEDIR APR_INCLUDES HTTPD_CFLAGS HTTPD_CPPFLAGS
  WARN_CFLAGS LIBEXECDIR HTTPD_BIN ZLIB_LIBS LIBDEFLATE_LIBS ZSTD_LIBS
  BROTLI_LIBS BROTLIDEC_LIBS ISAL_LIBS ISAL_CPPFLAGS CRYPTO_LIBS
  BROTLI_DICT_CPPFLAGS"

# The native build's warnings, read from configure.ac (one source of truth).
native_warnings() {
    local w
    w=$(sed -n 's/^WARN_CFLAGS="\(.*\)"[[:space:]]*$/\1/p' "$ROOT/configure.ac" \
        | head -n 1)
    [ -n "$w" ] || die 3 "build: cannot read WARN_CFLAGS from configure.ac"
    echo "$w"
}

config_var() {                  # config_var SYSROOT NAME: apxs -q NAME
    sed -n "s/^$2 = //p" "$1/usr/share/apache2/build/config_vars.mk" \
        | head -n 1
}

# The source files: what git tracks or would track (.gitignore drops build
# output and test logs, which other runs may be writing right now); without
# git, the tree minus the usual build output.
source_files() {
    if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$ROOT" ls-files --cached --others --exclude-standard \
            | grep -v '^build/cross/' || true
    else
        (cd "$ROOT" && find . -path ./.git -prune -o -path ./build/cross -prune \
            -o -path ./t/logs -prune -o -path ./autom4te.cache -prune \
            -o -type f ! -name '*.o' ! -name '*.so' -print)
    fi
}

copy_tree() {                   # copy_tree DEST: the sources, no build output
    rm -rf "$1"
    mkdir -p "$1"
    # A file deleted meanwhile by someone else's run is not an error here.
    source_files | tar -C "$ROOT" --ignore-failed-read --no-recursion \
        -cf - -T - 2>/dev/null | tar -C "$1" -xf - || return 1
    [ -f "$1/mod_pibalance/mod_pibalance.c" ] || return 1
    # Makefile.in without configure: every @VAR@ is set on make's command
    # line below, and cross.mk appends the armv6 link libraries.
    sed 's/@[A-Z_]*@//g' "$ROOT/Makefile.in" >"$1/Makefile"
    cat >"$1/cross.mk" <<'EOF'
include Makefile
PIB_LIBS += $(CROSS_LIBS)
PIS_LIBS += $(CROSS_LIBS)
EOF
}

check_substs() {
    local v
    for v in $(grep -o '@[A-Z_]*@' "$ROOT/Makefile.in" | tr -d @ | sort -u); do
        case " $(echo "$KNOWN_SUBSTS" | tr -s ' \n' ' ') " in
            *" $v "*) ;;
            *) warn "Makefile.in has @$v@, which build/cross.sh leaves empty" ;;
        esac
    done
}

# The key of a target's build: the module sources, the build's flags (this
# script, Makefile.in, configure.ac's warnings), the sysroot and the cross
# compiler.  A build with the same key is reused: the Debian cross builds
# call this script again on the same sources (build/deb.sh, debian/rules).
build_key() {                   # build_key TARGET
    local tg=$1 arch t
    arch=$(target_arch "$tg")
    t=$(arch_triplet "$arch")
    {
        echo "$tg"
        cat "$CROSS_DIR/sysroot-$arch/.cross-stamp"
        "$t-gcc" --version | head -n 1
        cd "$ROOT" || exit 1
        find mod_pibalance mod_pistats common include -type f \
            \( -name '*.[ch]' -o -name '*.S' \) | LC_ALL=C sort \
            | xargs sha256sum
        sha256sum Makefile.in configure.ac build/cross.sh
    } | sha256sum | cut -d ' ' -f 1
}

build_target() {                # build_target TARGET -> $OUT/TARGET/*.so
    local tg=$1 arch sr t work dest ldflags libs="" blog apr_cfg key
    arch=$(target_arch "$tg")
    t=$(arch_triplet "$arch")
    sr=$CROSS_DIR/sysroot-$arch
    work=$OUT/.build/$tg
    dest=$OUT/$tg
    blog=$dest/build.log
    apr_cfg=$sr/usr/bin/apr-1-config     # cross mode: prefixes the sysroot
    key=$(build_key "$tg")
    if [ -z "${CROSS_REBUILD:-}" ] && [ -f "$dest/mod_pibalance.so" ] \
        && [ -f "$dest/mod_pistats.so" ] \
        && [ "$(cat "$dest/.build-key" 2>/dev/null)" = "$key" ]; then
        log "$tg: build cached (sources, flags, sysroot and compiler unchanged)"
        return 0
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    copy_tree "$work" || { fail "$tg" build "cannot copy the tree"; return 1; }
    ldflags="-L$sr/usr/lib/$t -L$sr/lib/$t -Wl,-rpath-link,$sr/usr/lib/$t:$sr/lib/$t"
    if [ "$tg" = armv6 ]; then
        # Debian armhf's crt*.o and libgcc.a are ARMv7 Thumb-2: leave them
        # out, take the libgcc helpers from the target's libgcc_s at run time.
        ldflags="$ldflags -nostartfiles -nodefaultlibs"
        libs="-lc -l:libgcc_s.so.1"
    fi
    # shellcheck disable=SC2046
    if ! make -C "$work" -f cross.mk -j "$(nproc)" all $(isal_vars "$tg") \
        CC="$t-gcc" \
        HTTPD_INCLUDEDIR="$sr/usr/include/apache2" \
        APR_INCLUDES="$("$apr_cfg" --includes) -idirafter $sr/usr/include/$t -idirafter $sr/usr/include" \
        HTTPD_CFLAGS="$(config_var "$sr" CFLAGS)" \
        HTTPD_CPPFLAGS="$(config_var "$sr" EXTRA_CPPFLAGS) $("$apr_cfg" --cppflags)" \
        WARN_CFLAGS="$WARN -Werror=format -Werror" \
        ARCH_CFLAGS="$(target_cflags "$tg")" \
        ZLIB_LIBS=-lz LIBDEFLATE_LIBS=-ldeflate \
        ZSTD_LIBS=-lzstd BROTLI_LIBS=-lbrotlienc BROTLIDEC_LIBS= \
        CRYPTO_LIBS=-lcrypto BROTLI_DICT_CPPFLAGS= \
        LDFLAGS="$ldflags" CROSS_LIBS="$libs" \
        APXS=false LIBEXECDIR=/usr/lib/apache2/modules HTTPD_BIN=/usr/sbin/apache2 \
        AGENT= \
        >"$blog" 2>&1; then
        fail "$tg" build "make failed; warnings are errors here (log: $blog)"
        grep -E 'warning:|error:' "$blog" | sed 's/^/    | /' | head -n 40 >&2
        return 1
    fi
    cp "$work/mod_pibalance/mod_pibalance.so" "$work/mod_pistats/mod_pistats.so" \
        "$dest/"
    echo "$key" >"$dest/.build-key"
}

# Static checks of both .so files; sets ARCH_SEEN to what readelf reports.
check_binaries() {              # check_binaries TARGET
    local tg=$1 arch t so tag fp bad needed want
    arch=$(target_arch "$tg")
    t=$(arch_triplet "$arch")
    ARCH_SEEN=""
    for so in "$OUT/$tg/mod_pibalance.so" "$OUT/$tg/mod_pistats.so"; do
        want=ARM
        [ "$arch" = arm64 ] && want=AArch64
        readelf -h "$so" | grep -q "Machine:[[:space:]]*$want" || {
            fail "$tg" arch "${so##*/} is not $want"
            return 1
        }
        # A statically linked zlib/libdeflate/libzstd/libbrotli/ISA-L/
        # libgcc exports their symbols.
        if "$t-nm" -D --defined-only "$so" \
            | grep -Eq ' (zlibVersion|deflate|inflate|libdeflate_|ZSTD_|Brotli|isal_|__aeabi_|__udivmoddi4)'; then
            fail "$tg" link "${so##*/} contains a static copy of a library"
            return 1
        fi
        needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
        log "$tg: ${so##*/}: NEEDED $needed"
        if [ "$arch" = arm64 ]; then
            ARCH_SEEN=AArch64
            continue
        fi
        # 32-bit: glob() built without _FILE_OFFSET_BITS=64 fails with
        # EOVERFLOW where inode numbers exceed 32 bits (common/pi_thermal.c).
        if "$t-nm" -D --undefined-only "$so" | grep -Eq ' (glob|globfree)(@|$)'; then
            fail "$tg" link "${so##*/} calls the 32-bit glob(): build it with _FILE_OFFSET_BITS=64"
            return 1
        fi
        tag=$(readelf -A "$so" | sed -n 's/^ *Tag_CPU_arch: //p')
        fp=$(readelf -A "$so" | sed -n 's/^ *Tag_FP_arch: //p')
        ARCH_SEEN=$tag
        [ "$tg" = armv6 ] || continue
        case $tag in
            v6 | v6KZ | v6K) ;;
            *) fail "$tg" arch "${so##*/}: Tag_CPU_arch is '$tag', want v6/v6KZ"
               return 1 ;;
        esac
        case $fp in
            "" | VFPv1 | VFPv2) ;;
            *) fail "$tg" arch "${so##*/}: Tag_FP_arch is '$fp', the Pi 1 has VFPv2"
               return 1 ;;
        esac
        if readelf -A "$so" | grep -q 'Tag_THUMB_ISA_use: Thumb-2'; then
            fail "$tg" arch "${so##*/}: contains Thumb-2 code"
            return 1
        fi
        bad=$("$t-objdump" -d --no-show-raw-insn "$so" | awk -F'\t' \
            -v re="$ARMV7_ONLY_RE" 'NF >= 2 { m = $2; sub(/ .*/, "", m); if (m ~ re) print }')
        if [ -n "$bad" ]; then
            fail "$tg" arch "${so##*/}: $(echo "$bad" | wc -l) ARMv7-only instructions:"
            echo "$bad" | head -n 10 | sed 's/^/    | /' >&2
            return 1
        fi
    done
}

# -- 4. smoke test ------------------------------------------------------------

SMOKE_TMP=""
APACHE_PID=""

# The sysroot qemu runs apache2 from (-L): the cached one, or, when the
# children's user (nobody) cannot read it -- a tree under /root, mode 700
# -- a copy in SMOKE_TMP, hard links where it can (59 MB, 1,800 files:
# ~0.1 s; a plain copy across file systems).  The children need it: a
# thread's exit makes glibc load libgcc_s.so.1, which qemu looks up under
# -L and, unreadable there, on the host, where no ARM one is ("libgcc_s.so.1
# must be installed for pthread_exit to work", every child dead, the smoke
# test waiting minutes).  Prints the path; made once per architecture.
smoke_sysroot() {               # smoke_sysroot ARCH
    local arch=$1 sr=$CROSS_DIR/sysroot-$1 copy
    if ! pib_private "$sr"; then
        echo "$sr"
        return 0
    fi
    copy=$SMOKE_TMP/sysroot-$arch
    if [ ! -f "$copy/.cross-stamp" ]; then
        log "smoke: $(pib_private_msg 'the sysroot' "$sr"): qemu runs" \
            "from a copy, $copy" >&2
        rm -rf "$copy"
        cp -al "$sr" "$copy" 2>/dev/null \
            || { rm -rf "$copy"; cp -a "$sr" "$copy"; } \
            || die 3 "smoke: cannot copy $sr to $copy"
        chmod -R a+rX "$copy"
    fi
    echo "$copy"
}

alive() {                       # alive PID: running and not a zombie
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    st=${st##*) }
    [ "${st%% *}" != Z ]
}

# stop_apache: TERM, wait at most 10 s, then KILL; then the whole session
# (apache was started with setsid, so its sid is its pid) must be empty.
# Not in a subshell: it must reap apache and clear APACHE_PID.  Says what
# went wrong in STOP_MSG.
STOP_MSG=""
stop_apache() {
    local pid=$APACHE_PID i left
    STOP_MSG=""
    [ -n "$pid" ] || return 0
    APACHE_PID=""
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        STOP_MSG="apache (pid $pid) ignored SIGTERM for 10 s; killed"
        return 1
    fi
    wait "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do
        left=$(pgrep -s "$pid" | tr '\n' ' ' || true)
        [ -n "$left" ] || return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086 # a list of pids
    kill -KILL $left 2>/dev/null || true
    STOP_MSG="processes left after apache stopped: $left (killed)"
    return 1
}

cleanup() {
    stop_apache || true
    if [ -n "$SMOKE_TMP" ] && [ -z "${CROSS_KEEP:-}" ]; then
        rm -rf "$SMOKE_TMP"
    fi
}

PORTS_TAKEN=""
pick_port() {                   # pick_port VAR: a free 127.0.0.1 port
    local i p
    for i in $(seq 1 100); do
        # Below Linux's ephemeral range (32768-60999).
        p=$((20000 + RANDOM % 12000))
        case " $PORTS_TAKEN " in *" $p "*) continue ;; esac
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            PORTS_TAKEN="$PORTS_TAKEN $p"
            printf -v "$1" %s "$p"
            return 0
        fi
        : "$i"
    done
    return 1
}

write_fixtures() {              # write_fixtures DIR
    mkdir -p "$1/node1/thermal_zone0" "$1/node1/thermal_zone1" \
        "$1/node2/thermal_zone0"
    echo 51234 >"$1/node1/thermal_zone0/temp"   # -> 51.2, the hottest
    echo 40000 >"$1/node1/thermal_zone1/temp"   # cooler zone: ignored
    echo 63456 >"$1/node2/thermal_zone0/temp"   # -> 63.5
}

write_conf() {                  # write_conf RUN SYSROOT MODDIR MPM
    local run=$1 sr=$2 moddir=$3 mpm=$4 m n port
    local mods=$sr/usr/lib/apache2/modules
    {
        cat <<EOF
ServerRoot "$run"
ServerName 127.0.0.1
PidFile "$run/httpd.pid"
DefaultRuntimeDir "$run/runtime"
ErrorLog "$run/error.log"
LogLevel warn
Listen 127.0.0.1:$PORT_FRONT
Listen 127.0.0.1:$PORT_NODE1
Listen 127.0.0.1:$PORT_NODE2
LoadModule mpm_${mpm}_module "$mods/mod_mpm_$mpm.so"
EOF
        for m in $SMOKE_MODULES; do
            echo "LoadModule ${m}_module \"$mods/mod_$m.so\""
        done
        cat <<EOF
LoadModule pibalance_module "$moddir/mod_pibalance.so"
LoadModule pistats_module "$moddir/mod_pistats.so"
EOF
        if [ "$(id -u)" = 0 ]; then
            printf 'User nobody\nGroup nogroup\n'
        fi
        if [ "$mpm" = event ]; then
            cat <<EOF
ServerLimit 1
StartServers 1
ThreadsPerChild 8
MaxRequestWorkers 8
MinSpareThreads 1
MaxSpareThreads 8
EOF
        else
            cat <<EOF
StartServers 2
MinSpareServers 1
MaxSpareServers 4
MaxRequestWorkers 6
EOF
        fi
        cat <<EOF
DocumentRoot "$run/htdocs"
<Directory />
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$PORT_FRONT>
    <Proxy "balancer://pis">
        BalancerMember "http://127.0.0.1:$PORT_NODE1"
        BalancerMember "http://127.0.0.1:$PORT_NODE2"
        ProxySet lbmethod=pi
    </Proxy>
    PiBalanceDeflate On
    ProxyPass "/" "balancer://pis/"
</VirtualHost>
EOF
        for n in 1 2; do
            port=$PORT_NODE1
            [ "$n" = 2 ] && port=$PORT_NODE2
            cat <<EOF
<VirtualHost 127.0.0.1:$port>
    Header always set X-Node node$n
    Header always set X-Upstream-AE "expr=%{req:Accept-Encoding}"
    <Files "page.html">
        ForceType text/html
    </Files>
    PiStatsNodeName node$n
    PiStatsThermalZone "$run/fixtures/node$n/thermal_zone*/temp"
    <Location /pi-status>
        SetHandler pi-status
    </Location>
</VirtualHost>
EOF
        done
    } >"$run/httpd.conf"
}

# http_get URL HEADERS BODY: prints the status code ("000": no answer).
http_get() {
    curl -sS --noproxy '*' --connect-timeout 2 --max-time 5 \
        -D "$2" -o "$3" -w '%{http_code}' "$1" 2>>"$RUN/curl.log" || true
}

# start_apache TARGET MPM: 0 when serving, 2 when a port was taken, else 1.
start_apache() {
    local tg=$1 arch sr code i
    arch=$(target_arch "$tg")
    sr=$(smoke_sysroot "$arch")
    QEMU_CPU=$(target_qemu_cpu "$tg") setsid "$(qemu_bin "$arch")" -L "$sr" \
        "$sr/usr/sbin/apache2" -DFOREGROUND -f "$RUN/httpd.conf" -d "$RUN" \
        </dev/null >"$RUN/stdout.log" 2>&1 &
    APACHE_PID=$!
    for i in $(seq 1 150); do             # at most ~15 s
        if ! alive "$APACHE_PID"; then
            wait "$APACHE_PID" 2>/dev/null || true
            APACHE_PID=""
            if grep -qs 'Address already in use' "$RUN/stdout.log" "$RUN/error.log"; then
                return 2
            fi
            return 1
        fi
        code=$(http_get "http://127.0.0.1:$PORT_NODE1/pi-status?auto" \
            "$RUN/h" "$RUN/b")
        [ "$code" = 000 ] || return 0
        sleep 0.1
        : "$i"
    done
    return 1
}

check_node() {                  # check_node N EXPECTED_TEMP
    local port=$PORT_NODE1 code
    [ "$1" = 2 ] && port=$PORT_NODE2
    code=$(http_get "http://127.0.0.1:$port/pi-status?auto" "$RUN/h$1" "$RUN/b$1")
    [ "$code" = 200 ] || { echo "node$1 /pi-status?auto: HTTP $code"; return 1; }
    grep -qx "Node: node$1" "$RUN/b$1" \
        || { echo "node$1 /pi-status?auto lacks 'Node: node$1': $(tr '\n' ' ' <"$RUN/b$1")"; return 1; }
    grep -qx "TemperatureC: $2" "$RUN/b$1" \
        || { echo "node$1 /pi-status?auto lacks 'TemperatureC: $2': $(tr '\n' ' ' <"$RUN/b$1")"; return 1; }
}

# ~20 requests through the balancer: both nodes answer, and each answer's
# X-Node header names the node whose telemetry is in the body.
check_balancer() {
    local i code node body c1=0 c2=0
    for i in $(seq 1 20); do
        code=$(http_get "http://127.0.0.1:$PORT_FRONT/pi-status?auto" "$RUN/hb" "$RUN/bb")
        [ "$code" = 200 ] || { echo "balancer request $i: HTTP $code"; return 1; }
        node=$(sed -n 's/^X-Node: *\([^[:space:]]*\).*/\1/Ip' "$RUN/hb")
        body=$(sed -n 's/^Node: //p' "$RUN/bb")
        [ "$node" = "$body" ] \
            || { echo "balancer request $i: X-Node '$node' but body Node '$body'"; return 1; }
        case $node in
            node1) c1=$((c1 + 1)) ;;
            node2) c2=$((c2 + 1)) ;;
            *) echo "balancer request $i: X-Node '$node'"; return 1 ;;
        esac
    done
    echo "balancer: node1 $c1, node2 $c2 of 20"
    if [ "$c1" = 0 ] || [ "$c2" = 0 ]; then
        echo "balancer reached only one node (node1 $c1, node2 $c2)"
        return 1
    fi
}

# Offload: a page through the balancer with Accept-Encoding: gzip comes
# back gzipped by the master (Content-Encoding, Vary), gunzips to exactly
# the node's bytes, and the node was asked for identity (no AE upstream).
check_gzip_roundtrip() {
    local page=$RUN/htdocs/page.html code i
    for i in $(seq 1 200); do
        echo "<p>line $i of a page the master compresses for the node</p>"
    done >"$page"
    code=$(curl -sS --noproxy '*' --connect-timeout 2 --max-time 10 \
        -H 'Accept-Encoding: gzip' -D "$RUN/hg" -o "$RUN/bg" \
        -w '%{http_code}' "http://127.0.0.1:$PORT_FRONT/page.html" \
        2>>"$RUN/curl.log" || true)
    [ "$code" = 200 ] || { echo "gzip request: HTTP $code"; return 1; }
    grep -qi '^Content-Encoding: gzip' "$RUN/hg" \
        || { echo "gzip request: no Content-Encoding: gzip"; return 1; }
    grep -qi '^Vary:.*Accept-Encoding' "$RUN/hg" \
        || { echo "gzip request: no Vary: Accept-Encoding"; return 1; }
    gzip -dc <"$RUN/bg" >"$RUN/bg.plain" 2>/dev/null \
        || { echo "gzip request: body does not gunzip"; return 1; }
    cmp -s "$RUN/bg.plain" "$page" \
        || { echo "gzip request: gunzipped body differs from the node's"; return 1; }
    if grep -qi '^X-Upstream-AE: *[^[:space:]]' "$RUN/hg"; then
        echo "gzip request: the node received Accept-Encoding"
        return 1
    fi
    echo "gzip: $(wc -c <"$RUN/bg") bytes for $(wc -c <"$page"), round trip ok"
}

smoke_errors() {                # crashes or load errors in the error log
    grep -E 'AH00052|exit signal|Segmentation|Bus error|Illegal instruction|undefined symbol|AH00[0-9]*: .*(crash|core)' \
        "$RUN/error.log" 2>/dev/null | head -n 5
}

keep_logs() {                   # the run dir is in /tmp: keep conf and log
    cp "$RUN/httpd.conf" "$OUT/$1/smoke-$2.conf" 2>/dev/null || true
    cp "$RUN/error.log" "$OUT/$1/smoke-$2.error.log" 2>/dev/null || true
}

smoke_mpm() {                   # smoke_mpm TARGET MPM
    local tg=$1 mpm=$2 arch attempt rc=1 msg
    arch=$(target_arch "$tg")
    RUN=$SMOKE_TMP/$tg-$mpm
    for attempt in 1 2 3; do
        rm -rf "$RUN"
        mkdir -p "$RUN/runtime" "$RUN/htdocs"
        chmod 755 "$RUN"
        write_fixtures "$RUN/fixtures"
        PORTS_TAKEN=""
        if ! { pick_port PORT_FRONT && pick_port PORT_NODE1 \
            && pick_port PORT_NODE2; }; then
            fail "$tg" "smoke $mpm" "no free port on 127.0.0.1"
            return 1
        fi
        write_conf "$RUN" "$(smoke_sysroot "$arch")" "$OUT/$tg" "$mpm"
        rc=0
        start_apache "$tg" "$mpm" || rc=$?
        [ "$rc" = 2 ] || break
        log "$tg: smoke $mpm: a port was taken, retrying ($attempt)"
    done
    keep_logs "$tg" "$mpm"
    if [ "$rc" != 0 ]; then
        stop_apache || true
        fail "$tg" "smoke $mpm" "apache2 did not start serving (conf: $OUT/$tg/smoke-$mpm.conf)"
        show_tail "$RUN/stdout.log"
        show_tail "$RUN/error.log"
        return 1
    fi
    msg=$(check_node 1 51.2 && check_node 2 63.5 && check_balancer \
        && check_gzip_roundtrip) || rc=1
    [ "$rc" = 0 ] || msg=${msg##*$'\n'}
    if ! stop_apache; then
        msg="$msg${msg:+; }stop: $STOP_MSG"
        rc=1
    fi
    if [ "$rc" = 0 ] && [ -n "$(smoke_errors)" ]; then
        msg="error log: $(smoke_errors | head -n 1)"
        rc=1
    fi
    keep_logs "$tg" "$mpm"
    if [ "$rc" != 0 ]; then
        fail "$tg" "smoke $mpm" "$msg"
        show_tail "$RUN/error.log" 15
        return 1
    fi
    log "$tg: smoke $mpm ok (${msg##*$'\n'})"
}

smoke_target() {
    local tg=$1 mpm
    for mpm in $CROSS_MPMS; do
        smoke_mpm "$tg" "$mpm" || return 1
    done
}

# -- main ---------------------------------------------------------------------

usage() {
    sed -n '5,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

print_summary() {
    local tg
    printf '\ncross: summary\n'
    printf '%-7s %-6s %-13s %-22s %s\n' target build "readelf arch" smoke seconds
    for tg in $TARGETS; do
        printf '%-7s %-6s %-13s %-22s %s\n' "$tg" "${R_BUILD[$tg]:--}" \
            "${R_ARCH[$tg]:--}" "${R_SMOKE[$tg]:--}" "${R_SECS[$tg]:--}"
    done
}

main() {
    local smoke=1 tg arch arches="" t0 t_all failed=""
    TARGETS=""
    while [ $# -gt 0 ]; do
        case $1 in
            --no-smoke) smoke="" ;;
            -h | --help) usage ;;
            arm64 | armv7 | armv6) TARGETS="$TARGETS $1" ;;
            *) echo "cross: unknown argument '$1'" >&2; usage ;;
        esac
        shift
    done
    TARGETS=${TARGETS:-$ALL_TARGETS}
    declare -gA R_BUILD=() R_ARCH=() R_SMOKE=() R_SECS=()
    t_all=$(now_ns)
    [ -f "$ROOT/Makefile.in" ] || die 3 "setup: no Makefile.in in $ROOT"
    mkdir -p "$OUT"
    WARN=$(native_warnings)
    check_substs

    install_toolchain
    for tg in $TARGETS; do
        arch=$(target_arch "$tg")
        case " $arches " in *" $arch "*) ;; *) arches="$arches $arch" ;; esac
    done
    for arch in $arches; do
        make_sysroot "$arch"
    done

    SMOKE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pi-cross.XXXXXX")
    chmod 755 "$SMOKE_TMP"             # apache's children run as nobody
    trap cleanup EXIT
    trap 'echo "cross: FAILED: interrupted" >&2; exit 130' INT TERM
    if [ -n "$smoke" ]; then
        for arch in $arches; do          # here, not in a subshell: die
            smoke_sysroot "$arch" >/dev/null
        done
    fi
    for tg in $TARGETS; do
        t0=$(now_ns)
        R_BUILD[$tg]=FAIL
        if build_target "$tg"; then
            R_BUILD[$tg]=ok
            if check_binaries "$tg"; then
                R_ARCH[$tg]=$ARCH_SEEN
            else
                R_ARCH[$tg]="FAIL ${ARCH_SEEN:-?}"
            fi
        fi
        if [ "${R_BUILD[$tg]}" = ok ] && [ -n "$smoke" ]; then
            if smoke_target "$tg"; then
                R_SMOKE[$tg]="ok ($(echo "$CROSS_MPMS" | tr -s ' ' ,))"
            else
                R_SMOKE[$tg]=FAIL
            fi
        fi
        R_SECS[$tg]=$(elapsed "$t0")
        case "${R_BUILD[$tg]} ${R_ARCH[$tg]:-} ${R_SMOKE[$tg]:-}" in
            *FAIL*) failed="$failed $tg" ;;
            *) log "$tg: ok in ${R_SECS[$tg]}s" ;;
        esac
    done
    print_summary
    if [ -n "$failed" ]; then
        printf 'cross: FAILED:%s (total %ss)\n' "$failed" "$(elapsed "$t_all")" >&2
        exit 1
    fi
    printf 'cross: all passed (total %ss)\n' "$(elapsed "$t_all")"
}

# Sourced (t/config/anywhere.t tests smoke_sysroot): the functions only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
