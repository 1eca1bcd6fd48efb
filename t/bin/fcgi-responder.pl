#!/usr/bin/perl
# t/bin/fcgi-responder.pl PORT SECONDS [PARENT_PID]
#
# A minimal FastCGI responder (Perl core only) for t/offload/nonhttp.t:
# listens on 127.0.0.1:PORT, answers every request with the same 3000-byte
# text/html page (PiResponder::page('fcgi')) and a strong ETag, and tells
# what it received -- HTTP_ACCEPT_ENCODING, HTTP_IF_NONE_MATCH -- in
# X-Seen-* response headers and in one log line a request (stderr).  Like a
# plain CGI script it sends no Status on success and leaves conditional
# requests to httpd (ap_scan_script_header_err_*() answers 304 from the
# ETag and the request's If-None-Match).  For HEAD it sends headers only,
# as PHP-FPM does, unless the query string has "headbody" (then the body
# too, as a plain CGI script does; httpd drops it).  Honours FCGI_KEEP_CONN
# (mod_proxy_fcgi sets it when the member has disablereuse=off).  Exits
# after SECONDS, or once PARENT_PID is gone.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use PiResponder ();

use constant {
    FCGI_BEGIN_REQUEST => 1, FCGI_ABORT_REQUEST => 2, FCGI_END_REQUEST => 3,
    FCGI_PARAMS => 4, FCGI_STDIN => 5, FCGI_STDOUT => 6, FCGI_GET_VALUES => 9,
    FCGI_GET_VALUES_RESULT => 10, FCGI_UNKNOWN_TYPE => 11, FCGI_KEEP_CONN => 1,
};

my ($port, $seconds, $parent) = @ARGV;
die "usage: $0 PORT SECONDS [PARENT_PID]\n"
    unless defined $seconds && $port =~ /^\d+$/ && $seconds =~ /^\d+$/;

my $page = PiResponder::page('fcgi');
my $etag = PiResponder::etag('fcgi');

sub record {
    my ($type, $id, $content) = @_;
    my $pad = (8 - length($content) % 8) % 8;
    return pack('CCnnCC', 1, $type, $id, length $content, $pad, 0)
         . $content . ("\0" x $pad);
}

# FastCGI name-value pairs (lengths of 1 byte, or 4 with the top bit set).
sub params {
    my ($s) = @_;
    my ($p, %env) = (0);
    my $len = sub {
        my $b = ord substr($s, $p, 1);
        if ($b & 0x80) {
            my $n = unpack('N', substr($s, $p, 4)) & 0x7fffffff;
            $p += 4;
            return $n;
        }
        $p += 1;
        return $b;
    };
    while ($p < length $s) {
        my $nl = $len->();
        my $vl = $len->();
        my $name = substr($s, $p, $nl);
        $env{$name} = substr($s, $p + $nl, $vl);
        $p += $nl + $vl;
    }
    return \%env;
}

sub respond {
    my ($st, $id, $req) = @_;
    my $env = params($req->{params});
    my $ae  = $env->{HTTP_ACCEPT_ENCODING} // '(none)';
    my $inm = $env->{HTTP_IF_NONE_MATCH} // '(none)';
    $st->{n}++;
    PiResponder::note('conn=%d req=%d %s %s ae=[%s] inm=[%s] keep=%d',
                      $st->{id}, $st->{n}, $env->{REQUEST_METHOD} // '-',
                      $env->{REQUEST_URI} // '-', $ae, $inm, $req->{keep});
    my $out = "Content-Type: text/html; charset=utf-8\r\n"
            . "Content-Length: " . length($page) . "\r\n"
            . "ETag: $etag\r\n"
            . "X-Backend: fcgi\r\n"
            . "X-Seen-AE: $ae\r\n"
            . "X-Seen-INM: $inm\r\n"
            . "X-Conn: $st->{id}/$st->{n}\r\n"
            . "\r\n";
    my $method = $env->{REQUEST_METHOD} // '';
    $out .= $page if $method ne 'HEAD'
                     || ($env->{QUERY_STRING} // '') =~ /headbody/;
    my $rec = '';
    for (my $off = 0; $off < length $out; $off += 1024) {  # several records
        $rec .= record(FCGI_STDOUT, $id, substr($out, $off, 1024));
    }
    $rec .= record(FCGI_STDOUT, $id, '');
    $rec .= record(FCGI_END_REQUEST, $id, pack('NCx3', 0, 0));
    $st->{close} = 1 unless $req->{keep};
    return $rec;
}

sub handler {
    my ($st) = @_;
    my $out = '';
    while (length $st->{in} >= 8) {
        my ($ver, $type, $id, $clen, $plen) = unpack 'CCnnC', $st->{in};
        if ($ver != 1) {
            PiResponder::note('conn=%d: not FastCGI (version %d)',
                              $st->{id}, $ver);
            $st->{close} = 1;
            last;
        }
        last if length $st->{in} < 8 + $clen + $plen;
        my $content = substr($st->{in}, 8, $clen);
        substr($st->{in}, 0, 8 + $clen + $plen) = '';
        my $req = $st->{req}{$id};
        if ($type == FCGI_BEGIN_REQUEST) {
            my ($role, $flags) = unpack 'nC', $content;
            $st->{req}{$id} = { keep => $flags & FCGI_KEEP_CONN ? 1 : 0,
                                params => '' };
        }
        elsif ($type == FCGI_PARAMS && $req) {
            $req->{params} .= $content;
        }
        elsif ($type == FCGI_STDIN && $req) {
            next if $clen > 0;              # a request body: not used
            $out .= respond($st, $id, $req);
            delete $st->{req}{$id};
        }
        elsif ($type == FCGI_ABORT_REQUEST) {
            $out .= record(FCGI_END_REQUEST, $id, pack('NCx3', 0, 0)) if $req;
            delete $st->{req}{$id};
        }
        elsif ($type == FCGI_GET_VALUES) {
            $out .= record(FCGI_GET_VALUES_RESULT, 0, '');
        }
        elsif ($type != FCGI_PARAMS && $type != FCGI_STDIN) {
            $out .= record(FCGI_UNKNOWN_TYPE, 0, pack('Cx7', $type));
        }
    }
    return $out;
}

exit PiResponder::serve(port => $port, seconds => $seconds,
                        parent => $parent, handler => \&handler);
