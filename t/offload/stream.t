# Streaming: server-sent events arrive event by event through the balancer,
# gzipped; a node that dies mid-body gives a truncated response that is not
# a complete gzip stream, and the server goes on.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiOffloadTest qw(master_get gunzip_all raw_get dechunk split_head
                    decoded_by_time);

plan tests => 12, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'perl', 'pibalance';

# ---- SSE: 5 events, 200 ms apart, each decodable on arrival ---------------
my @reads = raw_get('/stream/sse', 5);
my ($head, $rest) = split_head(@reads);
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'SSE: gzip');
ok t_cmp($head, qr/Transfer-Encoding: chunked/i, 'SSE: chunked');
# What was decodable at each read: the first read showing each event.
my @decoded = decoded_by_time(@reads);
my @when = map { [$_->[0], scalar(() = $_->[1] =~ /data: event \d/g)] }
    @decoded;
my $text = @decoded ? $decoded[-1][1] : '';
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
($head, $rest) = split_head(@reads);
ok t_cmp($head, qr/^HTTP\/1.1 200/, 'dying node: 200 went out');
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'dying node: gzip');
ok t_cmp($rest =~ /\r\n0\r\n\r\n$/ ? 'terminated' : 'truncated', 'truncated',
         'no last chunk: the response is truncated');
my ($done, $partial) = gunzip_all(dechunk($rest));
ok t_cmp($done, 0, 'not a complete gzip stream');
ok t_cmp(length $partial, 30000, 'what arrived decodes (30000 bytes)');
my $res = master_get('/page.html', 'Accept-Encoding' => 'gzip');
ok t_cmp($res->code, 200, 'the server goes on');
