package PiTest;
# Helpers shared by the .t files: where did requests go, node telemetry.
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use Apache::TestRequest ();
use Exporter 'import';

our @EXPORT_OK = qw(count_nodes node_get telemetry);

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

1;
