# Prometheus names and labels: the series of a member are keyed by
# balancer and member only (a node that renames itself must not split its
# _total series); its name is in pistats_node_info; names follow
# HAProxy's exporter and apache_exporter (scope word, base units, _total);
# `promtool check metrics` finds nothing to say.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Temp qw(tempfile);
use lib 't/lib';
use PiTest qw(wait_for);

plan tests => 9, need_module 'pistats', 'proxy_balancer';

my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(node1);
my $N1 = "http://127.0.0.1:$port{node1}";

sub scrape {
    Apache::TestRequest::module('pimaster');
    return GET_BODY('/pi-status?prometheus');
}

# Traffic on balancer://stats, and node1's telemetry probed.
Apache::TestRequest::module('pimaster');
GET('/stats/page.html') for 1 .. 3;
my $prom = wait_for(20, 0.25, sub {
    my $p = scrape();
    return $p =~ /^pistats_node_info\{balancer="balancer:\/\/probes",member="\Q$N1\E",node="node1"\} 1$/m
        ? $p : undef;
});
ok t_cmp(defined $prom ? 1 : 0, 1,
         'the node name is in pistats_node_info{balancer,member,node}');
$prom //= scrape();

my (%type, @node_labelled, @other_labels);
for my $line (split /\n/, $prom) {
    $type{$1} = $2 if $line =~ /^# TYPE (\w+) (\w+)$/;
    next if $line =~ /^#/;
    my ($name, $labels) = $line =~ /^(\w+)(?:\{(.*)\})? /;
    next unless defined $name;
    my @keys = defined $labels ? ($labels =~ /(\w+)="(?:[^"\\]|\\.)*"/g) : ();
    push @node_labelled, $line
        if $name ne 'pistats_node_info' && grep { $_ eq 'node' } @keys;
    push @other_labels, $line
        if grep { !/^(balancer|member|node|le|code|window|percentile|codec|coding|state|limit|level)$/ } @keys;
}
ok t_cmp(join("\n", @node_labelled), '',
         'no series but pistats_node_info carries the node name');
ok t_cmp(join("\n", @other_labels), '', 'labels: balancer, member, ...');
ok t_cmp($prom =~ /^pistats_member_requests_total\{balancer="balancer:\/\/stats",member="\Q$N1\E"\} [1-9]\d*$/m
         ? 1 : 0, 1, 'pistats_member_requests_total{balancer,member}');
ok t_cmp($prom =~ /^pistats_node_temperature_celsius\{balancer="balancer:\/\/probes",member="\Q$N1\E"\} 48\.3$/m
         ? 1 : 0, 1, "a member's node temperature, keyed by member");
ok t_cmp($prom =~ /^pistats_node_info\{node="pimaster"\} 1$/m ? 1 : 0, 1,
         "the server's own name in pistats_node_info{node}");
ok t_cmp(join(' ', grep { $type{$_} eq 'counter' && !/^pistats_(member|deflate)_\w+_total$/ }
                   sort keys %type), '',
         'counters: pistats_member_..._total or pistats_deflate_..._total');

# promtool (Debian's prometheus package, build/setup-deps.sh).
my $promtool = `sh -c 'command -v promtool'`;
chomp $promtool;
ok t_cmp($promtool ne '' ? 1 : 0, 1, 'promtool is installed');
my ($fh, $file) = tempfile(UNLINK => 1);
print $fh $prom;
close $fh;
my $lint = $promtool ne '' ? `$promtool check metrics < $file 2>&1` : 'none';
ok t_cmp($lint // '', '', 'promtool check metrics: clean');
