# The master's probe: fixture temperatures, and nodes that hang, answer
# garbage, answer 10 MB, are down, or name themselves with markup -- each
# shown as it is, while the healthy nodes' telemetry stays fresh.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiTest qw(status_json member wait_for);
use PiLog;

plan tests => 29, need_module 'pistats', 'proxy_balancer', 'perl';

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} }
           qw(node1 node2 nodeevil nodehang nodegarbage nodebig);
my $B = 'balancer://probes';
my $interval = 1;                          # PiStatsProbeInterval 1

sub probes { status_json('pimaster') }

# First readings arrive within a few intervals.
my $doc = wait_for(8, 0.25, sub {
    my $d = probes();
    my $m = member($d, $B, $port{node1});
    return $m && defined $m->{telemetry}{temperature_c} ? $d : undef;
});
ok t_cmp(defined $doc, 1, 'the probe reads node1');
my $m = member($doc, $B, $port{node1});
ok t_cmp($m->{telemetry}{temperature_c}, 48.3, 'node1 fixture temperature');
ok t_cmp($m->{telemetry}{node}, 'node1', 'node1 name');
ok t_cmp($m->{severity}, 'ok', 'node1 severity ok');
$m = member($doc, $B, $port{node2});
ok t_cmp($m->{telemetry}{temperature_c}, 61.2, 'node2 fixture temperature');
ok t_cmp($m->{telemetry}{throttled}, 0x50005, 'node2 throttle bits');
ok t_cmp($m->{severity}, 'crit', 'node2 throttled now: critical');

# The misbehaving nodes, once each has been tried and timed out.
$doc = wait_for(8, 0.25, sub {
    my $d = probes();
    my $h = member($d, $B, $port{nodehang});
    return $h && $h->{probe_error} ? $d : undef;
});
my %want = (
    nodehang    => qr/^no answer within 400 ms$/,
    nodegarbage => qr/^no telemetry in the answer$/,
    nodebig     => qr/^no telemetry in the first 8 KiB$/,
);
for my $n (sort keys %want) {
    $m = member($doc, $B, $port{$n});
    ok t_cmp($m->{probe_error}, $want{$n}, "$n: error shown");
    ok t_cmp($m->{telemetry_stale} ? 1 : 0, 1, "$n: stale");
    ok t_cmp($m->{telemetry}{temperature_c}, undef, "$n: temperature unknown");
}
my ($down) = grep { $_->{name} !~ /:($port{node1}|$port{node2}|$port{nodeevil}|$port{nodehang}|$port{nodegarbage}|$port{nodebig})$/ }
             @{ (grep { $_->{name} eq $B } @{ $doc->{balancers} })[0]{members} };
ok t_cmp($down->{probe_error}, 'connection refused', 'down node: refused');
ok t_cmp($down->{telemetry_stale} ? 1 : 0, 1, 'down node: stale');

# Meanwhile the healthy nodes' telemetry stays under two intervals old:
# sampled for six intervals while the hung node keeps timing out.
my ($worst, $samples) = (0, 0);
for (1 .. 24) {
    my $d = probes();
    for my $n (qw(node1 node2 nodeevil)) {
        my $age = member($d, $B, $port{$n})->{telemetry_age_s};
        $worst = $age if defined $age && $age > $worst;
        $worst = 99 unless defined $age;
    }
    $samples++;
    sleep 0.25;
}
ok t_cmp($worst < 2 * $interval, 1,
         "healthy telemetry age stayed under 2 intervals (worst $worst s"
         . " over $samples samples)");

# A hostile node name is data, in every format.
my $evil = q{<script>alert(1)</script>"'&\\};
$doc = probes();
$m = member($doc, $B, $port{nodeevil});
ok t_cmp($m->{telemetry}{node}, $evil, 'JSON carries the name exactly');
ok t_cmp($m->{severity}, 'warn', 'soft limit bit and 77.7 C: warn');

Apache::TestRequest::module('pimaster');
my $html = GET_BODY('/pi-status');
ok t_cmp(index($html, '<script>'), -1, 'HTML: no raw <script>');
ok t_cmp(index($html, '&lt;script&gt;alert(1)&lt;/script&gt;') >= 0, 1,
         'HTML: name escaped');
my $auto = GET_BODY('/pi-status?auto');
my @bad = grep { !/^[^:\n]+: / } split /\n/, $auto;
ok t_cmp(scalar(@bad), 0, '?auto: every line is "Key: value"');
ok t_cmp($auto =~ /\]Node: \Q$evil\E$/m ? 1 : 0, 1, '?auto: name on its line');
my $prom = GET_BODY('/pi-status?prometheus');
ok t_cmp($prom =~ /^pistats_node_info\{[^\n]*node="<script>alert\(1\)<\/script>\\"'&\\\\"\} 1$/m ? 1 : 0, 1,
         'Prometheus: label value escaped');
ok t_cmp($prom =~ /^pistats_node_temperature_celsius\{balancer="\Q$B\E",member="http:\/\/127\.0\.0\.1:$port{node1}"\} 48\.3$/m
         ? 1 : 0, 1, 'Prometheus: node1 temperature');

# The master probed by another master: its ?auto starts with the contract.
my @keys = map { /^([^:]+):/ ? $1 : '?' } (split /\n/, $auto)[0 .. 6];
ok t_cmp(join(',', @keys),
         'Node,TemperatureC,Throttled,Load1,CPUs,MemAvailableKB,UptimeS',
         "master's ?auto starts with the telemetry contract");

# Each state change is logged once, not once a probe: logged at all
# (whenever: children may probe before the parent logs that it runs),
# and not again over the next three probe intervals (the node keeps
# answering garbage all along).
my $garbage = qr/PIS10040: probe of http:\/\/127\.0\.0\.1:$port{nodegarbage}: /;
my $later = PiLog->new($garbage);
my $ever = PiLog->new($garbage, from_start => 1)->count($garbage);
my $t_end = time + 3 * $interval + 0.5;
sleep 0.1 while time < $t_end;             # three probe rounds go by
my $again = $later->count($garbage);
ok t_cmp("$ever $again" =~ /^[1-9]\d* 0$/ ? 1 : 0, 1,
         "garbage node: logged once ($ever lines ever, $again in three"
         . " intervals)");
