# Other masters' requests in flight count toward a warm member's cap
# (PiBalanceRemoteMaxAge, docs/multi-master.md).  nodebusy is warm (74 C,
# 4 CPUs: cap ceil(4 x 0.64) = 3) and says BusyWorkers 10: 10 - 1 (the
# probe) - 0 (ours) = 9 of other masters', over its cap, so lbmethod pi
# sends it nothing while nodecool (45 C, no BusyWorkers: uncapped) is there.  With the rule
# off (PiBalanceRemoteMaxAge 0) it gets its weighted share of sequential
# requests (0.64 / 1.64, ~39%).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 5, need_module 'pibalance', 'pistats', 'proxy_balancer';

my $N = 40;
my $busy_port = Apache::Test::config()->{vhosts}{nodebusy}{port};

# Bounded wait (30 s) for the probe's first reading of nodebusy in both
# balancers.
sub read_ok {
    my $doc = eval { status_json('remotemaster') } or return 0;
    for my $b (qw(balancer://remote balancer://remoteoff)) {
        my $m = member($doc, $b, $busy_port) or return 0;
        return 0 unless defined $m->{telemetry}{temperature_c}
            && $m->{telemetry}{temperature_c} == 74 && !$m->{telemetry_stale};
    }
    return 1;
}
ok t_cmp(wait_for(30, 0.25, \&read_ok) ? 1 : 0, 1,
         'the master read nodebusy (74 C) in both balancers');

sub hits {
    my ($path) = @_;
    my %n;
    Apache::TestRequest::module('remotemaster');
    for (1 .. $N) {
        my $res = GET($path);
        $n{$res->is_success ? ($res->header('X-Node') // '?') : 'error'}++;
    }
    return \%n;
}

my $on = hits('/remote/page.html');
ok t_cmp($on->{nodebusy} // 0, 0,
         "rule on: nodebusy (capped by other masters' 9) gets none of $N");
ok t_cmp($on->{nodecool} // 0, $N, "rule on: nodecool gets all $N");

my $off = hits('/remoteoff/page.html');
ok t_cmp(($off->{nodebusy} // 0) > 0 ? 1 : 0, 1,
         'rule off: nodebusy gets some (' . ($off->{nodebusy} // 0)
         . " of $N)");
ok t_cmp($off->{error} // 0, 0, 'no errors');
