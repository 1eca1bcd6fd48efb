#!/bin/bash
# bench/cache.sh [SECS] [CONNS] -- "compress once" (issue 18): fronts that
# compress a node's page and keep it, side by side, in one run.
#
# The node is a plain Apache (core 0) serving sim/phpinfo.html (~51 KB)
# as revalidatable content: Cache-Control: max-age=$MAXAGE, an ETag and
# Last-Modified, never compressed.  Each front is pinned to core 1; wrk
# (core 0) sends one page with a browser-like mix of Accept-Encoding
# strings (bench/cache-mix.lua: Chrome, Firefox, Safari, curl, Python
# requests, Go).  Rows:
#
#   offload        PiBalanceDeflate alone (compresses every response)
#   offload+disk   + mod_cache_disk, PiBalanceDeflateCacheKey, sendfile
#   offload+shm    + mod_cache_socache (shmcb), PiBalanceDeflateCacheKey
#   disk+L12, shm+L12  the same, PiBalanceDeflateStoreLevel 12
#   shm-full       shm+L12 with PiBalanceDeflateCacheRefresh full (stale
#                  copies refreshed by full requests: no 304, no empty
#                  copy)
#   shm-no304      offload+shm, the node's 304s made no-store (mod_cache
#                  then asks for the whole page: socache's 304 refresh
#                  loses the body, docs/offload.md)
#   shm-noquick    offload+shm with CacheQuickHandler Off
#   static-gzip    a reference: Apache's file handler sending the same
#                  bytes from files (no proxy, no cache): the offload's
#                  gzip copy, or the page to clients without gzip
#   haproxy        HAProxy cache (process-vary) + compression offload
#   nginx          nginx proxy_cache + gzip
#   varnish        Varnish, http_gzip_support (do_gzip)
#
# Columns: pages/s (wall), pages per second of front CPU (one core), gzip
# body bytes (curl, Accept-Encoding: gzip), mean bytes a response over
# the mix (headers included), full bodies (200) and 304s the node sent
# during the run, the hit ratio (requests the node did not see), and the
# freshness periods the run spans (caches are warmed by a 1 s run first).
# PIB_CACHE_FRONTS: the rows to run (names as above; default all).
# PIB_CACHE_ROUNDS rounds (default 3), each front once a round in the
# same order: the table gives medians (node requests summed over the
# rounds), then every round's pages/s.  A front that is not installed
# is skipped and said so.  Raw data (every wrk output,
# node logs, configs) in bench/results/<date>-<time>-cache/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-10}
conns=${2:-50}
MAXAGE=${PIB_CACHE_MAXAGE:-5}
work=$(mktemp -d /tmp/pib-cache.XXXXXX)
chmod 755 "$work"
NODE=19191 FRONT=19190
source "$top/bench/cpu.sh"
raw=$(results_dir cache)
page="$top/sim/phpinfo.html"
pids=()
libexec=$(apxs -q LIBEXECDIR)

