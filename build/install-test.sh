#!/bin/bash
# build/install-test.sh -- the README's install path, for real.
#
# As root on Debian, after `make all`: runs `make install` into the system's
# Apache, `a2enmod pibalance pistats`, `apache2ctl -t` on the system's whole
# configuration, then starts an httpd that loads the installed modules
# exactly as the system's apache2.conf would (mods-enabled/*.load, *.conf)
# but listens only on 127.0.0.1:PORT, and asks it for /pi-status?auto (the
# installed pistats.conf) and for a file through a `lbmethod=pi` balancer.
# Afterwards it stops that httpd (bounded waits) and puts the system back as
# it found it: modules it enabled are disabled, files it overwrote are
# restored, files it created are removed; `apache2ctl -t` must pass again.
# It never starts or reloads the system's apache2 service (with --deb, a
# policy-rc.d denies the packages' scripts that while they run) and binds
# no other port.
#
# Usage: build/install-test.sh     (from a configured, built tree)
#        build/install-test.sh --deb DIR
#            the same with the Debian packages of DIR (build/deb.sh) in
#            place of make install: `apt-get install ./DIR/*_amd64.deb`
#            must install and enable both modules; afterwards they are
#            purged (the packages must not be installed before)
# Environment: PIB_INSTALL_PORT=N  the 127.0.0.1 port (default: a free one)
# Prints one "install-test: PASS|FAIL ..." line per step; exit 0 when every
# step passed, 1 on a failure, 0 with a SKIP line when not root on Debian.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
say() { printf 'install-test: %s\n' "$*"; }
# A step's output goes to $work/step.log: shown when the step fails.
pass() {
    say "PASS $*"
    [ -z "${work:-}" ] || : > "$work/step.log"
}
fail() {
    say "FAIL $*"
    [ -s "${work:-/nonexistent}/step.log" ] &&
        sed -n '1,40p' "$work/step.log" | sed 's/^/    | /'
    exit 1
}

if [ "$(id -u)" -ne 0 ] || ! command -v a2enmod >/dev/null ||
        ! command -v apache2ctl >/dev/null; then
    say "SKIP needs root and Debian's apache2 (a2enmod, apache2ctl)"
    exit 0
fi
deb=""
if [ "${1:-}" = --deb ]; then
    deb=${2:?--deb needs the directory of the .deb files}
    deb=$(cd "$deb" && pwd) || exit 1
    debs=$(ls "$deb"/libapache2-mod-pibalance_*_amd64.deb \
              "$deb"/libapache2-mod-pistats_*_amd64.deb 2>/dev/null)
    [ "$(echo "$debs" | wc -w)" = 2 ] ||
        { say "FAIL $deb has not both amd64 packages (build/deb.sh amd64)"; exit 1; }
    for p in libapache2-mod-pibalance libapache2-mod-pistats; do
        if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q installed; then
            say "FAIL $p is installed on this system: this test would purge it"
            exit 1
        fi
    done
    apxs=$(command -v apxs) || { say "FAIL no apxs"; exit 1; }
else
    [ -f Makefile ] || { say "FAIL no Makefile: run ./configure first"; exit 1; }
    apxs=$(sed -n 's/^APXS *= *//p' Makefile)
fi
libexec=$($apxs -q LIBEXECDIR)
sysconf=$($apxs -q SYSCONFDIR)
avail=$sysconf/mods-available
enabled=$sysconf/mods-enabled
[ -d "$avail" ] && [ -d "$enabled" ] ||
    { say "SKIP $sysconf has no mods-available/mods-enabled"; exit 0; }

# One install test at a time on this machine (the system's Apache is shared).
lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
exec 9> "$lockdir/pibalance-install-test.lock"
flock -w 300 9 || { say "FAIL another install test holds the lock"; exit 1; }

work=$(mktemp -d /tmp/pib-install.XXXXXX)
chmod 755 "$work"
pid=""
files="$libexec/mod_pibalance.so $libexec/mod_pistats.so
       $avail/pibalance.load $avail/pibalance.conf
       $avail/pistats.load $avail/pistats.conf"
