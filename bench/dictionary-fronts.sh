#!/bin/bash
# bench/dictionary-fronts.sh OUT [SECS] -- part 2 of bench/dictionary.sh
# (issue 30 item 7): the dynamic page and the versioned script, ten
# versions each, through whole fronts, as a returning browser asks for
# them (Accept-Encoding: gzip, deflate, br, zstd, dcb, dcz).
#
# Node: a plain Apache on core 0 serving the versions from files
# (/page?v=N -> page-N.html with Cache-Control: no-cache; /s/app.js?v=N ->
# app-N.js, max-age one day), so the node costs the same for every front.
# Fronts on core 1, one at a time:
#   pib-gzip1   mod_pibalance, PiBalanceDeflateCodecs gzip (level 1)
#   pib-zstd3   mod_pibalance, PiBalanceDeflateCodecs zstd=3
#   pib-br4     mod_pibalance, PiBalanceDeflateCodecs br=4
#   haproxy     HAProxy, compression algo gzip, level 1 (all it can)
#   nginx       nginx, gzip_comp_level 1 (all it can)
# (pib-dcz, the same with dcz first and a returning client's
# Available-Dictionary, joins when the filter sends dcz: issue 29.)
# Columns: body bytes per response (curl, each version once) and front
# CPU per response (wrk on core 0, SECS seconds, the ten versions in
# turn, 8 connections).  Ports 32100 (node) and 32101 (front).
# Run through bench/dictionary.sh (flock /work/bench.lock).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
secs=${2:-5}
work=$(mktemp -d /tmp/pib-dict.XXXXXX)
chmod 755 "$work"
NODE=32100 FRONT=32101
source "$top/bench/cpu.sh"
libexec=$(apxs -q LIBEXECDIR)
front_pid=
AE='gzip, deflate, br, zstd, dcb, dcz'

cleanup() {
    [ -n "$front_pid" ] && kill "$front_pid" 2>/dev/null || true
    for c in node front; do
        [ -f "$work/$c/httpd.pid" ] \
            && kill "$(cat "$work/$c/httpd.pid")" 2>/dev/null || true
    done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT
for p in wrk taskset curl haproxy nginx; do
    command -v "$p" >/dev/null || { echo "missing: $p" >&2; exit 1; }
done
so=$(module_so "${PIB_MODULES:-$top}" mod_pibalance)

# ---- the node ----------------------------------------------------------------
mkdir -p "$work/node/htdocs/s" "$work/front"
for i in 1 2 3 4 5 6 7 8 9 10; do
    python3 "$top/t/bin/dynpage.py" "$i" > "$work/node/htdocs/page-$i.html"
    python3 "$top/t/bin/dynpage.py" --script "$i" > "$work/node/htdocs/s/app-$i.js"
done
cat > "$work/node/httpd.conf" <<CONF
$(apache_base "$work/node" warn)
LoadModule mime_module "$libexec/mod_mime.so"
LoadModule headers_module "$libexec/mod_headers.so"
LoadModule rewrite_module "$libexec/mod_rewrite.so"
User nobody
Group nogroup
Listen 127.0.0.1:$NODE
DocumentRoot "$work/node/htdocs"
TypesConfig /etc/mime.types
MaxKeepAliveRequests 0
RewriteEngine On
RewriteCond "%{QUERY_STRING}" "^v=([0-9]+)\$"
RewriteRule "^/page\$" "/page-%1.html" [L]
RewriteCond "%{QUERY_STRING}" "^v=([0-9]+)\$"
RewriteRule "^/s/app\.js\$" "/s/app-%1.js" [L]
<FilesMatch "^page-">
    Header set Cache-Control "no-cache"
</FilesMatch>
<FilesMatch "^app-">
    Header set Cache-Control "public, max-age=86400"
</FilesMatch>
CONF
chmod -R a+rX "$work/node"
taskset -c 0 /usr/sbin/apache2 -f "$work/node/httpd.conf" -k start
wait_port "$NODE"

# ---- fronts ------------------------------------------------------------------
start_pib() {                   # start_pib CODECS
    cat > "$work/front/httpd.conf" <<CONF
$(apache_base "$work/front" warn)
LoadModule pibalance_module "$so"
User nobody
Group nogroup
Listen 127.0.0.1:$FRONT
StartServers 1
ServerLimit 1
ThreadsPerChild 32
MaxRequestWorkers 32
MaxKeepAliveRequests 0
ProxyIOBufferSize 65536
<Proxy "balancer://b">
    BalancerMember "http://127.0.0.1:$NODE"
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
PiBalanceDeflate On
PiBalanceDeflateLevel 1
PiBalanceDeflateCodecs $1
PiBalanceDeflateTypes text/html text/javascript application/javascript
CONF
    cp "$work/front/httpd.conf" "$out/httpd-$name.conf"
    taskset -c 1 /usr/sbin/apache2 -f "$work/front/httpd.conf" -k start
    wait_port "$FRONT"
}
start_haproxy() {
    cat > "$work/haproxy.cfg" <<CONF
global
    nbthread 1
    tune.comp.maxlevel 1
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend f
    bind 127.0.0.1:$FRONT
    default_backend b
backend b
    filter compression
    compression algo gzip
    compression type text/html text/javascript application/javascript
    compression offload
    http-reuse always
    server n 127.0.0.1:$NODE
CONF
    cp "$work/haproxy.cfg" "$out/"
    taskset -c 1 haproxy -f "$work/haproxy.cfg" > "$work/haproxy.log" 2>&1 &
    front_pid=$!
    wait_port "$FRONT"
}
start_nginx() {
    cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nb;
    proxy_temp_path $work/np;
    fastcgi_temp_path $work/nf;
    uwsgi_temp_path $work/nu;
    scgi_temp_path $work/ns;
    gzip on;
    gzip_comp_level 1;
    gzip_proxied any;
    gzip_types text/javascript application/javascript;
    upstream node { server 127.0.0.1:$NODE; keepalive 64; }
    server {
        listen 127.0.0.1:$FRONT;
        location / {
            proxy_pass http://node;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Accept-Encoding "";
        }
    }
}
CONF
    cp "$work/nginx.conf" "$out/"
    taskset -c 1 nginx -c "$work/nginx.conf"
    wait_port "$FRONT"
}
stop_front() {
    case $1 in
        haproxy) kill "$front_pid" 2>/dev/null || true
                 wait "$front_pid" 2>/dev/null || true; front_pid= ;;
        nginx) kill "$(cat "$work/nginx.pid")" 2>/dev/null || true ;;
        *) /usr/sbin/apache2 -f "$work/front/httpd.conf" -k stop \
               2>/dev/null || true ;;
    esac
    local i
    for i in $(seq 50); do
        curl -s -o /dev/null "http://127.0.0.1:$FRONT/" || break
        sleep 0.1
    done
}
cpu_pids() {
    case $1 in
        haproxy) echo "$front_pid" ;;
        nginx) local m; m=$(cat "$work/nginx.pid"); echo "$m"; pgrep -P "$m" ;;
        *) pgrep -f "$work/front/httpd.conf" || true ;;
    esac
}

