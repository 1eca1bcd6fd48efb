# A node that pauses inside a body of known length, as every node on a
# real network does between packets: mod_proxy_http passes a FLUSH at each
# pause.  Short pauses leave the body held and compressed in one pass
# (libdeflate, Content-Length); a node pausing 250 ms or more is trickling
# it, and the client gets what came so far, streamed.  /pi-status counts
# both (mod_pistats shows mod_pibalance's offload counters).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use lib 't/lib';
use PiOffloadTest qw(gunzip_all raw_get dechunk split_head decoded_by_time
                    deflate_counts log_wait);
use PiPaced qw(paced_body);

plan tests => 16, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'perl', 'pibalance';

my $before = deflate_counts();
ok t_cmp($before->{one_pass} >= 0 ? 1 : 0, 1,
         '/pi-status?json has deflate_counts');

my $n = 160_000;
my $want = paced_body($n);
my $log = Apache::Test::config()->{vars}{serverroot} . '/logs/offload_log';

# The codec the access log names for $path (its last request).
sub codec_of {
    my ($path) = @_;
    # the log line is written after the response: wait for it
    my ($l) = reverse grep { index($_, "$path ") == 0 }
        log_wait($log, 0, [qr/^\Q$path\E /]);
    return ($l // '') =~ /codec=(\S+)/ ? $1 : 'none';
}

# ---- 4 pieces, 20 ms apart: one pass ---------------------------------------
my @reads = raw_get("/paced/$n/4/20", 10);
my ($head, $body) = split_head(@reads);
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'paused node: gzip');
ok t_cmp($head, qr/Content-Length: \d+/i,
         'paused node: Content-Length (one pass)');
my ($complete, $text) = gunzip_all($body // '');
ok t_cmp($complete && $text eq $want ? 1 : 0, 1,
         "paused node: gunzips to the node's $n bytes");
ok t_cmp(codec_of("/paced/$n/4/20"), qr/^(?:igzip-)?oneshot$/,
         'paused node: one pass (igzip or libdeflate)');

# ---- 4 pieces, 500 ms apart: streamed after the first pause ---------------
@reads = raw_get("/paced/$n/4/500", 10);
($head, $body) = split_head(@reads);
ok t_cmp($head, qr/Content-Encoding: gzip/i, 'trickling node: gzip');
ok t_cmp($head, qr/Transfer-Encoding: chunked/i, 'trickling node: chunked');
my @decoded = decoded_by_time(@reads);
my $last = @decoded ? $decoded[-1][0] : 0;
my ($early) = reverse grep { $_->[0] < $last - 0.4 } @decoded;
my $early_bytes = $early ? length $early->[1] : 0;
ok t_cmp($early_bytes >= 40_000 ? 1 : 0, 1,
         "trickling node: $early_bytes bytes decodable 0.4 s before the end");
ok t_cmp(substr($want, 0, $early_bytes) eq ($early ? $early->[1] : '') ? 1 : 0,
         1, 'trickling node: they are the start of the body');
($complete, $text) = gunzip_all(dechunk($body // ''));
ok t_cmp($complete && $text eq $want ? 1 : 0, 1,
         "trickling node: gunzips to the node's $n bytes");
ok t_cmp(codec_of("/paced/$n/4/500"), qr/^(?:igzip|zlib)$/,
         'trickling node: streamed (igzip or zlib)');

# ---- the counters: one more of each, in every format --------------------
my $after = deflate_counts();
ok t_cmp($after->{one_pass} - $before->{one_pass}, 1, 'one_pass: +1');
ok t_cmp($after->{streamed} - $before->{streamed}, 1, 'streamed: +1');
ok t_cmp($after->{trickled} - $before->{trickled}, 1, 'trickled: +1');
Apache::TestRequest::module('pimaster');
my $auto = Apache::TestRequest::GET_BODY('/pi-status?auto');
ok t_cmp($auto, qr/^DeflateOnePass: $after->{one_pass}\nDeflateStreamed: $after->{streamed}\nDeflateTrickled: $after->{trickled}\nDeflateCompressorWaits: \d+$/m,
         '?auto: the same counts');
my $prom = Apache::TestRequest::GET_BODY('/pi-status?prometheus');
ok t_cmp($prom, qr/^pistats_deflate_responses_total\{codec="libdeflate"\} $after->{one_pass}\npistats_deflate_responses_total\{codec="zlib"\} $after->{streamed}$/m,
         '?prometheus: the same counts');
