# pi-telemetry-agent besieged by hostile clients: idle and trickling
# connections are closed at their head deadline and never delay a probe,
# which is answered well within the master's probe timeout, probe after
# probe, while the master's own probe keeps the member's telemetry fresh;
# at its connection bound the agent closes its oldest idle client for a
# newcomer, and at a peer's bound it refuses that peer's newest; under a
# low open-file limit it serves fewer at once, by the same rules.
#
# Every client here is 127.0.0.1 (the master's probe too), so the siege
# and the total bound run with --max-per-peer set high, and the peer
# bound has a part of its own: the other peer there is ::1 (skipped
# without IPv6 loopback), or the same peer once it has closed one.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::IP;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiTest qw(status_json wait_for);
use PiAgent qw(agent_start agent_stop agent_port agent_ports agent_raw
               status_of body_of master_probe_timeout have_ipv6);

plan tests => 34, need_module 'pistats', 'proxy_balancer';

my $vars = Apache::Test::config()->{vars};
my $fix  = "$vars->{serverroot}/fixtures/node2";
my $tmp  = "$vars->{serverroot}/tmp/agent_hostile";
my @sensors = ('--thermal-zone', "$fix/thermal_zone*/temp",
               '--throttled-file', "$fix/get_throttled");
my $PROBE_T = master_probe_timeout();     # s: the master's default
my $HEAD_T  = 2;                          # s: the agents' --head-timeout
my $AUTO    = "GET /pi-status?auto HTTP/1.0\r\n\r\n";
# What a trickler sends, a byte a second: a request line and a header
# that never ends (no blank line, however often it wraps).
my $DRIP    = "GET /pi-status?auto HTTP/1.0\r\nX-Drip: " . ('a' x 64);

$SIG{PIPE} = 'IGNORE';
remove_tree($tmp);
make_path($tmp);

# An idle connection to 127.0.0.1:$port, non-blocking, or undef.
sub idle_conn {
    my ($port, $kind) = @_;
    my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port,
                                Timeout => 10) or return undef;
    $s->blocking(0);
    return { s => $s, kind => $kind // 'idle', t0 => time, next => time,
             sent => 0, got => '' };
}

# Reads what is there on each open connection of @$conns (waiting at
# most $wait s for the first); a connection the agent closed gets
# {life} (seconds it was open) and is closed here.  Returns the ones
# closed now.
sub reap {
    my ($conns, $wait) = @_;
    my %by = map { fileno($_->{s}) => $_ } grep { !$_->{life} } @$conns;
    return () unless %by;
    my @closed;
    for my $s (IO::Select->new(map { $_->{s} } values %by)->can_read($wait)) {
        my $c = $by{ fileno $s };
        my $n = sysread($s, my $buf, 4096);
        next if !defined $n && ($!{EAGAIN} || $!{EWOULDBLOCK});
        if ($n) {
            $c->{got} .= $buf;
            next;
        }
        $c->{life} = time - $c->{t0};      # EOF or reset: the agent closed
        close $s;
        push @closed, $c;
    }
    return @closed;
}

# Indices of the connections of @$conns the agent has closed so far.
sub closed_idx {
    my ($conns) = @_;
    reap($conns, 0);
    return grep { $conns->[$_]{life} } 0 .. $#$conns;
}

sub member_of {
    my ($vhost, $bname) = @_;
    my $doc = eval { status_json($vhost) } or return undef;
    my ($b) = grep { $_->{name} eq $bname } @{ $doc->{balancers} };
    return $b && $b->{members}[0];
}

