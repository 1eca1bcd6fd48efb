# PiBalanceDeflateCacheRefresh full (issue 18): with mod_cache_socache,
# whose 304 refresh stores a copy without its body (docs/offload.md), a
# stale copy is refreshed by a full request: the node is never sent
# mod_cache's conditions, answers 200, and the stored copy stays whole
# (no "not whole" copy dropped and fetched again).  A client's own
# conditional request still reaches the node as the client sent it; one
# on a fresh copy is answered 304 by mod_cache.  Quick handler on and
# off.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes ();
use lib 't/lib';
use PiOffloadTest qw(gunzip_all);
use PiCache ();

my @vhosts = qw(cache_shm_full cache_shm_full_handler);

plan tests => @vhosts * 10,
    need_module 'proxy', 'proxy_http', 'proxy_balancer', 'cache',
    'cache_socache', 'socache_shmcb', 'perl', 'pibalance';

my $vars = Apache::Test::vars();
my $dir = "$vars->{serverroot}/tmp/cache/node";

sub hits { return PiCache::hits($dir, $_[0]) }

sub get {
    my ($vhost, $path, @h) = @_;
    Apache::TestRequest::module($vhost);
    return Apache::TestRequest::GET($path, @h);
}

# GETs the page until the node has had $n requests for it (its copy goes
# stale after max-age=1), at most 30 s; returns every response.
sub until_node_asked {
    my ($vh, $name, $n, @h) = @_;
    my $deadline = Time::HiRes::time() + 30;
    my @res;
    while (Time::HiRes::time() < $deadline) {
        push @res, get($vh, "/page/$name", @h);
        return @res if hits($name) >= $n;
        Time::HiRes::sleep(0.2);
    }
    return @res;
}

sub gz_page_ok {
    my ($res, $page) = @_;
    my ($complete, $body) = gunzip_all($res->content);
    return ($res->header('Content-Encoding') // 'none') eq 'gzip'
           && $complete && $body eq $page ? 'gzip page' : 'wrong';
}

sub not_whole_logged {
    my ($name) = @_;
    open my $fh, '<', "$vars->{t_logs}/error_log" or die $!;
    return scalar grep { /PIB12501: .*\/page\/\Q$name\E / } <$fh>;
}

my @gz = ('Accept-Encoding' => 'gzip, deflate, br');
# keep-alive: the next request on the connection is read after mod_cache
# stored the copy (t/pibalance/cache.t)
Apache::TestRequest::user_agent(reset => 1, keep_alive => 1);
my $h;
for my $vh (@vhosts) {
    # ---- stale copies refreshed twice, by full requests ----------------
    my $name = "short-$vh";
    my $page = PiCache::body($name, 1);
    my @res = (get($vh, "/page/$name", @gz),
               until_node_asked($vh, $name, 3, @gz));
    my @h = hits($name);
    ok t_cmp(join(',', map { $_->[1] } @h), '200,200,200',
             "$vh: the node sent the page once a refresh, never a 304");
    ok t_cmp(join(',', map { ($_->[3] // '') . ($_->[4] // '') } @h), ',,',
             "$vh: and was never sent If-None-Match or If-Modified-Since");
    ok t_cmp(join(',', grep { $_ ne 'gzip page' }
                  map { gz_page_ok($_, $page) } @res), '',
             "$vh: every client got the whole gzip page ("
             . scalar(@res) . ' requests)');
    ok t_cmp(not_whole_logged($name), 0,
             "$vh: no stored copy was found not whole");
    ok t_cmp($res[-1]->header('ETag') // '', qq{"$name-v1-gzip"},
             "$vh: the refreshed copy has the gzip copy's ETag");
    ok t_cmp($res[-1]->header('Vary') // '', qr/Accept-Encoding/i,
             "$vh: and Vary");

    # ---- a client's own conditional request ---------------------------
    # It reaches the node as the client sent it (our suffix off): a
    # response mod_cache does not store after all keeps its 304.
    my $own = "own-$vh";
    my @inm = ('If-None-Match' => qq{"$own-v1-gzip"});
    my $res = get($vh, "/page/$own", @gz, @inm);
    ok t_cmp(join(' ', $res->code,
                  map { ($_->[1] // '') . ':' . ($_->[3] // '') } hits($own)),
             qq{304 304:"$own-v1"},
             "$vh: own If-None-Match, nothing stored: sent to the node, 304");
    # stored (fresh for an hour): mod_cache answers it
    get($vh, "/page/$own", @gz);
    $res = get($vh, "/page/$own", @gz, @inm);
    ok t_cmp($res->code . ' ' . scalar(hits($own)), '304 2',
             "$vh: own If-None-Match on a fresh copy: 304 from the cache");
    # a stale copy and the client's own validators, the same as the
    # stored copy's (a browser's): mod_cache's conditions cannot be told
    # from the client's, so they stay; the client gets 304, and a plain
    # GET after it gets the whole page (an empty copy is dropped, fetched
    # again)
    my $so = "short-own-$vh";
    my $first = get($vh, "/page/$so", @gz);
    my @sinm = ('If-None-Match' => $first->header('ETag') // '',
                'If-Modified-Since' => $first->header('Last-Modified') // '');
    my $deadline = Time::HiRes::time() + 30;
    while (Time::HiRes::time() < $deadline) {
        $res = get($vh, "/page/$so", @gz, @sinm);
        last if hits($so) > 1;
        Time::HiRes::sleep(0.2);
    }
    ok t_cmp(join(' ', $res->code, ($h = (hits($so))[1]) ? ($h->[1] . ':' . $h->[3]) : '-'),
             qq{304 304:"$so-v1"},
             "$vh: stale copy, the client's own matching If-None-Match: "
             . 'kept, 304');
    $res = get($vh, "/page/$so", @gz);
    ok t_cmp(gz_page_ok($res, PiCache::body($so, 1)), 'gzip page',
             "$vh: then a plain GET: the whole page");
}
