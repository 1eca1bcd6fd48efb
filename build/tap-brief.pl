#!/usr/bin/perl
# build/tap-brief.pl -- reads a verbose Apache::Test run (t/TEST -verbose)
# and prints it as brief as a plain run, except that each failed test
# comes with the comment lines before it (t_cmp's "testing", "expected",
# "received"): a flake on a busy machine says what it saw.  A plain run
# hides those lines, and a failure in CI is not run again.
#
#   t/TEST -verbose ... 2>&1 | build/tap-brief.pl
#
# Dropped: "ok N" lines, "1..N" plans and the comments of passing tests.
# Comments kept before a failure: the first 60 lines of the test's block
# ("testing" and "expected" first; a long "received" loses its end),
# each cut to 2,000 characters.  The whole output is in the pass's
# suite.log.
use strict;
use warnings;

my @notes;          # comment lines since the last test line
my $max = 60;
my $failed = 0;     # printing the comments after a "not ok"

$| = 1;
while (my $line = <STDIN>) {
    if ($line =~ /^\s*ok \d+/ || $line =~ /^\s*1\.\.\d+/) {
        @notes = ();
        $failed = 0;
    }
    elsif ($line =~ /^\s*not ok \d+/) {
        print @notes, $line;
        @notes = ();
        $failed = 1;
    }
    elsif ($failed && $line =~ /^\s*#\s+(Failed test|at )/) {
        print $line;                    # "# Failed test N in ... line L"
    }
    elsif ($line =~ /^\s*#/) {
        $line = substr($line, 0, 2000) . "...\n" if length($line) > 2001;
        push @notes, $line if @notes < $max;
    }
    else {
        # a comment block ended by other output (a file's name, a
        # warning) belonged to no failure
        @notes = () unless $line =~ /^\s*$/;
        $failed = 0;
        print $line;
    }
}
