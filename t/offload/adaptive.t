# PiBalanceDeflateAdaptive: a hot master lowers the level, then stops
# compressing new responses (Vary still sent), and comes back when cool;
# each change is logged once at notice.  A 304 for the gzip copy keeps
# its -gzip tag while compression is off (issue 15 item 9).  Every wait is
# on a condition, bounded (20 s), never on the machine's speed.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiOffloadTest qw(master_get);
use PiTest qw(wait_for);

plan tests => 11, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'pibalance';

my $root = Apache::Test::config()->{vars}{serverroot};
my $zone = "$root/tmp/adapt/zone0";
my $errlog = "$root/logs/error_log";
make_path($zone);
my $log_from = -s $errlog;

sub set_temp {
    open my $fh, '>', "$zone/temp" or die "$zone/temp: $!";
    print $fh "$_[0]\n";
    close $fh;
}

# GETs the page every 100 ms until $want (gzip|none) or 20 s pass (the
# state moves one step a second, at most three steps away).
sub until_ce {
    my ($want) = @_;
    my $res;
    wait_for(20, 0.1, sub {
        $res = master_get('/page.html', 'Accept-Encoding' => 'gzip');
        return (($res->header('Content-Encoding') // 'none') eq $want);
    });
    return $res;
}

sub new_log {
    open my $fh, '<', $errlog or die "$errlog: $!";
    seek $fh, $log_from, 0;
    local $/;
    return <$fh> // '';
}

set_temp(50000);
my $res = until_ce('gzip');
ok t_cmp($res->header('Content-Encoding') // 'none', 'gzip', 'cool: gzip');
my $etag = $res->header('ETag') // '';

set_temp(90000);
$res = until_ce('none');
ok t_cmp($res->header('Content-Encoding') // 'none', 'none',
         'hot: no new response is compressed');
ok t_cmp($res->header('Vary') // '', qr/Accept-Encoding/,
         'paused: Vary all the same');
$res = master_get('/page.html', 'Accept-Encoding' => 'gzip',
                  'If-None-Match' => $etag);
ok t_cmp($res->code, 304, 'paused: If-None-Match with the -gzip tag: 304');
ok t_cmp($res->header('ETag') // '', $etag,
         'paused: the 304 keeps the -gzip tag of the copy it confirms');

set_temp(40000);
$res = until_ce('gzip');
ok t_cmp($res->header('Content-Encoding') // 'none', 'gzip',
         'cool again: gzip');
# back to full: one more sample, a second or more later
wait_for(20, 0.2, sub {
    master_get('/page.html', 'Accept-Encoding' => 'gzip');
    return new_log() =~ /compression reduced -> full /;
});

my $log = new_log();
for my $step (['full', 'reduced'], ['reduced', 'off'], ['off', 'reduced'],
              ['reduced', 'full']) {
    my $re = qr/PIB10111: PiBalanceDeflateAdaptive: compression $step->[0] -> $step->[1] /;
    my $n = () = $log =~ /$re/g;
    ok t_cmp($n, 1, "logged once: $step->[0] -> $step->[1]");
}
ok t_cmp($log, qr/\[pibalance:notice\].*PIB10111/, 'at notice level');
unlink "$zone/temp";
