# A balancer a virtual host inherits from the main server is probed at the
# main server's PiStatsProbeInterval, and its telemetry's staleness is
# judged by that interval, never by the request's virtual host's
# (issue 28 item 5): inhvhost probes its own balancers every 200 ms, the
# main server balancer://inh every 2 s; judged by 200 ms, inh's telemetry
# was stale most of the time and its drained hot member got requests.
# The main server's page shows the member's state by the same rule.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use JSON::PP ();
use Time::HiRes qw(time);
use lib 't/lib';
use PiTest qw(member wait_for);
use PiLog;

plan tests => 7, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(inhhot inhcool);
my $B = 'balancer://inh';

# The main server's page (t/conf/growth.conf.in's /pi-status-twins): the
# only one that shows the main server's balancers.
sub main_doc {
    Apache::TestRequest::module('default');
    my $res = GET('/pi-status-twins?json');
    die 'pi-status-twins: ' . $res->code unless $res->is_success;
    return JSON::PP->new->utf8->decode($res->content);
}

# Requests until the hot member's telemetry has been read (bounded: 30 s;
# the finder drains it on the first pick that sees it fresh).
my $drained = wait_for(30, 0.2, sub {
    Apache::TestRequest::module('inhvhost');
    GET('/inh/page.html');
    my $m = member(main_doc(), $B, $port{inhhot});
    return $m && ($m->{thermal_state} // '') eq 'drained';
});
ok t_cmp($drained ? 1 : 0, 1, 'inhhot (60 C, hard limit 50) drained');

# Requests through inhvhost for three of the main server's probe
# intervals (6 s; bounded: at most 600 requests): all to the cool member.
Apache::TestRequest::module('inhvhost');
my %c;
my ($t0, $n) = (time, 0);
while (time - $t0 < 6 && $n < 600) {
    my $res = GET('/inh/page.html');
    $c{ $res->is_success ? ($res->header('X-Node') // 'none')
                         : 'status ' . $res->code }++;
    $n++;
}
ok t_cmp($c{inhhot} // 0, 0,
         "over 6 s ($n requests) none went to the hot member ("
         . join(', ', map { "$_ $c{$_}" } sort keys %c) . ')');
ok t_cmp($c{inhcool} // 0, $n, 'all to the cool one');

my $m = member(main_doc(), $B, $port{inhhot});
ok t_cmp($m->{telemetry_stale} ? 1 : 0, 0,
         "the main server's page: inhhot's telemetry fresh"
         . " (age $m->{telemetry_age_s} s)");
ok t_cmp($m->{thermal_state} // '', 'drained', 'and drained');
my $cool = member(main_doc(), $B, $port{inhcool});
ok t_cmp($cool->{thermal_state} // '', 'ok', 'inhcool ok');

# The trap: inhtrap's own ProxyPass to balancer://inh gives it a copy that
# runs byrequests (mod_proxy's merge_balancers): said at start-up.
my $port_trap = $cfg->{vhosts}{inhtrap}{port};
my @warn = PiLog->new(qr/PIB12901/, from_start => 1)->lines(qr/PIB12901/);
ok t_cmp(join("\n", @warn),
         qr/PIB12901: balancer:\/\/inh in virtual host [^:]+:$port_trap runs lbmethod byrequests, not the main server's pi/,
         'the warning names the balancer, the host and the method');
