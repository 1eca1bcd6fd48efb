# Dictionaries (issue 30, RFC 9842) -- what holds for every client the
# master cannot or must not send dcz to: clients without dcz (curl's and
# Python's Accept-Encoding, none at all) see no dictionary header and
# the codings they always got (Vary names Available-Dictionary under a
# dictionary prefix); a client that offers dcz but names a
# dictionary the master does not hold (unknown, malformed, two values)
# gets the next coding on offer, never an error and never dcz; private,
# cookie-setting and no-transform responses likewise.  Each body decodes
# to the node's page, whose version changes on every request.  Then dcz
# itself: the master builds a dictionary for /dyn/ from the pages it
# sends, announces it (Link), serves it (Use-As-Dictionary, a lifetime,
# named by its SHA-256), and a request naming it gets dcz that decodes
# (40-byte header, zstd with the dictionary) to the node's latest page;
# not for cookie-setting, private or cross-site responses; a fresh script
# names itself its next version's dictionary, and the next version comes
# as a delta against it.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use File::Temp qw(tempfile);
use lib 't/lib';
use PiOffloadTest qw(gunzip_all);
use PiDict ();
use Digest::SHA ();
use MIME::Base64 ();

plan tests => 3 + 5 * 4 + 4 * 4 + 3 * 3 + 5 + 6 + 2 + 2 + 3, need_module 'proxy', 'proxy_http',
    'proxy_balancer', 'perl', 'pibalance';

my $vars = Apache::Test::vars();
make_path("$vars->{serverroot}/tmp/dict/node");
chmod 0777, "$vars->{serverroot}/tmp/dict", "$vars->{serverroot}/tmp/dict/node";

sub get { Apache::TestRequest::module('dict_master');
          Apache::TestRequest::GET(@_) }
