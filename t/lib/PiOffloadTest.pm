package PiOffloadTest;
# Helpers for t/offload/*.t: requests to the offloading master, gunzip.
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use Apache::TestRequest ();
use Compress::Raw::Zlib;
use Exporter 'import';

our @EXPORT_OK = qw(master_get master_head gunzip_all htdocs);

# GET on the offloading master vhost ($vhost defaults to offload_master);
# @h are extra request headers (name => value pairs, repeats allowed).
sub master_get {
    my ($path, @h) = @_;
    Apache::TestRequest::module('offload_master');
    return Apache::TestRequest::GET($path, @h);
}

sub master_head {
    my ($path, @h) = @_;
    Apache::TestRequest::module('offload_master');
    return Apache::TestRequest::HEAD($path, @h);
}

# Gunzips $data.  Returns (complete, bytes): complete is 1 only when the
# stream ended with a valid trailer.
sub gunzip_all {
    my ($data) = @_;
    my ($i, $st) = Compress::Raw::Zlib::Inflate->new(
        -WindowBits => WANT_GZIP, -LimitOutput => 0, -ConsumeInput => 1);
    my $out = '';
    $st = $i->inflate($data, $out);
    return ($st == Z_STREAM_END ? 1 : 0, $out);
}

sub htdocs {
    return Apache::Test::config()->{vars}{serverroot} . '/htdocs/offload';
}

1;
