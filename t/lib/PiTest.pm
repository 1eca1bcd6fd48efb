package PiTest;
# Helpers shared by the .t files: where did requests go, node telemetry.
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use Apache::TestRequest ();
use Exporter 'import';

our @EXPORT_OK = qw(count_nodes node_get telemetry status_json member
                    wait_for check_config);

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
