# Node telemetry at /pi-status?auto from fixture sensors; HTML escaping.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiTest qw(node_get telemetry wait_for);

plan tests => 35, need_module 'pistats';

my @keys = qw(Node TemperatureC Throttled Load1 CPUs MemAvailableKB UptimeS);

# node => [TemperatureC, Throttled]
my %want = (
    node1 => ['48.3', '0x0'],          # two zones: the hottest wins
    node2 => ['61.2', '0x50005'],      # "50005" read as hex
    node3 => ['unknown', 'unknown'],   # no sensor files at all
    node4 => ['unknown', 'unknown'],   # empty files
    node5 => ['unknown', 'unknown'],   # garbage
    node6 => ['-5.0', 'unknown'],      # negative temperature is a reading
    node7 => ['unknown', 'unknown'],   # huge values
);

for my $node (sort keys %want) {
    my $t = telemetry($node);
    ok t_cmp($t->{TemperatureC}, $want{$node}[0], "$node TemperatureC");
    ok t_cmp($t->{Throttled}, $want{$node}[1], "$node Throttled");
}

# The contract: every key, in order, values well formed.
my $res = node_get('node1', '/pi-status?auto');
ok t_cmp($res->header('Content-Type'), qr{^text/plain}, 'text/plain');
my @lines = split /\n/, $res->content;
ok t_cmp(join(',', map { /^([^:]+):/ ? $1 : '?' } @lines[0 .. $#keys]),
         join(',', @keys), 'the telemetry contract comes first, in order');
my $t = telemetry('node1');
ok t_cmp($t->{Node}, 'node1', 'Node');
ok t_cmp($t->{Load1}, qr/^\d+\.\d\d$/, 'Load1 has two decimals');
ok t_cmp($t->{CPUs}, qr/^[1-9]\d*$/, 'CPUs');
ok t_cmp($t->{MemAvailableKB}, qr/^\d+$/, 'MemAvailableKB');
ok t_cmp($t->{UptimeS}, qr/^\d+$/, 'UptimeS');

# HEAD has the headers and no body; other methods are refused.
Apache::TestRequest::module('node1');
$res = HEAD('/pi-status?auto');
ok t_cmp($res->code, 200, 'HEAD 200');
ok t_cmp(length($res->content), 0, 'HEAD has no body');
$res = POST('/pi-status?auto', content => 'x=1');
ok t_cmp($res->code, 405, 'POST is 405');
ok t_cmp($res->header('Allow') // '', qr/GET/, 'Allow names GET');

# HTML: a node name from the configuration is escaped.
$res = node_get('node3', '/pi-status');
ok t_cmp($res->header('Content-Type'), qr{^text/html}, 'HTML by default');
ok t_cmp(index($res->content, '<b>node3</b>'), -1, 'name not injected');
ok t_cmp(index($res->content, '&lt;b&gt;node3&lt;/b&gt;') >= 0, 1,
         'name escaped');
$res = node_get('node1', '/pi-status?refresh=7');
ok t_cmp($res->header('Refresh'), 7, 'refresh=N sets Refresh');
ok t_cmp($res->content, qr{<td[^>]*>48\.3 \x{b0}C</td>|<td[^>]*>48\.3 \xc2\xb0C</td>},
         'HTML shows the temperature');

# Readings are cached and taken at most once per second (per child
# process: one keep-alive connection stays on one child).  A connection
# can still move to another child (a child of an older generation closes
# it after a graceful restart), so up to three rounds are tried; a cache
# that does not work fails all three.
my $dir = Apache::Test::vars('serverroot') . '/tmp/cache-zone';
make_path($dir);
my $file = "$dir/temp";
sub put { open my $fh, '>', $file or die $!; print $fh "$_[0]\n"; close $fh }

# One round: returns (first reading, reading right after the change,
# final reading, seconds until the change showed).
sub cache_round {
    Apache::TestRequest::user_agent(reset => 1, keep_alive => 1);
    put(40000);
    sleep 1.1;                           # let any older snapshot expire
    my $first = telemetry('nodecache')->{TemperatureC};
    my $t0 = time;
    put(70000);
    my $seen = telemetry('nodecache')->{TemperatureC};
    my $quick = time - $t0 < 0.8;        # only meaningful if quick enough
    my $new = '';
    for (1 .. 30) {                      # bounded: at most ~3 s
        sleep 0.1;
        $new = telemetry('nodecache')->{TemperatureC};
        last if $new eq '70.0';
    }
    return ($first, ($quick ? $seen : '40.0'), $new, time - $t0);
}
my @r;
for (1 .. 3) {
    @r = cache_round();
    last if $r[1] eq '40.0' && $r[3] >= 0.9;
}
ok t_cmp($r[0], '40.0', 'first reading');
ok t_cmp($r[1], '40.0', 'within a second: cached value');
ok t_cmp($r[2], '70.0', 'after a second: new reading');
ok t_cmp($r[3] >= 0.9, 1, "the new reading took about a second ($r[3] s)");
unlink $file;
# The cached reading expires after a second: poll (bounded) for it.
my $gone;
wait_for(15, 0.1, sub {
    $gone = telemetry('nodecache')->{TemperatureC};
    return $gone eq 'unknown';
});
ok t_cmp($gone, 'unknown', 'zone removed: unknown, not 0');
