# A bad directive value stops start-up with a message naming the directive
# and what it accepts; a good configuration passes.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use lib 't/lib';
use PiTest qw(check_config);

my @bad = (
    # [directive line, expected message]
    ['PiStatsNodeName "has space"',
     qr/PiStatsNodeName: 'has space' must not contain spaces/],
    # httpd itself refuses an empty argument to a TAKE1 directive
    ['PiStatsNodeName ""', qr/PiStatsNodeName takes one argument/],
    ['PiStatsNodeName ' . ('x' x 65),
     qr/PiStatsNodeName: 'x+' must be at most 64 bytes/],
    ['PiStatsNodeName', qr/PiStatsNodeName takes one argument/],
    ['PiStatsNodeName a b', qr/PiStatsNodeName takes one argument/],
    ['PiStatsThermalZone relative/temp',
     qr/PiStatsThermalZone: 'relative\/temp' must be an absolute path/],
    ['PiStatsThrottledFile get_throttled',
     qr/PiStatsThrottledFile: 'get_throttled' must be an absolute path/],
    ['PiStatsThermalZone "/' . ('a' x 420) . '"',
     qr/PiStatsThermalZone: '\/a+' must be at most 400 bytes/],
    ["<Directory /tmp>\nPiStatsNodeName x\n</Directory>",
     qr/PiStatsNodeName not allowed in <Directory> context/],
    ['PiStatsProbe maybe', qr/PiStatsProbe must be On or Off/],
    ['PiStatsProbePath pi-status', qr/PiStatsProbePath: 'pi-status' must start with '\/'/],
    ['PiStatsProbePath "/a b"', qr/PiStatsProbePath: '\/a b' must be printable ASCII without spaces/],
    ['PiStatsProbeInterval 50ms', qr/PiStatsProbeInterval: '50ms' must be a time from 100ms to 1 hour/],
    ['PiStatsProbeInterval soon', qr/PiStatsProbeInterval: 'soon' must be a time/],
    ['PiStatsProbeTimeout 61', qr/PiStatsProbeTimeout: '61' must be a time from 10ms to 60 s/],
    ["PiStatsProbeInterval 1\nPiStatsProbeTimeout 2",
     qr/PiStatsProbeTimeout \(2000 ms\) must be shorter than PiStatsProbeInterval \(1000 ms\)/],
    ['PiStatsMaxMembers 0', qr/PiStatsMaxMembers: '0' must be a number of members from 1 to 4096/],
    ['PiStatsMaxMembers 5000', qr/PiStatsMaxMembers: '5000' must be a number of members from 1 to 4096/],
    ["<VirtualHost 127.0.0.1:65001>\nPiStatsMaxMembers 10\n</VirtualHost>",
     qr/PiStatsMaxMembers cannot occur within <VirtualHost> section/],
    # lbmethod pi
    ['PiBalanceDecay 0', qr/PiBalanceDecay: '0' must be seconds from 0\.1 to 3600/],
    ['PiBalanceDecay fast', qr/PiBalanceDecay: 'fast' must be seconds from 0\.1 to 3600/],
    ['PiBalanceThermal 90 80', qr/PiBalanceThermal: soft limit 90 must be below hard limit 80/],
    ['PiBalanceThermal 70 200', qr/PiBalanceThermal: '70 200' must be two temperatures in C from 0 to 150/],
    ['PiBalanceThermal 70', qr/PiBalanceThermal takes two arguments/],
    ['PiBalanceThermalFloor 0', qr/PiBalanceThermalFloor: '0' must be a factor from 0\.01 to 1/],
    ['PiBalanceThermalFloor 1.5', qr/PiBalanceThermalFloor: '1\.5' must be a factor from 0\.01 to 1/],
    ['PiBalanceThermalHysteresis -1', qr/PiBalanceThermalHysteresis: '-1' must be degrees C from 0 to 50/],
    ['PiBalanceThrottleFactor 2', qr/PiBalanceThrottleFactor: '2' must be a factor from 0\.01 to 1/],
    ['PiBalanceSlowStart 1e9', qr/PiBalanceSlowStart: '1e9' must be seconds from 0 to 3600/],
    ["<Location /x>\nPiBalanceSlowStart 5\n</Location>",
     qr/PiBalanceSlowStart: only in the server, a virtual host or <Proxy "balancer:\/\/...">/],
);

plan tests => 2 * @bad + 2, need_module 'pistats', 'pibalance';

my ($rc, $out) = check_config("PiStatsNodeName pi-1\n"
                              . "PiStatsThermalZone /sys/class/thermal/thermal_zone*/temp\n"
                              . "PiStatsThrottledFile /tmp/get_throttled\n"
                              . "PiBalanceDecay 5\nPiBalanceThermal 65 78.5\n"
                              . "PiBalanceThermalFloor 0.2\nPiBalanceSlowStart 0\n"
                              . "<Proxy \"balancer://b\">\n  PiBalanceThermal 60 75\n"
                              . "  PiBalanceThrottleFactor 0.3\n  PiBalanceThermalHysteresis 2.5\n</Proxy>");
ok t_cmp($rc, 0, 'a good configuration passes');
ok t_cmp($out, qr/Syntax OK/, 'httpd -t says Syntax OK');

for my $case (@bad) {
    my ($line, $want) = @$case;
    ($rc, $out) = check_config($line);
    (my $name = $line) =~ s/\n/ /g;
    $name = substr($name, 0, 60);
    ok t_cmp($rc != 0, 1, "refused: $name");
    ok t_cmp($out, $want, "message: $name");
}
