# /pi-status in a real browser (issue 20 item 5): Debian's chromium,
# headless, driven by puppeteer-core (build/setup-deps.sh installs both;
# the test fails without them) loads the operator's page at 1366 px and
# at 390 px: no horizontal overflow, every member there, every chart
# drawn with data, no console error.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use JSON::PP;
use Time::HiRes qw(time);
use lib 't/lib';
use PiTest qw(status_json member wait_for);

my $vars = Apache::Test::vars();
my $top = Apache::Test::config()->{vars}{top_dir};
my $driver = "$top/build/browser/node_modules/puppeteer-core/package.json";
my $chromium = $ENV{PI_CHROMIUM} // '/usr/bin/chromium';
my ($node) = grep { -x $_ } map { "$_/node" } split /:/, $ENV{PATH};

plan tests => 3 + 6 * 2, need 'pistats', 'pibalance', 'proxy_balancer';

# build/setup-deps.sh installs all three: a missing one is a failure, not
# a skip (a skipped browser test would pass a page no browser has seen).
my @missing = grep { defined } (-x $chromium ? undef : $chromium),
    (-e $driver ? undef : 'puppeteer-core in build/browser'),
    (defined $node ? undef : 'node');
ok t_cmp("@missing", '', 'chromium, node and puppeteer-core are installed '
                         . '(build/setup-deps.sh)');
exit 0 if @missing;

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} }
           qw(opnode1 opnode2 operator);
my $B = 'balancer://op';

sub set_temp {
    my ($n, $celsius) = @_;
    my $d = "$vars->{serverroot}/tmp/op/$n";
    make_path($d);
    chmod 0755, "$vars->{serverroot}/tmp/op", $d;
    open my $fh, '>', "$d/temp.new" or die "$d: $!";
    print $fh int($celsius * 1000), "\n";
    close $fh;
    chmod 0644, "$d/temp.new";
    rename "$d/temp.new", "$d/temp" or die "$d: $!";
}

# Telemetry read and traffic counted, so the charts have data (bounded:
# 30 s).
set_temp('opnode1', 52);
set_temp('opnode2', 56.5);
Apache::TestRequest::module('operator');
my $ready = wait_for(30, 0.3, sub {
    GET('/op/page.html') for 1 .. 3;
    my $doc = status_json('operator');
    my @m = map { member($doc, $B, $port{$_}) } qw(opnode1 opnode2);
    return 2 == grep { $_ && defined $_->{telemetry}{temperature_c}
                       && grep { $_ } @{ $_->{history}{requests} } } @m;
});
ok t_cmp($ready ? 1 : 0, 1, 'both members have telemetry and traffic');

my $url = "http://127.0.0.1:$port{operator}/pi-status";
my $t0 = time;
my $out = `timeout 240 $node $top/t/bin/browser-check.js $url 1366x768 390x844 2>&1`;
my @res = map { eval { decode_json($_) } // () } grep { /^\{/ } split /\n/, $out;
ok t_cmp(scalar @res, 2, 'chromium loaded the page at both widths')
    or t_debug($out);
t_debug(sprintf 'browser run: %.1f s', time - $t0);

for my $r (@res, ({}) x (2 - @res)) {
    my $w = $r->{width} // '?';
    ok t_cmp($r->{status} // 0, 200, "$w px: 200");
    ok t_cmp(($r->{scrollWidth} // 1e9) <= ($r->{innerWidth} // 0) ? 1 : 0, 1,
             "$w px: no horizontal overflow (page "
             . ($r->{scrollWidth} // '?') . ' <= window '
             . ($r->{innerWidth} // '?') . ')');
    my @ports = sort map { /:(\d+)\/?$/ ? $1 : () } @{ $r->{members} // [] };
    ok t_cmp("@ports", "$port{opnode1} $port{opnode2}", "$w px: every member");
    my @charts = @{ $r->{charts} // [] };
    ok t_cmp(scalar(grep { $_->{tempPoints} >= 2 && $_->{ratePoints} >= 3
                           && $_->{width} > 200 } @charts), 2,
             "$w px: both charts drawn, with data");
    ok t_cmp(scalar(grep { $_->{right} > ($r->{innerWidth} // 0) } @charts), 0,
             "$w px: the charts fit");
    ok t_cmp(join(' | ', @{ $r->{errors} // ['no result'] }), '',
             "$w px: no console errors");
}
