# Every make target the Makefile declares starts correctly: `make -n`
# accepts it, every bash script a recipe runs is run by bash (make's own
# shell is /bin/sh, dash on Debian: `$(SHELL) build/cross.sh` failed with a
# syntax error), and the targets that take arguments from make variables
# start their script for real (`make cross CROSS_TARGETS=--help`, `make fuzz
# FUZZ_ARGS=--usage`: each parses its arguments and prints its usage).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;

my $top = Apache::Test::config()->{vars}{top_dir};

# The declared targets, from .PHONY in Makefile.in.
open my $fh, '<', "$top/Makefile.in" or die "$top/Makefile.in: $!";
my $mk = do { local $/; <$fh> };
close $fh;
my ($phony) = $mk =~ /^\.PHONY:\s*((?:.*\\\n)*.*)$/m;
$phony =~ s/\\\n/ /g;
my @targets = split ' ', $phony;

# A file's interpreter, from its #! line ('' when none).
sub interpreter {
    my ($path) = @_;
    open my $f, '<', $path or return '';
    my $line = <$f> // '';
    close $f;
    return $line =~ m{^#!\s*(?:/usr/bin/env\s+)?(\S+)} ? $1 : '';
}

# A recipe line that names a bash script must start with bash, or with
# the script itself (run through its #! line, so it must be executable).
sub bad_invocations {
    my (@lines) = @_;
    my @bad;
    for my $line (@lines) {
        my @w = split ' ', $line;
        for my $i (0 .. $#w) {
            my $path = "$top/$w[$i]";
            next unless $w[$i] =~ /\.(?:sh|bash)$/ && -f $path;
            next unless interpreter($path) =~ m{(?:^|/)bash$};
            my $ok = ($i == 0 && -x $path)
                  || ($i == 1 && $w[0] =~ m{(?:^|/)bash$});
            push @bad, $line unless $ok;
        }
    }
    return @bad;
}

plan tests => 2 + 2 * @targets + 2;

ok t_cmp(scalar(@targets) >= 11, 1,
         "Makefile.in declares its targets (@targets)");
ok t_cmp(join(' ', grep { $mk !~ /^\Q$_\E:/m } @targets), '',
         'every declared target has a rule');

for my $t (@targets) {
    my @out = `make -n -C '$top' $t 2>&1`;
    my $rc = $? >> 8;
    ok t_cmp($rc, 0, "make -n $t") or t_debug(@out);
    ok t_cmp(join('', bad_invocations(@out)), '',
             "make $t: every bash script runs under bash");
}

# Started for real, no further than their argument parsing.
my $cross = `make -s -C '$top' cross CROSS_TARGETS=--help 2>&1`;
ok t_cmp($cross, qr/^\s*build\/cross\.sh \[--no-smoke\] \[TARGET\.\.\.\]/m,
         'make cross CROSS_TARGETS=--help: build/cross.sh prints its usage');
my $fuzz = `make -s -C '$top' fuzz FUZZ_ARGS=--usage 2>&1`;
ok t_cmp($fuzz, qr/^usage: \S*fuzz\/run\.sh /m,
         'make fuzz FUZZ_ARGS=--usage: fuzz/run.sh prints its usage');
