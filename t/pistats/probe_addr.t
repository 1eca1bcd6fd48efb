# The probe and node addresses: a node that refuses the master (403) gets
# a warning naming the Require line to add; an IPv6 literal member is
# probed with a bracketed Host header; a member named "localhost" is
# probed whatever address "localhost" resolves to first.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use IO::Socket::IP;
use IO::Select;
use Socket qw(getaddrinfo SOCK_STREAM);
use Time::HiRes qw(time);
use lib 't/lib';
use PiTest qw(status_json wait_for);
use PiLog;

plan tests => 6, need_module 'pistats', 'proxy_balancer';

# The whole log: the 403 comes with the first probes, at start-up.
my $log = PiLog->new(qr/HTTP status 403/, from_start => 1);

sub members_of {
    my ($doc, $name) = @_;
    my ($b) = grep { $_->{name} eq $name } @{ $doc->{balancers} };
    return $b ? @{ $b->{members} } : ();
}

# 403: the warning says what to add on the node.
# (The last such line: the log may hold earlier runs.)
my $seen = wait_for(20, 0.25, sub {
    my @l = $log->lines(qr/probe of http:\/\/127\.0\.0\.1:\d+: HTTP status 403/);
    return $l[-1];
});
ok t_cmp($seen // '', qr/PIS\d+.*HTTP status 403/, 'a 403 is logged');
ok t_cmp($seen // '', qr/add "Require ip 127\.0\.0\.1"/,
         'the warning names the Require to add on the node');

# IPv6 literal: listen on [::1]:port for the probe, note its Host header.
my $doc = status_json('probeaddr');
my ($m6) = members_of($doc, 'balancer://v6');
my ($port6) = ($m6 && $m6->{name} =~ /\]:(\d+)/);
my $srv = IO::Socket::IP->new(LocalHost => '::1', LocalPort => $port6,
                              Listen => 8, ReuseAddr => 1);
ok t_cmp(defined $srv ? 1 : 0, 1, "listening on [::1]:" . ($port6 // '?'));
my ($host, $end) = (undef, time + 20);
my $sel = IO::Select->new($srv ? $srv : ());
while (!defined $host && time < $end && $srv) {
    next unless $sel->can_read(0.5);
    my $c = $srv->accept or next;
    my $req = '';
    my $cend = time + 5;
    while ($req !~ /\r\n\r\n/ && time < $cend) {
        last unless IO::Select->new($c)->can_read(1);
        my $n = sysread($c, $req, 4096, length $req);
        last unless $n;
    }
    ($host) = $req =~ /^Host: (.*?)\r$/mi;
    print $c "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n"
           . "Node: v6node\nTemperatureC: 41.5\nThrottled: 0x0\n";
    close $c;
}
ok t_cmp($host // '', '[::1]:' . ($port6 // ''), 'Host: [::1]:port');
my $got6 = wait_for(10, 0.25, sub {
    my ($m) = members_of(status_json('probeaddr'), 'balancer://v6');
    return $m && ($m->{telemetry}{node} // '') eq 'v6node';
});
ok t_cmp($got6 ? 1 : 0, 1, 'the IPv6 member telemetry is read');

# "localhost": every address it resolves to is tried (the node listens on
# 127.0.0.1 only; Debian's /etc/hosts often gives ::1 first).
my ($err, @ai) = getaddrinfo('localhost', 80, { socktype => SOCK_STREAM });
t_debug('localhost resolves to ' . scalar(@ai) . ' address(es)');
my $byname = wait_for(20, 0.25, sub {
    my ($m) = members_of(status_json('probeaddr'), 'balancer://byname');
    return $m && ($m->{telemetry}{node} // '') eq 'nodelocal';
});
ok t_cmp($byname ? 1 : 0, 1, 'the member named localhost is probed');
