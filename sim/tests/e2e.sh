#!/bin/bash
# e2e.sh - end-to-end test of pisim on free 127.0.0.1 ports: telemetry
# contract, pages, HEAD, gzip, bad requests, pipelining, down/up, heating
# to throttling under load, a heat event heating an idle node past its
# limit and over again, the control FIFO (hang/answer, down/up, again and
# again), clean exit on SIGTERM.  Every wait is bounded.
cd "$(dirname "$0")/.." || exit 1
PASS=0
FAIL=0
ok()   { PASS=$((PASS + 1)); echo "ok   $1"; }
bad()  { FAIL=$((FAIL + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }

TMP=$(mktemp -d /tmp/pisim-e2e.XXXXXX)
PID=
LOADPIDS=
cleanup() {
    for p in $LOADPIDS $PID; do kill "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

cat > "$TMP/e2e.conf" <<CONF
defaults service=fixed:5 slots=4 cpus=4 body=size:20000
node e1 body=file:$PWD/phpinfo.html
node e2 gzip=6 body=size:30000 idle_w=2.7 busy_w=6.0
node e3 service=fixed:50 slots=2 tau=0.5 k=60 soft_limit=60
node e4 down_at=1.5 up_at=20
node e5 tau=0.3 heat_at=0.5 heat_for=1.5 heat_every=4 heat_ambient=50
node e6 service=fixed:5
CONF
printf 'node x speed=0\n' > "$TMP/bad.conf"

# -- invalid scenario: message names line and key, non-zero exit
msg=$(./pisim "$TMP/bad.conf" 2>&1)
check "bad scenario rejected: $msg" \
    '[ $? -ne 0 ] && echo "$msg" | grep -q "bad.conf:1: speed:"'

port_free() { ! ss -ltnH "sport = :$1" 2>/dev/null | grep -q .; }

# -- start on a random free base port (up to 5 attempts)
for attempt in 1 2 3 4 5; do
    BASE=$((20000 + RANDOM % 19000))
    port_free $BASE && port_free $((BASE + 1)) && port_free $((BASE + 2)) \
        && port_free $((BASE + 3)) && port_free $((BASE + 4)) \
        && port_free $((BASE + 5)) || continue
    ./pisim "$TMP/e2e.conf" -p $BASE -d 60 -t "$TMP/trace" -l "$TMP/log" \
        -c "$TMP/ctl" > "$TMP/out" 2> "$TMP/err" &
    PID=$!
    for i in $(seq 1 50); do
        [ "$(grep -c listening "$TMP/out" 2>/dev/null)" = 6 ] && break
        kill -0 $PID 2>/dev/null || break
        sleep 0.1
    done
    [ "$(grep -c listening "$TMP/out")" = 6 ] && break
    kill $PID 2>/dev/null
    PID=
done
if [ -z "$PID" ]; then
    bad "pisim did not start: $(cat "$TMP/err")"
    echo "$PASS passed, $FAIL failed"
    exit 1
fi
ok "started on 127.0.0.1:$BASE-$((BASE + 5))"
U="http://127.0.0.1"
C="curl -s --max-time 5"

# -- telemetry contract on every node
for i in 0 1 2; do
    name=e$((i + 1))
    $C "$U:$((BASE + i))/pi-status?auto" > "$TMP/st"
    check "$name Node" "grep -qx 'Node: $name' $TMP/st"
    check "$name TemperatureC" \
        "grep -qE '^TemperatureC: -?[0-9]+\.[0-9]$' $TMP/st"
    check "$name Throttled" "grep -qE '^Throttled: 0x[0-9a-f]+$' $TMP/st"
    check "$name Load1" "grep -qE '^Load1: [0-9]+\.[0-9]{2}$' $TMP/st"
    check "$name CPUs" "grep -qx 'CPUs: 4' $TMP/st"
    check "$name MemAvailableKB" "grep -qE '^MemAvailableKB: [0-9]+$' $TMP/st"
    check "$name UptimeS" "grep -qE '^UptimeS: [0-9]+$' $TMP/st"
done
$C "$U:$BASE/pi-status?x=1&auto" > "$TMP/st"
check "query with auto" "grep -q '^Node: e1' $TMP/st"
check "SimHeatEvent only on a node with heat_at" \
    "! grep -q SimHeatEvent $TMP/st"
check "PowerW only on a node with idle_w and busy_w" "! grep -q PowerW $TMP/st"
$C "$U:$((BASE + 1))/pi-status?auto" > "$TMP/st2"
check "e2 PowerW: two decimals, between idle and busy" \
    "grep -E '^PowerW: [0-9]+\.[0-9]{2}$' $TMP/st2 | awk '{exit !(\$2 >= 2.7 && \$2 <= 6.0)}' \
     && grep -qE '^SimEnergyJ: [0-9]+\.[0-9]{3}$' $TMP/st2"

# -- heat event (e5, idle, tau 0.3 s, ambient +50 C for 1.5 s every 4 s):
# past 80 C and throttled at zero utilisation, then cool again
hot=0
for i in $(seq 1 100); do
    $C "$U:$((BASE + 4))/pi-status?auto" > "$TMP/st5"
    bits=$(sed -n 's/^Throttled: //p' "$TMP/st5")
    if grep -qx 'SimHeatEvent: 1' "$TMP/st5" && [ -n "$bits" ] \
        && [ $((bits & 0x6)) = 6 ]; then
        hot=1; break
    fi
    sleep 0.1
done
temp=$(sed -n 's/^TemperatureC: //p' "$TMP/st5")
check "e5 heat event: idle node past 80 C (T=$temp, Throttled $bits)" \
    "[ $hot = 1 ] && awk 'BEGIN{exit !($temp >= 80)}' \
     && grep -qx 'SimBusy: 0' $TMP/st5"
cool=0
for i in $(seq 1 100); do
    $C "$U:$((BASE + 4))/pi-status?auto" > "$TMP/st5"
    temp=$(sed -n 's/^TemperatureC: //p' "$TMP/st5")
    if grep -qx 'SimHeatEvent: 0' "$TMP/st5" \
        && grep -qx 'Throttled: 0x60000' "$TMP/st5" \
        && awk "BEGIN{exit !($temp < 45)}"; then
        cool=1; break
    fi
    sleep 0.1
done
check "e5 after the event: back under 45 C (T=$temp), sticky bits only" \
    "[ $cool = 1 ]"
check "event log: heat event start and end" \
    "grep -q 'node e5 heat event: ambient +50 C, k +0 C' $TMP/log \
     && grep -q 'node e5 heat event over' $TMP/log"

# -- page: body, length, X-Node
$C -D "$TMP/h1" -o "$TMP/b1" "$U:$BASE/index.php"
check "page body is phpinfo.html" "cmp -s $TMP/b1 phpinfo.html"

check "page Content-Length" \
    "grep -qi \"^Content-Length: $(wc -c < phpinfo.html)\" $TMP/h1"
check "page X-Node" "grep -qi '^X-Node: e1' $TMP/h1"

# -- HEAD: headers only (raw socket, server closes)
exec 3<>"/dev/tcp/127.0.0.1/$((BASE + 1))"
printf 'HEAD / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n' >&3
timeout 3 cat <&3 > "$TMP/head"
exec 3<&-
check "HEAD has Content-Length of the body" \
    "grep -q 'Content-Length: 30000' $TMP/head"
check "HEAD has no body" \
    "[ \"\$(tail -c 4 $TMP/head | od -An -c | tr -d ' ')\" = '\r\n\r\n' ]"

# -- gzip node
$C -D "$TMP/hi" -o "$TMP/id" "$U:$((BASE + 1))/"
$C -H 'Accept-Encoding: gzip' -D "$TMP/hz" -o "$TMP/gz" "$U:$((BASE + 1))/"
check "identity without Accept-Encoding" \
    "[ \$(wc -c < $TMP/id) = 30000 ] && ! grep -qi Content-Encoding $TMP/hi"
check "gzip: Content-Encoding and Vary" \
    "grep -qi '^Content-Encoding: gzip' $TMP/hz \
     && grep -qi '^Vary: Accept-Encoding' $TMP/hz"
check "gzip -d restores the identity body" \
    "gzip -dc < $TMP/gz | cmp -s - $TMP/id"
check "gzip Content-Length matches" \
    "grep -qi \"^Content-Length: \$(wc -c < $TMP/gz)\" $TMP/hz"

# -- garbage: 400 and closed
exec 3<>"/dev/tcp/127.0.0.1/$BASE"
printf 'GARBAGE\r\n\r\n' >&3
timeout 3 cat <&3 > "$TMP/garbage"
exec 3<&-
check "garbage gets 400" "head -n 1 $TMP/garbage | grep -q '^HTTP/1.1 400'"
head -c 20000 /dev/zero | tr '\0' a > "$TMP/long"
{ printf 'GET / HTTP/1.1\r\nX-Long: '; cat "$TMP/long"; printf '\r\n\r\n'; } \
    > "$TMP/bigreq"
exec 3<>"/dev/tcp/127.0.0.1/$BASE"
cat "$TMP/bigreq" >&3 2>/dev/null
timeout 3 cat <&3 > "$TMP/big" 2>/dev/null
exec 3<&-
check "oversized head gets 431" "head -n 1 $TMP/big | grep -q ' 431 '"

# -- pipelining and request bodies, answered in order
exec 3<>"/dev/tcp/127.0.0.1/$BASE"
printf 'POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello' >&3
printf 'GET /pi-status?auto HTTP/1.1\r\n\r\nHEAD / HTTP/1.0\r\n\r\n' >&3
timeout 3 cat <&3 > "$TMP/pipe"
exec 3<&-
check "pipelined: 3 responses" \
    "[ \$(grep -ac '^HTTP/1.1 200' $TMP/pipe) = 3 ]"
check "pipelined: in order" \
    "[ \"\$(grep -a '^Content-Type' $TMP/pipe | cut -c15-18 | tr '\n' ,)\" \
       = 'text,text,text,' ] && grep -a '^Content-Type' $TMP/pipe \
       | sed -n 2p | grep -q plain"
check "still alive after bad input" "kill -0 $PID"

# -- concurrency: 20 parallel clients all served
for i in $(seq 1 20); do
    $C -o /dev/null -w '%{http_code}\n' "$U:$BASE/" >> "$TMP/par" &
done
wait $(jobs -p | grep -v "^$PID\$") 2>/dev/null
check "20 parallel requests served" "[ \$(grep -c 200 $TMP/par) = 20 ]"

# -- failover node: refused while down (1.5 s to 20 s after the start:
# the checks above may take seconds on a busy machine), back afterwards
down=0
for i in $(seq 1 150); do
    if ! curl -s --max-time 1 -o /dev/null "$U:$((BASE + 3))/"; then
        down=1; break
    fi
    sleep 0.1
done
check "e4 refuses connections while down" "[ $down = 1 ]"
up=0
for i in $(seq 1 300); do              # bounded: 300 tries, ~30 s or more
    if curl -s --max-time 1 -o /dev/null "$U:$((BASE + 3))/"; then
        up=1; break
    fi
    sleep 0.1
done
check "e4 serves again after up_at" "[ $up = 1 ]"

# -- heavy load heats e3 (tau 0.5 s) until throttled
for i in 1 2 3 4 5 6; do
    timeout 20 curl -s -o /dev/null "$U:$((BASE + 2))/[1-400]" &
    LOADPIDS="$LOADPIDS $!"
done
hot=0
for i in $(seq 1 40); do
    $C "$U:$((BASE + 2))/pi-status?auto" > "$TMP/st3"
    bits=$(sed -n 's/^Throttled: //p' "$TMP/st3")
    if [ -n "$bits" ] && [ $((bits & 0x40006)) = $((0x40006)) ]; then
        hot=1; break
    fi
    sleep 0.25
done
temp=$(sed -n 's/^TemperatureC: //p' "$TMP/st3")
check "e3 heats up and throttles (T=$temp, Throttled $bits)" \
    "[ $hot = 1 ] && awk 'BEGIN{exit !($temp >= 78)}'"
check "e3 served many while heating" \
    "[ \$(sed -n 's/^SimServed: //p' $TMP/st3) -gt 5 ]"
kill $LOADPIDS 2>/dev/null
wait $LOADPIDS 2>/dev/null
LOADPIDS=
cool=0
for i in $(seq 1 40); do
    $C "$U:$((BASE + 2))/pi-status?auto" > "$TMP/st3"
    grep -qx 'Throttled: 0xe0000' "$TMP/st3" && { cool=1; break; }
    sleep 0.25
done
check "e3 cools: only sticky bits 0xe0000 left" "[ $cool = 1 ]"

# -- keep-alive: 400 requests on one connection (2 s of 5 ms services,
#    40 thermal ticks) are all answered on it; a tick once closed a
#    connection that had just answered (unsigned wrap of its idle time),
#    and the client's next request met a reset
conns=$(timeout 30 curl -s -m 25 -o /dev/null -w '%{num_connects}\n' \
            "http://127.0.0.1:$BASE/?[1-400]" | awk '{n++; c += $1}
                                                 END {print n + 0, c + 0}')
check "keep-alive: 400 requests over one connection (got: $conns)" \
    '[ "$conns" = "400 1" ]'

# -- control FIFO (-c): e6 hung and answering again, down and up, twice
# each (the scenario's down_at/hang_at happen once); a bad command is
# reported and changes nothing
E6="$U:$((BASE + 5))"
check "control FIFO made" "[ -p $TMP/ctl ]"
# wait_for N CMD: until CMD succeeds, at most N tenths of a second
wait_for() {
    local i
    for i in $(seq 1 "$1"); do eval "$2" && return 0; sleep 0.1; done
    return 1
}
for round in 1 2; do
    echo "hang e6" > "$TMP/ctl"
    check "control: e6 hung, telemetry unanswered ($round)" \
        "wait_for 30 '! curl -s --max-time 0.5 -o /dev/null $E6/pi-status?auto'"
    curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$E6/held" \
        > "$TMP/held$round" &
    held=$!
    sleep 0.3
    check "control: a page request to hung e6 is held ($round)" \
        "kill -0 $held 2>/dev/null"
    echo "answer e6" > "$TMP/ctl"
    wait $held
    check "control: answer e6 serves the held request ($round)" \
        "[ \"\$(cat $TMP/held$round)\" = 200 ]"
    echo "down e6" > "$TMP/ctl"
    check "control: e6 down refuses connections ($round)" \
        "wait_for 30 '! curl -s --max-time 1 -o /dev/null $E6/'"
    echo "up e6" > "$TMP/ctl"
    check "control: e6 up serves again ($round)" \
        "wait_for 30 'curl -s --max-time 1 -o /dev/null $E6/'"
done
echo "hang e6" > "$TMP/ctl"
echo "hang e6" > "$TMP/ctl"
echo "answer *" > "$TMP/ctl"
printf 'bogus e6\nhang nosuch\n' > "$TMP/ctl"
check "control: a bad command is reported on stderr" \
    "wait_for 30 'grep -q \"pisim: control: hang: no node .nosuch.\" $TMP/err' \
     && grep -q \"pisim: control: .bogus.: not a command\" $TMP/err"
check "control: e6 answers after it all" \
    "curl -s --max-time 2 -o /dev/null $E6/pi-status?auto"
check "event log: each control change once, with (control)" \
    "[ \"\$(grep -c 'node e6 hung (control)' $TMP/log)\" = 3 ] \
     && [ \"\$(grep -c 'node e6 answers again (control)' $TMP/log)\" = 3 ] \
     && [ \"\$(grep -c 'node e6 down (control)' $TMP/log)\" = 2 ] \
     && [ \"\$(grep -c 'node e6 up (control)' $TMP/log)\" = 2 ] \
     && grep -q \"control: hang: no node .nosuch.\" $TMP/log"

# -- SIGTERM: clean exit with a summary
kill -TERM $PID
rc=timeout
for i in $(seq 1 50); do
    if ! kill -0 $PID 2>/dev/null; then
        wait $PID; rc=$?; break
    fi
    sleep 0.1
done
PID=
check "exits 0 on SIGTERM (rc=$rc)" "[ '$rc' = 0 ]"
check "summary line per node" "[ \$(grep -c '^node=e[1-6] ' $TMP/out) = 6 ]"
check "event log: starts with the epoch, ends with the stop" \
    "head -n 1 $TMP/log | grep -qE '^0\.[0-9]{3} pisim start: epoch [0-9]{10}\.[0-9]{3}, 6 node\(s\)$' \
     && tail -n 1 $TMP/log | grep -qE '^[0-9.]+ pisim stop$'"
check "summary: e3 throttled seconds and peak" \
    "grep '^node=e3 ' $TMP/out | tr ' ' '\n' | awk -F= '
        \$1 == \"throttled_s\" { t = \$2 } \$1 == \"peak_c\" { p = \$2 }
        END { exit !(t > 0 && p >= 80) }'"
check "trace has lines per node" \
    "grep -qE '^[0-9.]+ e3 [0-9.]+ 0x[0-9a-f]+ [0-9]+ [0-9]+ [0-9.]+$' $TMP/trace"
check "summary: e2's energy between idle and busy draw x elapsed" \
    "el=\$(sed -n 's/.*elapsed_s=\([0-9.]*\).*/\1/p' $TMP/out); \
     grep '^node=e2 ' $TMP/out | tr ' ' '\n' | awk -F= -v el=\$el '
        \$1 == \"energy_j\" { e = \$2 }
        END { exit !(e >= 2.7 * el * 0.95 && e <= 6.0 * el * 1.05) }'"
check "summary: energy only where there is a sensor; the total has it" \
    "! grep '^node=e1 ' $TMP/out | grep -q energy_j \
     && grep -q '^total=all .* energy_j=' $TMP/out"

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
