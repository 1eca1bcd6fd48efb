package PiTest;
# Helpers shared by the .t files: where did requests go, node telemetry.
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use Apache::TestRequest ();
use Exporter 'import';

our @EXPORT_OK = qw(count_nodes node_get telemetry status_json member
                    wait_for check_config timed_gets tally in_windows
                    measure_share count_until_used parent_pid
                    shm_mappings);

# GETs $path on the master vhost $n times, sequentially, and counts the
# X-Node header of the answers.  Failed requests count under "status NNN".
sub count_nodes {
    my ($path, $n) = @_;
    Apache::TestRequest::module('master');
    my %count;
    for (1 .. $n) {
        my $res = Apache::TestRequest::GET($path);
        my $node = $res->is_success ? ($res->header('X-Node') // 'none')
                                    : 'status ' . $res->code;
        $count{$node}++;
    }
    return \%count;
}

# count_nodes($path, $n), then, while one of @nodes has had no request,
# windows of 10 more, for up to 20 s.  Two idle members are not an even
# split: one slow answer on a busy machine makes the latency rule prefer
# the other member until that sample decays, so a member's first request
# can take a few windows.  Returns the counts of every request sent and
# how many were sent.
sub count_until_used {
    my ($path, $n, @nodes) = @_;
    my $count = count_nodes($path, $n);
    wait_for(20, 0, sub {
        return 1 unless grep { !$count->{$_} } @nodes;
        my $more = count_nodes($path, 10);
        $count->{$_} += $more->{$_} for keys %$more;
        $n += 10;
        return 0;
    });
    return ($count, $n);
}

# GETs $path on vhost $module $n times, sequentially; returns a list of
# [start, end, node, server time] (the client's times; node as
# count_nodes counts; the time the server logged for the request,
# t/conf/pitimes.conf.in, or the client's when no line is found within
# 10 s: both at least the member's sample).
my $tag = 0;
sub timed_gets {
    my ($module, $path, $n) = @_;
    require Time::HiRes;
    Apache::TestRequest::module($module);
    my ($port) = Apache::TestRequest::hostport() =~ /:(\d+)$/;
    my (@req, %id);
    for (1 .. $n) {
        my $id = "$$." . ++$tag;
        my $t0 = Time::HiRes::time();
        my $res = Apache::TestRequest::GET("$path?pt=$id");
        my $t1 = Time::HiRes::time();
        push @req, [$t0, $t1,
                    $res->is_success ? ($res->header('X-Node') // 'none')
                                     : 'status ' . $res->code, $t1 - $t0];
        $id{$id} = $req[-1];
    }
    my $log = Apache::Test::vars('t_logs') . '/pi_times_log';
    wait_for(10, 0.1, sub {
        open my $fh, '<', $log or return 0;
        while (<$fh>) {
            # the master's line (the node logs the same query string)
            next unless m{^$port \S+ \?pt=(\S+) (\d+)$} && $id{$1};
            $id{$1}[3] = $2 / 1e6 if $2 / 1e6 < $id{$1}[3];
            delete $id{$1};
        }
        return !%id;
    });
    return \@req;
}

# Counts the nodes of a list of [start, end, node].
sub tally {
    my ($req) = @_;
    my %c;
    $c{ $_->[2] }++ for @$req;
    return \%c;
}

# How many requests of @$reqs (lists of timed_gets) started while a
# sample of one of @$from could still decide a pick: a request whose
# server time is d >= $thresh (its member's sample is at most that) may
# keep the member's estimate up for $decay x log2(d / $thresh) s after
# it ends (halved every PiBalanceDecay while nobody picks it).
sub in_windows {
    my ($from, $reqs, $decay, $thresh) = @_;
    my @win = map { [$_->[0], $_->[1] + $decay
                                        * log($_->[3] / $thresh) / log(2)] }
              grep { $_->[3] >= $thresh } @$from;
    return scalar grep { my $t = $_->[0];
                         grep { $t >= $_->[0] && $t <= $_->[1] } @win }
                  @$reqs;
}

# The split of sequential requests between equal idle members under
# lbmethod pi is the round robin's (ties, broken by the credit: within 2
# of the exact share) except where the latency rule decides: an idle
# member whose estimate is twice another's and 5 ms more gets no request
# until its estimate has halved back, and then it does not catch up (a
# member out of the tie saves up no credit).  So a request that took
# d >= 5 ms may move the requests sent in $decay x log2(d / 5 ms) s
# after it.  Sends 30 warm-up requests (counted in no share), then $n;
# returns (counts, tolerance = 2 + the requests that could be moved): on
# a quiet machine the round robin exactly, on a busy one what the method
# allows.
sub measure_share {
    my ($module, $path, $n, $decay) = @_;
    my $req = timed_gets($module, $path, 30 + $n);
    my @measured = @$req[30 .. $#$req];
    return (tally(\@measured),
            2 + in_windows($req, \@measured, $decay, 0.005));
}

# The suite server's parent process.
sub parent_pid {
    my $f = Apache::Test::vars('t_logs') . '/httpd.pid';
    open my $fh, '<', $f or die "$f: $!";
    chomp(my $pid = <$fh> // '');
    return $pid;
}

# Shared writable mappings of the parent: what a leaked segment grows.
# (Not /dev/shm as a whole: other servers on the machine come and go.)
sub shm_mappings {
    my $pid = parent_pid();
    open my $fh, '<', "/proc/$pid/maps" or die "maps: $!";
    return scalar grep { /^\S+ \S\S\Ss / } <$fh>;
}

# GET on a node vhost.
sub node_get {
    my ($node, $path) = @_;
    Apache::TestRequest::module($node);
    return Apache::TestRequest::GET($path);
}

# A node's /pi-status?auto as a hash.
sub telemetry {
    my ($node) = @_;
    my $res = node_get($node, '/pi-status?auto');
    my %kv;
    for my $line (split /\n/, $res->content) {
        $kv{$1} = $2 if $line =~ /^([^:]+): (.*)$/;
    }
    return \%kv;
}

# /pi-status?json of a virtual host, parsed (dies on invalid JSON).
sub status_json {
    my ($vhost) = @_;
    require JSON::PP;
    Apache::TestRequest::module($vhost);
    my $res = Apache::TestRequest::GET('/pi-status?json');
    die "pi-status?json: " . $res->code unless $res->is_success;
    return JSON::PP->new->utf8->decode($res->content);
}

# The member of balancer $bname whose URL ends with ":$port" in a parsed
# status document.
sub member {
    my ($doc, $bname, $port) = @_;
    for my $b (@{ $doc->{balancers} }) {
        next unless $b->{name} eq $bname;
        for my $m (@{ $b->{members} }) {
            return $m if $m->{name} =~ /:\Q$port\E\/?$/;
        }
    }
    return undef;
}

# Calls $probe every $step seconds until it returns true, at most $max
# seconds; returns its last result.
sub wait_for {
    my ($max, $step, $probe) = @_;
    require Time::HiRes;
    my $end = Time::HiRes::time() + $max;
    my $r;
    while (1) {
        $r = $probe->();
        return $r if $r || Time::HiRes::time() >= $end;
        Time::HiRes::sleep($step);
    }
}

# Runs "httpd -t" on a minimal configuration that loads mod_proxy and
# our @$modules (default: both), plus $extra.  Returns (exit status,
# output).
sub check_config {
    my ($extra, $modules) = @_;
    require File::Temp;
    my $vars = Apache::Test::config()->{vars};
    my $apxs = $vars->{apxs} || 'apxs';
    chomp(my $libexec = `$apxs -q LIBEXECDIR`);
    my $top = $vars->{top_dir};
    my $dir = File::Temp::tempdir(CLEANUP => 1);
    my $load = join '', map { "LoadModule ${_}_module \"$top/mod_$_/mod_$_.so\"\n" }
                        @{ $modules || [qw(pibalance pistats)] };
    my $conf = "$dir/httpd.conf";
    open my $fh, '>', $conf or die "$conf: $!";
    print $fh <<"CONF";
ServerRoot "$dir"
ServerName localhost
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error_log"
LoadModule mpm_event_module "$libexec/mod_mpm_event.so"
LoadModule authz_core_module "$libexec/mod_authz_core.so"
LoadModule proxy_module "$libexec/mod_proxy.so"
$load
Listen 127.0.0.1:65000
$extra
CONF
    close $fh;
    my $out = `"$vars->{httpd}" -t -f "$conf" 2>&1`;
    return ($? >> 8, $out);
}

1;
