# lbmethod pi and heat: a node heated to 85 C gets no new requests and the
# others share its load; cooled to 70 C it comes back, ramping; a slow
# node gets a clearly smaller share under concurrent load; with every
# node at 90 C requests are still served, by the coolest.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 17, need_module 'pistats', 'pibalance', 'proxy_balancer',
    'perl';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} }
           qw(heat1 heat2 heat3 node1 node3 slownode);
my $B = 'balancer://heat';

sub set_node {
    my ($node, $celsius, $bits) = @_;
    my $d = "$vars->{serverroot}/tmp/heat/$node";
    for (['temp', int($celsius * 1000)], ['throttled', sprintf('%x', $bits // 0)]) {
        open my $fh, '>', "$d/$_->[0]" or die "$d: $!";
        print $fh "$_->[1]\n";
        close $fh;
    }
}

# Waits until the master has read $celsius for $node (bounded: 8 s).
sub seen {
    my ($node, $celsius) = @_;
    return wait_for(8, 0.2, sub {
        my $m = member(status_json('thermo'), $B, $port{$node});
        return $m && defined $m->{telemetry}{temperature_c}
               && $m->{telemetry}{temperature_c} == $celsius
               && !$m->{telemetry_stale} ? $m : undef;
    });
}

sub shares {
    my ($path, $n) = @_;
    Apache::TestRequest::module('thermo');
    my %c;
    for (1 .. $n) {
        my $res = GET($path);
        $c{ $res->is_success ? $res->header('X-Node') : 'status ' . $res->code }++;
    }
    return \%c;
}

sub log_count {
    my ($re) = @_;
    open my $fh, '<', "$vars->{t_logs}/error_log" or die $!;
    return scalar grep { /$re/ } <$fh>;
}

set_node($_, 50) for qw(heat1 heat2 heat3);
ok t_cmp(defined seen('heat3', 50), 1, 'the master reads 50 C');
my $c = shares('/heat/page.html', 60);
ok t_cmp(($c->{heat1} // 0) >= 12 && ($c->{heat2} // 0) >= 12
         && ($c->{heat3} // 0) >= 12, 1,
         "cool: all share ($c->{heat1}/$c->{heat2}/$c->{heat3})");

# heat1 to 85 C: drained, the others take its load.
my $drained0 = log_count(qr/PIB10201: pi: \S+:$port{heat1} drained at 85\.0 C/);
set_node('heat1', 85);
my $m = seen('heat1', 85);
ok t_cmp(defined $m, 1, 'the master reads 85 C');
$c = shares('/heat/page.html', 60);
ok t_cmp($c->{heat1} // 0, 0, 'drained at 85 C: no new requests');
ok t_cmp(($c->{heat2} // 0) + ($c->{heat3} // 0), 60, 'the others take all');
$m = member(status_json('thermo'), $B, $port{heat1});
ok t_cmp($m->{thermal_state}, 'drained', '/pi-status: drained');
ok t_cmp(log_count(qr/PIB10201: pi: \S+:$port{heat1} drained at 85\.0 C/),
         $drained0 + 1, 'logged once, with the temperature');

# Cooled to 70 C (below 80 - 5): re-admitted, ramping up from 10%.
set_node('heat1', 70);
ok t_cmp(defined seen('heat1', 70), 1, 'the master reads 70 C');
$c = shares('/heat/page.html', 20);
$m = member(status_json('thermo'), $B, $port{heat1});
ok t_cmp($m->{thermal_state}, 'ramping', 'back, and ramping');
ok t_cmp($m->{weight} < 1, 1, "ramping weight $m->{weight} < 1");
my $back = wait_for(8, 0.3, sub {
    my $s = shares('/heat/page.html', 15);
    return ($s->{heat1} // 0) > 0 ? $s : undef;
});
ok t_cmp(defined $back, 1, 'heat1 serves again');
sleep 4;                                   # PiBalanceSlowStart 4
$m = member(status_json('thermo'), $B, $port{heat1});
ok t_cmp($m->{weight}, 1, 'full weight after the ramp');

# Every node at 90 C: still served, by the coolest.
set_node('heat1', 91);
set_node('heat2', 90);
set_node('heat3', 92);
seen($_->[0], $_->[1]) for [heat1 => 91], [heat2 => 90], [heat3 => 92];
$c = shares('/heat/page.html', 30);
ok t_cmp($c->{heat2} // 0, 30, 'all hot: every request served by the coolest');
set_node($_, 50) for qw(heat1 heat2 heat3);
seen($_, 50) for qw(heat1 heat2 heat3);

# A slow node (50 ms a page) under 6 concurrent clients.
my $clients = 6;
my $per = 40;
my %share;
my @kids;
for my $k (1 .. $clients) {
    pipe(my $rd, my $wr) or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        close $rd;
        Apache::TestRequest::user_agent(reset => 1);
        my $s = shares('/slowbal/page.html', $per);
        print $wr join(' ', map { "$_=$s->{$_}" } keys %$s), "\n";
        close $wr;
        exit 0;
    }
    close $wr;
    push @kids, [$pid, $rd];
}
for (@kids) {
    my ($pid, $rd) = @$_;
    my $line = <$rd> // '';
    waitpid $pid, 0;
    $share{$1} += $2 while $line =~ /(\S+)=(\d+)/g;
}
my $total = 0;
$total += $_ for values %share;
ok t_cmp($total, $clients * $per, 'every concurrent request answered');
my $fast = (($share{node1} // 0) + ($share{node3} // 0)) / 2;
ok t_cmp(($share{slownode} // 0) < 0.5 * $fast, 1,
         "slow node: clearly smaller share ($share{slownode} vs $fast per"
         . " fast node)");
ok t_cmp(($share{slownode} // 0) > 0, 1, 'but not starved');
ok t_cmp(log_count(qr/exit signal/), 0, 'no crash');
