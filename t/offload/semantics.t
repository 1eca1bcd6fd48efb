# HTTP details of the offload: Vary, ETag, If-None-Match/If-Match, 304,
# HEAD, every skip rule, q-values and several Accept-Encoding lines, what
# the node and the master's own filters and logs see.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiOffloadTest qw(master_get master_head gunzip_all htdocs log_wait);

plan tests => 70, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'headers', 'pibalance';

my $dir = htdocs();
my $page = do { local $/; open my $fh, '<', "$dir/page.html" or die; <$fh> };
sub put { open my $fh, '>', "$dir/$_[0]" or die; print $fh $_[1]; close $fh }
put('small.html', '<p>' . ('s' x 90) . '</p>');           # under 256
put('notransform.html', $page);
put('brotli.html', $page);                                # node says br
put('weak.html', $page);
put('image.png', $page);

my $gz = ['Accept-Encoding' => 'gzip'];
sub ce   { $_[0]->header('Content-Encoding') // 'none' }
sub vary { $_[0]->header('Vary') // 'none' }

# ---- GET: gzip, Vary, suffixed strong ETag; node and master views --------
my $res = master_get('/page.html', @$gz);
ok t_cmp(ce($res), 'gzip', 'GET: gzip');
ok t_cmp(vary($res), qr/Accept-Encoding/, 'GET: Vary');
my $etag = $res->header('ETag');
ok t_cmp($etag, qr/^"[^"]+-gzip"$/, "GET: strong ETag suffixed ($etag)");
ok t_cmp($res->header('X-Upstream-AE'), '', 'node saw no Accept-Encoding');
ok t_cmp($res->header('X-Client-AE'), 'gzip',
         "the master's own filters still see the client's header");
my ($complete, $body) = gunzip_all($res->content);
ok t_cmp($complete && $body eq $page, 1, 'GET: gunzips to the page');
(my $plain = $etag) =~ s/-gzip"$/"/;

# ---- identity client: Vary too, plain ETag ------------------------------
$res = master_get('/page.html');
ok t_cmp(ce($res), 'none', 'no Accept-Encoding: identity');
ok t_cmp(vary($res), qr/Accept-Encoding/, 'identity: Vary all the same');
ok t_cmp($res->header('ETag'), $plain, 'identity: ETag unchanged');
ok t_cmp($res->content eq $page, 1, 'identity: the page');

# ---- HEAD carries what GET would, without a length ----------------------
$res = master_head('/page.html', @$gz);
ok t_cmp(ce($res), 'gzip', 'HEAD: Content-Encoding gzip');
ok t_cmp(vary($res), qr/Accept-Encoding/, 'HEAD: Vary');
ok t_cmp($res->header('ETag'), $etag, 'HEAD: the same suffixed ETag');
ok t_cmp($res->header('Content-Length') // 'absent', 'absent',
         'HEAD: no Content-Length (compressed length unknown)');
$res = master_head('/page.html');
ok t_cmp(ce($res), 'none', 'HEAD identity: no Content-Encoding');
ok t_cmp(vary($res), qr/Accept-Encoding/, 'HEAD identity: Vary');
ok t_cmp($res->header('Content-Length'), length $page,
         'HEAD identity: the length');

# ---- revalidation: our ETag goes back upstream without -gzip -> 304 -----
$res = master_get('/page.html', @$gz, 'If-None-Match' => $etag);
ok t_cmp($res->code, 304, 'If-None-Match with the gzip ETag: 304');
ok t_cmp($res->header('X-Upstream-INM'), $plain, 'node got it unsuffixed');
ok t_cmp($res->header('ETag'), $etag, '304: suffixed ETag');
ok t_cmp(vary($res), qr/Accept-Encoding/, '304: Vary');
$res = master_get('/page.html', @$gz, 'If-None-Match' => "\"x\", $etag");
ok t_cmp($res->code, 304, 'a list with the gzip ETag: 304');
$res = master_get('/page.html', @$gz, 'If-None-Match' => '"other-gzip"');
ok t_cmp($res->code, 200, 'another ETag: 200');
$res = master_get('/page.html', @$gz, 'If-Match' => $etag);
ok t_cmp($res->code, 200, 'If-Match with the gzip ETag: 200');
ok t_cmp($res->header('X-Upstream-IM'), $plain, 'If-Match unsuffixed');
$res = master_get('/page.html', @$gz, 'If-Match' => '"nope-gzip"');
ok t_cmp($res->code, 412, 'If-Match with another ETag: 412');

# ---- weak ETag untouched -------------------------------------------------
$res = master_get('/weak.html', @$gz);
ok t_cmp(ce($res), 'gzip', 'weak ETag page: gzip');
ok t_cmp($res->header('ETag'), 'W/"weak-1"', 'weak ETag unchanged');

# ---- skip rules ------------------------------------------------------------
$res = master_get('/small.html', @$gz);
ok t_cmp(ce($res), 'none', 'under PiBalanceDeflateMinLength: identity');
ok t_cmp(vary($res), 'none', 'too small: no Vary');
$res = master_get('/notransform.html', @$gz);
ok t_cmp(ce($res), 'none', 'Cache-Control: no-transform: identity');
ok t_cmp($res->content eq $page, 1, 'no-transform: the bytes as sent');
$res = master_get('/brotli.html', @$gz);
ok t_cmp(ce($res), 'br', 'already encoded: passed through');
ok t_cmp($res->content eq $page, 1, 'already encoded: untouched bytes');
$res = master_get('/image.png', @$gz);
ok t_cmp(ce($res), 'none', 'image/png: not in the types');
$res = master_get('/page.html', @$gz, Range => 'bytes=0-999');
ok t_cmp($res->code, 206, 'Range: 206 from the node');
ok t_cmp(ce($res), 'none', '206: identity');
ok t_cmp($res->content eq substr($page, 0, 1000), 1, '206: the range');
$res = master_get('/lvl9/page.html', @$gz);
ok t_cmp(ce($res), 'none', 'PiBalanceDeflateTypes text/css: html skipped');
$res = master_get('/lvl9/style.css', @$gz);
($complete, $body) = gunzip_all($res->content);
ok t_cmp(ce($res) eq 'gzip' && $complete, 1,
         'level 9, window 10, memlevel 2, streamed: complete gzip');
my $lvl9_len = length $res->content;
$res = master_get('/nooffload/page.html', @$gz);
ok t_cmp($res->header('X-Upstream-AE'), 'gzip',
         'PiBalanceDeflate Off in <Location>: node sees the header');
ok t_cmp(ce($res), 'none', 'Off: the master does not compress');

# ---- q-values and several Accept-Encoding lines ----------------------------
my @cases = (
    [['gzip;q=0'], 'none'], [['GZIP'], 'gzip'], [['x-gzip'], 'gzip'],
    [['*'], 'gzip'], [['br, *;q=0'], 'none'], [['identity;q=0, *'], 'gzip'],
    [['gzip;q=0.5, identity;q=0.4'], 'gzip'],
    [['br', 'gzip'], 'gzip'], [['br', 'deflate'], 'none'],
    [['gzip;q=0', 'br', '*'], 'none'], [[' ;;, garbage=,'], 'none'],
    # an identity the client did not list never outranks a listed gzip
    # with q > 0; "*" gives an unlisted identity its q (issue 15 item 7)
    [['br, gzip;q=0.8'], 'gzip'], [['gzip;q=0.8, *;q=0.1'], 'gzip'],
    [['gzip;q=0.5'], 'gzip'], [['gzip;q=0.001'], 'gzip'],
    [['br, *;q=0.1'], 'gzip'], [['gzip;q=0.1, *;q=0.8'], 'none'],
    [['gzip;q=0.5, identity;q=0.6'], 'none'], [['*;q=0.2, br'], 'gzip'],
    [['gzip;q=0.3', 'identity;q=0.3'], 'gzip'],
);
for my $c (@cases) {
    my ($lines, $want) = @$c;
    $res = master_get('/page.html', map { ('Accept-Encoding' => $_) } @$lines);
    ok t_cmp(ce($res), $want, 'Accept-Encoding: ' . join(' | ', @$lines));
}

# ---- PiBalanceDeflate in <Proxy> only --------------------------------------
Apache::TestRequest::module('offload_proxy');
$res = GET('/on/page.html', @$gz);
ok t_cmp(ce($res) . ' ' . $res->header('X-Upstream-AE'), 'gzip ',
         '<Proxy> On: gzip, node saw no Accept-Encoding');
$res = GET('/off/page.html', @$gz);
ok t_cmp(ce($res) . ' ' . $res->header('X-Upstream-AE'), 'none gzip',
         'other balancer: untouched, node saw the header');

# ---- the access log sees the client's header and our notes ---------------
my $log = Apache::Test::config()->{vars}{serverroot} . '/logs/offload_log';
my @lines = log_wait($log, 0, [qr{^/page\.html ae=\[gzip\] in=\d},
                               qr{^/lvl9/style\.css ae=\[gzip\]}]);
my ($l) = reverse grep { m{^/page\.html ae=\[gzip\] in=\d} } @lines;
ok t_cmp(defined $l ? 1 : 0, 1, 'log line has the client Accept-Encoding');
my ($in, $out, $ratio) = ($l // '') =~ /in=(\d+) out=(\d+) ratio=(\d+)/;
ok t_cmp($in // 0, length $page, 'note pibalance-deflate-in');
ok t_cmp(($out // 0) > 0 && ($out // 0) < length $page, 1,
         "note pibalance-deflate-out ($out)");
ok t_cmp($ratio // -1, int($out * 100 / $in), 'note pibalance-deflate-ratio');
ok t_cmp($l // '', qr/codec=(?:igzip-)?oneshot$/,
         'whole page of known length: one pass (igzip at level 1 where '
         . 'built with ISA-L, else libdeflate)');
my ($s) = reverse grep { m{^/lvl9/style\.css ae=\[gzip\]} } @lines;
ok t_cmp($s // '', qr/codec=zlib/, 'PiBalanceDeflateBuffer 0: zlib streaming');
