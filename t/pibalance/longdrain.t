# Slow start holds after a drain of any length (issue 15, item 3): thot is
# drained for heat while 150 requests go to the others (each a pick it
# loses; with PiBalanceThermalFloor 1 it keeps its full weight's credit,
# as a member of loadfactor 100 would over thousands of picks at 10 %),
# then cooled: ramping from 10 % over PiBalanceSlowStart 120, it gets a
# ramp's share of the next 30 requests, not every one of them.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 7, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my $port = $cfg->{vhosts}{thot}{port};
my $B = 'balancer://tdrain';

sub set_temp {
    my ($celsius) = @_;
    my $d = "$vars->{serverroot}/tmp/heat/thot";
    open my $fh, '>', "$d/temp" or die "$d: $!";
    print $fh int($celsius * 1000), "\n";
    close $fh;
}

sub shares {
    my ($n) = @_;
    Apache::TestRequest::module('timing');
    my %c;
    for (1 .. $n) {
        my $res = GET('/drain/page.html');
        $c{ $res->is_success ? $res->header('X-Node') : 'status ' . $res->code }++;
    }
    return \%c;
}

# Waits (bounded: 20 s) until a pick sees thot in $state.
sub state_after_pick {
    my ($state) = @_;
    return wait_for(20, 0.2, sub {
        shares(1);
        my $m = member(status_json('timing'), $B, $port);
        return $m && ($m->{thermal_state} // '') eq $state ? $m : undef;
    });
}

set_temp(50);
ok t_cmp(defined state_after_pick('ok') ? 1 : 0, 1, 'thot at 50 C: ok');
# Warm: thot serves (a sample of its own), within 20 s of windows of 30
# (one slow answer on a busy machine may keep it out for a moment).
my $c = wait_for(20, 0, sub {
    my $s = shares(30);
    return ($s->{thot} // 0) > 0 ? $s : undef;
});
ok t_cmp(defined $c ? 1 : 0, 1,
         'cool: thot serves (' . ($c ? $c->{thot} : 0) . ' of 30)');

set_temp(85);
ok t_cmp(defined state_after_pick('drained') ? 1 : 0, 1, 'thot drained');
$c = shares(150);
ok t_cmp($c->{thot} // 0, 0, 'drained: 150 requests, none to thot');

set_temp(70);
my $m = state_after_pick('ramping');
ok t_cmp(defined $m ? 1 : 0, 1, 'cooled: thot ramping, weight '
         . ($m ? $m->{weight} : 'none'));
# Its weight stays below 0.1 + 0.9 x 30/120 = 0.33 for 30 s: at most 0.33
# / 2.33 = 14 % of ties, 5 of 30, plus the one extra win the bounded
# credit allows; 8 leaves room for the latency rule's choices.  Unbounded,
# 150 lost picks of credit would win it every one of the 30.
my $t0 = time;
$c = shares(30);
ok t_cmp(($c->{thot} // 0) <= 8, 1,
         'ramping: thot got ' . ($c->{thot} // 0) . ' of 30 (at most 8) in '
         . (time - $t0) . ' s');
ok t_cmp(time - $t0 < 30 ? 1 : 0, 1, 'measured within the first 30 s');
set_temp(50);