sub ce  { $_[0]->header('Content-Encoding') // 'none' }

# The body decoded (gzip, zstd, none); undef when it does not decode.
sub decode {
    my ($res) = @_;
    my ($coding, $data) = (ce($res), $res->content);
    return $data if $coding eq 'none';
    if ($coding eq 'gzip') {
        my ($ok, $out) = gunzip_all($data);
        return $ok ? $out : undef;
    }
    return undef unless $coding eq 'zstd';
    my ($fh, $name) = tempfile(UNLINK => 1);
    binmode $fh;
    print $fh $data;
    close $fh;
    my $out = `zstd -q -d -c < $name 2>/dev/null`;
    return $? == 0 ? $out : undef;
}

sub version { ($_[0] // '') =~ m{<p id="version">version (\d+)</p>} ? $1 : -1 }

# A well-formed Available-Dictionary the master cannot hold: the hash of
# bytes it never made.
my $unknown = ':' . do {
    require Digest::SHA;
    require MIME::Base64;
    MIME::Base64::encode_base64(Digest::SHA::sha256('never served'), '');
} . ':';

# ---- the node's page changes on every request ----------------------------
my @v = map { version(decode(get('/dyn/plain-a', 'Accept-Encoding' => 'gzip'))) }
        1 .. 2;
ok t_cmp($v[0] >= 1 ? 1 : 0, 1, "the page has a version ($v[0])");
ok t_cmp($v[1], $v[0] + 1, 'the next request gets the next version');
ok t_cmp(length(decode(get('/dyn/plain-a'))) > 50000 ? 1 : 0, 1,
         'the page is ~60 KB');

# ---- clients without dcz: no change ---------------------------------------
for my $case (['curl', 'deflate, gzip, br, zstd', 'zstd'],
              ['python requests', 'gzip, deflate', 'gzip'],
              ['no Accept-Encoding', undef, 'none'],
              ['a browser without dcz', 'gzip, deflate, br, zstd', 'zstd'],
              ['gzip only', 'gzip', 'gzip']) {
    my ($who, $ae, $want) = @$case;
    my $res = get('/dyn/plain-b', defined $ae ? ('Accept-Encoding' => $ae)
                                              : ());
    ok t_cmp(ce($res), $want, "$who: $want");
    ok t_cmp(version(decode($res)) > 0 ? 1 : 0, 1,
             "$who: the body decodes to the page");
    ok t_cmp(join(' ', grep { defined $res->header($_) }
                           'Use-As-Dictionary', 'Link'), '',
             "$who: no dictionary headers");
    # under a dictionary prefix every compressed variant names
    # Available-Dictionary, so that a cache keeps them apart
    ok t_cmp(($res->header('Vary') // '') =~ /available-dictionary/i ? 1 : 0,
             $want eq 'none' ? 0 : 1,
             "$who: Vary names Available-Dictionary when compressed");
}

# ---- dcz offered, no dictionary the master holds: the next coding --------
for my $case (['an unknown hash', $unknown],
              ['a malformed value', ':not base64!:'],
              ['a hash of 31 bytes', ':' . ('A' x 40) . 'AA==:'],
              ['two values', "$unknown, $unknown"]) {
    my ($what, $avail) = @$case;
    my $res = get('/dyn/plain-c',
                  'Accept-Encoding' => 'gzip, deflate, br, zstd, dcb, dcz',
                  'Available-Dictionary' => $avail);
    ok t_cmp($res->code, 200, "$what: 200");
    ok t_cmp(ce($res), 'zstd', "$what: the next coding on offer (zstd)");
    ok t_cmp(version(decode($res)) > 0 ? 1 : 0, 1,
             "$what: the body decodes to the page");
    ok t_cmp(defined $res->header('Use-As-Dictionary') ? 1 : 0, 0,
             "$what: no-cache is never a dictionary itself");
}

# ---- responses that must not be dictionary-compressed ---------------------
for my $case (['private', 'zstd'], ['cookie', 'zstd'],
              ['notransform', 'none']) {
    my ($kind, $want) = @$case;
    my $res = get("/dyn/$kind-x",
                  'Accept-Encoding' => 'gzip, deflate, br, zstd, dcb, dcz',
                  'Available-Dictionary' => $unknown);
    ok t_cmp(ce($res), $want, "$kind: $want, not dcz");
    ok t_cmp(version(decode($res)) > 0 ? 1 : 0, 1,
             "$kind: the body decodes to the page");
    ok t_cmp(join(' ', grep { defined $res->header($_) }
                           'Use-As-Dictionary', 'Link'), '',
             "$kind: no dictionary headers");
}

# ---- dcz: a prefix dictionary, then deltas against it ---------------------
# A returning browser: it offers dcz; the master samples /dyn/ pages,
# builds a dictionary (in a thread: waited for, bounded) and announces it.
use Time::HiRes ();
my $dcz_ae = 'gzip, deflate, br, zstd, dcb, dcz';
my $link;
my $end = Time::HiRes::time() + 30;
while (!defined $link && Time::HiRes::time() < $end) {
    my $res = get('/dyn/plain-d', 'Accept-Encoding' => $dcz_ae);
    $link = $1 if ($res->header('Link') // '') =~ m{<(/pib-dict/[0-9a-f]{64})>; rel="compression-dictionary"};
    Time::HiRes::sleep(0.2) unless defined $link;
}
ok t_cmp(defined $link ? 1 : 0, 1, 'a /dyn/ page announces a dictionary');
my $dres = get($link // '/pib-dict/none');
my $dict = $dres->content;
ok t_cmp($dres->code, 200, 'the master serves it');
ok t_cmp($dres->header('Use-As-Dictionary') // '', 'match="/dyn/*"',
         'as a dictionary for the prefix');
ok t_cmp(($dres->header('Cache-Control') // '') =~ /^public, max-age=\d+$/
         ? 1 : 0, 1, 'with a lifetime');
my $hash = Digest::SHA::sha256($dict);
ok t_cmp(Digest::SHA::sha256_hex($dict), substr($link // '', 10),
         'its name is the SHA-256 of its bytes');
my $avail = ':' . MIME::Base64::encode_base64($hash, '') . ':';

# Decodes a dcz body: the 40-byte header, then zstd with the dictionary.
sub undcz {
    my ($data, $d) = @_;
    return undef unless length($data) > 40
        && substr($data, 0, 8) eq "\x5e\x2a\x4d\x18\x20\x00\x00\x00"
        && substr($data, 8, 32) eq Digest::SHA::sha256($d);
    my ($fh, $name) = tempfile(UNLINK => 1);
    my ($dh, $dname) = tempfile(UNLINK => 1);
    binmode $fh; binmode $dh;
    print $fh substr($data, 40);
    print $dh $d;
    close $fh; close $dh;
    my $out = `zstd -q -d -c -D $dname < $name 2>/dev/null`;
    return $? == 0 ? $out : undef;
}

my $res = get('/dyn/plain-d', 'Accept-Encoding' => $dcz_ae,
              'Available-Dictionary' => $avail);
ok t_cmp(ce($res), 'dcz', 'named and held: dcz');
my $page = undcz($res->content, $dict);
ok t_cmp(version($page) > 0 ? 1 : 0, 1,
         'it decodes (header, hash, zstd with the dictionary) to the page');
ok t_cmp(length($res->content) < 2000 ? 1 : 0, 1,
         'a delta of ' . length($res->content) . ' bytes');
ok t_cmp(($res->header('Vary') // '') =~ /Accept-Encoding.*Available-Dictionary/i
         ? 1 : 0, 1, 'Vary: Accept-Encoding, Available-Dictionary');
my @hits = PiDict::hits("$vars->{serverroot}/tmp/dict/node", 'plain-d');
ok t_cmp(version($page), $hits[-1][1], 'the node\'s latest version');
ok t_cmp($hits[-1][2], '', 'the node was asked for identity');
for my $case (['cookie-d', 'zstd'], ['private-d', 'zstd']) {
    my ($name, $want) = @$case;
    my $r2 = get("/dyn/$name", 'Accept-Encoding' => $dcz_ae,
                 'Available-Dictionary' => $avail);
    ok t_cmp(ce($r2), $want, "$name, the dictionary held: $want, not dcz");
}
my $r3 = get('/dyn/plain-d', 'Accept-Encoding' => $dcz_ae,
             'Available-Dictionary' => $avail, 'Sec-Fetch-Site' => 'cross-site');
ok t_cmp(ce($r3), 'zstd', 'cross-site: zstd, not dcz');
my $r4 = get('/dyn/plain-d', 'Accept-Encoding' => 'gzip, zstd',
             'Available-Dictionary' => $avail);
ok t_cmp(ce($r4), 'zstd', 'no dcz in Accept-Encoding: zstd');

# ---- dcz: a versioned script, its previous version as dictionary ---------
my $v1 = get('/s/app.js?v=1', 'Accept-Encoding' => $dcz_ae);
ok t_cmp($v1->header('Use-As-Dictionary') // '', 'match="/s/app.js"',
         'a fresh script names itself the next version\'s dictionary');
my $v1body = decode($v1);
my $v2 = get('/s/app.js?v=2', 'Accept-Encoding' => $dcz_ae,
             'Available-Dictionary' => ':' . MIME::Base64::encode_base64(
                 Digest::SHA::sha256($v1body // ''), '') . ':');
ok t_cmp(ce($v2), 'dcz', 'the next version, naming the previous: dcz');
my $s2 = undcz($v2->content, $v1body // '');
ok t_cmp(defined $s2 && $s2 =~ /build 2 \*\// ? 1 : 0, 1,
         'it decodes to version 2 (' . length($v2->content) . ' bytes)');
