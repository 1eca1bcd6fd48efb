# pi-telemetry-agent (agent/): serves the same telemetry text as
# mod_pistats' node handler for the same sensor fixtures, is probed by the
# master like an Apache node, answers bad requests 400/404/405 and
# survives them, ignores empty lines before a request line, is not held
# by a silent or slow client beyond its --timeout, listens on IPv4 and
# IPv6 for *:PORT, gives up root for nobody unless told --user root, and
# in --write mode replaces its file atomically through a file of its
# own, never through a planted symlink.  Hostile clients in numbers:
# agent_hostile.t.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::INET;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiTest qw(node_get status_json telemetry wait_for);
use PiAgent qw(agent_bin agent_start agent_stop agent_pid agent_err
               agent_wait agent_port agent_ports agent_raw status_of body_of
               slurp have_ipv6 nobody);

plan tests => 79, need_module 'pistats', 'proxy_balancer';

my $vars  = Apache::Test::config()->{vars};
my $agent = agent_bin();
my $fix   = "$vars->{serverroot}/fixtures/node2";
my $tmp   = "$vars->{serverroot}/tmp/agent";
my @keys  = qw(Node TemperatureC Throttled Load1 CPUs MemAvailableKB UptimeS);
my $TIMEOUT = 1;                          # the agents' --timeout, s
my $ROOT  = $> == 0;                      # then the agent drops to nobody
my ($NOBODY_UID, $NOBODY_GID) = nobody();

remove_tree($tmp);
make_path($tmp);

sub start_agent { return agent_start($tmp, @_) }
sub stop_agent  { return agent_stop(@_) }
sub read_file   { return slurp(@_) }

# Sends $raw to the agent at 127.0.0.1:$port, returns (answer, seconds).
sub raw { return agent_raw('127.0.0.1', @_) }

# The text's "Key: value" pairs in order, as [key, value] pairs.
sub pairs {
    return [ map { /^([^:]+): (.*)$/ ? [$1, $2] : ['?', $_] }
             split /\n/, $_[0] ];
}

# A directory the agent may write: as root it runs as nobody.
sub agent_dir {
    my ($d) = @_;
    make_path($d);
    chown $NOBODY_UID, $NOBODY_GID, $d if $ROOT && defined $NOBODY_UID;
    return $d;
}

# What an agent logged, without the line saying whom it runs as.
sub err_of {
    return join '', grep { !/: running as user \S+ \(uid \d+\)$/ }
                    split /^/, agent_err($_[0]);
}

# The uid a process runs as (/proc/PID/status), or -1.
sub uid_of {
    my ($pid) = @_;
    my $st = read_file("/proc/$pid/status") // '';
    return $st =~ /^Uid:\s+(\d+)/m ? $1 : -1;
}

# ---- 1. the same text as mod_pistats' node handler ----------------------

