package PiDict;
# The node of t/conf/dictionary.conf.in (issue 30, RFC 9842): dynamic
# pages that change on every request, as the seeds' PHP and Java pages
# do, and a versioned script; it never compresses and records what it
# was sent.
#
#   GET /dyn/NAME     version V of page NAME, V counted per NAME (the
#                     first request gets 1); ~60 KB of HTML where a dozen
#                     values depend on V; <p id="version">version V</p>.
#                     NAME's prefix picks the response's headers:
#                       plain*        Cache-Control: no-cache
#                       cookie*       no-cache and Set-Cookie
#                       private*      Cache-Control: private, no-cache
#                       notransform*  Cache-Control: no-cache, no-transform
#                       fresh*        Cache-Control: max-age=3600
#   GET /s/app.js?v=N version N of a ~70 KB script, max-age one day
#
# Every request appends one line to PiDictDir/NAME.hits (tab-separated):
# method, the version served, Accept-Encoding, Available-Dictionary,
# Dictionary-ID, Cookie.  Perl core and mod_perl only.
use strict;
use warnings FATAL => 'all';

use Apache2::RequestRec ();
use Apache2::RequestIO ();
use Apache2::RequestUtil ();
use Apache2::Response ();
use APR::Table ();
use Apache2::Const -compile => qw(OK NOT_FOUND);
use Digest::SHA qw(sha256_hex);
use Fcntl qw(:flock O_RDWR O_CREAT);

# Version $v of page $name: the same template and rows for every name
# (one application's pages), a dozen live values depending on both.
sub page {
    my ($name, $v) = @_;
    my @rows;
    for my $i (0 .. 899) {
        my $val = $i % 75 == 0 ? sha256_hex("$name/$v/$i")
                               : sha256_hex("const/$i");
        push @rows, sprintf '<tr><td class="e">setting_%03d</td>'
                          . '<td class="v">%s</td></tr>', $i,
                            substr($val, 0, 16 + $i % 24);
    }
    return "<!DOCTYPE html>\n<html><head><title>$name</title></head><body>"
         . "\n<h1>$name</h1>\n<table>\n" . join("\n", @rows)
         . "\n</table>\n<p id=\"version\">version $v</p>\n</body></html>\n";
}

# Version $n of the script.
sub script {
    my ($n) = @_;
    my $s = "/* app.js build $n */\nvar BUILD = $n;\n";
    for my $i (0 .. 1399) {
        my $k = ($i * 7 + ($i % 250 == 0 ? $n : 0)) % 97;
        $s .= "function f$i(a, b) { return a * $i + b - $k; }\n";
    }
    return $s . 'document.addEventListener("DOMContentLoaded", function () '
              . '{ var e = document.getElementById("build"); '
              . 'if (e) e.textContent = "build " + BUILD; });' . "\n";
}

# The next version of NAME (a counter file under $dir, locked).
sub next_version {
    my ($dir, $name) = @_;
    sysopen my $fh, "$dir/$name.ver", O_RDWR | O_CREAT or die "$dir: $!";
    flock $fh, LOCK_EX;
    my $v = <$fh> // 0;
    chomp $v;
    $v = ($v =~ /^\d+$/ ? $v : 0) + 1;
    seek $fh, 0, 0;
    truncate $fh, 0;
    print $fh "$v\n";
    close $fh;
    return $v;
}

# For the tests: what record() wrote for NAME, one array a request.
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

my %cc = (plain => 'no-cache', cookie => 'no-cache',
          private => 'private, no-cache',
          notransform => 'no-cache, no-transform',
          fresh => 'max-age=3600');

sub handler {
    my $r = shift;
    my $dir = $r->dir_config('PiDictDir');
    my $in = $r->headers_in;
    my ($name, $body, $v);
    if ($r->uri eq '/s/app.js') {
        ($v) = ($r->args // '') =~ /(?:^|&)v=(\d+)/;
        return Apache2::Const::NOT_FOUND unless defined $v;
        $name = 'app';
        $body = script($v);
        $r->content_type('text/javascript');
        $r->headers_out->set('Cache-Control' => 'public, max-age=86400');
    }
    elsif ($r->uri =~ m{^/dyn/((plain|cookie|private|notransform|fresh)[\w-]*)$}) {
        ($name, my $kind) = ($1, $2);
        $v = next_version($dir, $name);
        $body = page($name, $v);
        $r->content_type('text/html; charset=utf-8');
        $r->headers_out->set('Cache-Control' => $cc{$kind});
        $r->err_headers_out->add('Set-Cookie' => "sid=$name-$v; Path=/")
            if $kind eq 'cookie';
    }
    else {
        return Apache2::Const::NOT_FOUND;
    }
    record($dir, $name, $r->method, $v, $in->{'Accept-Encoding'},
           $in->{'Available-Dictionary'}, $in->{'Dictionary-ID'},
           $in->{'Cookie'});
    $r->set_content_length(length $body);
    $r->print($body) unless $r->header_only;
    return Apache2::Const::OK;
}

1;