cleanup() {
    local p
    for p in "${pids[@]:-}"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null || true
    done
    for c in node front; do
        [ -f "$work/$c/httpd.pid" ] \
            && kill "$(cat "$work/$c/httpd.pid")" 2>/dev/null || true
    done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null
    [ -f "$work/varnish.pid" ] \
        && kill "$(cat "$work/varnish.pid")" 2>/dev/null
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT

"$top/build/setup-deps.sh" bench
for p in wrk taskset curl; do
    command -v "$p" >/dev/null || { echo "missing: $p" >&2; exit 1; }
done
make -s -C "$top/sim" phpinfo.html >/dev/null
so=$(module_so "${PIB_MODULES:-$top}" mod_pibalance)

# ---- the node: Apache, static, revalidatable --------------------------------
mkdir -p "$work/node/htdocs" "$work/front"
cp "$page" "$work/node/htdocs/page.html"
cat > "$work/node/httpd.conf" <<CONF
$(apache_base "$work/node" warn)
LoadModule mime_module "$libexec/mod_mime.so"
LoadModule headers_module "$libexec/mod_headers.so"
User nobody
Group nogroup
Listen 127.0.0.1:$NODE
DocumentRoot "$work/node/htdocs"
TypesConfig /etc/mime.types
FileETag MTime Size
Header set Cache-Control "max-age=$MAXAGE"
MaxKeepAliveRequests 0
LogFormat "%s" st
CustomLog "$work/node/access_log" st
CONF
chmod -R a+rX "$work/node"
taskset -c 0 /usr/sbin/apache2 -f "$work/node/httpd.conf" -k start
wait_port "$NODE"

node_count() {                  # node_count STATUS
    grep -c "^$1\$" "$work/node/access_log" 2>/dev/null || true
}

# ---- the fronts -------------------------------------------------------------
apache_front() {                # apache_front EXTRA_CONFIG
    cat > "$work/front/httpd.conf" <<CONF
$(apache_base "$work/front" warn)
LoadModule cache_module "$libexec/mod_cache.so"
LoadModule cache_disk_module "$libexec/mod_cache_disk.so"
LoadModule cache_socache_module "$libexec/mod_cache_socache.so"
LoadModule socache_shmcb_module "$libexec/mod_socache_shmcb.so"
LoadModule pibalance_module "$so"
User nobody
Group nogroup
Listen 127.0.0.1:$FRONT
StartServers 2
ServerLimit 2
ThreadsPerChild 64
MaxRequestWorkers 128
MaxKeepAliveRequests 0
ProxyIOBufferSize 65536
EnableSendfile On
$(if [ "${2:-}" = static ]; then cat <<STATIC
LoadModule headers_module "$libexec/mod_headers.so"
LoadModule mime_module "$libexec/mod_mime.so"
LoadModule rewrite_module "$libexec/mod_rewrite.so"
DocumentRoot "$work/static"
TypesConfig /etc/mime.types
RewriteEngine On
RewriteCond "%{HTTP:Accept-Encoding}" "gzip"
RewriteRule "^/page\.html\$" "/page.html.gz" [L]
<Files "page.html.gz">
    ForceType text/html
    Header set Content-Encoding gzip
</Files>
Header append Vary Accept-Encoding
STATIC
else cat <<PROXY
<Proxy "balancer://b">
    BalancerMember "http://127.0.0.1:$NODE"
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/" "balancer://b/"
PiBalanceDeflate On
PROXY
fi)
$1
CONF
    mkdir -p "$work/front/disk"
    chown nobody "$work/front/disk"
    cp "$work/front/httpd.conf" "$raw/httpd-$name.conf"
    taskset -c 1 /usr/sbin/apache2 -f "$work/front/httpd.conf" -k start
    wait_port "$FRONT"
}

stop_apache_front() {
    /usr/sbin/apache2 -f "$work/front/httpd.conf" -k stop 2>/dev/null || true
    local i
    for i in $(seq 50); do
        [ -f "$work/front/httpd.pid" ] || break
        sleep 0.1
    done
    rm -rf "$work/front/disk"
}

start_haproxy() {
    cat > "$work/haproxy.cfg" <<CONF
global
    nbthread 1
    tune.comp.maxlevel 1
    pidfile $work/haproxy.pid
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
cache c
    total-max-size 64
    max-object-size 1000000
    max-age $MAXAGE
    process-vary on
frontend f
    bind 127.0.0.1:$FRONT
    default_backend b
backend b
    filter cache c
    filter compression
    http-request cache-use c
    http-response cache-store c
    compression algo gzip
    compression type text/html
    compression offload
    http-reuse always
    server n 127.0.0.1:$NODE
CONF
    cp "$work/haproxy.cfg" "$raw/"
    taskset -c 1 haproxy -f "$work/haproxy.cfg" > "$work/haproxy.log" 2>&1 &
    front_pid=$!
    pids+=("$front_pid")
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
    proxy_cache_path $work/nc keys_zone=z:10m;
    gzip on;
    gzip_comp_level 1;
    gzip_proxied any;
    upstream node { server 127.0.0.1:$NODE; keepalive 64; }
    server {
        listen 127.0.0.1:$FRONT;
        location / {
            proxy_pass http://node;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Accept-Encoding "";
            proxy_cache z;
            proxy_cache_revalidate on;
            proxy_cache_lock on;
        }
    }
}
CONF
    cp "$work/nginx.conf" "$raw/"
    taskset -c 1 nginx -c "$work/nginx.conf"
    wait_port "$FRONT"
}

start_varnish() {
    cat > "$work/varnish.vcl" <<CONF
vcl 4.1;
backend node { .host = "127.0.0.1"; .port = "$NODE"; }
sub vcl_backend_response {
    if (beresp.http.content-type ~ "text/html") {
        set beresp.do_gzip = true;
    }
}
CONF
    cp "$work/varnish.vcl" "$raw/"
    taskset -c 1 varnishd -a "127.0.0.1:$FRONT" -f "$work/varnish.vcl" \
        -n "$work/varnish" -s malloc,64m -P "$work/varnish.pid" \
        -p http_gzip_support=on > "$work/varnish.log" 2>&1
    wait_port "$FRONT"
}