# The master's member: the port the agent must serve on.
my $doc = status_json('agentmaster');
my ($bal) = grep { $_->{name} eq 'balancer://agent' } @{ $doc->{balancers} };
my ($mport) = ($bal->{members}[0]{name} // '') =~ /:(\d+)$/;
ok t_cmp(defined $mport ? 1 : 0, 1, 'the master has the agent member');
$mport //= 0;

start_agent('main', '--listen', "127.0.0.1:$mport", '--node', 'node2',
            '--thermal-zone', "$fix/thermal_zone*/temp",
            '--throttled-file', "$fix/get_throttled",
            '--timeout', $TIMEOUT);
my $port = agent_port('main');
ok t_cmp($port, $mport, 'the agent listens on the member port');

my ($ans) = raw($port, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
ok t_cmp(status_of($ans), 200, 'GET /pi-status?auto: 200');
ok t_cmp($ans, qr{\r\nContent-Type: text/plain; charset=utf-8\r\n},
         'text/plain');
my $body = body_of($ans);
my ($clen) = $ans =~ /\r\nContent-Length: (\d+)\r\n/;
ok t_cmp($clen // -1, length $body, 'Content-Length is the body length');
my $got  = pairs($body);
my $node = node_get('node2', '/pi-status?auto');
my $want = pairs($node->content);
ok t_cmp(join(',', map { $_->[0] } @$got), join(',', @keys),
         'the contract keys, in order, nothing else');
ok t_cmp(join(',', map { $_->[0] } @$want[0 .. $#keys]), join(',', @keys),
         "mod_pistats' node text starts with the same keys");
# Sensor values (the fixtures) and the CPU count are equal; load, memory
# and uptime are read from /proc at two moments: same format, close.
for my $i (0 .. 2, 4) {
    ok t_cmp($got->[$i][1], $want->[$i][1], "$keys[$i] as mod_pistats'");
}
ok t_cmp($got->[1][1], '61.2', 'TemperatureC from the fixture');
ok t_cmp($got->[2][1], '0x50005', 'Throttled from the fixture');
ok t_cmp($got->[3][1], qr/^\d+\.\d\d$/, 'Load1 format');
ok t_cmp($got->[5][1], qr/^\d+$/, 'MemAvailableKB format');
ok t_cmp(abs(($got->[6][1] // 0) - ($want->[6][1] // -100)) <= 60 ? 1 : 0,
         1, "UptimeS within a minute of mod_pistats' ($got->[6][1])");

($ans) = raw($port, "HEAD /pi-status?auto HTTP/1.1\r\nHost: x\r\n\r\n");
ok t_cmp(status_of($ans) . '|' . body_of($ans), '200|', 'HEAD: no body');
($ans) = raw($port, "GET /pi-status HTTP/1.1\r\nHost: x\r\n\r\n");
ok t_cmp(status_of($ans), 200, 'GET /pi-status: 200');
ok t_cmp($ans, qr{Content-Type: text/html.*<h1>pi-status: node2</h1>}s,
         'the HTML page, as a node serves it');

# ---- 2. the master's probe reads it -------------------------------------

my $m = wait_for(20, 0.25, sub {
    my ($b) = grep { $_->{name} eq 'balancer://agent' }
              @{ status_json('agentmaster')->{balancers} };
    my $m = $b && $b->{members}[0];
    return $m && !$m->{telemetry_stale}
           && ($m->{telemetry}{node} // '') eq 'node2' ? $m : undef;
});
ok t_cmp($m ? 1 : 0, 1, 'the master probed the agent: fresh telemetry');
ok t_cmp($m && $m->{telemetry}{temperature_c}, 61.2,
         'the member temperature is the fixture');
ok t_cmp($m && $m->{telemetry}{throttled}, 0x50005,
         'the member throttle bits are the fixture');

# ---- 3. bad requests, slow clients --------------------------------------

my @bad = (
    [ "POST /pi-status?auto HTTP/1.1\r\nHost: x\r\n"
      . "Content-Length: 3\r\n\r\nabc",                405, 'POST' ],
    [ "DELETE /pi-status HTTP/1.0\r\n\r\n",            405, 'DELETE' ],
    [ "GET /nope HTTP/1.0\r\n\r\n",                    404, 'another path' ],
    [ "GET /pi-status?json HTTP/1.0\r\n\r\n",          404, '?json' ],
    [ "garbage\r\n\r\n",                               400, 'garbage' ],
    [ "GET /pi-status?auto HTTP/9.9\r\n\r\n",          400, 'HTTP/9.9' ],
    [ "GET /pi-status?auto HTTP/1.0\r\nX: "
      . ('a' x 9000) . "\r\n\r\n",                     400, 'a 9 KB head' ],
    [ "GET /pi-status?auto HTTP/1.0\r\n",              400, 'cut short' ],
);
for my $b (@bad) {
    my $raw = $b->[0];
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                                  Timeout => 10);
    my $a = '';
    if ($s) {
        print $s $raw;
        shutdown($s, 1) if $b->[2] eq 'cut short';    # EOF, no blank line
        my $end = time + 20;
        my $sel = IO::Select->new($s);
        while (time < $end && $sel->can_read($end - time)) {
            last unless sysread($s, $a, 65536, length $a);
        }
        close $s;
    }
    ok t_cmp(status_of($a), $b->[1], "$b->[2]: $b->[1]");
}
($ans) = raw($port, "POST /pi-status HTTP/1.0\r\n\r\n");
ok t_cmp($ans, qr/\r\nAllow: GET, HEAD\r\n/, '405 names the methods');
($ans) = raw($port, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
ok t_cmp(status_of($ans), 200, 'the agent survives bad requests');

# Empty lines before the request line are ignored (RFC 9112 2.2).
($ans) = raw($port, "\r\nGET /pi-status?auto HTTP/1.0\r\n\r\n");
ok t_cmp(status_of($ans) . '|' . (body_of($ans) =~ /^Node: node2\n/ ? 1 : 0),
         '200|1', 'a CRLF before the request line: ignored');
($ans) = raw($port, "\r\n\n\r\nHEAD /pi-status?auto HTTP/1.1\r\n\r\n");
ok t_cmp(status_of($ans), 200, 'three empty lines before it: ignored');

# A client that connects and sends nothing, and one that sends a byte
# every 0.2 s: neither delays the next client, and each is closed at its
# head deadline (--timeout 1 here caps --head-timeout).
for my $kind ('silent', 'slow') {
    my $hold = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
                                     PeerPort => $port, Timeout => 10);
    my $t0 = time;
    my ($ans2, $took);
    if ($kind eq 'slow' && $hold) {
        # Trickle in a child so the next request goes out meanwhile.
        my $kid = fork;
        if (defined $kid && $kid == 0) {
            $SIG{PIPE} = 'IGNORE';
            for (1 .. 50) {
                last unless defined syswrite($hold, 'G');
                sleep 0.2;
            }
            POSIX::_exit(0);
        }
        sleep 0.3;
        ($ans2, $took) = raw($port, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
        waitpid($kid, 0) if $kid;
    } else {
        sleep 0.3;
        ($ans2, $took) = raw($port, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
    }
    ok t_cmp(status_of($ans2), 200, "$kind client: the next one is answered");
    # The agent gives the first client $TIMEOUT s; 6 s more for a busy
    # machine still fails an agent that waits for the slow client (10 s).
    ok t_cmp($took < $TIMEOUT + 6 ? 1 : 0, 1,
             sprintf('%s client: the next one waited %.2f s (timeout %d s)',
                     $kind, $took, $TIMEOUT));
    # The held connection was closed by the agent (EOF, no answer).
    my ($rest, $eof) = ('', 0);
    if ($hold) {
        my $sel = IO::Select->new($hold);
        my $end = $t0 + 20;
        while (time < $end && $sel->can_read($end - time)) {
            my $n = sysread($hold, $rest, 4096, length $rest);
            if (!$n) { $eof = 1; last }
        }
        close $hold;
    }
    ok t_cmp("$eof|$rest", '1|', "$kind client: closed, no answer");
}

# Options: a bad value stops it with status 2 and a message.
my $out = `'$agent' --listen 127.0.0.1 2>&1`;
ok t_cmp($? >> 8, 2, 'a bad --listen exits 2');
ok t_cmp($out, qr/--listen '127\.0\.0\.1': want ADDR:PORT/, 'and says why');

SKIP: {
    skip 'not run as root: the agent keeps its user', 2 unless $ROOT;
    ok t_cmp(uid_of(agent_pid('main')), $NOBODY_UID,
             'started as root, it serves as nobody');
    ok t_cmp(agent_err('main'), qr/running as user nobody \(uid \d+\)\n/,
             'and says so');
}
ok t_cmp(stop_agent('main'), 0, 'SIGTERM: the agent exits 0');

# ---- 4. --write: the file, replaced atomically --------------------------

# Own sensor files, to change the temperature while it runs.
my $sens = "$tmp/sensors";
make_path("$sens/thermal_zone0");
sub set_temp {
    open my $fh, '>', "$sens/thermal_zone0/temp.new" or die $!;
    print $fh "$_[0]\n";
    close $fh;
    rename "$sens/thermal_zone0/temp.new", "$sens/thermal_zone0/temp" or die $!;
}
set_temp(50000);
copy("$fix/get_throttled", "$sens/get_throttled") or die $!;
my $out_dir = agent_dir("$tmp/out");
my $file = "$out_dir/pi-status.txt";
my @wargs = ('--node', 'writer', '--thermal-zone', "$sens/thermal_zone*/temp",
             '--throttled-file', "$sens/get_throttled", '--write', $file);

system($agent, @wargs, '--once');
ok t_cmp($? >> 8, 0, '--once exits 0');
my $text = read_file($file) // '';
ok t_cmp(join(',', map { $_->[0] } @{ pairs($text) }), join(',', @keys),
         'the written file has the contract keys');
ok t_cmp($text, qr/^Node: writer\nTemperatureC: 50\.0\nThrottled: 0x50005\n/,
         'and the sensor values');
ok t_cmp(sprintf('%o', (stat $file)[2] & 07777), '644', 'mode 0644');

start_agent('writer', @wargs, '--interval', 1);
my $ino0 = (stat $file)[1] // 0;
set_temp(55000);
# Meanwhile read the file as often as we can: always whole.
my ($reads, $torn, $seen55) = (0, 0, 0);
my $end = time + 20;
while (time < $end && $reads < 200000) {
    my $t = read_file($file);
    $reads++;
    if (!defined $t || $t !~ /\nUptimeS: (\d+|unknown)\n\z/
        || scalar(() = $t =~ /\n/g) != @keys) {
        $torn++;
    }
    if (defined $t && $t =~ /^TemperatureC: 55\.0$/m) {
        $seen55 = 1;
        last;
    }
}
ok t_cmp($seen55, 1, 'the file follows the sensor (55.0 within 20 s)');
ok t_cmp($torn, 0, "no partial file in $reads reads");
ok t_cmp(((stat $file)[1] // 0) != $ino0 ? 1 : 0, 1,
         'replaced by rename (a new inode), not rewritten in place');
ok t_cmp(stop_agent('writer'), 0, 'SIGTERM: the writer exits 0');
ok t_cmp(join(' ', grep { -e } glob("$out_dir/.pi-status.txt.*"),
                             "$file.tmp"), '',
         'no temporary file left');

# A file it cannot write: the failure is logged, once.
start_agent('bad', @wargs[0 .. 5], '--write', "$tmp/no/such/dir/f",
            '--once');
my $bst = agent_wait('bad', 20);
ok t_cmp(defined $bst ? $bst >> 8 : -1, 1, 'an unwritable file: exit 1');
ok t_cmp(read_file("$tmp/bad.err") // '',
         qr{cannot write \S+/no/such/dir/f: No such file}, 'and says why');
ok t_cmp(err_of('writer'), '',
         'the writer logged nothing while it could write');

# ---- 5. --write never follows a planted name ---------------------------

# Files the agent's user could write (as root it runs as nobody): a
# write through a planted symlink would change them.
sub victim {
    my ($f) = @_;
    open my $fh, '>', $f or die "$f: $!";
    print $fh "precious\n";
    close $fh;
    chown $NOBODY_UID, $NOBODY_GID, $f if $ROOT && defined $NOBODY_UID;
    chmod 0666, $f;
    return $f;
}
my $v1 = victim("$tmp/victim1");
unlink "$file.tmp";
symlink($v1, "$file.tmp") or die "symlink: $!";
system($agent, @wargs, '--once');
ok t_cmp($? >> 8, 0, 'a symlink planted at FILE.tmp: --once exits 0');
ok t_cmp(read_file($v1), "precious\n", 'the file it points to is untouched');
ok t_cmp((readlink("$file.tmp") // '') eq $v1 ? 1 : 0, 1,
         'the planted link is left alone');
ok t_cmp(!-l $file && (read_file($file) // '') =~ /^Node: writer\n/ ? 1 : 0,
         1, 'FILE is the text, a file of its own');
my $v2 = victim("$tmp/victim2");
unlink $file;
symlink($v2, $file) or die "symlink: $!";
system($agent, @wargs, '--once');
ok t_cmp(read_file($v2), "precious\n",
         'a symlink at FILE: the file it points to is untouched');
ok t_cmp(!-l $file && (read_file($file) // '') =~ /^Node: writer\n/ ? 1 : 0,
         1, 'the link is replaced by the text');
ok t_cmp(join(' ', glob("$out_dir/.pi-status.txt.*")), '',
         'no temporary file left');

# ---- 6. the addresses of --listen --------------------------------------

my $v6 = have_ipv6();
start_agent('any', '--listen', '*:0', '--node', 'any', @wargs[2 .. 5]);
my @any = agent_ports('any', $v6 ? 2 : 1);
ok t_cmp(scalar(grep { $_->[0] eq '0.0.0.0' } @any), 1,
         '*:PORT listens on 0.0.0.0');
my $aport = @any ? $any[0][1] : 0;
($ans) = raw($aport, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
ok t_cmp(status_of($ans), 200, '*:PORT answers on 127.0.0.1');
SKIP: {
    skip 'no IPv6 loopback (::1) on this machine', 6 unless $v6;
    ok t_cmp(join(' ', map { "$_->[0]:$_->[1]" } @any),
             "0.0.0.0:$aport :::$aport",
             '*:PORT listens on :: as well, on the same port');
    ($ans) = agent_raw('::1', $aport, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
    ok t_cmp(status_of($ans), 200, '*:PORT answers on ::1');
    start_agent('v6', '--listen', '[::1]:0', '--node', 'v6', @wargs[2 .. 5]);
    my @v6 = agent_ports('v6');
    ok t_cmp(join(' ', map { $_->[0] } @v6), '::1', '[::1]:PORT: ::1 only');
    my $p6 = @v6 ? $v6[0][1] : 0;
    ($ans) = agent_raw('::1', $p6, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
    ok t_cmp(status_of($ans) . '|' . (body_of($ans) =~ /^Node: v6\n/ ? 1 : 0),
             '200|1', '[::1]:PORT answers on ::1');
    ($ans) = raw($p6, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
    ok t_cmp(status_of($ans), 0, 'and not on 127.0.0.1');
    ok t_cmp(stop_agent('v6'), 0, 'SIGTERM: exit 0');
}
ok t_cmp(stop_agent('any'), 0, 'SIGTERM: exit 0');

# ---- 7. started as root ------------------------------------------------

SKIP: {
    skip 'not run as root', 6 unless $ROOT;
    start_agent('asroot', '--listen', '127.0.0.1:0', '--user', 'root',
                @wargs[2 .. 5]);
    my $rport = agent_port('asroot');
    ($ans) = raw($rport, "GET /pi-status?auto HTTP/1.0\r\n\r\n");
    ok t_cmp(status_of($ans) . '|' . uid_of(agent_pid('asroot')), '200|0',
             '--user root: it keeps root');
    ok t_cmp(agent_err('asroot'), qr/running as root \(--user root\)/,
             'and says so');
    ok t_cmp(stop_agent('asroot'), 0, 'SIGTERM: exit 0');

    $out = `'$agent' --listen 127.0.0.1:0 --user no-such-user-pia 2>&1`;
    ok t_cmp($? >> 8, 1, 'a --user that does not exist: it does not run');
    ok t_cmp($out, qr/user no-such-user-pia: no such user/, 'and says why');

    # Not root, --user names someone else: refused.
    my $kid = fork;
    die "fork: $!" unless defined $kid;
    if ($kid == 0) {
        open STDERR, '>', "$tmp/notroot.err";
        POSIX::setgid($NOBODY_GID);
        POSIX::setuid($NOBODY_UID);
        { exec $agent, '--listen', '127.0.0.1:0', '--user', 'root' }
        POSIX::_exit(127);
    }
    waitpid($kid, 0);
    ok t_cmp(($? >> 8) . '|' . (read_file("$tmp/notroot.err") // ''),
             qr/^1\|.*--user root: not started as root/s,
             'not root, --user another user: refused');
}
