# pi-telemetry-agent (agent/): serves the same telemetry text as
# mod_pistats' node handler for the same sensor fixtures, is probed by the
# master like an Apache node, answers bad requests 400/404/405 and
# survives them, is not held by a silent or slow client beyond its
# --timeout, and in --write mode replaces its file atomically.
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

plan tests => 53, need_module 'pistats', 'proxy_balancer';

my $vars  = Apache::Test::config()->{vars};
my $agent = "$vars->{top_dir}/agent/pi-telemetry-agent";
my $fix   = "$vars->{serverroot}/fixtures/node2";
my $tmp   = "$vars->{serverroot}/tmp/agent";
my @keys  = qw(Node TemperatureC Throttled Load1 CPUs MemAvailableKB UptimeS);
my $TIMEOUT = 1;                          # the agents' --timeout, s
my %pids;

remove_tree($tmp);
make_path($tmp);

# Starts the agent with @args, stderr to $tmp/$name.err; returns its pid.
sub start_agent {
    my ($name, @args) = @_;
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDERR, '>', "$tmp/$name.err" or POSIX::_exit(126);
        open STDOUT, '>', '/dev/null';
        { exec $agent, @args }
        POSIX::_exit(127);
    }
    $pids{$name} = $pid;
    return $pid;
}

# Stops an agent: SIGTERM, then waits at most 10 s; returns its exit
# status (-1: still running, then killed).
sub stop_agent {
    my ($name) = @_;
    my $pid = delete $pids{$name} or return -1;
    kill 'TERM', $pid;
    my $end = time + 10;
    while (time < $end) {
        return $? if waitpid($pid, WNOHANG) == $pid;
        sleep 0.05;
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
    return -1;
}
END { stop_agent($_) for keys %pids }

sub read_file {
    my ($f) = @_;
    open my $fh, '<', $f or return undef;
    local $/;
    return scalar <$fh>;
}

# The port an agent logged ("listening on 127.0.0.1:PORT"), within 20 s.
sub bound_port {
    my ($name) = @_;
    return wait_for(20, 0.05, sub {
        my $e = read_file("$tmp/$name.err") // '';
        return $e =~ /listening on 127\.0\.0\.1:(\d+)/ ? $1 : undef;
    });
}

# Sends $raw to the agent at $port, returns (answer, seconds taken).
sub raw {
    my ($port, $raw) = @_;
    my $t0 = time;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                                  Timeout => 10) or return ('', time - $t0);
    print $s $raw;
    my ($ans, $end) = ('', time + 20);
    my $sel = IO::Select->new($s);
    while (time < $end) {
        last unless $sel->can_read($end - time);
        my $n = sysread($s, $ans, 65536, length $ans);
        last unless $n;
    }
    close $s;
    return ($ans, time - $t0);
}

sub status_of { return $_[0] =~ m{^HTTP/1\.1 (\d{3}) } ? $1 : 0 }
sub body_of   { my ($a) = @_; $a =~ s/^.*?\r\n\r\n//s; return $a }

# The text's "Key: value" pairs in order, as [key, value] pairs.
sub pairs {
    return [ map { /^([^:]+): (.*)$/ ? [$1, $2] : ['?', $_] }
             split /\n/, $_[0] ];
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
my $port = bound_port('main') // 0;
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

# A client that connects and sends nothing, and one that sends a byte
# every 0.2 s: each holds the agent for at most --timeout; the next
# client is answered.
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
my $file = "$tmp/out/pi-status.txt";
make_path("$tmp/out");
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
ok t_cmp(-e "$file.tmp" ? 1 : 0, 0, 'no temporary file left');

# A file it cannot write: the failure is logged, once.
start_agent('bad', @wargs[0 .. 5], '--write', "$tmp/no/such/dir/f",
            '--once');
my $bpid = $pids{bad};
my $bst = wait_for(20, 0.05, sub {
    return waitpid($bpid, WNOHANG) == $bpid ? [$?] : undef;
});
delete $pids{bad} if $bst;
ok t_cmp($bst ? $bst->[0] >> 8 : -1, 1, 'an unwritable file: exit 1');
ok t_cmp(read_file("$tmp/bad.err") // '',
         qr{cannot write \S+/no/such/dir/f: No such file}, 'and says why');
ok t_cmp(read_file("$tmp/writer.err") // '', '',
         'the writer logged nothing while it could write');
