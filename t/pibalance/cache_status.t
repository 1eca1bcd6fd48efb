# Offload behind Apache's cache (issue 18, item 5): /pi-status counts the
# cache's verdicts on offloaded requests (hits, misses, revalidations by
# the node's 304) and the body bytes the stored copies saved.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use Time::HiRes ();
use lib 't/lib';
use PiTest ();
use PiCache ();

plan tests => 5,
    need_module 'proxy', 'proxy_http', 'proxy_balancer', 'cache',
    'cache_disk', 'perl', 'pibalance', 'pistats';

my $dir = Apache::Test::vars('serverroot') . '/tmp/cache/node';

sub counts {
    my $c = PiTest::status_json('pimaster')->{server}{deflate_counts} // {};
    return { map { $_ => $c->{$_} // -1 }
             qw(cache_hits cache_misses cache_revalidated cache_bytes_saved) };
}

sub get {
    my ($path) = @_;
    Apache::TestRequest::module('cache_disk');
    return Apache::TestRequest::GET($path, 'Accept-Encoding' => 'gzip');
}

sub nhits {
    open my $fh, '<', "$dir/$_[0].hits" or return 0;
    my @l = <$fh>;
    return scalar @l;
}

# counters are added when a request is logged, after its response: poll
sub counts_when {
    my ($cond) = @_;
    my $deadline = Time::HiRes::time() + 20;
    my $c = counts();
    until ($cond->($c) || Time::HiRes::time() > $deadline) {
        Time::HiRes::sleep(0.1);
        $c = counts();
    }
    return $c;
}

# keep-alive: the next request on the connection is read after mod_cache
# stored the copy (t/pibalance/cache.t)
Apache::TestRequest::user_agent(reset => 1, keep_alive => 1);
my $before = counts();
my $name = 'status-p1';
get("/page/$name");                             # miss, stored
my $len = length get("/page/$name")->content;   # hit
get("/page/$name");                             # hit
my $c = counts_when(sub { $_[0]{cache_hits} >= $before->{cache_hits} + 2 });
ok t_cmp($c->{cache_misses} - $before->{cache_misses}, 1, 'one miss');
ok t_cmp($c->{cache_hits} - $before->{cache_hits}, 2, 'two hits');
ok t_cmp($c->{cache_bytes_saved} - $before->{cache_bytes_saved}, 2 * $len,
         "bytes saved: the two hits' bodies ($len bytes each)");

# a stale copy the node's 304 refreshes
my $short = 'short-status';
get("/page/$short");
my $deadline = Time::HiRes::time() + 30;
while (nhits($short) < 2 && Time::HiRes::time() < $deadline) {
    Time::HiRes::sleep(0.2);
    get("/page/$short");
}
$c = counts_when(sub { $_[0]{cache_revalidated} > $before->{cache_revalidated} });
ok t_cmp($c->{cache_revalidated} - $before->{cache_revalidated}, 1,
         'a revalidation (the node answered 304)');

# ?auto and Prometheus carry them too
Apache::TestRequest::module('pimaster');
my $auto = Apache::TestRequest::GET('/pi-status?auto')->content;
ok t_cmp($auto, qr/^DeflateCacheHits:\ \d+\nDeflateCacheMisses:\ \d+\n
                   DeflateCacheRevalidated:\ [1-9]\d*\n
                   DeflateCacheBytesSaved:\ [1-9]\d*$/mx,
         '?auto has the cache counters');
