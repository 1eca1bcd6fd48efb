# Offload and HTTP caches (issue 15 items 8-11): a 304 answering the
# -gzip tag always carries it; a 304 for a type never compressed gets no
# Vary; the node's digests of the identity bytes never reach a client on
# a gzip body; a range is never cut from a compressed body.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiOffloadTest qw(master_get master_head gunzip_all htdocs);

plan tests => 40, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'headers', 'setenvif', 'pibalance';

my $dir = htdocs();
my $page = do { local $/; open my $fh, '<', "$dir/page.html" or die; <$fh> };
# Written an hour back: httpd makes the ETag of a file changed within the
# last second weak, and If-Range never matches a weak tag.
sub put {
    open my $fh, '>', "$dir/$_[0]" or die; print $fh $_[1]; close $fh;
    utime time - 3600, time - 3600, "$dir/$_[0]";
}
put('image.png', $page);
put('photo', $page);                       # no extension: image/jpeg
put('digest.html', $page);
put('norange.html', $page);

my $gz = ['Accept-Encoding' => 'gzip'];
sub ce   { $_[0]->header('Content-Encoding') // 'none' }
sub vary { $_[0]->header('Vary') // 'none' }
sub hdr  { $_[0]->header($_[1]) // 'absent' }

# ---- item 9: a 304 for the -gzip tag always carries the -gzip tag ---------
my $res = master_get('/page.html', @$gz);
my $etag = $res->header('ETag');
(my $plain = $etag) =~ s/-gzip"$/"/;
ok t_cmp($etag, qr/-gzip"$/, "gzip copy: $etag");
$res = master_get('/page.html', @$gz, 'If-None-Match' => $etag,
                  'X-Test-No-Gzip' => 1);
ok t_cmp($res->code, 304, 'no-gzip, If-None-Match with the -gzip tag: 304');
ok t_cmp(hdr($res, 'ETag'), $etag, 'no-gzip: the 304 carries the -gzip tag');
ok t_cmp(vary($res), qr/Accept-Encoding/, 'no-gzip: the 304 has Vary');
$res = master_get('/page.html', 'If-None-Match' => $etag);
ok t_cmp($res->code, 304, 'no Accept-Encoding, the -gzip tag: 304');
ok t_cmp(hdr($res, 'ETag'), $etag,
         'no Accept-Encoding: the 304 carries the -gzip tag');
$res = master_get('/page.html', 'Accept-Encoding' => 'gzip;q=0',
                  'If-None-Match' => $etag);
ok t_cmp(hdr($res, 'ETag'), $etag, 'gzip;q=0: the 304 carries the -gzip tag');
# a cache holding both copies sends both tags: the 304 names the copy
# this request would get
$res = master_get('/page.html', @$gz, 'If-None-Match' => "$plain, $etag");
ok t_cmp($res->code . ' ' . hdr($res, 'ETag'), "304 $etag",
         'both tags, gzip client: the gzip copy');
$res = master_get('/page.html', 'If-None-Match' => "$etag, $plain");
ok t_cmp($res->code . ' ' . hdr($res, 'ETag'), "304 $plain",
         'both tags, identity client: the identity copy');
$res = master_get('/page.html', @$gz, 'If-None-Match' => $plain);
ok t_cmp($res->code . ' ' . hdr($res, 'ETag'), "304 $plain",
         'plain tag only: the identity copy is fresh, plain tag');

# ---- item 11: no Vary on a 304 for a type that is never compressed --------
$res = master_get('/image.png', @$gz);
my $itag = $res->header('ETag');
ok t_cmp(ce($res) . ' ' . vary($res), 'none none', 'image: 200 identity, no Vary');
$res = master_get('/image.png', @$gz, 'If-None-Match' => $itag);
ok t_cmp($res->code, 304, 'image: 304');
ok t_cmp(vary($res), 'none', 'image: the 304 has no Vary');
ok t_cmp(hdr($res, 'ETag'), $itag, 'image: the 304 keeps its ETag');
$res = master_get('/photo', @$gz);
my $ptag = $res->header('ETag');
ok t_cmp(($res->header('Content-Type') // '') . ' ' . vary($res),
         'image/jpeg none', 'extensionless image: 200, no Vary');
$res = master_get('/photo', @$gz, 'If-None-Match' => $ptag);
ok t_cmp($res->code . ' ' . vary($res), '304 none',
         'extensionless image: the 304 has no Vary');
$res = master_get('/page.html', @$gz, 'If-None-Match' => $plain);
ok t_cmp(vary($res), qr/Accept-Encoding/, 'page: the 304 has Vary');
$res = master_get('/style.css', @$gz);
my $ctag = $res->header('ETag');
$res = master_get('/style.css', @$gz, 'If-None-Match' => $ctag);
ok t_cmp($res->code . ' ' . vary($res), qr/^304 .*Accept-Encoding/,
         'css: the 304 has Vary');

# ---- item 10: digests of the identity bytes ------------------------------
$res = master_get('/digest.html', @$gz);
ok t_cmp(ce($res), 'gzip', 'digest page: gzip');
for my $h (qw(Content-Digest Repr-Digest Digest)) {
    ok t_cmp(hdr($res, $h), 'absent', "gzip body: no $h of the identity bytes");
}
ok t_cmp(hdr($res, 'Want-Repr-Digest'), 'sha-256=1',
         'other headers untouched');
$res = master_head('/digest.html', @$gz);
ok t_cmp(ce($res) . ' ' . hdr($res, 'Repr-Digest') . ' '
         . hdr($res, 'Content-Digest'), 'gzip absent absent',
         'HEAD gzip: no digests');
$res = master_get('/digest.html');
ok t_cmp(hdr($res, 'Content-Digest') . ' ' . hdr($res, 'Repr-Digest') . ' '
         . hdr($res, 'Digest'), 'sha-256=:AAAA: sha-256=:BBBB: SHA-256=CCCC',
         'identity body: the node digests kept');

# ---- item 8: no range of a compressed body --------------------------------
# the node honours Range: its 206 of identity bytes passes untouched
$res = master_get('/page.html', @$gz, Range => 'bytes=100-199');
ok t_cmp($res->code . ' ' . ce($res), '206 none', 'node 206: identity range');
ok t_cmp($res->content eq substr($page, 100, 100), 1, 'node 206: its bytes');
# the node ignores Range: the master never cuts the gzip body
$res = master_get('/norange.html', @$gz, Range => 'bytes=0-99');
ok t_cmp($res->code . ' ' . ce($res), '200 gzip',
         'node ignores Range: a whole gzip body, not a 206 of it');
my ($complete, $body) = gunzip_all($res->content);
ok t_cmp($complete && $body eq $page, 1, 'the whole page');
ok t_cmp(hdr($res, 'Accept-Ranges'), 'none', 'gzip body: Accept-Ranges none');
ok t_cmp(hdr($res, 'Content-Range'), 'absent', 'no Content-Range');
$res = master_get('/norange.html', @$gz);
my $ntag = $res->header('ETag');
ok t_cmp(hdr($res, 'Accept-Ranges'), 'none', 'plain GET: Accept-Ranges none');
# resuming a gzip copy: If-Range with the -gzip tag never matches the
# node's identity bytes: the whole body again
$res = master_get('/page.html', @$gz, Range => 'bytes=100-',
                  'If-Range' => $etag);
ok t_cmp($res->code . ' ' . ce($res), '200 gzip',
         'If-Range with the -gzip tag: whole gzip body');
($complete, $body) = gunzip_all($res->content);
ok t_cmp($complete && $body eq $page, 1, 'If-Range -gzip: the whole page');
ok t_cmp(hdr($res, 'X-Upstream-IR'), $etag,
         'If-Range reaches the node with the suffix (it must not match)');
$res = master_get('/norange.html', @$gz, Range => 'bytes=100-',
                  'If-Range' => $ntag);
ok t_cmp($res->code . ' ' . ce($res), '200 gzip',
         'node ignores Range, If-Range -gzip: whole gzip body');
# If-Range with a date cannot say which coding the client holds
my $lm = master_get('/page.html', @$gz)->header('Last-Modified');
$res = master_get('/page.html', @$gz, Range => 'bytes=100-',
                  'If-Range' => $lm);
ok t_cmp($res->code . ' ' . ce($res), '200 gzip',
         'If-Range with a date, gzip client: whole gzip body');
ok t_cmp(hdr($res, 'X-Upstream-Range') . ' ' . hdr($res, 'X-Upstream-IR'),
         ' ', 'If-Range with a date: no Range, no If-Range upstream');
$res = master_get('/page.html', Range => 'bytes=100-199', 'If-Range' => $lm);
ok t_cmp($res->code . ' ' . ce($res), '206 none',
         'If-Range with a date, identity client: the node range');
$res = master_get('/image.png', @$gz, Range => 'bytes=100-199',
                  'If-Range' => $itag);
ok t_cmp($res->code, 206, 'image, If-Range with its tag: 206');