mkdir "$work/backup"
for f in $files; do
    [ -e "$f" ] && cp -p "$f" "$work/backup/$(basename "$f")"
done
ls -1 "$enabled" > "$work/enabled.before"
# a2enmod and a2dismod run by hand leave marks (enabled_by_admin,
# disabled_by_admin) that later package installs obey: a module an admin
# disabled is not enabled by its package.  They are put back too.
marks=/var/lib/apache2
[ -d "$marks/module" ] && tar -C "$marks" -cf "$work/marks.tar" module

stop_httpd() {
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null
    local i
    for i in $(seq 1 300); do          # up to 30 s for a graceful stop
        kill -0 "$pid" 2>/dev/null || { pid=""; return 0; }
        sleep 0.1
    done
    say "httpd $pid did not stop in 30 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null
    pid=""
    return 1
}

# The packages' maintainer scripts (apache2_invoke) would reload a running
# system apache2: while they run, a policy-rc.d (Debian's way to deny
# service actions to maintainer scripts) says no, unless one is there.
policy=/usr/sbin/policy-rc.d
own_policy=""
deny_services() {
    [ -e "$policy" ] && return 0
    printf '#!/bin/sh\n# build/install-test.sh: no service actions\nexit 101\n' \
        > "$policy" && chmod 755 "$policy" && own_policy=1
}
allow_services() {
    [ -z "$own_policy" ] || rm -f "$policy"
    own_policy=""
}

restore() {
    stop_httpd
    # The packages' postrm disables their modules and removes their files.
    if [ -n "$deb" ]; then
        deny_services
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
            libapache2-mod-pibalance libapache2-mod-pistats \
            > "$work/purge.log" 2>&1 ||
            say "could not purge the packages (see $work/purge.log)"
        allow_services
    fi
    # Disable what this test enabled (pibalance, pistats and the proxy
    # modules pibalance.load's Depends line pulled in).
    local m e b
    for m in $(ls -1 "$enabled" | grep '\.load$' |
               grep -vxF -f "$work/enabled.before" | sed 's/\.load$//'); do
        a2dismod -q -f "$m" >/dev/null 2>&1 || say "could not a2dismod $m"
    done
    # Any link left that was not there before (a .conf whose .load was
    # enabled already) goes too: a dangling one breaks apache2ctl -t.
    for e in $(ls -1 "$enabled" | grep -vxF -f "$work/enabled.before"); do
        rm -f "$enabled/$e"
    done
    # Replace, never overwrite in place: a running apache2 may have the
    # old .so mapped (overwriting it could crash that server).
    for f in $files; do
        b=$work/backup/$(basename "$f")
        if [ -e "$b" ]; then
            cp -p "$b" "$f.pib-restore.$$" && mv -f "$f.pib-restore.$$" "$f"
        else
            rm -f "$f"
        fi
    done
    if [ -f "$work/marks.tar" ]; then
        rm -rf "$marks/module" && tar -C "$marks" -xf "$work/marks.tar"
    else
        rm -rf "$marks/module"
    fi
    ls -1 "$enabled" | cmp -s - "$work/enabled.before"
}
trap 'restore; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP

if [ -n "$deb" ]; then
# 1. apt-get install of both packages (README: "apt install ./...deb").
deny_services
DEBIAN_FRONTEND=noninteractive apt-get install -y -q $debs \
    > "$work/step.log" 2>&1 || { allow_services; fail "apt-get install $debs"; }
allow_services
pass "apt-get install of both packages"
for m in pibalance pistats; do
    want="LoadModule ${m}_module $libexec/mod_$m.so"
    grep -qxF "$want" "$avail/$m.load" ||
        { cp "$avail/$m.load" "$work/step.log"; fail "$m.load is not '$want'"; }
    dpkg -S "$avail/$m.load" "$avail/$m.conf" "$libexec/mod_$m.so" \
        > "$work/step.log" 2>&1 || fail "files of $m not owned by a package"
    [ -e "$enabled/$m.load" ] || fail "the package did not enable $m"
