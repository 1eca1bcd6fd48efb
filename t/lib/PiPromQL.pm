package PiPromQL;
# What the alert rules (conf/prometheus) and the Grafana dashboard
# (conf/grafana) ask of the exporter: the metric names, label matchers and
# grouping labels of a PromQL expression, checked against a scrape of
# /pi-status?prometheus.  A small reader of PromQL, not a parser: it knows
# strings, selectors {..}, ranges [..], grouping clauses by/on/... (..),
# function calls, keywords and Grafana's $variables, which is all the
# expressions of this tree use; anything else it reads as a metric name,
# so an expression it does not understand fails the check rather than
# passing it.
use strict;
use warnings FATAL => 'all';

use Exporter 'import';

our @EXPORT_OK = qw(scrape_names sampled_names parse_expr expr_problems
                    template_metrics scrape_master);

# PromQL's functions and aggregations (Prometheus 2.x).
my %FUNC = map { $_ => 1 } qw(
    abs absent absent_over_time avg_over_time ceil changes clamp clamp_max
    clamp_min count_over_time day_of_month day_of_week day_of_year
    days_in_month delta deriv exp floor histogram_count histogram_fraction
    histogram_quantile histogram_sum holt_winters hour idelta increase irate
    label_join label_replace last_over_time ln log10 log2 max_over_time
    min_over_time minute month predict_linear present_over_time
    quantile_over_time rate resets round scalar sgn sort sort_desc sqrt
    stddev_over_time stdvar_over_time sum_over_time time timestamp vector
    year acos acosh asin asinh atan atanh cos cosh deg pi rad sin sinh tan
    tanh
    sum min max avg group stddev stdvar count count_values bottomk topk
    quantile);
my %KEYWORD = map { $_ => 1 } qw(and or unless bool offset by without on
    ignoring group_left group_right inf nan start end);

# { name => { label => { value => 1 } } } of a text exposition: every
# family of a # TYPE line (a histogram's _bucket, _sum and _count too,
# with no samples needed), and the labels and values its samples carry.
sub scrape_names {
    my ($text) = @_;
    my %m;
    for my $line (split /\n/, $text) {
        if ($line =~ /^# TYPE (\w+) (\w+)$/) {
            $m{$1} ||= {};
            if ($2 eq 'histogram' || $2 eq 'summary') {
                $m{"$1$_"} ||= {} for ($2 eq 'histogram' ? '_bucket' : ()),
                                      '_sum', '_count';
            }
            next;
        }
        next if $line =~ /^#/ || $line !~ /^(\w+)(?:\{(.*)\})? /;
        my ($name, $labels) = ($1, $2 // '');
        $m{$name} ||= {};
        while ($labels =~ /(\w+)="((?:[^"\\]|\\.)*)"/g) {
            $m{$name}{$1}{$2} = 1;
        }
    }
    return \%m;
}

# { name => number of sample lines } of a text exposition.
sub sampled_names {
    my ($text) = @_;
    my %n;
    for my $line (split /\n/, $text) {
        $n{$1}++ if $line =~ /^(\w+)(?:\{.*\})? \S+$/;
    }
    return \%n;
}

# The master's /pi-status?prometheus (t/conf/extra.conf.in, vhost
# pimaster), scraped after traffic on balancer://stats (three members)
# and balancer://failing (proxy errors), until every name in @want has a
# sample (node telemetry is probed once a second; percentiles need a
# request in the last minute), for at most 30 s.  Returns the last scrape.
# As Prometheus asks with the scrape configuration of docs/metrics.md
# (params: {prometheus: [""]}): "?prometheus=".
sub scrape_master {
    my (@want) = @_;
    require Apache::TestRequest;
    require Time::HiRes;
    my $text = '';
    my $deadline = Time::HiRes::time() + 30;
    while (1) {
        Apache::TestRequest::module('pimaster');
        Apache::TestRequest::GET('/stats/page.html') for 1 .. 3;
        Apache::TestRequest::GET('/failing/page.html');
        $text = Apache::TestRequest::GET_BODY('/pi-status?prometheus=');
        my $have = sampled_names($text);
        my @missing = grep { !$have->{$_} } @want;
        last if !@missing;
        if (Time::HiRes::time() > $deadline) {
            warn "# no samples after 30 s: @missing\n";
            last;
        }
        Time::HiRes::sleep(0.25);
    }
    return $text;
}

