# Dictionaries (issue 30, RFC 9842) -- what holds for every client the
# master cannot or must not send dcz to: clients without dcz (curl's and
# Python's Accept-Encoding, none at all) see no dictionary header and
# the codings they always got; a client that offers dcz but names a
# dictionary the master does not hold (unknown, malformed, two values)
# gets the next coding on offer, never an error and never dcz; private,
# cookie-setting and no-transform responses likewise.  Each body decodes
# to the node's page, whose version changes on every request.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use File::Temp qw(tempfile);
use lib 't/lib';
use PiOffloadTest qw(gunzip_all);

plan tests => 3 + 5 * 4 + 4 * 4 + 3 * 3, need_module 'proxy', 'proxy_http',
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
    ok t_cmp(($res->header('Vary') // '') =~ /available-dictionary/i ? 1 : 0,
             0, "$who: Vary does not name Available-Dictionary");
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