done
pass "the packages own mods-available/*.load, *.conf, the .so, and enabled both"
else
# 1. make install (README: "autoconf && ./configure && make && sudo make
#    install").
make install > "$work/step.log" 2>&1 || fail "make install"
pass "make install"
for f in pibalance.load pistats.load pibalance.conf pistats.conf; do
    [ -s "$avail/$f" ] || fail "make install did not write $avail/$f"
    if grep -n '@[A-Za-z_]*@' "$avail/$f" > "$work/step.log"; then
        fail "$avail/$f keeps a configure placeholder"
    fi
done
for m in pibalance pistats; do
    want="LoadModule ${m}_module $libexec/mod_$m.so"
    grep -qxF "$want" "$avail/$m.load" ||
        { cp "$avail/$m.load" "$work/step.log"; fail "$m.load is not '$want'"; }
    [ -s "$libexec/mod_$m.so" ] || fail "$libexec/mod_$m.so not installed"
done
pass "mods-available/*.load name $libexec/mod_*.so (no placeholder left)"
# The README's manual install of cross-built modules writes the same files.
for f in pibalance.load pistats.load pibalance.conf pistats.conf; do
    sed "s|@LIBEXECDIR@|$libexec|g" "conf/$f" | cmp -s - "$avail/$f" ||
        fail "README's sed of conf/$f differs from what make install wrote"
done
pass "the README's manual sed writes the same four files"

fi

# 2. a2enmod, as the README says; Depends pulls in the proxy modules.
a2enmod pibalance pistats > "$work/step.log" 2>&1 ||
    fail "a2enmod pibalance pistats"
for m in pibalance pistats proxy proxy_http proxy_balancer slotmem_shm; do
    [ -e "$enabled/$m.load" ] || fail "a2enmod did not enable $m"
done
pass "a2enmod pibalance pistats (and their Depends)"

# 3. The system's whole configuration still passes.
apache2ctl -t > "$work/step.log" 2>&1 || fail "apache2ctl -t"
grep -q 'Syntax OK' "$work/step.log" || fail "apache2ctl -t: no Syntax OK"
pass "apache2ctl -t: Syntax OK"

