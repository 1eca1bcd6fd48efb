# Offload behind Apache's cache (issue 18, item 1): with
# PiBalanceDeflateCacheKey On, mod_cache_disk and mod_cache_socache
# (shmcb), quick handler on and off, every gzip client shares one stored
# gzip copy and identity clients one copy with the node's exact bytes:
# the node sends each page twice at most.  Without a cache, nothing
# changes.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiOffloadTest qw(gunzip_all);
use PiCache ();

my @vhosts = qw(cache_disk cache_disk_handler cache_shm cache_shm_handler);
my @gzip_ae = ('gzip', 'gzip, deflate, br', 'br, gzip',
               'gzip, deflate, br, zstd', 'deflate, gzip');
my @identity_ae = (undef, 'br', 'identity', 'gzip;q=0');

plan tests => @vhosts * (2 * @gzip_ae + 2 * @identity_ae + 5) + 11,
    need_module 'proxy', 'proxy_http', 'proxy_balancer', 'cache',
    'cache_disk', 'cache_socache', 'socache_shmcb', 'perl', 'pibalance';

my $dir = Apache::Test::vars('serverroot') . '/tmp/cache/node';

# The node's record of NAME: one array of fields a request.
sub hits { return PiCache::hits($dir, $_[0]) }

sub get {
    my ($vhost, $path, $ae) = @_;
    Apache::TestRequest::module($vhost);
    return Apache::TestRequest::GET($path,
                                    defined $ae ? ('Accept-Encoding' => $ae)
                                                : ());
}

# One keep-alive connection a virtual host: a request is read only when
# the one before it has ended, so mod_cache has stored its copy (a
# streamed body's copy is stored after its last bytes went out).
Apache::TestRequest::user_agent(reset => 1, keep_alive => 1);
for my $vh (@vhosts) {
    my $name = "$vh-p1";
    my $page = PiCache::body($name, 1);
    my $gz_etag;
    for my $ae (@gzip_ae) {
        my $res = get($vh, "/page/$name", $ae);
        my ($complete, $body) = gunzip_all($res->content);
        ok t_cmp(($res->header('Content-Encoding') // 'none')
                 . ' ' . ($complete && $body eq $page ? 'page' : 'garbled'),
                 'gzip page', "$vh: [$ae] gets the gzip page");
        $gz_etag //= $res->header('ETag');
        ok t_cmp($res->header('ETag') // '', $gz_etag,
                 "$vh: [$ae] the one suffixed ETag");
    }
    ok t_cmp($gz_etag, qq{"$name-v1-gzip"}, "$vh: gzip copy's ETag");
    ok t_cmp(scalar(hits($name)), 1,
             "$vh: five gzip strings, one request to the node");
    for my $ae (@identity_ae) {
        my $what = $ae // 'no Accept-Encoding';
        my $res = get($vh, "/page/$name", $ae);
        ok t_cmp($res->header('Content-Encoding') // 'none', 'none',
                 "$vh: [$what] identity");
        ok t_cmp($res->content eq $page ? 'exact' : 'differs', 'exact',
                 "$vh: [$what] the node's exact bytes");
    }
    my @h = hits($name);
    ok t_cmp(scalar(@h), 2,
             "$vh: identity clients share a second copy (node asked twice)");
    ok t_cmp(join(',', map { $_->[2] } @h), ',',
             "$vh: the node never saw Accept-Encoding");
    my $res = get($vh, "/page/$name", 'gzip, deflate, br');
    ok t_cmp($res->header('Vary') // '', qr/Accept-Encoding/i,
             "$vh: a hit carries Vary");
}

# The log shows what the client sent; the cache saw the normalised value.
{
    my $log = Apache::Test::vars('serverroot') . '/logs/cache_log';
    my $deadline = time + 20;
    my $text = '';
    while (time < $deadline) {
        $text = do { local (@ARGV, $/) = ($log); <> } // '' if -e $log;
        last if $text =~ /ae=\[deflate, gzip\]/;
        select undef, undef, undef, 0.1;
    }
    ok t_cmp($text, qr{/page/cache_disk-p1 ae=\[deflate, gzip\]},
             'the log shows the client\'s own Accept-Encoding');
    my $res = get('cache_disk', '/page/cache_disk-p1', 'br, gzip');
    ok t_cmp($res->header('X-Client-AE') // '', 'gzip',
             "the master's filters see the normalised value");
}

# PiBalanceDeflateStoreLevel 12 (cache_disk): a stored response is
# compressed harder than one that is not stored (no-store: mod_cache adds
# no CACHE_SAVE) and than the same page where no store level is set.
{
    my $name = 'level-p1';
    my $page = PiCache::body($name, 1);
    my $stored = get('cache_disk', "/page/$name", 'gzip');
    my $plain = get('cache_disk_handler', "/page/$name", 'gzip');
    Apache::TestRequest::module('cache_disk');
    my $nostore = Apache::TestRequest::GET("/page/$name",
        'Accept-Encoding' => 'gzip', 'Cache-Control' => 'no-store');
    my %len = map { $_->[0] => length($_->[1]->content) }
              (['stored', $stored], ['plain', $plain],
               ['nostore', $nostore]);
    my $whole = 1;
    for my $res ($stored, $plain, $nostore) {
        my ($complete, $body) = gunzip_all($res->content);
        $whole &&= $complete && $body eq $page;
    }
    ok t_cmp($whole, 1, 'store level: every copy gunzips to the page');
    ok t_cmp($len{stored} < $len{plain} ? 'smaller' : "$len{stored} bytes",
             'smaller', "store level 12: $len{stored} bytes, "
             . "level 1: $len{plain}");
    ok t_cmp($len{nostore}, $len{plain},
             'a response that is not stored keeps PiBalanceDeflateLevel');
}

# No cache configured: nothing changes (every request reaches the node,
# the master's filters see the client's own header).
{
    my $name = 'none-p1';
    for my $ae ('gzip', 'br, gzip') {
        my $res = get('cache_none', "/page/$name", $ae);
        ok t_cmp($res->header('X-Client-AE') // '', $ae,
                 "no cache: [$ae] the client's header as sent");
    }
    ok t_cmp(scalar(hits($name)), 2, 'no cache: each request to the node');
}

# A cache without the key: the raw strings make variants of their own
# (what issue 18 measured).
{
    my $name = 'raw-p1';
    get('cache_raw', "/page/$name", $_) for @gzip_ae;
    ok t_cmp(scalar(hits($name)), scalar(@gzip_ae),
             'no key: one request to the node per Accept-Encoding string');
    my $res = get('cache_raw', "/page/$name", 'gzip');
    ok t_cmp($res->header('Content-Encoding') // 'none', 'gzip',
             'no key: a hit is still gzip');
    ok t_cmp(scalar(hits($name)), scalar(@gzip_ae),
             'no key: the repeated string is a hit');
}
