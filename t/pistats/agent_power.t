# pi-telemetry-agent --power-sensor (issue 31): PowerW from the same
# hwmon fixtures as PiStatsPowerSensor, none without the option, unknown
# when nothing is there; refused (status 2) in a form that cannot be; a
# sensor that vanishes and comes back said once each on stderr.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/lib';
use PiTest qw(wait_for);
use PiAgent qw(agent_bin agent_start agent_stop agent_err slurp nobody);

plan tests => 16, need_module 'pistats';

my $vars  = Apache::Test::config()->{vars};
my $agent = agent_bin();
my $top   = $vars->{top_dir};
my $tmp   = "$vars->{serverroot}/tmp/agent-power";
my ($uid, $gid) = nobody();

remove_tree($tmp);
make_path("$tmp/out", "$tmp/sensor");
chmod 0755, $tmp, "$tmp/sensor";
chown $uid, $gid, "$tmp/out" if $> == 0 && defined $uid;  # it drops to nobody
my $file = "$tmp/out/pi-status.txt";

# Runs the agent --once; returns (exit status, text written, stderr).
sub once {
    my (@args) = @_;
    unlink $file;
    my $err = "$tmp/once.err";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDERR, '>', $err or POSIX::_exit(126);
        exec $agent, '--node', 'pw', '--write', $file, '--once', @args
            or POSIX::_exit(127);
    }
    waitpid $pid, 0;
    return ($? >> 8, slurp($file) // '', slurp($err) // '');
}
sub power_of { return $_[0] =~ /^PowerW: (\S+)$/m ? $1 : 'none' }

my ($rc, $text, $err) = once();
ok t_cmp($rc, 0, 'without --power-sensor: written');
ok t_cmp(power_of($text), 'none', 'and no PowerW line');

($rc, $text) = once('--power-sensor',
                    "$top/t/fixtures/power-ina219/hwmon*/power1_input");
ok t_cmp($rc, 0, 'INA219: written');
ok t_cmp(power_of($text), '2.71', 'PowerW: 2.71, as the Apache node says');
ok t_cmp($text, qr/\nUptimeS: \d+\nPowerW: /, 'after the contract keys');

($rc, $text) = once('--power-sensor',
                    "$top/t/fixtures/power-ina3221/hwmon*/curr*_input");
ok t_cmp(power_of($text), '5.18', 'INA3221 pairs: PowerW: 5.18');

($rc, $text, $err) = once('--power-sensor', '/nonexistent*/power1_input');
ok t_cmp($rc, 0, 'a sensor not there yet: runs');
ok t_cmp(power_of($text), 'unknown', 'PowerW: unknown');
ok t_cmp($err, qr/--power-sensor '\/nonexistent\*\/power1_input' matches no file yet/,
         'and a warning');

($rc, $text, $err) = once('--power-sensor',
                          "$top/t/fixtures/power-ina3221/hwmon*/in*_input");
ok t_cmp($rc, 2, 'in*_input on an INA3221: refused, status 2');
ok t_cmp($err, qr/in4_input, but \S+curr4_input is not there/,
         'the message names the file without a partner');
($rc, $text, $err) = once('--power-sensor', '/sys/class/thermal/thermal_zone0/temp');
ok t_cmp($rc, 2, 'a temp file: refused');
ok t_cmp($err, qr/want an absolute path or glob of hwmon power\*_input/,
         'what it takes');

# A sensor that vanishes and comes back, the agent writing every second.
my $s = "$tmp/sensor/power1_input";
sub put { open my $fh, '>', $s or die $!; print $fh "$_[0]\n"; close $fh;
          chmod 0644, $s }
put(3000000);
agent_start($tmp, 'loop', '--node', 'pw', '--write', $file, '--interval', 1,
            '--power-sensor', $s);
wait_for(20, 0.1, sub { power_of(slurp($file) // '') eq '3.00' });
unlink $s;
wait_for(20, 0.1, sub { power_of(slurp($file) // '') eq 'unknown' });
put(3000000);
wait_for(20, 0.1, sub { power_of(slurp($file) // '') eq '3.00' });
my $t0 = time;
wait_for(10, 0.2, sub { time - $t0 >= 3 });     # three more writes
agent_stop('loop');
my $log = agent_err('loop');
ok t_cmp(scalar(() = $log =~ /power sensor '\Q$s\E' cannot be read/g), 1,
         'its vanishing said once');
ok t_cmp(scalar(() = $log =~ /power sensor '\Q$s\E' readable again, 1 channels/g),
         1, 'its return said once');
ok t_cmp(power_of(slurp($file) // ''), '3.00', 'and read again');
remove_tree($tmp);
