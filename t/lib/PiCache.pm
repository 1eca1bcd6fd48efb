package PiCache;
# The node of t/conf/cache.conf.in (issue 18): a revalidatable page that
# counts what it was asked.  GET /page/NAME answers an HTML page with
# ETag "NAME-vV", Last-Modified and Cache-Control: max-age=A; A is 1 for
# names starting with "short", else 3600 (no ETag when the name holds
# "noetag"); V is the content of
# PiCacheDir/NAME.ver (1 when absent).  Every request appends one line
# to PiCacheDir/NAME.hits before answering: method, status, the
# Accept-Encoding, If-None-Match and If-Modified-Since it received.  A
# conditional request that matches gets a 304.
use strict;
use warnings FATAL => 'all';

use Apache2::RequestRec ();
use Apache2::RequestIO ();
use Apache2::RequestUtil ();
use Apache2::Response ();
use APR::Table ();
use Apache2::Const -compile => qw(OK NOT_FOUND HTTP_NOT_MODIFIED);
use Fcntl qw(:flock);

# The page NAME serves at version V: ~24 KB of compressible HTML.
sub body {
    my ($name, $ver) = @_;
    my $row = "<tr><td>$name</td><td>version $ver</td>"
            . "<td>0123456789 abcdefghij</td></tr>\n";
    return "<html><body><table>\n" . ($row x 400) . "</table></body></html>\n";
}

sub version {
    my ($dir, $name) = @_;
    open my $fh, '<', "$dir/$name.ver" or return 1;
    my $v = <$fh> // 1;
    chomp $v;
    return $v =~ /^\d+$/ ? $v : 1;
}

# For the tests: what record() wrote for NAME, one array of fields a
# request (empty when the node was never asked).
sub hits {
    my ($dir, $name) = @_;
    open my $fh, '<', "$dir/$name.hits" or return ();
    return map { chomp; [split /\t/, $_, -1] } <$fh>;
}

sub record {
    my ($dir, $name, @f) = @_;
    open my $fh, '>>', "$dir/$name.hits" or die "$dir/$name.hits: $!";
    flock $fh, LOCK_EX;
    print $fh join("\t", map { $_ // '' } @f), "\n";
    close $fh;
}

sub page {
    my $r = shift;
    my $dir = $r->dir_config('PiCacheDir');
    my ($name) = $r->uri =~ m{/page/([\w-]+)$}
        or return Apache2::Const::NOT_FOUND;
    my $ver = version($dir, $name);
    my $age = $name =~ /^short/ ? 1 : 3600;
    my $in = $r->headers_in;
    $r->content_type('text/html');
    $r->headers_out->set('ETag' => qq{"$name-v$ver"})
        unless $name =~ /noetag/;
    $r->headers_out->set('Last-Modified' =>
                         'Mon, 0' . ($ver % 9 + 1) . ' Jan 2024 00:00:00 GMT');
    $r->headers_out->set('Cache-Control' => "max-age=$age");
    my $rc = $r->meets_conditions;
    record($dir, $name, $r->method, $rc == Apache2::Const::OK ? 200 : $rc,
           $in->{'Accept-Encoding'}, $in->{'If-None-Match'},
           $in->{'If-Modified-Since'});
    return $rc unless $rc == Apache2::Const::OK;
    my $body = body($name, $ver);
    $r->set_content_length(length $body);
    $r->print($body) unless $r->header_only;
    return Apache2::Const::OK;
}

1;