stop_other() {
    case $1 in
        haproxy) kill "$front_pid" 2>/dev/null || true
                 wait "$front_pid" 2>/dev/null || true ;;
        nginx) kill "$(cat "$work/nginx.pid")" 2>/dev/null || true ;;
        varnish) kill "$(cat "$work/varnish.pid")" 2>/dev/null || true ;;
    esac
    local i
    for i in $(seq 50); do
        curl -s -o /dev/null "http://127.0.0.1:$FRONT/" || break
        sleep 0.1
    done
}

front_cpu_pids() {
    case $1 in
        apache) pgrep -f "$work/front/httpd.conf" || true ;;
        haproxy) echo "$front_pid" ;;
        nginx) local m
               m=$(cat "$work/nginx.pid" 2>/dev/null) || return 0
               echo "$m"; pgrep -P "$m" || true ;;
        varnish) pgrep -f "$work/varnish" || true ;;
    esac
}

# ---- measuring ------------------------------------------------------------
# Each round measures every front once, in the same order; the table gives
# each front's median over the rounds, so a burst of noise on the shared
# machine moves one round, not the comparison.  Node requests are summed.
rounds=${PIB_CACHE_ROUNDS:-3}
case $rounds in '' | *[!0-9]* | 0) echo "PIB_CACHE_ROUNDS: $rounds?" >&2
                                   exit 2 ;; esac
per_round=$raw/rounds.txt        # round name pages/s a-core gz mix 200s 304s n
: > "$per_round"
measure() {                     # measure ROUND NAME FRONT
    local r=$1 name=$2 front=$3 out rps n t0 t1 us pc gz mix full0 nm0 full nm
    gz=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null \
              -w '%{size_download}' "http://127.0.0.1:$FRONT/page.html")
    timeout 10 taskset -c 0 wrk -t1 -c"$conns" -d1s \
        -s "$top/bench/cache-mix.lua" "http://127.0.0.1:$FRONT" >/dev/null
    full0=$(node_count 200)
    nm0=$(node_count 304)
    # shellcheck disable=SC2046
    t0=$(cpu_ticks $(front_cpu_pids "$front"))
    out=$(timeout $((secs + 10)) taskset -c 0 wrk -t1 -c"$conns" \
              -d"${secs}s" --latency -s "$top/bench/cache-mix.lua" \
              "http://127.0.0.1:$FRONT")
    # shellcheck disable=SC2046
    t1=$(cpu_ticks $(front_cpu_pids "$front"))
    printf '%s\n' "$out" > "$raw/$name-r$r.wrk"
    full=$(( $(node_count 200) - full0 ))
    nm=$(( $(node_count 304) - nm0 ))
    n=$(awk '/requests in/ {print $1}' <<<"$out")
    rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
    mix=$(awk '/^MIXBYTES/ {print $2}' <<<"$out")
    us=$(printf '%.0f' "$(us_per_request $((t1 - t0)) "$n")")
    pc=$(awk -v us="$us" 'BEGIN {printf "%.0f", (us > 0 ? 1e6 / us : 0)}')
    echo "$r $name ${rps:-0} ${pc:-0} ${gz:-0} ${mix:-0} ${full:-0} ${nm:-0} ${n:-0}" \
        >> "$per_round"
    printf '  round %s %-13s %6s pages/s, %6s a core, node: %s full, %s 304\n' \
        "$r" "$name" "$rps" "$pc" "$full" "$nm" >&2
}

disk_conf="CacheEnable disk /
CacheRoot $work/front/disk
CacheLock On"
shm_conf="CacheEnable socache /
CacheSocache shmcb:$work/front/shm(67108864)
CacheSocacheMaxSize 1048576
CacheLock On"
run_front() {                   # run_front ROUND NAME
    local r=$1 f=$2 bin
    name=$f
    case $f in
        offload) apache_front ""
                 # the reference row's files: the node's page, and the
                 # offload's own gzip bytes of it
                 if [ ! -s "$work/static/page.html.gz" ]; then
                     mkdir -p "$work/static"
                     cp "$work/node/htdocs/page.html" "$work/static/"
                     curl -sf -H 'Accept-Encoding: gzip' \
                          -o "$work/static/page.html.gz" \
                          "http://127.0.0.1:$FRONT/page.html"
                     gzip -t < "$work/static/page.html.gz" ||
                         { echo "the offload's gzip page?" >&2; exit 1; }
                     chmod -R a+rX "$work/static"
                 fi ;;
        # A reference, not a cache: Apache's own file handler sending a
        # pre-compressed file (sendfile): the offload's gzip bytes to
        # gzip clients, the page to the others (mod_rewrite on
        # Accept-Encoding), with no proxy and no cache.
        static-gzip) apache_front "" static ;;
        offload+disk) apache_front "PiBalanceDeflateCacheKey On
