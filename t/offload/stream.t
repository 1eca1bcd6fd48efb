# Streaming: server-sent events arrive event by event through the balancer,
# gzipped; a node that dies mid-body gives a truncated response that is not
# a complete gzip stream, and the server goes on.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use IO::Socket::INET;
use IO::Select;
use Time::HiRes qw(time);
use Compress::Raw::Zlib;
use lib 't/lib';
use PiOffloadTest qw(master_get gunzip_all);

plan tests => 12, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'perl', 'pibalance';

my $port = Apache::Test::vars('port') && do {
    Apache::TestRequest::module('offload_master');
    Apache::TestRequest::hostport() =~ /:(\d+)$/; $1;
};

# Sends a raw request; returns (head, [[time, bytes], ...]) read for at
# most $limit seconds.
sub raw_get {
    my ($path, $limit) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                  Timeout => 5) or die "connect: $!";
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           . "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n";
    my ($t0, $buf, @reads) = (time, '');
    my $sel = IO::Select->new($s);
    while (time - $t0 < $limit && $sel->can_read($limit)) {
        my $n = sysread($s, my $chunk, 65536);
        last unless $n;
        push @reads, [time - $t0, $chunk];
    }
    return @reads;
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

# ---- SSE: 5 events, 200 ms apart, each decodable on arrival ---------------
my @reads = raw_get('/stream/sse', 5);
my $all = join '', map { $_->[1] } @reads;
my ($head, $rest) = split /\r\n\r\n/, $all, 2;
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'SSE: gzip');
ok t_cmp($head, qr/Transfer-Encoding: chunked/i, 'SSE: chunked');
# Feed the reads in order to an inflater: count events seen per read.
my ($inf) = Compress::Raw::Zlib::Inflate->new(-WindowBits => WANT_GZIP,
                                               -ConsumeInput => 1);
my ($acc, $text, @when) = ('', '');
my $seen_head = 0;
for my $r (@reads) {
    $acc .= $r->[1];
    unless ($seen_head) {
        next unless $acc =~ s/^.*?\r\n\r\n//s;
        $seen_head = 1;
    }
    # decode whole chunks received so far
    my $chunks = '';
    while ($acc =~ /^([0-9a-fA-F]+)\r\n/ && length($acc) >= length($1) + 4
           + hex $1) {
        my $n = hex $1;
        $acc =~ s/^[0-9a-fA-F]+\r\n//;
        $chunks .= substr($acc, 0, $n, '');
        $acc =~ s/^\r\n//;
    }
    my $out = '';
    $inf->inflate($chunks, $out) if length $chunks;
    $text .= $out;
    my $events = () = $text =~ /data: event \d/g;
    push @when, [$r->[0], $events];
}
my %first;
for my $w (@when) { $first{$w->[1]} //= $w->[0] }
ok t_cmp(scalar(grep { exists $first{$_} } 1 .. 5), 5,
         'each of the 5 events decoded on its own arrival');
my @gaps = map { $first{$_ + 1} - $first{$_} } grep { $first{$_ + 1} } 1 .. 4;
ok t_cmp(scalar(grep { $_ > 0.12 } @gaps), 4,
         'events arrive ~200 ms apart: ' . join(' ', map { sprintf '%.2f', $_ }
                                                @gaps));
ok t_cmp($text =~ /data: event 5/ ? 1 : 0, 1, 'all events arrived');
my ($complete) = gunzip_all(dechunk($rest));
ok t_cmp($complete, 1, 'SSE: the stream ends complete');

# ---- a node that dies mid-body ---------------------------------------------
@reads = raw_get('/dies', 10);
$all = join '', map { $_->[1] } @reads;
($head, $rest) = split /\r\n\r\n/, $all, 2;
ok t_cmp($head, qr/^HTTP\/1.1 200/, 'dying node: 200 went out');
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'dying node: gzip');
ok t_cmp($rest =~ /\r\n0\r\n\r\n$/ ? 'terminated' : 'truncated', 'truncated',
         'no last chunk: the response is truncated');
my ($done, $partial) = gunzip_all(dechunk($rest));
ok t_cmp($done, 0, 'not a complete gzip stream');
ok t_cmp(length $partial, 30000, 'what arrived decodes (30000 bytes)');
my $res = master_get('/page.html', 'Accept-Encoding' => 'gzip');
ok t_cmp($res->code, 200, 'the server goes on');
