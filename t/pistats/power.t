# PiStatsPowerSensor (issue 31): a node's PowerW from hwmon fixture files
# (an INA219's power1_input, an INA3221's curr/in pairs), unknown when
# unreadable and logged once when that changes; refused at start-up in a
# form that cannot be; the master's power, energy integral and joules per
# request per member, in ?json and ?prometheus, not integrated across a
# gap, kept across a graceful restart.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use LWP::UserAgent;
use lib 't/lib';
use PiLog;
use PiTest qw(telemetry status_json member wait_for check_config);

plan tests => 39, need_module 'pistats', 'proxy_balancer';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} }
           qw(powerina219 powerina3221 powerlive);
my $top = $vars->{top_dir};
my $log = PiLog->new(qr/PIS1300\d|resuming normal operations/,
                     from_start => 1);

# ---- the node -----------------------------------------------------------
ok t_cmp(telemetry('powerina219')->{PowerW}, '2.71',
         'INA219 power1_input: 2,712,499 uW is 2.71 W');
ok t_cmp(telemetry('powerina3221')->{PowerW}, '5.18',
         'INA3221 curr*_input: 5100 x 600 + 5050 x 420 + 3300 x 0 uW');
ok t_cmp(telemetry('powernone')->{PowerW}, 'unknown',
         'a sensor that is not there: unknown, not 0');
ok t_cmp(exists telemetry('node2')->{PowerW} ? 'PowerW' : 'none', 'none',
         'a node without PiStatsPowerSensor writes no PowerW');
ok t_cmp(scalar(grep { /PIS13001: PiStatsPowerSensor \S*power-none\*/ }
                $log->update) >= 1 ? 1 : 0, 1,
         'start-up: PIS13001 says the sensor matches no file yet');

# A sensor that vanishes and comes back: every connection (each stays on
# its child process) reads each state at once; each change is logged once
# for all children.
my $dir = "$vars->{serverroot}/tmp/power-live";
make_path($dir);
my $file = "$dir/power1_input";
sub put { open my $fh, '>', $file or die $!; print $fh "$_[0]\n"; close $fh }
Apache::TestRequest::module('powerlive');
my $hostport = Apache::TestRequest::hostport();
my @conns = map { LWP::UserAgent->new(keep_alive => 1, timeout => 30) }
            1 .. 6;
sub read_on {
    my $res = $_[0]->get("http://$hostport/pi-status?auto");
    return $res->content =~ /^PowerW: (\S+)$/m ? $1 : 'no answer';
}
sub all_read { return join ' ', map { read_on($_) } @conns }
sub logged { my ($re) = @_; return scalar grep { $_ =~ $re } $log->update }

unlink $file;
all_read();                                 # state: unreadable, logged
my $gone_re = qr/PIS13002: PiStatsPowerSensor \S*power-live\S*: no longer readable \(was 1 channels\)/;
my $back_re = qr/PIS13003: PiStatsPowerSensor \S*power-live\S*: readable again, 1 channels/;
my $gone0 = logged($gone_re);
my $back0 = logged($back_re);
put(3000000);
ok t_cmp(all_read(), join(' ', ('3.00') x @conns),
         'every connection reads 3.00 W');
unlink $file;
ok t_cmp(all_read(), join(' ', ('unknown') x @conns),
         'sensor removed: unknown on every connection at once');
all_read();
put(3000000);
ok t_cmp(all_read(), join(' ', ('3.00') x @conns), 'back: 3.00 W');
all_read();
# back, gone, back: three changes, each logged once whatever reads it
# (six connections, the master's probe)
wait_for(10, 0.1, sub { logged($back_re) >= $back0 + 2 });
ok t_cmp(logged($gone_re) - $gone0, 1,
         'its vanishing logged once (PIS13002)');
ok t_cmp(logged($back_re) - $back0, 2,
         'each of its two returns logged once (PIS13003)');

