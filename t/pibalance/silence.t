# lbmethod pi's silence rule: a member that has answered nothing since a
# request was picked for it longer ago than its estimate is shown "silent"
# and gets no new request; once it answers it is not silent any more, and
# it comes back.  And a member whose requests timed out while its
# telemetry was stale comes back, ramping, once its probe answers again.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 15, need_module 'pistats', 'pibalance', 'proxy_balancer',
    'perl';

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(node1 nodesilent);
my $B = 'silent';
my $flag = Apache::Test::vars('serverroot') . '/tmp/silent.flag';
unlink $flag;

sub state_of {
    my ($node) = @_;
    my $m = member(status_json('thermo'), "balancer://$B", $port{$node});
    return $m ? ($m->{thermal_state} // 'none') : 'missing';
}

# Sequential GETs of the balancer; counts of the X-Node header.
sub split_of {
    my ($n) = @_;
    Apache::TestRequest::module('thermo');
    my %c;
    for (1 .. $n) {
        my $res = GET("/$B/page.html");
        $c{ $res->is_success ? ($res->header('X-Node') // 'none')
                             : 'status ' . $res->code }++;
    }
    return \%c;
}

# Both members answer at once: both are used (in windows of 10 requests,
# for up to 20 s: one slow answer on a busy machine keeps a member out
# for a moment).
my $c = wait_for(20, 0, sub {
    my $s = split_of(10);
    return ($s->{node1} // 0) > 0 && ($s->{nodesilent} // 0) > 0 ? $s : undef;
});
ok t_cmp(defined $c ? 1 : 0, 1, "both members used: node1 "
         . ($c->{node1} // 0) . ', nodesilent ' . ($c->{nodesilent} // 0));

# nodesilent's requests in flight on balancer $B, as /pi-status shows.
sub inflight_of {
    my $m = member(status_json('thermo'), "balancer://$B",
                   $port{nodesilent});
    return $m ? $m->{inflight} : 0;
}

# Requests that ask for a 3 s answer, sent on raw connections, until one
# is held at nodesilent: /pi-status shows it in flight there, or it is
# answered other than by node1 (with timeout=1, nodesilent's answer may be
# the proxy's timeout before /pi-status is read).  An answer of node1 is
# closed and the next one tried: no assumption on how fast node1 answers.
# Bounded: 30 s of tries.
Apache::TestRequest::module('thermo');
my $hostport = Apache::TestRequest::hostport();
sub hold {
    my $end = time + 30;
    while (time < $end) {
        my $s = IO::Socket::INET->new(PeerAddr => $hostport, Timeout => 5)
            or die "connect $hostport: $!";
        my $t = time;
        print $s "GET /$B/page.html?hang HTTP/1.0\r\n",
                 "Host: $hostport\r\n\r\n";
        my $where = wait_for(10, 0.02, sub {
            return 'answered' if IO::Select->new($s)->can_read(0);
            return inflight_of() > 0 ? 'held' : undef;
        });
        return ($s, $t) if ($where // '') eq 'held';
        if (($where // '') eq 'answered') {
            my $head = '';
            wait_for(10, 0.02, sub {
                while (IO::Select->new($s)->can_read(0)) {
                    last unless sysread($s, my $buf, 4096);
                    $head .= $buf;
                }
                return $head =~ /\r\n\r\n/;
            });
            if ($head !~ /^X-Node: node1/mi) {
                return (PiHeld->new($head), $t);    # nodesilent's answer
            }
        }
        close $s;                       # node1's answer
        Apache::TestRequest::module('thermo');
    }
    return;
}

# A held request whose answer was read already.
package PiHeld {
    sub new { my ($class, $head) = @_; return bless { head => $head }, $class }
}

# The answer on a held connection, waiting at most $max seconds.
sub answer_of {
    my ($s, $max) = @_;
    return $s->{head} if ref $s eq 'PiHeld';
    my $answer = '';
    wait_for($max, 0.1, sub {
        my $buf;
        while (IO::Select->new($s)->can_read(0)) {
            last unless sysread($s, $buf, 4096);
            $answer .= $buf;
        }
        return $answer =~ /\r\n\r\n/;
    });
    close $s;
    return $answer;
}

my ($held, $picked) = hold();
ok t_cmp(defined $held ? 1 : 0, 1, 'a request is held at nodesilent');

# Its silence soon exceeds its estimate (~1 ms): bounded wait, 10 s.
my $st = wait_for(10, 0.05, sub {
    my $x = state_of('nodesilent');
    return $x eq 'silent' ? $x : undef;
}) // state_of('nodesilent');
my $age = time - $picked;
ok t_cmp($st, 'silent',
         sprintf('nodesilent shown silent %.2f s after the pick', $age));
ok t_cmp(state_of('node1') ne 'silent' ? 1 : 0, 1, 'node1 is not silent');

# While it is silent (its held request not answered), the others get
# every request: up to 20, stopping when the held request is answered.
my ($sent, $to1) = (0, 0);
while ($sent < 20 && !(ref $held eq 'PiHeld'
                       || IO::Select->new($held)->can_read(0))) {
    $c = split_of(1);
    $sent++;
    $to1 += $c->{node1} // 0;
}
ok t_cmp($sent >= 3 && $to1 == $sent ? 1 : 0, 1,
         "node1 got all $sent sent while nodesilent was silent ($to1)");
t_debug("at " . sprintf('%.2f', time - $picked) . ' s after the pick');

# The held request is answered after 3 s, by nodesilent.
my $answer = answer_of($held, 20);
ok t_cmp($answer =~ m{^HTTP/1\.\d 200}
         && $answer =~ /^X-Node: nodesilent/mi ? 1 : 0, 1,
         'the held request was answered 200 by nodesilent');

# Answered: not silent any more.
ok t_cmp(wait_for(10, 0.1, sub { state_of('nodesilent') ne 'silent' }) ? 1 : 0,
         1, 'nodesilent no longer silent: ' . state_of('nodesilent'));

# Its 3 s sample decays (PiBalanceDecay 0.2: halved every 0.2 s): it
# serves again within seconds.  Bounded: 20 s of single requests.
my $back = wait_for(20, 0.05, sub {
    my $res = GET("/$B/page.html");
    return ($res->header('X-Node') // '') eq 'nodesilent';
});
ok t_cmp($back ? 1 : 0, 1, 'nodesilent serves again');
ok t_cmp(state_of('nodesilent') ne 'silent' ? 1 : 0, 1,
         'and is not silent: ' . state_of('nodesilent'));

# balancer://comeback: nodesilent with timeout=1 and PiBalanceDecay 2
# (its 1 s failure sample keeps it out for ~15 s, unless forgotten; the
# slow start shows that it was).  Its telemetry is read (the pick sees it
# fresh), then hangs (stale); a request held there times out: a failure,
# a 1 s sample.
$B = 'comeback';
Apache::TestRequest::module('thermo');
sub state_after_pick {
    split_of(1);
    return state_of('nodesilent');
}
ok t_cmp(wait_for(20, 0.1, sub { state_after_pick() eq 'ok' }) ? 1 : 0, 1,
         'comeback: nodesilent telemetry read');
open my $fh, '>', $flag or die "$flag: $!";
close $fh;
ok t_cmp(wait_for(20, 0.1, sub { state_after_pick() eq 'stale' }) ? 1 : 0, 1,
         'its telemetry goes stale: ' . state_of('nodesilent'));
($held) = hold();
$answer = defined $held ? answer_of($held, 20) : '';
ok t_cmp($answer =~ m{^HTTP/1\.\d 50[234]} ? 1 : 0, 1,
         'a request held there times out: '
         . ((split /\r\n/, $answer)[0] // 'none'));
$c = split_of(10);
ok t_cmp($c->{nodesilent} // 0, 0, 'after the failure it gets no request');

# Its probe answers again: failures forgotten, slow start.
unlink $flag;
ok t_cmp(wait_for(20, 0.1, sub { state_after_pick() eq 'ramping' }) ? 1 : 0,
         1, 'telemetry back: nodesilent ramping');
$back = wait_for(20, 0.02, sub { (split_of(1)->{nodesilent} // 0) > 0 });
ok t_cmp($back ? 1 : 0, 1, 'and serves again');
