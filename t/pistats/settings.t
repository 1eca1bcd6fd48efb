# The settings that decide a member's fate (issue 20 item 4) reach
# /pi-status from mod_pibalance: the balancer's PiBalance* values in
# HTML, ?json, ?auto and ?prometheus, with each member's thermal state.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiTest qw(status_json);

plan tests => 12, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $B = 'balancer://op';

my $doc = status_json('operator');
my ($b) = grep { $_->{name} eq $B } @{ $doc->{balancers} };
my $s = $b ? $b->{settings} : undef;
ok t_cmp(ref $s, 'HASH', "?json: $B has its settings");
$s //= {};
ok t_cmp("$s->{soft_limit_c}/$s->{hard_limit_c}/$s->{readmit_below_c}",
         '55/58/54.7', 'soft, hard, re-admit below (PiBalanceThermal 55 58,'
         . ' hysteresis 3.3)');
ok t_cmp("$s->{slow_start_s}/$s->{decay_s}", '4/0.1',
         'slow start and decay');
ok t_cmp(($s->{deflate} ? 'on' : 'off') . " $s->{deflate_level}", 'on 6',
         'offload and its level');
ok t_cmp(scalar(grep { defined $_->{fate} } @{ $b->{members} // [] }), 2,
         'each member has its fate');

Apache::TestRequest::module('operator');
my $auto = GET_BODY('/pi-status?auto');
my ($i) = $auto =~ /^ProxyBalancer\[(\d+)\]Name: \Q$B\E$/m;
ok defined $i;
$i //= -1;
ok t_cmp($auto, qr/^ProxyBalancer\[$i\]ReadmitBelowC: 54\.7$/m,
         '?auto: ReadmitBelowC');

my $prom = GET_BODY('/pi-status?prometheus');
ok t_cmp($prom, qr/^pistats_balancer_thermal_limit_celsius\{balancer="\Q$B\E",limit="hard"\} 58$/m,
         '?prometheus: the hard limit');
ok t_cmp($prom, qr/^pistats_member_thermal_state\{balancer="\Q$B\E",member="[^"]+",state="\w+"\} 1$/m,
         '?prometheus: a member thermal state');
ok t_cmp($prom, qr/^pistats_balancer_deflate_level\{balancer="\Q$B\E",level="configured"\} 6$/m,
         '?prometheus: the configured offload level');

my $html = GET_BODY('/pi-status');
ok t_cmp($html, qr/re-admitted below <strong>54\.7 \x{b0}C|re-admitted below <strong>54\.7 \xc2\xb0C/,
         'HTML: the re-admit line in words');
ok t_cmp($html, qr/offload level 6, now \d/, 'HTML: the offload level');