# ---- start-up ---------------------------------------------------------------
my $fx = "$top/t/fixtures/power-ina3221";
my @bad = (
    ["PiStatsPowerSensor \"$fx/hwmon*/in*_input\"",
     qr/PIS13000: PiStatsPowerSensor \S+ matches \S+\/in4_input, but \S+\/curr4_input is not there/],
    ['PiStatsPowerSensor /sys/class/thermal/thermal_zone0/temp',
     qr/PiStatsPowerSensor: '\/sys\/class\/thermal\/thermal_zone0\/temp' must name hwmon power\*_input/],
    ['PiStatsPowerSensor "/sys/class/hwmon/hwmon0/*_input"',
     qr/PiStatsPowerSensor: .* must name hwmon power\*_input/],
    ['PiStatsPowerSensor hwmon0/power1_input',
     qr/PiStatsPowerSensor: 'hwmon0\/power1_input' must be an absolute path/],
    ["<VirtualHost 127.0.0.1:65001>\nPiStatsPowerSensor \"$fx/hwmon*/in[3-5]_input\"\n</VirtualHost>",
     qr/PIS13000: .*in4_input, but .*curr4_input is not there.*\(in /],
);
for my $b (@bad) {
    my ($rc, $out) = check_config($b->[0], [qw(pistats)]);
    ok t_cmp($rc != 0 ? 'refused' : 'accepted', 'refused',
             "refused: " . substr($b->[0] =~ s/\n/ /gr, 0, 60));
    ok t_cmp($out, $b->[1], 'its message');
}
my ($rc, $out) = check_config("PiStatsPowerSensor \"$fx/hwmon*/curr*_input\"\n"
                              . "<VirtualHost 127.0.0.1:65001>\n"
                              . "PiStatsPowerSensor /nonexistent*/power1_input\n"
                              . "</VirtualHost>", [qw(pistats)]);
ok t_cmp($rc, 0, 'pairs that match, and a sensor not there yet: accepted');
ok t_cmp($out, qr/PIS13001: PiStatsPowerSensor \/nonexistent\*\/power1_input matches no file yet/,
         'the sensor not there yet is a warning');

# ---- the master ---------------------------------------------------------------
sub m_of { my ($doc, $n) = @_; return member($doc, 'balancer://power', $port{$n}) }
my $doc;
wait_for(20, 0.2, sub {
    $doc = status_json('powermaster');
    my ($a, $b, $c) = map { m_of($doc, $_) } qw(powerina219 powerina3221 powerlive);
    return $a && $b && $c && ($a->{telemetry}{power_w} // 0) == 2.71
        && ($b->{telemetry}{power_w} // 0) == 5.18
        && ($c->{telemetry}{power_w} // 0) == 3.0
        && ($a->{energy}{joules} // 0) > 0;
});
my $m219 = m_of($doc, 'powerina219');
ok t_cmp($m219->{telemetry}{power_w}, 2.71, 'the master reads 2.71 W');
ok t_cmp(m_of($doc, 'powerina3221')->{telemetry}{power_w}, 5.18, 'and 5.18 W');
my ($bal) = grep { $_->{name} eq 'balancer://power' } @{ $doc->{balancers} };
ok t_cmp(sprintf('%.3f %d', $bal->{power}{watts}, $bal->{power}{members}),
         '10.890 3', 'the cluster: 2.71 + 5.18 + 3.00 W from 3 members');

# The integral: over a few seconds, the energy grows by the power times
# the time, within the probe's granularity (the last reading's interval
# is not integrated until the next; three intervals of 0.5 s either way).
my ($t1, $e1) = ($doc->{server}{now}, $m219->{energy}{joules});
wait_for(30, 0.2, sub {
    $doc = status_json('powermaster');
    return $doc->{server}{now} - $t1 >= 6;
});
my $dt = $doc->{server}{now} - $t1;
my $de = m_of($doc, 'powerina219')->{energy}{joules} - $e1;
ok t_cmp($de >= 2.71 * ($dt - 1.5) && $de <= 2.71 * ($dt + 1.5) ? 1 : 0, 1,
         sprintf('energy: %.2f J in %.2f s at 2.71 W', $de, $dt));

# Joules per request over the last minute: energy of the integrated
# seconds / requests in them; a constant draw is all idle draw.
Apache::TestRequest::module('powermaster');
my $ok = 0;
for (1 .. 30) { $ok++ if GET('/page.html')->is_success }
ok t_cmp($ok, 30, '30 requests through balancer://power');
my $lm;
wait_for(30, 0.3, sub {
    $doc = status_json('powermaster');
    $lm = m_of($doc, 'powerina219')->{energy}{last_minute};
    return defined $lm->{joules_per_request} && $lm->{requests} > 0;
});
ok t_cmp(defined $lm->{joules_per_request} ? 1 : 0, 1,
         'joules per request over the last minute');
ok t_cmp(abs($lm->{joules_per_request} * $lm->{requests} - $lm->{joules})
         < 0.01 ? 1 : 0, 1,
         "J/request x requests = joules ($lm->{joules} J, $lm->{requests} requests, $lm->{seconds} s)");
ok t_cmp(abs($lm->{joules} - 2.71 * $lm->{seconds}) < 0.01 * $lm->{seconds}
         ? 1 : 0, 1, 'the minute\'s energy: 2.71 W x its seconds');
ok t_cmp($lm->{joules_per_request_above_idle} < 0.01 ? 1 : 0, 1,
         'a constant draw: nothing above the idle draw');
ok t_cmp(m_of($doc, 'powerina219')->{energy}{idle_w}, 2.71,
         'the idle draw: the lowest reading');
ok t_cmp(defined $bal->{power} ? 1 : 0, 1, 'the balancer has a power block');

# Prometheus.
Apache::TestRequest::module('powermaster');
my $prom = GET('/pi-status?prometheus')->content;
ok t_cmp($prom, qr/^pistats_member_power_watts\{balancer="balancer:\/\/power",member="http:\/\/127\.0\.0\.1:$port{powerina219}"\} 2\.71$/m,
         'pistats_member_power_watts');
ok t_cmp($prom, qr/^pistats_member_energy_joules_total\{balancer="balancer:\/\/power",member="http:\/\/127\.0\.0\.1:$port{powerina219}"\} [1-9][0-9.e+]*$/m,
         'pistats_member_energy_joules_total');
ok t_cmp($prom, qr/^# TYPE pistats_member_energy_joules_total counter$/m,
         'a counter');

# A gap: while the node says PowerW unknown, nothing is integrated.
unlink $file;
wait_for(20, 0.2, sub {
    $doc = status_json('powermaster');
    my $m = m_of($doc, 'powerlive');
    return $m && !defined $m->{telemetry}{power_w};
});
my ($tg, $eg) = ($doc->{server}{now}, m_of($doc, 'powerlive')->{energy}{joules});
wait_for(30, 0.2, sub {
    $doc = status_json('powermaster');
    return $doc->{server}{now} - $tg >= 2.5;        # five probes
});
ok t_cmp(m_of($doc, 'powerlive')->{energy}{joules}, $eg,
         'PowerW unknown for 2.5 s: the energy does not grow');
put(3000000);

# A graceful restart keeps the counter (the slot survives).
sub parent_pid {
    open my $fh, '<', "$vars->{t_logs}/httpd.pid" or die "pid: $!";
    chomp(my $pid = <$fh>);
    return $pid;
}
my $e0 = m_of(status_json('powermaster'), 'powerina219')->{energy}{joules};
my $gens = logged(qr/resuming normal operations/);
kill 'USR1', parent_pid();
ok t_cmp(wait_for(20, 0.1, sub {
             logged(qr/resuming normal operations/) > $gens }) ? 1 : 0, 1,
         'graceful restart');
my $e2;
wait_for(20, 0.2, sub {
    my $d = eval { status_json('powermaster') } or return 0;
    $e2 = m_of($d, 'powerina219')->{energy}{joules};
    return defined $e2 && $e2 > $e0;
});
ok t_cmp(defined $e2 && $e2 > $e0 ? 1 : 0, 1,
         sprintf('energy goes on across it: %.2f J, then %.2f J', $e0,
                 $e2 // -1));
unlink $file;
