# zstd and brotli offload (issue 19): the coding follows the client's
# q-values and the server's order; each coding's body decodes to the
# node's bytes (zstd and brotli command-line tools, build/setup-deps.sh);
# ETag suffix per coding, removed upstream and restored on 304; Vary;
# HEAD; no-transform; q=0; already-encoded bodies; streams with flushes.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Temp qw(tempfile);
use lib 't/lib';
use PiOffloadTest qw(gunzip_all htdocs log_wait);
use PiTest qw(status_json);

plan tests => 75, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'headers', 'setenvif', 'perl', 'pibalance', 'pistats';

my $dir = htdocs();
my $page = do { local $/; open my $fh, '<', "$dir/page.html" or die; <$fh> };
sub put {
    open my $fh, '>', "$dir/$_[0]" or die; print $fh $_[1]; close $fh;
    utime time - 3600, time - 3600, "$dir/$_[0]";
}
put('notransform.html', $page);
put('brotli.html', $page);

sub get  { Apache::TestRequest::module('codings_master');
           Apache::TestRequest::GET(@_) }
sub head { Apache::TestRequest::module('codings_master');
           Apache::TestRequest::HEAD(@_) }
sub ce   { $_[0]->header('Content-Encoding') // 'none' }
sub hdr  { $_[0]->header($_[1]) // 'absent' }

# Decodes $data with `zstd -d` or `brotli -d`; undef when it does not
# decode (a truncated or corrupt stream).
sub decode {
    my ($coding, $data) = @_;
    return (gunzip_all($data))[0] ? (gunzip_all($data))[1] : undef
        if $coding eq 'gzip';
    my ($fh, $name) = tempfile(UNLINK => 1);
    binmode $fh;
    print $fh $data;
    close $fh;
    my $tool = $coding eq 'zstd' ? 'zstd -q -d -c' : 'brotli -d -c';
    my $out = `$tool < $name 2>/dev/null`;
    return $? == 0 ? $out : undef;
}

my $all = 'gzip, deflate, br, zstd';

# ---- each coding: body, headers, ETag, revalidation ----------------------
for my $case (['zstd', $all], ['br', 'gzip, deflate, br']) {
    my ($coding, $ae) = @$case;
    my $res = get('/page.html', 'Accept-Encoding' => $ae);
    ok t_cmp(ce($res), $coding, "$ae: $coding");
    my $body = decode($coding, $res->content);
    ok t_cmp(defined $body && $body eq $page, 1,
             "$coding: the body decodes to the node's bytes");
    ok t_cmp(length($res->content) < length($page) / 2, 1,
             "$coding: it compresses (" . length($res->content) . ' of '
             . length($page) . ')');
    ok t_cmp(hdr($res, 'Vary'), qr/Accept-Encoding/, "$coding: Vary");
    ok t_cmp(hdr($res, 'X-Upstream-AE'), qr/^(absent|)$/,
             "$coding: the node received no Accept-Encoding");
    ok t_cmp(hdr($res, 'Content-Length'), length($res->content),
             "$coding: one pass, with its length");
    my $etag = hdr($res, 'ETag');
    ok t_cmp($etag, qr/^"[^"]+-\Q$coding\E"$/, "$coding: ETag $etag");
    (my $plain = $etag) =~ s/-\Q$coding\E"$/"/;

    $res = head('/page.html', 'Accept-Encoding' => $ae);
    ok t_cmp(ce($res) . ' ' . hdr($res, 'ETag'), "$coding $etag",
             "$coding: HEAD carries the coding and the same ETag");
    ok t_cmp(hdr($res, 'Vary'), qr/Accept-Encoding/, "$coding: HEAD Vary");
    ok t_cmp(length($res->content), 0, "$coding: HEAD has no body");

    $res = get('/page.html', 'Accept-Encoding' => $ae,
               'If-None-Match' => $etag);
    ok t_cmp($res->code, 304, "$coding: If-None-Match $etag: 304");
    ok t_cmp(hdr($res, 'X-Upstream-INM'), $plain,
             "$coding: the node got the tag without -$coding");
    ok t_cmp(hdr($res, 'ETag'), $etag, "$coding: the 304 restores -$coding");
    # a client that now prefers another coding still revalidates its copy
    $res = get('/page.html', 'Accept-Encoding' => 'gzip',
               'If-None-Match' => $etag);
    ok t_cmp($res->code . ' ' . hdr($res, 'ETag'), "304 $etag",
             "$coding: gzip client holding the $coding copy: its tag");
    $res = get('/page.html', 'Accept-Encoding' => $ae, 'If-Match' => $etag);
    ok t_cmp($res->code, 200, "$coding: If-Match $etag: 200");
    ok t_cmp(hdr($res, 'X-Upstream-IM'), $plain,
             "$coding: If-Match goes upstream without -$coding");
    $res = get('/page.html', 'Accept-Encoding' => $ae,
               'If-Match' => '"other"');
    ok t_cmp($res->code, 412, "$coding: If-Match another tag: 412");
}

# ---- q-values and the server's order --------------------------------------
my @q = (
    ['zstd;q=0, br;q=0, gzip', 'gzip'],
    ['zstd;q=0, *', 'br'],
    ['zstd;q=0.5, br;q=0.9, gzip', 'gzip'],
    ['br;q=0.5, zstd;q=0.4', 'br'],
    ['zstd, br, gzip;q=0', 'zstd'],
    ['*;q=0', 'none'],
    ['zstd;q=0.3, identity;q=0.5', 'none'],
    ['identity', 'none'],
);
for my $case (@q) {
    my ($ae, $want) = @$case;
    my $res = get('/page.html', 'Accept-Encoding' => $ae);
    ok t_cmp(ce($res), $want, "Accept-Encoding: $ae");
    my $body = $want eq 'none' ? $res->content
                               : decode($want, $res->content);
    ok t_cmp(defined $body && $body eq $page, 1, "$ae: body intact");
}
my $res = get('/page.html');
ok t_cmp(ce($res) . ' ' . hdr($res, 'Vary'), qr/^none .*Accept-Encoding/,
         'no Accept-Encoding: identity, with Vary');
# ties go to the server's order: gzip first at /gzfirst/
$res = get('/gzfirst/page.html', 'Accept-Encoding' => 'zstd, br, gzip');
ok t_cmp(ce($res), 'gzip', 'gzip first on offer: the tie goes to gzip');
$res = get('/gzfirst/page.html', 'Accept-Encoding' => 'zstd, br');
ok t_cmp(ce($res), 'br', 'gzip first, client without gzip: br');
ok t_cmp(decode('br', $res->content), $page, 'br=11 decodes');
$res = get('/gzfirst/page.html', 'Accept-Encoding' => 'zstd');
ok t_cmp(decode('zstd', $res->content), $page, 'zstd=19 decodes');

# ---- untouched: no-transform, already encoded, no-gzip --------------------
$res = get('/notransform.html', 'Accept-Encoding' => $all);
ok t_cmp(ce($res), 'none', 'no-transform: identity');
ok t_cmp($res->content, $page, 'no-transform: the node\'s bytes');
$res = get('/brotli.html', 'Accept-Encoding' => $all);
ok t_cmp(ce($res), 'br', 'already encoded by the node: its coding');
ok t_cmp($res->content, $page, 'already encoded: bytes untouched');
ok t_cmp(hdr($res, 'ETag') =~ /-br"$/ ? 'suffixed' : 'node\'s own', 'node\'s own',
         'already encoded: no suffix of ours');
$res = get('/page.html', 'Accept-Encoding' => $all, 'X-Test-No-Gzip' => 1);
ok t_cmp(ce($res), 'none', 'no-gzip: no coding at all');

# ---- streams: flushes make each part decodable ----------------------------
my $log = Apache::Test::config()->{vars}{serverroot} . '/logs/codings_log';
for my $coding ('zstd', 'br') {
    my $ae = $coding eq 'zstd' ? $all : 'br';
    my $from = -s $log // 0;
    $res = get('/stream/page.html', 'Accept-Encoding' => $ae);
    my @l = grep { m{^/stream/page\.html } }
            log_wait($log, $from, [qr{^/stream/page\.html }]);
    ok t_cmp(ce($res) . ' ' . ($l[0] // ''), qr/^$coding .*codec=$coding$/,
             "$coding streamed (PiBalanceDeflateBuffer 0): its stream row");
    ok t_cmp(decode($coding, $res->content), $page,
             "$coding streamed: decodes");
    $res = get('/stream/sse', 'Accept-Encoding' => $ae);
    my $want = join '', map { "data: event $_ " . ('x' x 40) . "\n\n" } 1 .. 5;
    ok t_cmp(decode($coding, $res->content), $want,
             "$coding: server-sent events, flushed, decode");
}

# ---- /pi-status counts responses and bytes per coding ----------------------
sub codings { status_json('pimaster')->{server}{deflate_counts}{codings} }
for my $coding ('zstd', 'br') {
    my $before = codings()->{$coding};
    $res = get('/page.html', 'Accept-Encoding' => $coding);
    my $after = codings()->{$coding};
    ok t_cmp($after->{responses} - $before->{responses}, 1,
             "$coding: one more response counted");
    ok t_cmp($after->{bytes_in} - $before->{bytes_in}, length($page),
             "$coding: its bytes in");
    ok t_cmp($after->{bytes_out} - $before->{bytes_out},
             length($res->content), "$coding: its bytes out");
}
my $c = codings();
Apache::TestRequest::module('pimaster');
my $auto = Apache::TestRequest::GET_BODY('/pi-status?auto');
ok t_cmp($auto, qr/^DeflateZstdResponses: $c->{zstd}{responses}\nDeflateZstdBytesIn: $c->{zstd}{bytes_in}\nDeflateZstdBytesOut: $c->{zstd}{bytes_out}$/m,
         '?auto: the zstd counts');
my $prom = Apache::TestRequest::GET_BODY('/pi-status?prometheus');
ok t_cmp($prom, qr/^pistats_deflate_coding_responses_total\{coding="br"\} $c->{br}{responses}$/m,
         '?prometheus: the br count');
