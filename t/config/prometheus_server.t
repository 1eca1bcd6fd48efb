# The alert rules and the dashboard against a real Prometheus (Debian's
# prometheus package, build/setup-deps.sh) scraping this httpd's master
# with the scrape configuration docs/metrics.md gives: the target is up,
# every rule loads and evaluates without error on the real series, and
# every query of the dashboard (its variables set to this master and
# balancer://stats) returns data.  Prometheus listens on 127.0.0.1 only,
# keeps its data in a temporary directory, and is stopped at the end.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Temp qw(tempdir);
use IO::Socket::INET;
use JSON::PP;
use LWP::UserAgent;
use POSIX ();
use Time::HiRes ();
use URI;
use lib 't/lib';
use PiTest qw(wait_for);

plan tests => 6, need_module 'pistats', 'proxy_balancer';

my $top = Apache::Test::config()->{vars}{top_dir};
Apache::TestRequest::module('pimaster');
my $target = Apache::TestRequest::hostport();
$target =~ s/^localhost:/127.0.0.1:/;

my $prometheus = `sh -c 'command -v prometheus'`;
chomp $prometheus;
ok t_cmp($prometheus ne '' ? 1 : 0, 1, 'prometheus is installed');

# A free port on 127.0.0.1 for Prometheus' web API.
my $sock = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1',
                                 LocalPort => 0, Proto => 'tcp', ReuseAddr => 1)
    or die "no free port: $!";
my $port = $sock->sockport;
close $sock;

my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/prometheus.yml" or die "$dir: $!";
print $fh <<"EOF";
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $top/conf/prometheus/pi-alerts.yml
scrape_configs:
  - job_name: pistats
    metrics_path: /pi-status
    params: {prometheus: [""]}
    static_configs:
      - targets: ["$target"]
EOF
close $fh;

my $pid;
if ($prometheus ne '') {
    $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$dir/log" or POSIX::_exit(1);
        open STDERR, '>&', \*STDOUT or POSIX::_exit(1);
        exec($prometheus, "--config.file=$dir/prometheus.yml",
             "--storage.tsdb.path=$dir/data",
             "--web.listen-address=127.0.0.1:$port", '--log.level=warn')
            or POSIX::_exit(127);
    }
}
END {
    if ($pid) {
        kill 'TERM', $pid;
        # Prometheus closes its database on SIGTERM: up to 20 s, then KILL
        my $end = Time::HiRes::time() + 20;
        Time::HiRes::sleep(0.1)
            while waitpid($pid, POSIX::WNOHANG()) == 0
                  && Time::HiRes::time() < $end;
        if (kill 0, $pid) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
        }
    }
}

my $ua = LWP::UserAgent->new(timeout => 10);
sub api {
    my ($path, %q) = @_;
    my $u = URI->new("http://127.0.0.1:$port/api/v1/$path");
    $u->query_form(%q);
    my $res = $ua->get($u);
    return undef unless $res->is_success;
    return eval { decode_json($res->decoded_content) };
}

# Traffic on balancer://stats and balancer://failing while we wait.
sub traffic {
    Apache::TestRequest::module('pimaster');
    GET('/stats/page.html') for 1 .. 3;
    GET('/failing/page.html');
}

# Up to 60 s: Prometheus starts slowly on a busy machine.
my $up = $pid && wait_for(60, 0.5, sub {
    traffic();
    my $t = api('targets') or return undef;
    my ($one) = @{ $t->{data}{activeTargets} || [] };
    return $one && $one->{health} eq 'up' ? $one : undef;
});
ok t_cmp($up ? $up->{scrapeUrl} : '', "http://$target/pi-status?prometheus=",
         'Prometheus scrapes the master with the documented configuration');

# Every rule evaluated, none in error.
my @rules;
wait_for(30, 0.5, sub {
    my $r = api('rules') or return 0;
    @rules = map { @{ $_->{rules} } } @{ $r->{data}{groups} || [] };
    return @rules && !grep { ($_->{lastEvaluation} // '') =~ /^0001-/ } @rules;
}) if $up;
ok t_cmp(scalar(@rules) >= 6 ? 1 : 0, 1, scalar(@rules) . ' rules loaded');
ok t_cmp(join('; ', map { "$_->{name}: $_->{health} $_->{lastError}" }
                    grep { $_->{health} ne 'ok' } @rules),
         '', 'every rule evaluates on the real series without error');

# Every query of the dashboard returns data (rates need two scrapes in
# their window: $__rate_interval is 10 s here, the scrapes 1 s apart).
my $dash = decode_json(do {
    open my $d, '<', "$top/conf/grafana/pi-cluster.json" or die $!;
    local $/;
    <$d>;
});
my %vars = ('$__rate_interval' => '10s', '$instance' => $target,
            '$balancer' => 'balancer://stats', '$soft' => '70',
            '$hard' => '80', '$hysteresis' => '5');
my @queries;
for my $p (map { ($_, @{ $_->{panels} || [] }) } @{ $dash->{panels} }) {
    for my $t (@{ $p->{targets} || [] }) {
        (my $e = $t->{expr}) =~ s/(\$\w+)/$vars{$1} \/\/ $1/ge;
        push @queries, ["$p->{title}/$t->{refId}", $e];
    }
}
my @empty;
wait_for(30, 0.5, sub {
    traffic();
    @empty = grep {
        my $r = api('query', query => $_->[1]);
        !($r && $r->{status} eq 'success' && @{ $r->{data}{result} });
    } @queries;
    return !@empty;
}) if $up;
ok t_cmp(scalar(@queries) >= 20 && $up && !@empty ? 1 : 0, 1,
         scalar(@queries) . ' dashboard queries return data; not: '
         . join('; ', map { "$_->[0]: $_->[1]" } @empty));

# The balancer variable lists this master's balancers.
my ($var) = grep { $_->{name} eq 'balancer' } @{ $dash->{templating}{list} };
my $def = $var->{definition} // '';
$def =~ s/(\$\w+)/$vars{$1} \/\/ $1/ge;
my ($sel, $label) = $def =~ /^label_values\((.*),\s*(\w+)\)$/;
my $vals = $up && $sel ? api("label/$label/values", 'match[]' => $sel) : undef;
my %listed = map { $_ => 1 } @{ ($vals && $vals->{data}) || [] };
ok t_cmp(join(' ', grep { !$listed{$_} }
                   map { "balancer://$_" } qw(failing probes stats)),
         '', "the balancer variable ($def) lists the master's balancers");
