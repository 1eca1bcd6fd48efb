# docs/design.md's tree names every source file of include/, common/,
# mod_pibalance/, mod_pistats/ and agent/ (a .c with its .h, or a lone .h), and
# no file that is gone: the picture stays true as files move.  And every
# project file that code, tests, scripts or docs name exists: a path of
# the tree (mod_pibalance/..., t/..., docs/..., relative to the tree or
# to the naming file's directory or one above it; a generated file when
# its .in does), or a file of ours named bare (pib_*, pis_*, pia_*, pi_*,
# test_*, fuzz_*): a comment never points at a file that is gone.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Basename qw(basename);
use File::Find ();

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

plan tests => 4;
ok t_cmp(scalar(keys %want) > 40, 1,
         scalar(keys %want) . ' source files found');
ok t_cmp(join(' ', grep { !$named{$_} } sort keys %want), '',
         "docs/design.md's tree names every source file");
ok t_cmp(join(' ', grep { !$want{$_} } sort keys %named), '',
         "docs/design.md's tree names no file that is not there");

# ---- every file named exists -------------------------------------------
my (%base, @texts);
File::Find::find({ no_chdir => 1, wanted => sub {
    (my $rel = $File::Find::name) =~ s{^\Q$top\E/?}{};
    return if "/$rel" =~ m{/(?:\.git|node_modules|results|obj|bin|logs|tmp|cross/[^/]+|browser|deb)(?:/|$)};
    return unless -f $_;
    $base{ basename($rel) }++;
    push @texts, $rel
        if $rel =~ /\.(?:c|h|t|pm|md|sh|py|pl|in|lua|js|example|S)$|(?:^|\/)(?:Makefile|README)[^\/]*$/;
}}, $top);
my $dirs = qr{(?:mod_pibalance|mod_pistats|common|include|agent|tests|t|docs|bench|build|fuzz|sim|conf|debian)};
my $ext = qr{(?:c|h|t|pm|md|sh|py|pl|in|lua|js|example|conf|S)};
my $ours = qr{(?:pib_|pis_|pia_|pi_|mod_pibalance|mod_pistats|test_|fuzz_)};
my @gone;
for my $f (@texts) {
    open my $fh, '<', "$top/$f" or next;
    (my $here = $f) =~ s{[^/]*$}{};
    (my $up = $here) =~ s{[^/]*/$}{};
    while (my $line = <$fh>) {
        while ($line =~ m{(?<![\w./\$-])($dirs/(?:[\w.+-]+/)*[\w.+-]+\.$ext|$ours[\w+-]*\.$ext)(?![\w/])}g) {
            my $ref = $1;
            # (suite passes copy the tree without build/cross/)
            next if $ref =~ /[*%]/ || $ref =~ m{^build/cross/};
            my $ok = $ref =~ m{/}
                ? grep { -e "$top/$_$ref" || -e "$top/$_$ref.in" } ('', $here, $up)
                : $base{$ref};
            push @gone, "$ref ($f:$.)" unless $ok;
        }
    }
    close $fh;
}
ok t_cmp(join(', ', @gone), '', 'every project file named in the tree exists');
