# conf/pi-pmic-power (issue 31): the Pi 5's PMIC rails as a hwmon-style
# power1_input file for PiStatsPowerSensor, from a stand-in vcgencmd
# (t/fixtures/pmic): the sum of V x I over the rails with both, the board
# estimate, the file removed when vcgencmd fails and when it stops.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Temp ();
use Time::HiRes ();
use lib 't/lib';
use PiTest qw(check_config wait_for);

plan tests => 11, need_module 'pistats';

my $top = Apache::Test::vars('top_dir');
my $script = "$top/conf/pi-pmic-power";
my $dir = File::Temp::tempdir(CLEANUP => 1);
my $file = "$dir/power1_input";
sub slurp { open my $fh, '<', $_[0] or return undef; local $/; <$fh> }
sub run { system(@_) == -1 ? -1 : $? >> 8 }

local $ENV{PI_PMIC_VCGENCMD} = "$top/t/fixtures/pmic/vcgencmd";
ok t_cmp(run($script, '--once', '--dir', $dir), 0, '--once: written');
# 12 rails with a current and a voltage: 1.654312 W (EXT5V, BATT: volts only)
ok t_cmp(slurp($file), "1654312\n", 'the rails: 1,654,312 uW');
ok t_cmp(run($script, '--once', '--board', '--dir', $dir), 0, '--board');
ok t_cmp(slurp($file), "2482253\n", 'the board: 1.654312 x 1.1451 + 0.5879 W');
{
    local $ENV{PI_PMIC_VCGENCMD} = '/bin/false';
    ok t_cmp(run($script, '--once', '--dir', $dir), 1, 'vcgencmd fails: 1');
    ok t_cmp(-e $file ? 'there' : 'gone', 'gone',
             'and the file is gone: PowerW unknown, not stale');
}
ok t_cmp(run($script, '--interval', '0', '--dir', $dir), 2,
         '--interval 0 refused');

# The loop: the file appears, and goes when the service stops.
my $pid = fork // die "fork: $!";
if ($pid == 0) {
    exec $script, '--interval', '1', '--dir', $dir or exit 127;
}
ok t_cmp(wait_for(20, 0.05, sub { -s $file }) ? 1 : 0, 1, 'the loop writes');
kill 'TERM', $pid;
waitpid $pid, 0;
ok t_cmp(-e $file ? 'there' : 'gone', 'gone', 'stopped: the file is gone');

# What it writes is what PiStatsPowerSensor takes.
run($script, '--once', '--dir', $dir);
my ($rc, $out) = check_config("PiStatsPowerSensor \"$file\"", [qw(pistats)]);
ok t_cmp($rc, 0, 'PiStatsPowerSensor accepts the file');
ok t_cmp($out, qr/Syntax OK/, 'Syntax OK');
