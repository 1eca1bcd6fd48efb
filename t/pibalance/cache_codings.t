# Compress once with every coding (issues 18 and 19): behind mod_cache_disk
# with PiBalanceDeflateCodecs zstd br gzip and PiBalanceDeflateCacheKey On,
# the stored variants follow the coding the offload chooses for each
# client: one copy per coding (zstd, br, gzip) and one for identity, each
# decoding to the node's page, whatever Accept-Encoding string asked.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Temp qw(tempfile);
use lib 't/lib';
use PiOffloadTest qw(gunzip_all);
use PiCache ();

# Accept-Encoding strings and the coding each gets (ties: the server's
# order, zstd first).
my @cases = (
    ['gzip, deflate, br, zstd', 'zstd'], ['zstd', 'zstd'],
    ['br, zstd', 'zstd'],
    ['gzip, deflate, br', 'br'], ['br, gzip', 'br'], ['br', 'br'],
    ['gzip', 'gzip'], ['deflate, gzip', 'gzip'],
    ['zstd;q=0, br;q=0, gzip', 'gzip'],
    [undef, 'none'], ['identity', 'none'],
);

plan tests => 2 * @cases + 5,
    need_module 'proxy', 'proxy_http', 'proxy_balancer', 'cache',
    'cache_disk', 'perl', 'pibalance';

my $dir = Apache::Test::vars('serverroot') . '/tmp/cache/node';
my $name = 'codings-p1';
my $page = PiCache::body($name, 1);

sub node_requests {
    open my $fh, '<', "$dir/$name.hits" or return 0;
    my @l = <$fh>;
    return scalar @l;
}

# The body decoded from $coding ('none': as it is); undef when it does not
# decode.
sub decode {
    my ($coding, $data) = @_;
    return $data if $coding eq 'none';
    if ($coding eq 'gzip') {
        my ($complete, $body) = gunzip_all($data);
        return $complete ? $body : undef;
    }
    my ($fh, $file) = tempfile(UNLINK => 1);
    binmode $fh;
    print $fh $data;
    close $fh;
    my $tool = $coding eq 'zstd' ? 'zstd -q -d -c' : 'brotli -d -c';
    my $out = `$tool < $file 2>/dev/null`;
    return $? == 0 ? $out : undef;
}

# One keep-alive connection: a request is read only when the one before
# it has ended, so mod_cache_disk has stored its copy.  (It stores a
# copy when the response ends, after the last bytes of a streamed body
# went out: a client on another connection that asks right then goes to
# the node too; CI saw it under ASan, the identity page: 5 requests.)
Apache::TestRequest::user_agent(reset => 1, keep_alive => 1);
Apache::TestRequest::module('cache_codings');
my %etag;
my @trace;              # per request: X-Cache, node requests after it
for my $c (@cases) {
    my ($ae, $want) = @$c;
    my $what = $ae // 'no Accept-Encoding';
    my $res = Apache::TestRequest::GET("/page/$name",
                                       defined $ae ? ('Accept-Encoding' => $ae)
                                                   : ());
    my $got = $res->header('Content-Encoding') // 'none';
    ok t_cmp($got, $want, "[$what] gets $want");
    my $body = decode($got, $res->content);
    ok t_cmp(defined $body && $body eq $page ? 'page' : 'garbled', 'page',
             "[$what] decodes to the node's page");
    $etag{$got}{ $res->header('ETag') // '' } = 1;
    push @trace, sprintf('%s %s %s', $want, $res->header('X-Cache') // '?',
                         node_requests());
}

ok t_cmp(join(' ', map { "$_:" . join('|', sort keys %{ $etag{$_} }) }
                   sort keys %etag),
         qq{br:"$name-v1-br" gzip:"$name-v1-gzip" none:"$name-v1" }
         . qq{zstd:"$name-v1-zstd"},
         'one ETag per coding, suffixed by the coding');
ok t_cmp(node_requests(), 4,
         'eleven strings, four stored copies: the node asked once a coding'
         . ' (coding, X-Cache, node requests so far: ' . join('; ', @trace)
         . ')');

# Again: every string is a hit now, served whole in its coding, the node
# not asked.
my @bad;
for my $c (@cases) {
    my ($ae, $want) = @$c;
    my $res = Apache::TestRequest::GET("/page/$name",
                                       defined $ae ? ('Accept-Encoding' => $ae)
                                                   : ());
    my $got = $res->header('Content-Encoding') // 'none';
    my $body = decode($got, $res->content);
    push @bad, ($ae // 'none') . " -> $got"
        unless $got eq $want && defined $body && $body eq $page;
}
ok t_cmp(join('; ', @bad), '', 'every hit: its coding, the whole page');
ok t_cmp(node_requests(), 4, 'the same eleven again: all served from the cache');
my $res = Apache::TestRequest::GET("/page/$name",
                                   'Accept-Encoding' => 'zstd, gzip');
ok t_cmp($res->header('Vary') // '', qr/Accept-Encoding/i,
         'a hit carries Vary: Accept-Encoding');
