# The Prometheus alert rules (conf/prometheus/pi-alerts.yml): promtool
# accepts them and their unit tests pass (pi-alerts.test.yml: each alert
# fires, and does not where it must not); every metric, label and label
# value they name is one the exporter emits (scraped from this httpd's
# /pi-status?prometheus, so renaming a metric fails here); each alert has
# a duration, a severity and a summary naming the member; docs/metrics.md
# lists each with its duration and severity.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use CPAN::Meta::YAML;
use lib 't/lib';
use PiPromQL qw(parse_expr expr_problems scrape_names template_metrics
                scrape_master);

plan tests => 14, need_module 'pistats', 'proxy_balancer';

my $top = Apache::Test::config()->{vars}{top_dir};
my $dir = "$top/conf/prometheus";
my $rules_file = "$dir/pi-alerts.yml";

sub slurp {
    my ($f) = @_;
    open my $fh, '<:encoding(UTF-8)', $f or die "$f: $!";
    local $/;
    return <$fh>;
}

# promtool (Debian's prometheus package, build/setup-deps.sh).
my $promtool = `sh -c 'command -v promtool'`;
chomp $promtool;
ok t_cmp($promtool ne '' ? 1 : 0, 1, 'promtool is installed');

my $out = $promtool ne '' ? `$promtool check rules $rules_file 2>&1` : '';
my $rc = $?;
t_debug($out);
ok t_cmp($rc == 0 && $out =~ /SUCCESS: \d+ rules found/ ? 1 : 0, 1,
         "promtool check rules: $out");

$out = $promtool ne '' ? `$promtool test rules $dir/pi-alerts.test.yml 2>&1`
                       : '';
$rc = $?;
ok t_cmp($rc == 0 && $out =~ /SUCCESS/ ? 1 : 0, 1,
         "promtool test rules: $out");

# The rules, as Prometheus reads them.
my $yaml = CPAN::Meta::YAML->read_string(slurp($rules_file));
my @rules = map { @{ $_->{rules} || [] } }
            @{ ($yaml && $yaml->[0]{groups}) || [] };
my @alerts = grep { defined $_->{alert} } @rules;
ok t_cmp(scalar(@alerts) >= 6 ? 1 : 0, 1,
         scalar(@alerts) . ' alerts read from pi-alerts.yml');

my %by_name = map { $_->{alert} => $_ } @alerts;
ok t_cmp(join(' ', grep { !$by_name{$_} }
                   qw(PiNodeHot PiMemberDrained PiNodeThrottled
                      PiTelemetryStale PiMemberFailing PiOffloadStopped)),
         '', 'hot, drained, throttled, stale, failing, offload off: each has an alert');

my @incomplete;
for my $a (@alerts) {
    my $an = $a->{annotations} || {};
    push @incomplete, "$a->{alert}: no for"
        unless ($a->{for} // '') =~ /^\d+[smh]$/;
    push @incomplete, "$a->{alert}: severity"
        unless ($a->{labels}{severity} // '') =~ /^(warning|critical)$/;
    push @incomplete, "$a->{alert}: summary or description"
        unless $an->{summary} && $an->{description};
}
ok t_cmp(join('; ', @incomplete), '',
         'every alert: for, severity warning|critical, summary, description');

# A summary names what fired: the member, unless the expression sums
# over members (by balancer, by instance): then what it keeps.
my @unnamed;
for my $a (@alerts) {
    my $g = parse_expr($a->{expr})->{by};
    my %kept = map { $_ => 1 } @$g;
    my @need = (!@$g || $kept{member}) ? ('member')
             : grep { $kept{$_} } qw(balancer instance);
    my $sum = $a->{annotations}{summary} // '';
    push @unnamed, $a->{alert}
        unless @need && grep { $sum =~ /\$labels\.$_\b/ } @need;
}
ok t_cmp(join(' ', @unnamed), '', 'every summary names the member (or balancer, master)');

# The reader finds what it must (else the checks below pass on nothing).
my $probe = parse_expr('sum by (member) (rate(a_total{code="5xx"}[5m]))'
                       . ' / ignoring (code) b * on (x) group_left c');
ok t_cmp(join(' ', @{ $probe->{metrics} }, '|', @{ $probe->{grouping} }),
         'a_total b c | member code x', 'the PromQL reader finds names and labels');

# Names the rules use: expressions and annotation templates.
my (%used, @exprs);
for my $r (@rules) {
    my $expr = $r->{expr} // '';
    push @exprs, [$r->{alert} // $r->{record}, $expr];
    $used{$_} = 1 for @{ parse_expr($expr)->{metrics} };
    $used{$_} = 1 for map { template_metrics($_) }
                      values %{ $r->{annotations} || {} };
}
ok t_cmp(scalar(grep { /^pistats_/ } keys %used) >= 10 ? 1 : 0, 1,
         'rules name ' . join(' ', sort keys %used));

my $text = scrape_master(sort keys %used);
my $scrape = scrape_names($text);
ok t_cmp(scalar(grep { /^pistats_member_/ } keys %$scrape) >= 10 ? 1 : 0, 1,
         'the exporter was scraped');
ok t_cmp(join(' ', grep { !$scrape->{$_} } sort keys %used), '',
         'every metric the rules name is emitted');

my @problems = map { my $x = $_; map { "$x->[0]: $_" }
                     expr_problems($x->[1], $scrape, qw(instance job vhost)) }
               @exprs;
ok t_cmp(join('; ', @problems), '',
         'labels and values the rules match on are emitted');

# docs/metrics.md, "Alerts and dashboard": a table row per alert
# | `Name` | condition | for | severity |.
my $doc = slurp("$top/docs/metrics.md");
my ($section) = $doc =~ /^## Alerts and dashboard\n(.*?)(?=^## |\z)/ms;
$section //= '';
my %row;
while ($section =~ /^\|\s*`(Pi\w+)`\s*\|[^|\n]*\|\s*`?(\w+)`?\s*\|\s*(\w+)\s*\|\s*$/mg) {
    $row{$1} = "$2 $3";
}
ok t_cmp(join(' ', grep { !$row{$_->{alert}} } @alerts), '',
         'docs/metrics.md lists every alert');
ok t_cmp(join(' ', map { "$_->{alert}: $row{$_->{alert}}" }
                   grep { $row{$_->{alert}}
                          && $row{$_->{alert}} ne "$_->{for} $_->{labels}{severity}" }
                   @alerts),
         '', "the docs' for and severity are the rules'");