sub median {
    my @v = sort { $a <=> $b } @_;
    return @v ? $v[$#v / 2] : 0;
}

# ---- 1. the siege ------------------------------------------------------

my $m0 = member_of('agenthostile', 'balancer://hostile');
my ($mport) = (($m0 && $m0->{name}) // '') =~ /:(\d+)$/;
ok t_cmp(defined $mport ? 1 : 0, 1, 'the master has the agent member');
$mport //= 0;
agent_start($tmp, 'siege', '--listen', "127.0.0.1:$mport",
            '--node', 'hostile', @sensors, '--head-timeout', $HEAD_T,
            '--max-per-peer', 512);
my $port = agent_port('siege');
ok t_cmp($port, $mport, 'the agent listens on the member port');

my $fresh = wait_for(20, 0.25, sub {
    my $m = member_of('agenthostile', 'balancer://hostile');
    return $m && ($m->{telemetry}{node} // '') eq 'hostile'
           && !$m->{probe_error};
});
ok t_cmp($fresh ? 1 : 0, 1, 'before the siege: the master reads the agent');

# 40 idle and 4 trickling connections, each re-opened when the agent
# closes it (at most 400 opens), for three head deadlines; meanwhile a
# probe every 0.2 s and the master's member every 0.5 s.
my (@conns, @done, @probes, @samples);
my $opens = 0;
my $open = sub {
    my ($kind) = @_;
    return if $opens >= 400;
    my $c = idle_conn($port, $kind) or return;
    $opens++;
    push @conns, $c;
};
$open->('idle') for 1 .. 40;
$open->('trickle') for 1 .. 4;
my $first = $opens;
my $t_end = time + 3 * $HEAD_T;
my ($next_probe, $next_sample) = (time, time);
while (time < $t_end) {
    for my $c (grep { $_->{kind} eq 'trickle' && time >= $_->{next} }
               @conns) {
        syswrite($c->{s}, substr($DRIP, $c->{sent}++ % length $DRIP, 1));
        $c->{next} += 1;                  # a write error: reap sees EOF
    }
    for my $c (reap(\@conns, 0.02)) {
        push @done, $c;
        $open->($c->{kind});
    }
    @conns = grep { !$_->{life} } @conns;
    if (time >= $next_probe) {
        my ($a, $took) = agent_raw('127.0.0.1', $port, $AUTO, 5 * $PROBE_T);
        push @probes, [status_of($a), $took, body_of($a)];
        $next_probe = time + 0.2;
    }
    if (time >= $next_sample) {
        my $m = member_of('agenthostile', 'balancer://hostile');
        push @samples, $m ? $m->{probe_error} // '' : 'no member';
        $next_sample = time + 0.5;
    }
}
close $_->{s} for @conns;

my @took = map { $_->[1] } @probes;
my $slowest = @took ? (sort { $b <=> $a } @took)[0] : -1;
ok t_cmp(scalar(@probes) >= 10 ? 1 : 0, 1,
         scalar(@probes) . ' probes in a row during the siege');
ok t_cmp(join(',', map { $_->[0] } grep { $_->[0] != 200 } @probes), '',
         'every probe answered 200');
ok t_cmp(scalar(grep { $_->[2] =~ /^Node: hostile\n/ } @probes),
         scalar(@probes), 'with the telemetry text');
ok t_cmp($slowest >= 0 && $slowest < $PROBE_T ? 1 : 0, 1,
         sprintf('the slowest within the master probe timeout %g s: %.3f s',
                 $PROBE_T, $slowest));
ok t_cmp(median(@took) < $PROBE_T / 2 ? 1 : 0, 1,
         sprintf('the median well within it: %.3f s', median(@took)));
ok t_cmp($first, 44, 'the siege: 40 idle and 4 trickling connections');
ok t_cmp(scalar(@done) >= $first ? 1 : 0, 1,
         scalar(@done) . " connections closed by the agent ($first at first)");
my @life = sort { $a <=> $b } map { $_->{life} } @done;
my ($lmin, $lmax) = @life ? @life[0, -1] : (-1, -1);
# Closed at the deadline: not before it (the agent's clock starts at
# accept, after our connect returned), and not long after (3 s of
# scheduling slack on a busy machine; a serial agent takes 2 s a client).
ok t_cmp($lmin >= $HEAD_T - 0.05 ? 1 : 0, 1,
         sprintf('none closed before the %d s head deadline (first %.2f s)',
                 $HEAD_T, $lmin));
ok t_cmp($lmax <= $HEAD_T + 3 ? 1 : 0, 1,
         sprintf('each closed once it passed (last %.2f s)', $lmax));
ok t_cmp(scalar(grep { $_->{kind} eq 'trickle' } @done) >= 4 ? 1 : 0, 1,
         'tricklers too, though their bytes keep coming');
ok t_cmp(join('', map { $_->{got} } @done), '',
         'closed without an answer');
ok t_cmp(scalar(@samples) >= 6 ? 1 : 0, 1,
         scalar(@samples) . " samples of the master's member");
ok t_cmp(join('|', grep { $_ ne '' } @samples), '',
         "the master's probe never failed during the siege");
ok t_cmp(agent_stop('siege'), 0, 'SIGTERM: the besieged agent exits 0');

# ---- 2. the connection bound: the oldest idle one goes -----------------

agent_start($tmp, 'total', '--listen', '127.0.0.1:0', @sensors,
            '--max-clients', 16, '--max-per-peer', 512,
            '--head-timeout', 60);
my $tport = agent_port('total');
my @held = map { idle_conn($tport) } 1 .. 40;
ok t_cmp(scalar(grep { defined } @held), 40, '40 idle connections made');
@held = grep { defined } @held;
my $c24 = wait_for(20, 0.05, sub {
    my @c = closed_idx(\@held);
    return @c >= 24 ? \@c : undef;
}) // [];
ok t_cmp(join(',', @$c24), join(',', 0 .. 23),
         'at 16 clients, the 24 oldest are closed for newer ones');
my ($ans, $took) = agent_raw('127.0.0.1', $tport, $AUTO, 5 * $PROBE_T);
ok t_cmp(status_of($ans), 200, 'a probe on a full table: 200');
ok t_cmp($took < $PROBE_T ? 1 : 0, 1,
         sprintf('within the probe timeout: %.3f s', $took));
my $c25 = wait_for(20, 0.05, sub {
    my @c = closed_idx(\@held);
    return @c >= 25 ? \@c : undef;
}) // [];
ok t_cmp(join(',', @$c25), join(',', 0 .. 24),
         'its slot was the oldest idle one');
my @rep = map { [ agent_raw('127.0.0.1', $tport, $AUTO, 5 * $PROBE_T) ] }
          1 .. 5;
ok t_cmp(join(',', map { status_of($_->[0]) } @rep), '200,200,200,200,200',
         'probes in a row on a full table');
close $_->{s} for @held;
ok t_cmp(agent_stop('total'), 0, 'SIGTERM: exit 0');

# ---- 3. the peer bound: that peer's newest is refused ------------------

my $v6 = have_ipv6();
agent_start($tmp, 'peer', '--listen', $v6 ? '*:0' : '127.0.0.1:0',
            @sensors, '--max-per-peer', 4, '--head-timeout', 60);
my @addrs = agent_ports('peer', $v6 ? 2 : 1);
my $pport = @addrs ? $addrs[0][1] : 0;
my @mine = grep { defined } map { idle_conn($pport) } 1 .. 10;
my $c6 = wait_for(20, 0.05, sub {
    my @c = closed_idx(\@mine);
    return @c >= 6 ? \@c : undef;
}) // [];
ok t_cmp(join(',', @$c6), join(',', 4 .. 9),
         'a peer with 4 connections: its 6 newer ones are refused');
($ans) = agent_raw('127.0.0.1', $pport, $AUTO, 5 * $PROBE_T);
ok t_cmp(status_of($ans), 0, 'and so is its probe');
SKIP: {
    skip 'no IPv6 loopback (::1) on this machine', 1 unless $v6;
    ($ans, $took) = agent_raw('::1', $pport, $AUTO, 5 * $PROBE_T);
    ok t_cmp(status_of($ans) . ($took < $PROBE_T ? '' : ' (slow)'), '200',
             sprintf('another peer (::1) is answered: %.3f s', $took));
}
close $mine[0]{s};
my $again = wait_for(20, 0.1, sub {
    my ($a) = agent_raw('127.0.0.1', $pport, $AUTO, 5 * $PROBE_T);
    return status_of($a) == 200;
});
ok t_cmp($again ? 1 : 0, 1, 'once it closed one, the peer is answered');
close $_->{s} for grep { !$_->{life} } @mine;
ok t_cmp(agent_stop('peer'), 0, 'SIGTERM: exit 0');

# ---- 4. a low open-file limit: fewer slots, the same rules --------------

{
    local @PiAgent::WRAP = ('/bin/sh', '-c', 'ulimit -n 16 && exec "$0" "$@"');
    agent_start($tmp, 'files', '--listen', '127.0.0.1:0', @sensors,
                '--max-per-peer', 512, '--head-timeout', 60);
}
my $fport = agent_port('files');
ok t_cmp(PiAgent::agent_err('files'),
         qr/--max-clients 64: 16 open files allowed, serving 8 at once/,
         'ulimit -n 16: it says it serves 8 at once');
my @few = grep { defined } map { idle_conn($fport) } 1 .. 20;
my $c12 = wait_for(20, 0.05, sub {
    my @c = closed_idx(\@few);
    return @c >= 12 ? \@c : undef;
}) // [];
ok t_cmp(join(',', @$c12), join(',', 0 .. 11),
         '20 idle connections: the 12 oldest are closed for newer ones');
($ans, $took) = agent_raw('127.0.0.1', $fport, $AUTO, 5 * $PROBE_T);
ok t_cmp(status_of($ans) . ($took < $PROBE_T ? '' : ' (slow)'), '200',
         sprintf('a probe is answered: %.3f s', $took));
close $_->{s} for grep { !$_->{life} } @few;
ok t_cmp(PiAgent::agent_err('files') =~ /accept:/ ? 1 : 0, 0,
         'accept never ran out of descriptors');
ok t_cmp(agent_stop('files'), 0, 'SIGTERM: exit 0');
