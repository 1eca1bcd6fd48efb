# A member's response time is how long it took to start answering (issue
# 15, items 1 and 2): after a streamed CGI response, an SSE stream and a
# WebSocket tunnel of seconds each, the member that served it gets its
# share of short requests at once, was never shown "silent" while it
# streamed, and mod_pistats' latency histogram holds no sample of the
# stream's length.  With ProxyErrorOverride On, a 500 the node answered is
# an answer: the member keeps its share, and mod_pistats counts a 5xx,
# not a proxy error.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(time);
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 27, need need_cgi(),
    need_module(qw(pistats pibalance proxy_balancer proxy_http perl));

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(tnode1 tnode2);
my %node_of_port = reverse %port;

sub member_of {
    my ($b, $node) = @_;
    return member(status_json('timing'), "balancer://$b", $port{$node});
}

sub state_of {
    my ($b, $node) = @_;
    my $m = member_of($b, $node);
    return $m ? ($m->{thermal_state} // 'none') : 'missing';
}

# Sequential GETs on the timing vhost; counts of the X-Node header.
sub split_of {
    my ($path, $n) = @_;
    Apache::TestRequest::module('timing');
    my %c;
    for (1 .. $n) {
        my $res = GET($path);
        $c{ $res->is_success ? ($res->header('X-Node') // 'none')
                             : 'status ' . $res->code }++;
    }
    return \%c;
}

Apache::TestRequest::module('timing');
my $hostport = Apache::TestRequest::hostport();

# Opens an exchange on a raw connection; returns the socket and the
# response head once it has come (bounded: 20 s).
sub open_exchange {
    my ($path, $headers) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $hostport, Timeout => 5)
        or die "connect $hostport: $!";
    print $s "GET $path HTTP/1.1\r\nHost: $hostport\r\n$headers\r\n";
    my $head = '';
    wait_for(20, 0.02, sub {
        while (IO::Select->new($s)->can_read(0)) {
            last unless sysread($s, my $buf, 4096);
            $head .= $buf;
        }
        return $head =~ /\r\n\r\n/;
    });
    return ($s, $head);
}

# Until the exchange ends (the master closes the connection), the state
# /pi-status shows for $node every 0.2 s; bounded: 20 s.
sub states_until_eof {
    my ($s, $b, $node) = @_;
    my (@states, $eof);
    wait_for(20, 0.2, sub {
        while (!$eof && IO::Select->new($s)->can_read(0)) {
            $eof = 1 unless sysread($s, my $buf, 4096);
        }
        push @states, state_of($b, $node) unless $eof;
        return $eof;
    });
    close $s;
    return ($eof, @states);
}

# Each exchange, and the short requests of the same application it is
# compared with (a CGI script starts slower than a page is served: the
# time to its headers is a fair sample, its stream's length is not).
my %exchange = (
    'streamed CGI' => ['/long/stream.cgi', "Connection: close\r\n",
                       qr{^HTTP/1\.1 200}, '/long/stream.cgi?short'],
    'SSE stream'   => ['/long/sse', "Accept: text/event-stream\r\n"
                       . "Connection: close\r\n", qr{^HTTP/1\.1 200},
                       '/long/page.html'],
    'WebSocket'    => ['/long/ws', "Upgrade: websocket\r\n"
                       . "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       . "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
                       qr{^HTTP/1\.1 101}, '/long/page.html'],
);

# Of windows of 10 short requests, the first in which $node gets at least
# 3 (its share is 5: two equal idle members alternate, the round robin
# breaking their ties; 3 leaves room for the latency rule's choices on a
# busy machine), trying for 2 s (at least one window).  A sample of the
# stream's seconds would give it none for ~9 s (PiBalanceDecay 1).
sub share_within {
    my ($path, $node) = @_;
    my @seen;
    my $got = wait_for(2, 0, sub {
        my $c = split_of($path, 10);
        push @seen, $c->{$node} // 0;
        return $seen[-1] >= 3;
    });
    return ($got, @seen);
}

# Both members of a balancer warm (a sample each): windows of 10 requests
# until each has answered one, for up to 20 s.  A member whose one sample
# came late on a busy machine may get none of a window (the latency rule
# prefers the other until the slow sample decays), so a window alone
# proves nothing.  Returns the counts of every window sent.
sub warm_both {
    my ($path, @nodes) = @_;
    my %sum;
    wait_for(20, 0, sub {
        my $c = split_of($path, 10);
        $sum{$_} += $c->{$_} for keys %$c;
        return !grep { !$sum{$_} } @nodes;
    });
    return \%sum;
}
sub counts { my $c = shift; join ' ', map { "$_=$c->{$_}" } sort keys %$c }

my $c;
for my $kind ('streamed CGI', 'SSE stream', 'WebSocket') {
    my ($path, $headers, $status, $short) = @{ $exchange{$kind} };
    # Both members warm (a sample each) before anything is measured.
    $c = warm_both($short, qw(tnode1 tnode2));
    ok t_cmp($c->{tnode1} && $c->{tnode2} ? 1 : 0, 1,
             "$kind: both members warm (" . counts($c) . ')');
    my $t0 = time;
    my ($s, $head) = open_exchange($path, $headers);
    my ($node) = $head =~ /^X-Node: (\S+)/mi;
    ok t_cmp($head =~ $status && defined $node ? 1 : 0, 1,
             "$kind: answered by " . ($node // 'none') . ': '
             . ((split /\r\n/, $head)[0] // 'nothing'));
    $node //= 'tnode1';
    my ($eof, @states) = states_until_eof($s, 'tlong', $node);
    my $took = time - $t0;
    ok t_cmp($eof && $took >= 2.5 ? 1 : 0, 1,
             sprintf('%s: lasted %.1f s', $kind, $took));
    # The silence rule holds a member back only while it has not answered.
    ok t_cmp(scalar(@states) >= 3 && !grep({ $_ eq 'silent' } @states)
             ? 1 : 0, 1, "$kind: $node never silent while it streamed ("
             . join(' ', @states) . ')');
    my $t1 = time;
    my ($got, @seen) = share_within($short, $node);
    ok t_cmp($got ? 1 : 0, 1,
             sprintf('%s: afterwards %s got its share of short requests '
                     . '(of 10: %s; %.2f s)', $kind, $node, "@seen",
                     time - $t1));
}

# mod_pistats: each exchange was a sample of the time to its headers.
for my $node (qw(tnode1 tnode2)) {
    my $m = member_of('tlong', $node);
    my @slow = grep { $_->{le} eq '+Inf' || $_->{le} > 1 }
               @{ $m->{histogram}{buckets} };
    ok t_cmp(scalar(@slow), 0,
             "tlong $node: no response-time sample above 1 s (p99 "
             . ($m->{response_time_ms}{p99} // 'none') . ' ms)');
}

# ProxyErrorOverride On: tnode1 answers /flaky with its own 500, tnode2
# with a page.
$c = warm_both('/err/page.html', qw(tnode1 tnode2));
ok t_cmp($c->{tnode1} && $c->{tnode2} ? 1 : 0, 1,
         'terr: both members warm (' . counts($c) . ')');
my $before = member_of('terr', 'tnode1');
$c = split_of('/err/flaky', 10);
ok t_cmp(($c->{tnode2} // 0) + ($c->{'status 500'} // 0), 10,
         'terr: /flaky answered by tnode2 or with the override\'s 500: '
         . join(' ', map { "$_=$c->{$_}" } sort keys %$c));
# tnode1 keeps serving: its 500s are answers, not failures.  Its share of
# one window is 5 by the round robin, but tnode1 answers /flaky from a
# mod_perl handler, slower than tnode2's file on a busy machine, and the
# latency rule may prefer tnode2 until that decays: windows of 10, up to
# 20 s, until it has answered 3.  A failure sample (the bug this checks)
# keeps a member out far longer: 0 of 20 before the fix.
my %sum = %$c;
wait_for(20, 0, sub {
    return 1 if ($sum{'status 500'} // 0) >= 3;
    my $more = split_of('/err/flaky', 10);
    $sum{$_} += $more->{$_} for keys %$more;
    return 0;
});
ok t_cmp(($sum{'status 500'} // 0) >= 3, 1,
         'tnode1 kept its share of /flaky: ' . counts(\%sum));
my $pages = { tnode1 => 0 };
wait_for(20, 0, sub {
    my $more = split_of('/err/page.html', 10);
    $pages->{$_} += $more->{$_} for keys %$more;
    return $pages->{tnode1} >= 5;
});
ok t_cmp($pages->{tnode1} >= 5, 1,
         'then tnode1 got 5 short requests: ' . counts($pages));
my $after = member_of('terr', 'tnode1');
ok t_cmp($after->{responses}{'5xx'} - $before->{responses}{'5xx'} >= 3
         ? 1 : 0, 1, 'mod_pistats: tnode1 counted '
         . ($after->{responses}{'5xx'} - $before->{responses}{'5xx'})
         . ' 5xx');
ok t_cmp($after->{proxy_errors} - $before->{proxy_errors}, 0,
         'and no proxy error');
ok t_cmp($after->{thermal_state} ne 'silent' ? 1 : 0, 1,
         "tnode1: $after->{thermal_state}");

# A 404 of the node under ProxyErrorOverride: a 4xx, not a proxy error.
$before = { map { $_ => member_of('terr', $_) } qw(tnode1 tnode2) };
$c = split_of('/err/gone', 4);
ok t_cmp($c->{'status 404'} // 0, 4, 'four 404s');
$after = { map { $_ => member_of('terr', $_) } qw(tnode1 tnode2) };
my ($d4, $dpe) = (0, 0);
for my $n (qw(tnode1 tnode2)) {
    $d4 += $after->{$n}{responses}{'4xx'} - $before->{$n}{responses}{'4xx'};
    $dpe += $after->{$n}{proxy_errors} - $before->{$n}{proxy_errors};
}
ok t_cmp($d4, 4, 'mod_pistats counted four 4xx');
ok t_cmp($dpe, 0, 'and no proxy error');
