# Node telemetry at /pi-status?auto from fixture sensors; HTML escaping.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use LWP::UserAgent;
use lib 't/lib';
use PiTest qw(node_get telemetry);

plan tests => 34, need_module 'pistats';

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

# Readings are taken for every answer, whichever child process gives
# it: a master's probes land on any child, and an answer must never be
# older than one given before it (a per-child cache once sent a master
# 85 C again after 70 C, and lbmethod pi drained the node once more).
# Several keep-alive connections (each stays on its child) read 40 C;
# right after the file says 70 C, every one of them reads 70 C.
my $dir = Apache::Test::vars('serverroot') . '/tmp/cache-zone';
make_path($dir);
my $file = "$dir/temp";
sub put { open my $fh, '>', $file or die $!; print $fh "$_[0]\n"; close $fh }

Apache::TestRequest::module('nodecache');
my $hostport = Apache::TestRequest::hostport();
my @conns = map { LWP::UserAgent->new(keep_alive => 1, timeout => 30) }
            1 .. 6;
sub read_on {
    my ($ua) = @_;
    my $res = $ua->get("http://$hostport/pi-status?auto");
    return $res->content =~ /^TemperatureC: (\S+)$/m ? $1 : 'no answer';
}
put(40000);
my @before = map { read_on($_) } @conns;
put(70000);
my @after = map { read_on($_) } @conns;
ok t_cmp(join(' ', @before), join(' ', ('40.0') x @conns),
         'every connection reads 40.0');
ok t_cmp(join(' ', @after), join(' ', ('70.0') x @conns),
         'the next answer on each connection: 70.0, the new reading');
unlink $file;
my @gone = map { read_on($_) } @conns;
ok t_cmp(join(' ', @gone), join(' ', ('unknown') x @conns),
         'zone removed: unknown, not 0, at once');
ok t_cmp(telemetry('nodecache')->{TemperatureC}, 'unknown',
         'a new connection: unknown too');
