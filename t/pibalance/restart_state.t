# A graceful restart keeps lbmethod pi's member states (pib_state.c,
# pib_slots.c): a drained member stays drained, a member down stays down,
# and nothing is logged or posted again (the soak, bench/soak.sh, found
# states lost at each restart: a drain posted twice, a return never, and
# requests sent to a hung node the page already showed stale).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use lib 't/lib';
use PiLog;
use PiTest qw(status_json member wait_for parent_pid);

plan tests => 9, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(opnode1 opnode2);
my $dead;
{
    my $conf = "$vars->{t_conf}/faults.conf";
    open my $fh, '<', $conf or die "$conf: $!";
    while (<$fh>) {
        $dead = $1 if /^\s*Define\s+PIB_DEAD_PORT\s+(\d+)/;
    }
}
my $log = PiLog->new(qr/resuming normal operations|exit signal|PIB1020[16]/);

sub set_temp {
    my ($node, $celsius) = @_;
    my $d = "$vars->{serverroot}/tmp/op/$node";
    make_path($d);
    chmod 0755, "$vars->{serverroot}/tmp/op", $d;
    open my $fh, '>', "$d/temp.new" or die "$d: $!";
    print $fh int($celsius * 1000), "\n";
    close $fh;
    chmod 0644, "$d/temp.new";
    rename "$d/temp.new", "$d/temp" or die "$d: $!";
}

sub events_of {
    my ($vhost, $port) = @_;
    my $doc = status_json($vhost);
    return [ map { $_->{event} }
             grep { ($_->{member} // '') =~ /:\Q$port\E\/?$/ }
             @{ $doc->{events} // [] } ];
}

sub gets {
    my ($vhost, $path, $n) = @_;
    Apache::TestRequest::module($vhost);
    my %c;
    for (1 .. $n) {
        my $res = GET($path);
        $c{ $res->is_success ? ($res->header('X-Node') // 'none')
                             : 'status ' . $res->code }++;
    }
    return \%c;
}

sub graceful {
    my $before = $log->count(qr/resuming normal operations/);
    kill 'USR1', parent_pid();
    return wait_for(30, 0.1, sub {
        $log->count(qr/resuming normal operations/) > $before
    }) && wait_for(15, 0.1, sub {
        Apache::TestRequest::module('operator');
        GET('/pi-status?auto')->is_success;
    });
}

# opnode1 hot (60 C, hard limit 58): drained, once (bounded: 30 s).
set_temp('opnode1', 60);
set_temp('opnode2', 50);
my $drained = wait_for(30, 0.2, sub {
    gets('operator', '/op/page.html', 4);
    my $ev = events_of('operator', $port{opnode1});
    return @$ev && $ev->[0] eq 'drained';
});
ok t_cmp($drained ? 1 : 0, 1, 'opnode1 drained');
# The dead member of balancer://down: out of use, once.
gets('fmaster', '/down/page.html', 10);
my $down0 = scalar grep { $_ eq 'member failed' } @{ events_of('fmaster', $dead) };
ok t_cmp($down0, 1, 'the dead member: one "member failed"');

my $drains0 = scalar grep { $_ eq 'drained' } @{ events_of('operator', $port{opnode1}) };
my $logged0 = $log->count(qr/PIB10201: .*:$port{opnode1} drained/);
ok t_cmp(graceful() ? 1 : 0, 1, 'a graceful restart');

# After it: requests through both balancers, for three of the operator's
# probe intervals at least (bounded: 300 requests).
my $c = gets('operator', '/op/page.html', 30);
gets('fmaster', '/down/page.html', 30);
ok t_cmp($c->{opnode1} // 0, 0,
         'opnode1 still drained: no request (' . join(', ', map { "$_ $c->{$_}" } sort keys %$c) . ')');
my $ev = events_of('operator', $port{opnode1});
ok t_cmp(scalar(grep { $_ eq 'drained' } @$ev), $drains0, 'no second "drained"');
ok t_cmp(scalar(grep { $_ eq 're-admitted' || $_ eq 'telemetry back' } @$ev), 0,
         'no re-admission, no "telemetry back"');
ok t_cmp($log->count(qr/PIB10201: .*:$port{opnode1} drained/), $logged0,
         'the drain not logged again');
ok t_cmp(scalar grep({ $_ eq 'member failed' } @{ events_of('fmaster', $dead) }), 1,
         'the dead member: still one "member failed"');
my $m = member(status_json('operator'), 'balancer://op', $port{opnode1});
ok t_cmp($m->{thermal_state} // '', 'drained', 'its state: drained');

set_temp('opnode1', 50);
