# Every log tag (PIBLOGNO(n), PISLOGNO(n)) has exactly one call site in
# the modules' sources, as httpd's APLOGNO numbers do: a tag in the error
# log names one line of code.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;

my $top = Apache::Test::config()->{vars}{top_dir};
my %sites;
for my $f (glob("$top/mod_pibalance/*.[ch] $top/mod_pistats/*.[ch] "
                . "$top/common/*.[ch]")) {
    open my $fh, '<', $f or die "$f: $!";
    while (my $line = <$fh>) {
        while ($line =~ /\b(PIB|PIS)LOGNO\((\d+)\)/g) {
            my $tag = "$1$2";
            (my $short = $f) =~ s{^\Q$top\E/}{};
            push @{ $sites{$tag} }, "$short:$.";
        }
    }
    close $fh;
}

plan tests => 2;

ok t_cmp(scalar(keys %sites) > 20, 1, 'log tags found in the sources');
my @twice = map { "$_ (@{ $sites{$_} })" }
            grep { @{ $sites{$_} } > 1 } sort keys %sites;
ok t_cmp("@twice", '', 'each log tag has one call site');
