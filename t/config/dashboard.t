# The Grafana dashboard (conf/grafana/pi-cluster.json): valid JSON with
# what Grafana needs to import it (schemaVersion, a Prometheus datasource
# variable, templating, panels with datasource, gridPos and targets), a
# row repeated per balancer whose every query selects that balancer, the
# panels the operator needs; every query is PromQL promtool accepts and
# names only metrics, labels and label values the exporter emits (scraped
# from this httpd, so renaming a metric fails here); docs/metrics.md draws
# every panel of the layout.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use JSON::PP;
use File::Temp qw(tempfile);
use lib 't/lib';
use PiPromQL qw(parse_expr expr_problems scrape_names scrape_master);

plan tests => 16, need_module 'pistats', 'proxy_balancer';

my $top = Apache::Test::config()->{vars}{top_dir};
my $file = "$top/conf/grafana/pi-cluster.json";

sub slurp {
    my ($f) = @_;
    open my $fh, '<:encoding(UTF-8)', $f or die "$f: $!";
    local $/;
    return <$fh>;
}

my $dash = eval { JSON::PP->new->decode(slurp($file)) };
ok t_cmp(ref $dash, 'HASH', "pi-cluster.json is a JSON object $@");
$dash = {} if ref $dash ne 'HASH';

ok t_cmp(($dash->{schemaVersion} // 0) >= 36
         && ($dash->{title} // '') ne '' && ($dash->{uid} // '') ne '' ? 1 : 0,
         1, 'schemaVersion >= 36, title, uid');

my %var = map { $_->{name} => $_ } @{ $dash->{templating}{list} || [] };
ok t_cmp(($var{datasource}{type} // '') . ' ' . ($var{datasource}{query} // ''),
         'datasource prometheus', 'a Prometheus datasource variable');
my $bq = $var{balancer}{query};
$bq = $bq->{query} if ref $bq eq 'HASH';
ok t_cmp(($var{balancer}{type} // '') eq 'query'
         && ($var{balancer}{datasource}{uid} // '') eq '${datasource}'
         && ($bq // '') =~ /^label_values\((\w+).*,\s*balancer\)$/ ? 1 : 0,
         1, "a balancer variable: label_values(..., balancer): $bq");

# Panels: top level, and inside collapsed rows.
my @all = map { ($_, @{ $_->{panels} || [] }) } @{ $dash->{panels} || [] };
my @rows = grep { $_->{type} eq 'row' } @all;
my @panels = grep { $_->{type} ne 'row' } @all;
ok t_cmp(scalar(@panels) >= 10 ? 1 : 0, 1, scalar(@panels) . ' panels');

my @bad;
my %id;
for my $p (@all) {
    my $g = $p->{gridPos} || {};
    push @bad, "$p->{title}: gridPos"
        unless (grep { defined $g->{$_} } qw(x y w h)) == 4
               && $g->{x} + $g->{w} <= 24;
    push @bad, "$p->{title}: id" if !defined $p->{id} || $id{$p->{id}}++;
    next if $p->{type} eq 'row';
    push @bad, "$p->{title}: datasource"
        unless ($p->{datasource}{uid} // '') eq '${datasource}'
               && ($p->{datasource}{type} // '') eq 'prometheus';
    my @t = @{ $p->{targets} || [] };
    push @bad, "$p->{title}: no targets" unless @t;
    my %ref;
    for my $t (@t) {
        push @bad, "$p->{title}: target without expr or refId"
            unless ($t->{expr} // '') ne '' && ($t->{refId} // '') ne '';
        push @bad, "$p->{title}: refId $t->{refId} twice"
            if defined $t->{refId} && $ref{$t->{refId}}++;
        push @bad, "$p->{title}: target datasource"
            unless ($t->{datasource}{uid} // '') eq '${datasource}';
    }
}
ok t_cmp(join('; ', @bad), '',
         'every panel: id, gridPos, datasource, targets with expr and refId');

# One row per balancer: a row repeated on $balancer, and every selector
# of its panels (those after it, up to the next row) takes that balancer
# and the master chosen.
my ($rep) = grep { ($_->{repeat} // '') eq 'balancer' } @rows;
ok t_cmp($rep && $rep->{title} =~ /\$balancer/ ? 1 : 0, 1,
         'a row repeated per balancer, titled with it');
my @in_row;
{
    my $in = 0;
    for my $p (@{ $dash->{panels} || [] }) {
        $in = $p == $rep if $p->{type} eq 'row';
        push @in_row, $p if $in && $p->{type} ne 'row';
        push @in_row, @{ $p->{panels} || [] } if $p == ($rep // 0);
    }
}
my @unscoped;
for my $p (@in_row) {
    for my $t (@{ $p->{targets} || [] }) {
        for my $s (@{ parse_expr($t->{expr} // '')->{selectors} }) {
            my %m = map { $_->[0] => "$_->[1]$_->[2]" } @{ $s->[1] };
            push @unscoped, "$p->{title}/$t->{refId}"
                unless ($m{balancer} // '') =~ /^=~?\$balancer$/
                       && ($m{instance} // '') =~ /^=~?\$instance$/;
        }
    }
}
ok t_cmp(scalar(@in_row) >= 8 && !@unscoped ? 1 : 0, 1,
         scalar(@in_row) . ' panels in the balancer row, each query scoped '
         . 'to $instance, $balancer: ' . join(' ', @unscoped));

# What the operator asked for, in each balancer row.
my $titles = join("\n", map { $_->{title} } @in_row);
ok t_cmp(join(' ', grep { $titles !~ /$_/i }
                   ('Requests/s', 'p50', 'In flight', 'Temperature',
                    'Throttled', 'State', 'Offload bytes', 'Offload ratio',
                    'Errors by code')),
         '', 'requests, latency, in flight, temperature, throttle, state, '
             . 'offload bytes and ratio, errors: each has a panel');
my ($temp) = grep { $_->{title} =~ /Temperature/ } @in_row;
ok t_cmp(join(' ', sort map { $_->{expr} } grep { $_->{expr} =~ /^vector/ }
                   @{ $temp->{targets} || [] }),
         'vector($hard - $hysteresis) vector($hard) vector($soft)',
         'the temperature panel draws soft, hard and re-admit lines');

# Every query, with the variables a user would pick, is PromQL promtool
# accepts (a recording rule each).
my %vars = ('$__rate_interval' => '1m', '$instance' => 'm:80',
            '$balancer' => 'balancer://web', '$soft' => '70',
            '$hard' => '80', '$hysteresis' => '5');
my @exprs = ((map { my $p = $_; map { ["$p->{title}/$_->{refId}", $_->{expr}] }
                   @{ $p->{targets} || [] } } @panels),
             ['variable balancer', $bq // '']);
my ($fh, $rules) = tempfile(SUFFIX => '.yml', UNLINK => 1);
binmode $fh, ':encoding(UTF-8)';
print $fh "groups:\n  - name: dashboard\n    rules:\n";
my $n = 0;
for my $e (@exprs) {
    next if $e->[0] =~ /^variable/;
    (my $x = $e->[1]) =~ s/(\$\w+)/$vars{$1} \/\/ $1/ge;
    $x =~ s/\n/ /g;
    $x =~ s/'/''/g;
    printf $fh "      - record: dashboard:q%d\n        expr: '%s'\n", ++$n, $x;
}
close $fh;
my $promtool = `sh -c 'command -v promtool'`;
chomp $promtool;
my $out = $promtool ne '' ? `$promtool check rules $rules 2>&1` : 'no promtool';
ok t_cmp($? == 0 && $out =~ /SUCCESS: $n rules/ ? 1 : 0, 1,
         "$n queries: promtool check rules: $out");

# Against the exporter.
# label_values(selector, label): the selector is PromQL.
$_->[1] =~ s/^label_values\((.*),\s*\w+\)$/$1/ for @exprs;
my %used;
for my $e (@exprs) {
    $used{$_} = 1 for @{ parse_expr($e->[1])->{metrics} };
}
ok t_cmp(scalar(grep { /^pistats_/ } keys %used) >= 15 ? 1 : 0, 1,
         'the queries name ' . join(' ', sort keys %used));
my $scrape = scrape_names(scrape_master(sort keys %used));
ok t_cmp(join(' ', grep { !$scrape->{$_} } sort keys %used), '',
         'every metric the dashboard names is emitted');
my @problems;
for my $e (@exprs) {
    push @problems, map { "$e->[0]: $_" }
                    expr_problems($e->[1], $scrape, qw(instance job vhost));
}
ok t_cmp(join('; ', @problems), '',
         'labels and values the dashboard matches on are emitted');

# docs/metrics.md draws the layout: every panel's title is in it.
my ($section) = slurp("$top/docs/metrics.md")
                =~ /^## Alerts and dashboard\n(.*?)(?=^## |\z)/ms;
$section //= '';
(my $flat = $section) =~ s/\s+/ /g;
ok t_cmp(join(' | ', grep { index($flat, $_) < 0 }
                     map { (my $t = $_->{title}) =~ s/\s+/ /g; $t }
                     @panels, @rows),
         '', 'docs/metrics.md names every panel and row of the dashboard');
ok t_cmp(join(' ', grep { index($section, "`$_`") < 0 } sort keys %var), '',
         'docs/metrics.md names every variable');
