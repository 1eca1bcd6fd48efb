# Offload behind Apache's cache (issue 18, item 2): a stale copy is
# revalidated with the node by a conditional request (the ETag without
# our suffix, or Last-Modified); the node's 304 refreshes the copy and the
# client gets the stored body with the right ETag and Vary; a changed page
# replaces it.  A client's own conditional request on a cached copy is
# answered from the cache.  Both providers, quick handler on and off.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes ();
use lib 't/lib';
use PiOffloadTest qw(gunzip_all);
use PiCache ();

my @vhosts = qw(cache_disk cache_disk_handler cache_shm cache_shm_handler);

plan tests => @vhosts * 19,
    need_module 'proxy', 'proxy_http', 'proxy_balancer', 'cache',
    'cache_disk', 'cache_socache', 'socache_shmcb', 'perl', 'pibalance';

my $dir = Apache::Test::vars('serverroot') . '/tmp/cache/node';

sub hits { return PiCache::hits($dir, $_[0]) }

sub get {
    my ($vhost, $path, @h) = @_;
    Apache::TestRequest::module($vhost);
    return Apache::TestRequest::GET($path, @h);
}

# GETs $path until the node has had $n requests for $name (its copy went
# stale: max-age=1), at most 30 s; returns the response that did it.
sub until_node_asked {
    my ($vh, $name, $n, @h) = @_;
    my $deadline = Time::HiRes::time() + 30;
    my $res;
    while (Time::HiRes::time() < $deadline) {
        $res = get($vh, "/page/$name", @h);
        return $res if hits($name) >= $n;
        Time::HiRes::sleep(0.2);
    }
    return $res;
}

sub gz_page_ok {
    my ($res, $page) = @_;
    my ($complete, $body) = gunzip_all($res->content);
    return ($res->header('Content-Encoding') // 'none') eq 'gzip'
           && $complete && $body eq $page ? 'gzip page' : 'wrong';
}

for my $vh (@vhosts) {
    # ---- a stale gzip copy: conditional request, 304, refreshed ---------
    my $name = "short-$vh";
    my $page = PiCache::body($name, 1);
    my @gz = ('Accept-Encoding' => 'gzip, deflate, br');
    my $res = get($vh, "/page/$name", @gz);
    ok t_cmp(gz_page_ok($res, $page), 'gzip page', "$vh: first GET");
    $res = until_node_asked($vh, $name, 2, @gz);
    my @h = hits($name);
    ok t_cmp(scalar(@h), 2, "$vh: the stale copy was revalidated");
    ok t_cmp($h[1][3] // '', qq{"$name-v1"},
             "$vh: If-None-Match without our suffix");
    ok t_cmp($h[1][1], 304, "$vh: the node answered 304");
    ok t_cmp(gz_page_ok($res, $page), 'gzip page',
             "$vh: client gets the stored gzip body");
    ok t_cmp($res->header('ETag') // '', qq{"$name-v1-gzip"},
             "$vh: with the gzip copy's ETag");
    ok t_cmp($res->header('Vary') // '', qr/Accept-Encoding/i,
             "$vh: and Vary");
    # the next revalidation is again a 304: the node never sent the body
    # twice for an unchanged page.  mod_cache_socache loses the body of a
    # copy a 304 refreshed (httpd 2.4.71): our check drops that copy and
    # fetches the page again, so the client still gets it whole.
    $res = until_node_asked($vh, $name, 3, @gz);
    @h = hits($name);
    ok t_cmp(join(',', map { $_->[1] } @h),
             $vh =~ /shm/ ? qr/^200,304,(304,)?200$/ : qr/^200,304,304$/,
             "$vh: unchanged page: " . ($vh =~ /shm/
              ? 'a copy socache emptied is fetched again'
              : 'one full body from the node'));
    ok t_cmp(gz_page_ok($res, $page), 'gzip page',
             "$vh: refreshed copy still served");

    # ---- the page changes: the next revalidation replaces the copy -----
    open my $fh, '>', "$dir/$name.ver" or die;
    print $fh "2\n";
    close $fh;
    $res = until_node_asked($vh, $name, scalar(hits($name)) + 1, @gz);
    ok t_cmp($res->header('ETag') // '', qq{"$name-v2-gzip"},
             "$vh: a changed page's new ETag");
    ok t_cmp(gz_page_ok($res, PiCache::body($name, 2)), 'gzip page',
             "$vh: and its new body");

    # ---- Last-Modified only --------------------------------------------
    my $ne = "short-noetag-$vh";
    get($vh, "/page/$ne", @gz);
    $res = until_node_asked($vh, $ne, 2, @gz);
    @h = hits($ne);
    ok t_cmp(($h[1][4] // '') . ' ' . ($h[1][1] // ''),
             qr/GMT 304$/, "$vh: no ETag: If-Modified-Since, 304");
    ok t_cmp(gz_page_ok($res, PiCache::body($ne, 1)), 'gzip page',
             "$vh: no ETag: the stored body");

    # ---- a client's own conditional request on a cached copy ----------
    my $lp = "own-$vh";
    $res = get($vh, "/page/$lp", @gz);
    my $etag = $res->header('ETag') // '';
    ok t_cmp($etag, qq{"$lp-v1-gzip"}, "$vh: stored with the gzip ETag");
    $res = get($vh, "/page/$lp", 'Accept-Encoding' => 'br, gzip',
               'If-None-Match' => $etag);
    ok t_cmp($res->code, 304, "$vh: own If-None-Match: 304");
    ok t_cmp($res->header('ETag') // '', $etag, "$vh: 304 carries the ETag");
    ok t_cmp($res->header('Vary') // '', qr/Accept-Encoding/i,
             "$vh: 304 carries Vary");
    $res = get($vh, "/page/$lp", @gz,
               'If-Modified-Since' => 'Tue, 02 Jan 2024 00:00:00 GMT');
    ok t_cmp($res->code, 304, "$vh: own If-Modified-Since: 304");
    ok t_cmp(scalar(hits($lp)), 1, "$vh: the node was not asked");
}
