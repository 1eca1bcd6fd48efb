# lbmethod=pi: share, weights, and every member state and lbset.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiTest qw(count_nodes measure_share count_until_used);

plan tests => 20, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'headers', 'pibalance';

sub share { my ($c, $node) = @_; return $c->{$node} // 0 }

# Shares: PiTest::measure_share (round robin within a tolerance derived
# from the latency rule and the client's timings, after a warm-up).
sub measure { return measure_share('master', @_) }

# Three equal members share evenly.
my ($c, $tol) = measure('/even/page.html', 300, 0.1);
ok t_cmp(share($c, 'node1') + share($c, 'node2') + share($c, 'node3'), 300,
         'every request answered by a node');
for my $n (qw(node1 node2 node3)) {
    ok t_cmp(abs(share($c, $n) - 100) <= $tol, 1,
             "even: $n got " . share($c, $n) . " of 300 (100 +- $tol)");
}

# loadfactor 1:3 gives a 1:3 share over 400 requests.
($c, $tol) = measure('/weighted/page.html', 400, 0.1);
ok t_cmp(abs(share($c, 'node1') - 100) <= $tol, 1,
         'weighted: node1 (loadfactor 1) got ' . share($c, 'node1')
         . " of 400 (100 +- $tol)");
ok t_cmp(abs(share($c, 'node2') - 300) <= $tol, 1,
         'weighted: node2 (loadfactor 3) got ' . share($c, 'node2')
         . " of 400 (300 +- $tol)");

# A disabled member gets none.
$c = count_nodes('/disabled/page.html', 60);
ok t_cmp(share($c, 'node3'), 0, 'disabled member got no request');
ok t_cmp(share($c, 'node1') + share($c, 'node2'), 60, 'others got all');

# A draining member gets no new request.
$c = count_nodes('/drain/page.html', 40);
ok t_cmp(share($c, 'node2'), 0, 'draining member got no request');
ok t_cmp(share($c, 'node1'), 40, 'the other got all');

# A hot standby gets traffic only when all others are down.
$c = count_nodes('/standby/page.html', 60);
ok t_cmp(share($c, 'node3'), 0, 'hot standby idle while members are up');
$c = count_nodes('/standbyoff/page.html', 30);
ok t_cmp(share($c, 'node3'), 30, 'hot standby takes all when the others are disabled');
$c = count_nodes('/standbydead/page.html', 30);
ok t_cmp(share($c, 'node3'), 30, 'hot standby takes all when the other is dead');

# A spare replaces a disabled member.
my $sent;
($c, $sent) = count_until_used('/spare/page.html', 60, qw(node1 node3));
ok t_cmp(share($c, 'node2'), 0, "disabled member got none of $sent");
ok t_cmp(share($c, 'node3') > 0 && share($c, 'node1') > 0, 1,
         'spare stands in for it: node1 ' . share($c, 'node1')
         . ', spare node3 ' . share($c, 'node3'));

# lbset 1 is used only when every lbset-0 member is unusable.
($c, $sent) = count_until_used('/lbset/page.html', 60, qw(node2 node3));
ok t_cmp(share($c, 'node1'), 0, "lbset 0 member disabled: none of $sent");
# All served by lbset 1, both of its members used (count_until_used: not
# an even split).
ok t_cmp(share($c, 'node2') + share($c, 'node3') == $sent
         && share($c, 'node2') > 0 && share($c, 'node3') > 0, 1,
         'lbset 1 members serve all, both used: ' . share($c, 'node2') . '/'
         . share($c, 'node3'));

# balancer-manager shows the method and offers it in its method list.
# (Its parameters count only with a same-origin Referer.)
Apache::TestRequest::module('master');
my $referer = 'http://' . Apache::TestRequest::hostport() . '/balancer-manager';
my $page = GET_BODY('/balancer-manager');
my ($nonce) = $page =~ m{b=even&(?:amp;)?nonce=([0-9a-f-]+)};
ok t_cmp(defined $nonce, 1, 'balancer-manager lists balancer://even');
my $form = GET_BODY("/balancer-manager?b=even&nonce=$nonce",
                    Referer => $referer);
ok t_cmp($form =~ m{<option value=['"]pi['"][^>]*selected}i ? 1 : 0, 1,
         'edit form offers lbmethod pi, selected');
my $xml = GET_BODY('/balancer-manager?xml=1', Referer => $referer);
ok t_cmp($xml =~ m{<httpd:name>balancer://even</httpd:name>.*?<httpd:lbmethod>pi</httpd:lbmethod>}s ? 1 : 0,
         1, 'balancer-manager XML reports lbmethod pi');