# 4. An httpd that loads mods-enabled as apache2.conf does, on 127.0.0.1.
port=${PIB_INSTALL_PORT:-$(perl -MIO::Socket::INET -e \
    'print IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
        Proto => "tcp", Listen => 1)->sockport')}
mkdir -p "$work/htdocs/node"
echo "hello from the node" > "$work/htdocs/node/hello.txt"
echo "install test" > "$work/htdocs/index.html"
# JSON: Debian's default deflate.conf (mod_deflate) does not compress it,
# so the gzip below can only come from the offload.
perl -e 'print "[\n", join(",\n", map { "{\"line\": $_}" } 1..400), "\n]\n"' \
    > "$work/htdocs/node/data.json"
chmod -R a+rX "$work/htdocs"
cat > "$work/httpd.conf" <<EOF
# build/install-test.sh: the system's modules (mods-enabled), our own port.
ServerRoot "$sysconf"
DefaultRuntimeDir "$work"
PidFile "$work/httpd.pid"
ErrorLog "$work/error_log"
LogLevel info
Mutex file:$work default
User \${APACHE_RUN_USER}
Group \${APACHE_RUN_GROUP}
ServerName 127.0.0.1
Listen 127.0.0.1:$port
IncludeOptional mods-enabled/*.load
IncludeOptional mods-enabled/*.conf
DocumentRoot "$work/htdocs"
<Directory "$work/htdocs">
    Require all granted
</Directory>
<Proxy "balancer://installed">
    BalancerMember "http://127.0.0.1:$port/node"
    ProxySet lbmethod=pi
    PiBalanceDeflate On
</Proxy>
ProxyPass "/via-pi/" "balancer://installed/"
EOF
httpd() {                       # as apache2ctl: the Debian environment
    ( set +u; export APACHE_CONFDIR=$sysconf; . "$sysconf/envvars" &&
      exec apache2 -d "$sysconf" -f "$work/httpd.conf" "$@" 9>&- )
}
httpd -M > "$work/step.log" 2>&1 || fail "apache2 -M with mods-enabled"
for m in pibalance_module pistats_module; do
    grep -q " $m (shared)" "$work/step.log" || fail "apache2 -M lacks $m"
done
httpd -k start > "$work/step.log" 2>&1 || fail "apache2 -k start"
up=""
for i in $(seq 1 300); do               # up to 30 s to answer
    [ -s "$work/httpd.pid" ] && pid=$(cat "$work/httpd.pid") &&
        curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/" &&
        up=1 && break
    sleep 0.1
done
[ -n "$up" ] || { cp "$work/error_log" "$work/step.log" 2>/dev/null;
                  fail "httpd did not answer on 127.0.0.1:$port in 30 s"; }
pass "httpd up on 127.0.0.1:$port with the installed modules (pid $pid)"

# 5. The installed modules at work: lbmethod=pi and the deflate offload on
#    the balancer, per-member statistics on /pi-status (installed
#    pistats.conf) -- pibalance.load and pistats.load sort before proxy.load.
get() {                         # get PATH [CURL ARGS]: body in step.log
    local path=$1
    shift
    curl -s --max-time 10 -o "$work/step.log" -w '%{http_code}' "$@" \
        "http://127.0.0.1:$port$path"
}
code=$(get /via-pi/hello.txt)
[ "$code" = 200 ] && grep -qx 'hello from the node' "$work/step.log" ||
    fail "GET /via-pi/hello.txt through lbmethod=pi: HTTP $code"
pass "GET /via-pi/hello.txt through a lbmethod=pi balancer: 200"
code=$(get /via-pi/data.json -D "$work/headers" -H 'Accept-Encoding: gzip')
[ "$code" = 200 ] && grep -qi '^Content-Encoding: gzip' "$work/headers" &&
    gzip -dc < "$work/step.log" | cmp -s - "$work/htdocs/node/data.json" ||
    { cat "$work/headers" >> "$work/step.log";
      fail "GET /via-pi/data.json: HTTP $code, not gzipped by the offload"; }
pass "GET /via-pi/data.json: gzipped by PiBalanceDeflate, body intact"
for i in $(seq 1 100); do         # counted when the request ends: 10 s
    code=$(get '/pi-status?auto')
    [ "$code" = 200 ] && grep -q '^DeflateOnePass: 1$' "$work/step.log" &&
        grep -q '^ProxyBalancer\[0\]Worker\[0\]Requests: 2$' "$work/step.log" &&
        break
    sleep 0.1
done
[ "$code" = 200 ] || fail "GET /pi-status?auto: HTTP $code"
for key in 'Node: ' 'ProxyBalancer\[0\]Worker\[0\]Requests: 2$' \
           'ProxyBalancer\[0\]Worker\[0\]Weight: ' 'DeflateOnePass: 1$'; do
    grep -q "^$key" "$work/step.log" ||
        fail "GET /pi-status?auto: no line '$key'"
done
pass "GET /pi-status?auto: 200; the member's 2 requests, its weight, 1 gzip"
if grep -E '\] \[[a-z_]+:(emerg|alert|crit|error)\]' "$work/error_log" \
        > "$work/step.log"; then
    fail "errors in the test httpd's error log"
fi

# 6. Stop it, put the system back, and check its configuration again.
stop_httpd || fail "httpd did not stop"
pass "httpd stopped"
restore || fail "mods-enabled differs from before the test"
trap 'rm -rf "$work"' EXIT
apache2ctl -t > "$work/step.log" 2>&1 || fail "apache2ctl -t after restore"
pass "system restored (modules disabled, files as before), apache2ctl -t ok"
exit 0
