# Per-member statistics in shared memory: counts that match where requests
# went, status classes, proxy errors apart, bytes, rates, percentiles,
# history; the Prometheus output's grammar; server-status' summary;
# members added at run time through balancer-manager.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes qw(sleep);
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 36, need_module 'pistats', 'proxy_balancer', 'status';

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} }
           qw(node1 node2 node3 nodecache);
my $B = 'balancer://stats';
my @nodes = qw(node1 node2 node3);

sub field { my ($m, @path) = @_; $m = $m->{$_} for @path; return $m // 0 }

my $before = status_json('pimaster');

# 90 pages and 12 misses, counted by the node that answered.
Apache::TestRequest::module('pimaster');
my (%pages, %misses, $answered);
for (1 .. 90) {
    my $res = GET('/stats/page.html');
    $pages{ $res->header('X-Node') // 'none' }++ if $res->code == 200;
    $answered++ if $res->code < 500;
}
for (1 .. 12) {
    my $res = GET('/stats/missing.html');
    $misses{ $res->header('X-Node') // 'none' }++ if $res->code == 404;
}
# The rates, percentiles and history are read off the member that served
# most: lbmethod pi promises no share (a member slow once in an earlier
# test, on a busy machine, may get none of these sequential requests).
my ($top) = sort { ($pages{$b} // 0) + ($misses{$b} // 0)
                   <=> ($pages{$a} // 0) + ($misses{$a} // 0) } @nodes;
# Rates and history count complete seconds: wait (bounded) until its
# history holds its requests, rather than for a fixed time.
sub recent_of {
    my ($doc) = @_;
    my $h = member($doc, $B, $port{$top})->{history}{requests} // [];
    my $n = 0;
    $n += $_ for @$h[-70 .. -1];
    return $n;
}
my $after = wait_for(20, 0.2, sub {
    my $d = status_json('pimaster');
    return recent_of($d) >= ($pages{$top} // 0) + ($misses{$top} // 0)
        ? $d : undef;
}) // status_json('pimaster');

my $sum_req = 0;
for my $n (@nodes) {
    my ($m0, $m1) = map { member($_, $B, $port{$n}) } $before, $after;
    my $d = sub { field($m1, @_) - field($m0, @_) };
    my $want = ($pages{$n} // 0) + ($misses{$n} // 0);
    ok t_cmp($d->('requests'), $want, "$n: requests counted ($want)");
    ok t_cmp($d->('responses', '2xx'), $pages{$n} // 0, "$n: 2xx");
    ok t_cmp($d->('responses', '4xx'), $misses{$n} // 0, "$n: 4xx");
    ok t_cmp($d->('bytes_in'), $d->('bytes_out'),
             "$n: identity: bytes from the node = bytes to the client");
}
# (A member added by an earlier run on the same server may take some.)
for my $m1 (@{ (grep { $_->{name} eq $B } @{ $after->{balancers} })[0]{members} }) {
    my ($m0) = grep { $_->{name} eq $m1->{name} }
               @{ (grep { $_->{name} eq $B } @{ $before->{balancers} })[0]{members} };
    $sum_req += $m1->{requests} - ($m0 ? $m0->{requests} : 0);
}
ok t_cmp($sum_req, 102, 'all 102 requests counted once');
ok t_cmp($answered, 90, 'every page request answered');

my $m = member($after, $B, $port{$top});
ok t_cmp(field($m, 'bytes_out') >= 18 * ($pages{$top} // 0), 1,
         'bytes to the client cover the pages');
ok t_cmp(field($m, 'inflight'), 0, 'nothing in flight afterwards');
ok t_cmp(field($m, 'rate', '60s') > 0, 1, 'rate over 60 s');
my $rt = $m->{response_time_ms};
ok t_cmp(defined $rt->{p50} && $rt->{p50} > 0, 1, "p50 $rt->{p50} ms");
ok t_cmp($rt->{p50} <= $rt->{p95} && $rt->{p95} <= $rt->{p99}, 1,
         'p50 <= p95 <= p99');
ok t_cmp(defined $rt->{ewma} && $rt->{ewma} > 0, 1, 'EWMA of response time');
my $hist = $m->{history}{requests};
ok t_cmp(scalar(@$hist), 300, '300 seconds of history');
my $recent = 0;
$recent += $_ for @$hist[-70 .. -1];
ok t_cmp($recent >= ($pages{$top} // 0) + ($misses{$top} // 0), 1,
         'the history holds the requests');
ok t_cmp(scalar(@{ $m->{history}{temperature_c} }), 300,
         '300 seconds of temperature');

# A member that refuses connections: its failed attempts are proxy errors
# of its own, apart from the node's answers; the client gets the page.
my $f0 = status_json('pimaster');
my $ok = 0;
for (1 .. 10) { $ok++ if GET('/failing/page.html')->code == 200 }
my $f1 = status_json('pimaster');
ok t_cmp($ok, 10, 'failover: every request answered');
my ($dead) = grep { $_->{name} !~ /:$port{node1}$/ }
    @{ (grep { $_->{name} eq 'balancer://failing' } @{ $f1->{balancers} })[0]{members} };
my ($dead0) = grep { $_->{name} eq $dead->{name} }
    @{ (grep { $_->{name} eq 'balancer://failing' } @{ $f0->{balancers} })[0]{members} };
ok t_cmp($dead->{proxy_errors} - $dead0->{proxy_errors} >= 1, 1,
         'refusing member: proxy errors counted');
ok t_cmp($dead->{responses}{'5xx'}, 0, 'and not as node 5xx answers');

# Prometheus text format 0.0.4.
my $prom = GET_BODY('/pi-status?prometheus');
my (%help, %type, @bad, %series);
for my $line (split /\n/, $prom) {
    if ($line =~ /^# HELP (\w+) .+$/) { $help{$1}++; next }
    if ($line =~ /^# TYPE (\w+) (counter|gauge|histogram)$/) { $type{$1} = $2; next }
    if ($line =~ /^([a-zA-Z_:][\w:]*)(\{(?:[a-zA-Z_]\w*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN)$/) {
        my ($name, $labels, $v) = ($1, $2 // '', $3);
        push @bad, "NaN: $line" if $v eq 'NaN';
        (my $family = $name) =~ s/_(bucket|sum|count)$// if $name =~ /_(bucket|sum|count)$/ && $type{ $name =~ s/_(bucket|sum|count)$//r };
        $family //= $name;
        push @bad, "no TYPE: $line" unless $type{$family};
        if ($name =~ /_bucket$/) {
            (my $key = $labels) =~ s/,?le="[^"]*"//;
            my ($le) = $labels =~ /le="([^"]*)"/;
            push @{ $series{"$family$key"} }, [$le, $v];
        }
        elsif ($name =~ /_count$/ && $type{$family} && $type{$family} eq 'histogram') {
            $series{"$family$labels#count"} = $v;
        }
        next;
    }
    push @bad, $line;
}
ok t_cmp(join("\n", @bad), '', 'every line is HELP, TYPE or a sample');
ok t_cmp(join(' ', grep { !$help{$_} } sort keys %type), '',
         'every family has HELP');
ok t_cmp(join(' ', grep { $type{$_} eq 'counter' && !/_total$/ } sort keys %type),
         '', 'counters end in _total');
ok t_cmp(($type{pistats_member_response_time_seconds} // ''), 'histogram',
         'response time is a histogram');
my $hist_ok = 1;
for my $k (grep { !/#count$/ } keys %series) {
    my @b = @{ $series{$k} };
    my $prev = -1;
    for my $b (@b) { $hist_ok = 0 if $b->[1] < $prev; $prev = $b->[1] }
    $hist_ok = 0 unless $b[-1][0] eq '+Inf' && $b[-1][1] == ($series{"$k#count"} // -1);
}
ok t_cmp($hist_ok && keys(%series) > 0 ? 1 : 0, 1,
         'buckets rise to +Inf, which equals _count');
ok t_cmp($prom =~ /^pistats_member_requests_total\{balancer="balancer:\/\/stats",member="http:\/\/127\.0\.0\.1:$port{node1}"\} /m ? 1 : 0,
         1, 'balancer and member labels');

# HTML: plots for each member, self-contained.
my $html = GET_BODY('/pi-status');
my $svgs = () = $html =~ /<svg/g;
ok t_cmp($svgs >= 2 * 3, 1, "inline SVG charts ($svgs)");
# (a data: URL is inline: the page's empty icon, which spares the browser
# a request for /favicon.ico)
ok t_cmp($html =~ /<(?:script|link)[^>]+(?:src|href)="(?!data:)/i ? 1 : 0, 0,
         'no external assets');

# mod_status: a summary line per member.
my $status = GET_BODY('/server-status?auto');
ok t_cmp($status =~ /^PiStatsMember\[\d+\]Balancer: balancer:\/\/stats$/m ? 1 : 0,
         1, 'server-status?auto has the members');

# A member added at run time through balancer-manager gets statistics.
my $url = "http://127.0.0.1:$port{nodecache}";
my $ref = 'http://' . Apache::TestRequest::hostport() . '/balancer-manager';
my ($nonce) = GET_BODY('/balancer-manager') =~ /b=stats&(?:amp;)?nonce=([\w-]+)/;
POST('/balancer-manager', Referer => $ref,
     content => "b=stats&nonce=$nonce&b_wyes=1&b_nwrkr=$url");
POST('/balancer-manager', Referer => $ref,
     content => "b=stats&nonce=$nonce&w=$url&w_status_D=0&w_lf=1");
# Traffic until the balancer has picked it (bounded: what is tested here
# is its statistics, not how soon a new member gets its share).
my $added = wait_for(30, 0, sub {
    GET('/stats/page.html') for 1 .. 10;
    my $d = status_json('pimaster');
    my $a = member($d, $B, $port{nodecache});
    return $a && $a->{requests} > 0 ? $a : undef;
});
ok t_cmp(defined $added, 1, 'the added member is listed with requests');
