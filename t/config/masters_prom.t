# conf/prometheus/prometheus-masters.yml (docs/multi-master.md): promtool
# accepts it, it scrapes every master with a `master` label of its own,
# and the page quotes it as it is.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use CPAN::Meta::YAML;

plan tests => 5;

my $top = Apache::Test::config()->{vars}{top_dir};
my $file = "$top/conf/prometheus/prometheus-masters.yml";

sub slurp {
    my ($f) = @_;
    open my $fh, '<:encoding(UTF-8)', $f or die "$f: $!";
    local $/;
    return <$fh>;
}

my $promtool = `sh -c 'command -v promtool'`;
chomp $promtool;
ok t_cmp($promtool ne '' ? 1 : 0, 1, 'promtool is installed');
my $out = $promtool ne '' ? `$promtool check config $file 2>&1` : '';
ok t_cmp($? == 0 && $out =~ /is valid prometheus config/ ? 1 : 0, 1,
         "promtool check config: $out");

my $yaml = CPAN::Meta::YAML->read_string(slurp($file))->[0];
my @sc = map { @{ $_->{static_configs} // [] } }
         @{ $yaml->{scrape_configs} // [] };
ok t_cmp(scalar(@sc) >= 2 ? 1 : 0, 1, 'two masters or more');
my %seen;
my @bad = grep { !defined $_->{labels}{master}
                 || $seen{ $_->{labels}{master} }++ } @sc;
ok t_cmp(scalar(@bad), 0, 'each master has a master label of its own');

my $doc = slurp("$top/docs/multi-master.md");
my $body = slurp($file);
$body =~ s/^#.*\n//mg;                  # the file's own comments
ok t_cmp(index($doc, $body) >= 0 ? 1 : 0, 1,
         'docs/multi-master.md quotes the configuration as it is');
