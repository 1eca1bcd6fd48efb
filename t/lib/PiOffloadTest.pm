package PiOffloadTest;
# Helpers for t/offload/*.t: requests to the offloading master, gunzip.
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use Apache::TestRequest ();
use Compress::Raw::Zlib;
use Exporter 'import';
use IO::Select;
use IO::Socket::INET;
use Time::HiRes ();

our @EXPORT_OK = qw(master_get master_head gunzip_all htdocs raw_get
                    dechunk split_head decoded_by_time deflate_counts
                    log_wait);

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

# GET $path from the offloading master on a socket of its own, gzip
# accepted; returns [seconds since the request, bytes] for each read, for
# at most $limit seconds.
sub raw_get {
    my ($path, $limit) = @_;
    Apache::TestRequest::module('offload_master');
    my ($port) = Apache::TestRequest::hostport() =~ /:(\d+)$/;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                  Timeout => 5) or die "connect: $!";
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           . "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n";
    my ($t0, @reads) = (Time::HiRes::time());
    my $sel = IO::Select->new($s);
    while (Time::HiRes::time() - $t0 < $limit && $sel->can_read($limit)) {
        my $n = sysread($s, my $chunk, 65536);
        last unless $n;
        push @reads, [Time::HiRes::time() - $t0, $chunk];
    }
    return @reads;
}

# (head, body) of what raw_get read.
sub split_head {
    return split /\r\n\r\n/, join('', map { $_->[1] } @_), 2;
}

# De-chunks a chunked body (tolerates truncation).
sub dechunk {
    my ($raw) = @_;
    my $out = '';
    while ($raw =~ s/^([0-9a-fA-F]+)\r\n//) {
        my $n = hex $1;
        last if $n == 0;
        $out .= substr($raw, 0, $n, '');
        $raw =~ s/^\r\n//;
    }
    return $out;
}

# Feeds the reads of a chunked gzip response, in order, to one inflater:
# returns [seconds, all text decoded by then] for each read after the head.
sub decoded_by_time {
    my (@reads) = @_;
    my ($inf) = Compress::Raw::Zlib::Inflate->new(
        -WindowBits => WANT_GZIP, -ConsumeInput => 1);
    my ($acc, $text, $seen_head, @when) = ('', '', 0);
    for my $r (@reads) {
        $acc .= $r->[1];
        unless ($seen_head) {
            next unless $acc =~ s/^.*?\r\n\r\n//s;
            $seen_head = 1;
        }
        my $chunks = '';        # the whole chunks received so far
        while ($acc =~ /^([0-9a-fA-F]+)\r\n/
               && length($acc) >= length($1) + 4 + hex $1) {
            my $n = hex $1;
            $acc =~ s/^[0-9a-fA-F]+\r\n//;
            $chunks .= substr($acc, 0, $n, '');
            $acc =~ s/^\r\n//;
        }
        my $out = '';
        $inf->inflate($chunks, $out) if length $chunks;
        $text .= $out;
        push @when, [$r->[0], $text];
    }
    return @when;
}

# The offload counters on /pi-status?json (server-wide, all children:
# any vhost's page shows them); -1 for one that is missing.
sub deflate_counts {
    require PiTest;
    my $c = PiTest::status_json('pimaster')->{server}{deflate_counts} // {};
    return { map { $_ => $c->{$_} // -1 }
             qw(one_pass streamed trickled compressor_waits) };
}

# The lines of $file from byte $from on, once every regexp of @$res
# matches one of them (httpd writes an access-log line after the
# response), polled every 50 ms for at most 20 s; whatever is there then.
sub log_wait {
    my ($file, $from, $res) = @_;
    my $end = Time::HiRes::time() + 20;
    my @lines;
    while (1) {
        @lines = ();
        if (open my $fh, '<', $file) {
            seek $fh, $from // 0, 0;
            @lines = <$fh>;
        }
        my $all = 1;
        for my $re (@$res) {
            $all = 0, last unless grep { $_ =~ $re } @lines;
        }
        return @lines if $all || Time::HiRes::time() >= $end;
        Time::HiRes::sleep(0.05);
    }
}

sub htdocs {
    return Apache::Test::config()->{vars}{serverroot} . '/htdocs/offload';
}

1;