$disk_conf" ;;
        offload+shm) apache_front "PiBalanceDeflateCacheKey On
$shm_conf" ;;
        # the same two, the stored copies at libdeflate's best level
        disk+L12) apache_front "PiBalanceDeflateCacheKey On
PiBalanceDeflateStoreLevel 12
$disk_conf" ;;
        shm+L12) apache_front "PiBalanceDeflateCacheKey On
PiBalanceDeflateStoreLevel 12
$shm_conf" ;;
        # the node's 304 made no-store, so that mod_cache asks again
        # without the condition: a way around socache's empty refresh
        shm-no304) apache_front "PiBalanceDeflateCacheKey On
LoadModule headers_module \"$libexec/mod_headers.so\"
Header set Cache-Control no-store \"expr=%{REQUEST_STATUS} == 304\"
$shm_conf" ;;
        # socache's recommended set-up: stale copies refreshed by full
        # requests (PiBalanceDeflateCacheRefresh full), stored at 12
        shm-full) apache_front "PiBalanceDeflateCacheKey On
PiBalanceDeflateStoreLevel 12
PiBalanceDeflateCacheRefresh full
$shm_conf" ;;
        # mod_cache as a normal handler, after the request's hooks
        shm-noquick) apache_front "PiBalanceDeflateCacheKey On
CacheQuickHandler Off
$shm_conf" ;;
        *) bin=$f; [ "$f" = varnish ] && bin=varnishd
           if ! command -v "$bin" >/dev/null; then
               [ "$r" = 1 ] && echo "  $f: not installed, skipped" >&2
               return 0
           fi
           "start_$f"; measure "$r" "$f" "$f"; stop_other "$f"
           return 0 ;;
    esac
    measure "$r" "$f" apache
    stop_apache_front
}

fronts=${PIB_CACHE_FRONTS:-offload static-gzip offload+disk offload+shm disk+L12 shm+L12 shm-full shm-no304 shm-noquick haproxy nginx varnish}
echo "bench/cache.sh: ${secs}s a front, $conns connections, max-age" \
     "$MAXAGE s, $rounds round(s); raw data in $raw" >&2
for r in $(seq 1 "$rounds"); do
    for f in $fronts; do run_front "$r" "$f"; done
done

# median of the rounds for rates and bytes; node requests summed; the hit
# ratio from the sums (the offload alone and the reference have no cache)
{
    echo "bench/cache.sh ${secs}s ${conns} connections, max-age ${MAXAGE}s," \
         "$rounds round(s) (medians), $(date -u +%Y-%m-%dT%H:%MZ)," \
         "commit $(tree_commit "$top")"
    echo
    echo "| front | pages/s | pages/s a core | gzip bytes | mix bytes | node 200s | node 304s | hit % | periods |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for f in $fronts; do
        awk -v f="$f" -v s="$secs" -v m="$MAXAGE" '
            function med(a, k,   i, j, t) {
                for (i = 2; i <= k; i++)
                    for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
                        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
                return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
            }
            $2 == f { k++; rps[k] = $3; pc[k] = $4; gz[k] = $5; mix[k] = $6
                      full += $7; nm += $8; n += $9 }
            END {
                if (!k) { printf "| %s | not installed | | | | | | | |\n", f
                          exit }
                hit = (f == "offload" || f == "static-gzip" || !n) ? "—" \
                      : sprintf("%.2f", 100 * (1 - (full + nm) / n))
                printf "| %-13s | %8.0f | %9.0f | %7.0f | %7.0f | %6d | %5d | %6s | %.1f |\n",
                       f, med(rps, k), med(pc, k), med(gz, k), med(mix, k),
                       full, nm, hit, k * s / m
            }' "$per_round"
    done
    echo
    echo "Each round, pages/s (wall):"
    echo
    awk '{ v[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; o[++nf] = $2 }
           if ($1 > nr) nr = $1 }
         END { printf "| front |"; for (r = 1; r <= nr; r++) printf " %d |", r
               printf "\n|---|"; for (r = 1; r <= nr; r++) printf "---|"
               printf "\n"
               for (i = 1; i <= nf; i++) { printf "| %s |", o[i]
                   for (r = 1; r <= nr; r++) printf " %s |", v[r, o[i]]
                   printf "\n" } }' "$per_round"
} | tee "$raw/table.md"
