# BusyWorkers and IdleWorkers in a node's telemetry (docs/telemetry.md):
# counted from the scoreboard when the answer is made.  Connections that
# send half a request hold a worker each (reading the request, 'R' in
# mod_status' map), so while they are held BusyWorkers is at least their
# number plus the worker serving the telemetry itself.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use IO::Socket::INET;
use lib 't/lib';
use PiTest qw(telemetry wait_for);

plan tests => 7, need_module 'pistats';

my $HELD = 3;

my $t = telemetry('node1');
ok t_cmp($t->{BusyWorkers} // 'missing', qr/^[1-9]\d*$/,
         'BusyWorkers: an integer, at least the worker answering');
ok t_cmp($t->{IdleWorkers} // 'missing', qr/^\d+$/, 'IdleWorkers: an integer');

# The keys come after the seven of the contract (old parsers ignore them).
my $text = do {
    Apache::TestRequest::module('node1');
    GET('/pi-status?auto')->content;
};
ok t_cmp($text, qr/^UptimeS: .*\nBusyWorkers: \d+\nIdleWorkers: \d+\n/m,
         'BusyWorkers and IdleWorkers follow UptimeS');

# Hold $HELD workers with half a request each.
Apache::TestRequest::module('node1');
my ($host, $port) = split /:/, Apache::TestRequest::hostport();
my @held;
for (1 .. $HELD) {
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                                  Timeout => 10);
    next unless $s;
    print $s "GET /never-finished HTTP/1.1\r\nHost: $host\r\n";
    push @held, $s;
}
ok t_cmp(scalar(@held), $HELD, "$HELD connections opened");

# Bounded wait (20 s): the workers pick the connections up when the
# machine gets to it.
my $busy_seen = 0;
wait_for(20, 0.2, sub {
    my $b = telemetry('node1')->{BusyWorkers} // 0;
    $busy_seen = $b if $b > $busy_seen;
    return $b >= $HELD + 1;
});
ok t_cmp($busy_seen >= $HELD + 1 ? 1 : 0, 1,
         "BusyWorkers >= $HELD + 1 while $HELD requests are held"
         . " (highest seen: $busy_seen)");
my $t2 = telemetry('node1');
ok t_cmp(($t2->{IdleWorkers} // -1) >= 0 ? 1 : 0, 1,
         'IdleWorkers still a count');

# Released: the count falls back below the held number plus one within
# 20 s (other requests of the suite's own probes may come and go, so
# this waits for one reading below, not for a fixed value).
close $_ for @held;
my $low = 1e9;
wait_for(20, 0.2, sub {
    my $b = telemetry('node1')->{BusyWorkers} // 1e9;
    $low = $b if $b < $low;
    return $b < $HELD + 1;
});
ok t_cmp($low < $HELD + 1 ? 1 : 0, 1,
         "BusyWorkers falls once they are released (lowest seen: $low)");
