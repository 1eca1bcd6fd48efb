# PiBalanceDeflateAdaptive: a hot master lowers the level, then stops
# compressing new responses (Vary still sent), and comes back when cool;
# each change is logged once at notice.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PiOffloadTest qw(master_get);

plan tests => 9, need_module 'proxy', 'proxy_http', 'proxy_balancer',
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

# GETs the page every 100 ms until $want (gzip|none) or 8 s pass.
sub until_ce {
    my ($want) = @_;
    my $t0 = time;
    my $res;
    while (time - $t0 < 8) {
        $res = master_get('/page.html', 'Accept-Encoding' => 'gzip');
        my $ce = $res->header('Content-Encoding') // 'none';
        return $res if $ce eq $want;
        sleep 0.1;
    }
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

set_temp(90000);
$res = until_ce('none');
ok t_cmp($res->header('Content-Encoding') // 'none', 'none',
         'hot: no new response is compressed');
ok t_cmp($res->header('Vary') // '', qr/Accept-Encoding/,
         'paused: Vary all the same');

set_temp(40000);
$res = until_ce('gzip');
ok t_cmp($res->header('Content-Encoding') // 'none', 'gzip',
         'cool again: gzip');
sleep 1.2;
master_get('/page.html', 'Accept-Encoding' => 'gzip') for 1 .. 3;
sleep 1.2;
master_get('/page.html', 'Accept-Encoding' => 'gzip');

my $log = new_log();
for my $step (['full', 'reduced'], ['reduced', 'off'], ['off', 'reduced'],
              ['reduced', 'full']) {
    my $re = qr/PIB10111: PiBalanceDeflateAdaptive: compression $step->[0] -> $step->[1] /;
    my $n = () = $log =~ /$re/g;
    ok t_cmp($n, 1, "logged once: $step->[0] -> $step->[1]");
}
ok t_cmp($log, qr/\[pibalance:notice\].*PIB10111/, 'at notice level');
unlink "$zone/temp";