cat > "$work/versions.lua" <<'LUA'
-- the ten versions of one resource in turn, a returning browser's AE
local n = 0
local path = os.getenv("PIB_DICT_PATH")
request = function()
    n = n % 10 + 1
    return wrk.format("GET", path .. n, {
        ["Accept-Encoding"] = "gzip, deflate, br, zstd, dcb, dcz" })
end
LUA

printf '%-10s %-8s %-8s %10s %12s\n' front resource coding bytes \
    cpu_us/resp > "$out/fronts.txt"
for name in pib-gzip1 pib-zstd3 pib-br4 haproxy nginx; do
    case $name in
        pib-gzip1) start_pib gzip ;;
        pib-zstd3) start_pib zstd=3 ;;
        pib-br4) start_pib br=4 ;;
        haproxy) start_haproxy ;;
        nginx) start_nginx ;;
    esac
    for res in page s/app.js; do
        bytes=0 coding=
        for i in 1 2 3 4 5 6 7 8 9 10; do
            b=$(curl -s -H "Accept-Encoding: $AE" -D "$work/h" -o /dev/null \
                     -w '%{size_download}' "http://127.0.0.1:$FRONT/$res?v=$i")
            bytes=$((bytes + b))
            coding=$(tr -d '\r' < "$work/h" \
                     | awk -F': ' 'tolower($1)=="content-encoding"{print $2}')
        done
        # shellcheck disable=SC2046
        t0=$(cpu_ticks $(cpu_pids "$name"))
        wout=$(PIB_DICT_PATH="/$res?v=" timeout $((secs * 3 + 10)) \
               taskset -c 0 wrk -t1 -c8 -d"${secs}s" -s "$work/versions.lua" \
               "http://127.0.0.1:$FRONT")
        # shellcheck disable=SC2046
        t1=$(cpu_ticks $(cpu_pids "$name"))
        echo "$wout" > "$out/wrk-$name-${res//\//_}.txt"
        n=$(echo "$wout" | awk '/requests in/ {print $1}')
        printf '%-10s %-8s %-8s %10d %12s\n' "$name" "${res##*/}" \
            "${coding:-identity}" $((bytes / 10)) \
            "$(us_per_request $((t1 - t0)) "$n")" >> "$out/fronts.txt"
    done
    stop_front "$name"
done
cat "$out/fronts.txt"
