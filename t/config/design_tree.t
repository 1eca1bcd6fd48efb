# docs/design.md's tree names every source file of include/, common/,
# mod_pibalance/, mod_pistats/ and agent/ (a .c with its .h, or a lone .h), and
# no file that is gone: the picture stays true as files move.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Basename qw(basename);

my $top = Apache::Test::config()->{vars}{top_dir};

my %want;                       # file -> 1 (a .h counts with its .c)
for my $dir (qw(include common mod_pibalance mod_pistats agent)) {
    for my $f (glob "$top/$dir/*.[ch]") {
        my $b = basename($f);
        next if $b =~ /\.h$/ && -e "$top/$dir/" . ($b =~ s/\.h$/.c/r);
        $want{$b} = 1;
    }
}
open my $fh, '<', "$top/docs/design.md" or die "docs/design.md: $!";
my $doc = do { local $/; <$fh> };
close $fh;
my ($tree) = $doc =~ /^## The tree, one line per file\n(.*?)^## /ms;
$tree //= '';
my %named;
$named{$1} = 1 while $tree =~ /^\s+([\w-]+\.[ch])\s/mg;

plan tests => 3;
ok t_cmp(scalar(keys %want) > 40, 1,
         scalar(keys %want) . ' source files found');
ok t_cmp(join(' ', grep { !$named{$_} } sort keys %want), '',
         "docs/design.md's tree names every source file");
ok t_cmp(join(' ', grep { !$want{$_} } sort keys %named), '',
         "docs/design.md's tree names no file that is not there");