# Reads an expression: { metrics => [names], selectors => [[name,
# [[label, op, value] ...]] ...], grouping => [labels of by, without,
# on, ignoring, group_*], by => [labels of by], functions => [names] }.
sub parse_expr {
    my ($expr) = @_;
    my $e = $expr;
    my (@sel, @grouping, @by, @metrics, @funcs);
    my $str = qr/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/;

    $e =~ s/(?:^|(?<=\s))#[^\n]*//g;                 # comments
    # selectors: name{matchers} or {matchers}
    $e =~ s{([A-Za-z_:][\w:]*)?\s*\{((?:[^{}"'`]|$str)*)\}}{
        my ($name, $body) = ($1, $2);
        my @m;
        while ($body =~ /([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*($str)/g) {
            push @m, [$1, $2, substr($3, 1, -1)];
        }
        push @sel, [$name, \@m];
        defined $name ? " $name " : ' __selector__ ';
    }ge;
    $e =~ s/$str/ "" /g;                               # strings
    $e =~ s/\$\{[^}]*\}|\$\w+|\[\[\w+\]\]/ 0 /g;       # Grafana variables
    $e =~ s/\[[^\]]*\]/ /g;                            # ranges, subqueries
    $e =~ s{\b(by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)}{
        my @l = grep { length } split /[\s,]+/, $2;
        push @grouping, @l;
        push @by, @l if $1 eq 'by';
        q{ };
    }ge;
    while ($e =~ /(?<![\w:.])([A-Za-z_:][\w:]*)(\s*\()?/g) {
        my ($id, $call) = ($1, $2);
        next if $id eq '__selector__' || $KEYWORD{lc $id};
        if ($call) {
            push @funcs, $id;
        }
        else {
            push @metrics, $id;
        }
    }
    return { metrics => \@metrics, selectors => \@sel,
             grouping => \@grouping, by => \@by, functions => \@funcs };
}

# What in $expr the scrape does not back: unknown functions, metric names
# the exporter does not emit, labels of a matcher no sample of that
# metric carries, literal values of an = matcher no sample has, grouping
# labels no series has.  $extra: labels Prometheus or the configuration
# adds (instance, job; vhost only where two balancers share a name).
sub expr_problems {
    my ($expr, $scrape, @extra) = @_;
    my $p = parse_expr($expr);
    my (@bad, %all);
    my %extra = map { $_ => 1 } @extra;
    for my $n (keys %$scrape) {
        $all{$_} = 1 for keys %{ $scrape->{$n} };
    }
    push @bad, "unknown function $_()" for grep { !$FUNC{$_} }
                                           @{ $p->{functions} };
    push @bad, "metric $_ is not emitted"
        for grep { !$scrape->{$_} } @{ $p->{metrics} };
    for my $s (@{ $p->{selectors} }) {
        my ($name, $matchers) = @$s;
        next unless defined $name && $scrape->{$name};
        my $labels = $scrape->{$name};
        for my $m (@$matchers) {
            my ($l, $op, $v) = @$m;
            next if $extra{$l} || $l eq '__name__';
            if (!$labels->{$l}) {
                # l!="" / l="" also select series without the label
                push @bad, "no $name sample has label $l"
                    unless $v eq '' && ($op eq '=' || $op eq '!=');
                next;
            }
            push @bad, "no $name sample has $l=\"$v\""
                if $op eq '=' && $v ne '' && $v !~ /\$/
                   && !$labels->{$l}{$v};
        }
    }
    push @bad, "no series has label $_ (grouping)"
        for grep { !$all{$_} && !$extra{$_} } @{ $p->{grouping} };
    return @bad;
}

# Metric names an alert's annotation template queries ({{ query "..." }}
# or printf "name{...}" | query): every pistats_* word in it.
sub template_metrics {
    my ($text) = @_;
    my %n;
    $n{$1} = 1 while $text =~ /\b(pistats_\w+)/g;
    return sort keys %n;
}

1;
