# Streaming: server-sent events arrive event by event through the balancer,
# gzipped (each decodable before the node sends the next); a node that dies mid-body gives a truncated response that is not
# a complete gzip stream, and the server goes on.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(time);
use lib 't/lib';
use PiOffloadTest qw(master_get gunzip_all raw_get dechunk split_head
                    decoded_by_time);

plan tests => 12, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'perl', 'pibalance';

# ---- SSE: 5 events, in lockstep: the node sends event i+1 only once the
# client has decoded event i (t/lib/PiOffload.pm), so every check below
# holds on any machine, however slow; a master that held events back
# would stall the node (10 s an event) and fail them.
my $sse_dir = Apache::Test::config()->{vars}{serverroot} . '/tmp/sse';
make_path($sse_dir);
my $id = "s$$";
unlink glob "$sse_dir/$id-*";
my ($head, $rest, $text, %first) = ('', '', '');
{
    Apache::TestRequest::module('offload_master');
    my ($port) = Apache::TestRequest::hostport() =~ /:(\d+)$/;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                  Timeout => 10) or die "connect: $!";
    print $s "GET /stream/sse?id=$id HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           . "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n";
    my ($t0, @reads) = (time);
    my $sel = IO::Select->new($s);
    while (time - $t0 < 40 && $sel->can_read(40 - (time - $t0))) {
        my $n = sysread($s, my $chunk, 65536);
        last unless $n;
        push @reads, [time - $t0, $chunk];
        my @dec = decoded_by_time(@reads);
        $text = @dec ? $dec[-1][1] : '';
        my $events = () = $text =~ /data: event \d/g;
        for my $i (1 .. $events) {
            next if exists $first{$i};
            $first{$i} = $events;      # how many were decodable with it
            open my $fh, '>', "$sse_dir/$id-$i" or die "$sse_dir: $!";
            close $fh;
        }
    }
    ($head, $rest) = split_head(@reads);
}
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'SSE: gzip');
ok t_cmp($head, qr/Transfer-Encoding: chunked/i, 'SSE: chunked');
ok t_cmp(join(' ', map { $first{$_} // '-' } 1 .. 5), '1 2 3 4 5',
         'each of the 5 events decoded before the next was sent');
ok t_cmp(scalar(grep { -e "$sse_dir/$id-$_" } 1 .. 5), 5,
         'the client acknowledged every event');
ok t_cmp($text =~ /data: event 5/ ? 1 : 0, 1, 'all events arrived');
my ($complete) = gunzip_all(dechunk($rest));
ok t_cmp($complete, 1, 'SSE: the stream ends complete');
unlink glob "$sse_dir/$id-*";

# ---- a node that dies mid-body ---------------------------------------------
my @reads = raw_get('/dies', 30);
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
