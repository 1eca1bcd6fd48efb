# A member that stays down is one "member failed" event, however many
# picks see it down; "member back", the forgotten failures and the slow
# start come only when it serves again (issue 28 item 3: a member down
# the whole time posted a "failed" and a "back" every two picks, which
# filled the events ring and restarted its slow start each time).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes qw(time);
use lib 't/lib';
use PiResponder ();
use PiTest qw(status_json member wait_for);

plan tests => 14, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $vars = Apache::Test::config()->{vars};
my %port;
{
    my $conf = "$vars->{t_conf}/faults.conf";
    open my $fh, '<', $conf or die "$conf: $!";
    while (<$fh>) {
        $port{ lc $1 } = $2 if /^\s*Define\s+PIB_(DEAD|FLAP)_PORT\s+(\d+)/;
    }
}

# The events of the member on $port, newest first, as "kind (detail)".
sub events_of {
    my ($port) = @_;
    my $doc = status_json('fmaster');
    return [ map { $_->{event} . (defined $_->{detail} && length $_->{detail}
                                  ? " ($_->{detail})" : '') }
             grep { ($_->{member} // '') =~ /:\Q$port\E\/?$/ }
             @{ $doc->{events} // [] } ];
}

sub count_of {
    my ($events, $kind) = @_;
    return scalar grep { /^\Q$kind\E( |$)/ } @$events;
}

# $n GETs of $path; the answers' X-Node (or status) counted.
sub gets {
    my ($path, $n) = @_;
    Apache::TestRequest::module('fmaster');
    my %c;
    for (1 .. $n) {
        my $res = GET($path);
        $c{ $res->is_success ? ($res->header('X-Node') // 'none')
                             : 'status ' . $res->code }++;
    }
    return \%c;
}

# ---- down all along --------------------------------------------------------
my $c = gets('/down/page.html', 60);
ok t_cmp($c->{fnode} // 0, 60, '60 requests, all served by the live member');
my $ev = events_of($port{dead});
ok t_cmp(count_of($ev, 'member failed'), 1,
         "one 'member failed' for the member that refuses (@$ev)");
ok t_cmp(count_of($ev, 'member back'), 0, 'no "member back"');

# ---- down, retried every second, still down ------------------------------
$c = gets('/flap/page.html', 10);
ok t_cmp($c->{fnode} // 0, 10, 'flap: served by the live member');
# Requests for three retry periods (bounded: 3 s or 300 requests): each
# retry of the member fails again.
my $t0 = time;
my $n = 0;
while (time - $t0 < 3 && $n < 300) {
    $c = gets('/flap/page.html', 5);
    $n += 5;
}
$ev = events_of($port{flap});
ok t_cmp(count_of($ev, 'member failed'), 1,
         "flap: one 'member failed' over $n requests and its retries (@$ev)");
ok t_cmp(count_of($ev, 'member back'), 0, 'flap: no "member back" yet');
my $m = member(status_json('fmaster'), 'balancer://flap', $port{flap});
ok t_cmp(($m->{thermal_state} // '') eq 'ramping' ? 'ramping' : 'not ramping',
         'not ramping', 'flap: no slow start while it is down');

# ---- it serves again -------------------------------------------------------
my $log = "$vars->{t_logs}/flap-responder.log";
unlink $log;
my $pid = PiResponder::start($vars->{t_dir}, 'http', $port{flap}, 120, $log,
                             'flap');
END { local $?; PiResponder::stop($pid) }
ok t_cmp($pid ? 1 : 0, 1, "a node on the flap member's port $port{flap}");
my $served = wait_for(30, 0, sub {
    my $r = gets('/flap/page.html', 5);
    return ($r->{flap} // 0) > 0;
});
ok t_cmp($served ? 1 : 0, 1, 'the flap member serves again');
$ev = events_of($port{flap});
ok t_cmp(count_of($ev, 'member failed'), 1, "still one 'member failed' (@$ev)");
ok t_cmp(count_of($ev, 'member back'), 1, "one 'member back'");
ok t_cmp($ev->[0] // '', 'member back (slow start)',
         'the newest: back, with a slow start');
# Its telemetry (the node's /pi-status?auto) is read within a probe
# interval or two: until then its state says "stale" (bounded, 30 s).
my $state = '';
wait_for(30, 0.2, sub {
    $m = member(status_json('fmaster'), 'balancer://flap', $port{flap});
    $state = $m->{thermal_state} // '';
    return $state ne 'stale';
});
ok t_cmp($state, 'ramping', 'ramping (PiBalanceSlowStart 60)');

# More requests: it stays back, once.
gets('/flap/page.html', 20);
$ev = events_of($port{flap});
ok t_cmp(join(',', count_of($ev, 'member failed'), count_of($ev, 'member back')),
         '1,1', "20 more requests: still one of each (@$ev)");
