# The docs (docs/*.md, in Apache's format under "### Name" headings)
# document exactly the directives the modules define.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;

my $top = Apache::Test::config()->{vars}{top_dir};

my %code;
for my $f (map { glob("$top/$_/*.[ch]") } qw(mod_pibalance mod_pistats)) {
    open my $fh, '<', $f or die "$f: $!";
    local $/;
    my $src = <$fh>;
    $code{$1} = 1 while $src =~ /AP_INIT_\w+\(\s*"(\w+)"/g;
}
my %doc;
for my $f (glob "$top/docs/*.md") {
    open my $fh, '<', $f or die "$f: $!";
    while (<$fh>) {
        $doc{$1} = 1 if /^###\s+((?:PiStats|PiBalance)\w+)\s*$/;
    }
    close $fh;
}

plan tests => 3;
ok t_cmp(scalar(keys %code) > 0, 1, 'directives found in the sources');
ok t_cmp(join(' ', grep { !$doc{$_} } sort keys %code), '',
         'every directive is documented');
ok t_cmp(join(' ', grep { !$code{$_} } sort keys %doc), '',
         'every documented directive exists');
