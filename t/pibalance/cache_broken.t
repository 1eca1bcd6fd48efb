# Offload behind Apache's cache (issue 18, item 4): a stored copy that is
# not whole -- a disk cache file cut short, or overwritten from its start
# -- is never served: it is dropped and fetched again from the node, with
# a log line (PIB12501).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Find ();
use Time::HiRes ();
use lib 't/lib';
use PiOffloadTest qw(gunzip_all log_wait);
use PiCache ();

plan tests => 12,
    need_module 'proxy', 'proxy_http', 'proxy_balancer', 'cache',
    'cache_disk', 'perl', 'pibalance';

my $root = Apache::Test::vars('serverroot');
my $dir = "$root/tmp/cache/node";

sub hits { return PiCache::hits($dir, $_[0]) }

sub get {
    my ($path, @h) = @_;
    Apache::TestRequest::module('cache_disk');
    return Apache::TestRequest::GET($path, @h);
}

# The disk cache's body file holding $want (gzip bytes).
sub data_file {
    my ($want) = @_;
    my $found;
    File::Find::find(sub {
        return unless /\.data$/ && -f $_;
        open my $fh, '<:raw', $_ or return;
        my $d = do { local $/; <$fh> };
        $found = $File::Find::name if defined $d && $d eq $want;
    }, "$root/tmp/cache/disk");
    return $found;
}

sub error_log_count {
    my ($re) = @_;
    open my $fh, '<', "$root/logs/error_log" or return 0;
    return scalar grep { /$re/ } <$fh>;
}

my @gz = ('Accept-Encoding' => 'gzip');
for my $case (['cut', sub { truncate $_[0], int((-s $_[0]) / 2) }],
              ['overwritten', sub {
                   open my $fh, '+<:raw', $_[0] or die;
                   print $fh 'xxxx';
                   close $fh }]) {
    my ($what, $spoil) = @$case;
    my $name = "broken-$what";
    my $page = PiCache::body($name, 1);
    my $res = get("/page/$name", @gz);
    my $stored = $res->content;
    my $file = data_file($stored);
    ok t_cmp(defined $file ? 'found' : 'missing', 'found',
             "$what: the stored gzip copy is on disk");
    $spoil->($file) if defined $file;
    my $before = error_log_count(qr/PIB12501: .*\/page\/$name /);
    $res = get("/page/$name", @gz);
    my ($complete, $body) = gunzip_all($res->content);
    ok t_cmp($complete && $body eq $page ? 'whole' : 'broken', 'whole',
             "$what: the client gets the whole page");
    ok t_cmp($res->header('ETag') // '', qq{"$name-v1-gzip"},
             "$what: with its ETag");
    ok t_cmp(scalar(hits($name)), 2, "$what: fetched again from the node");
    # the line is written before the response ends; poll a little anyway
    my $deadline = Time::HiRes::time() + 20;
    Time::HiRes::sleep(0.1)
        while error_log_count(qr/PIB12501: .*\/page\/$name /) <= $before
              && Time::HiRes::time() < $deadline;
    ok t_cmp(error_log_count(qr/PIB12501: .*\/page\/$name /), $before + 1,
             "$what: one log line");
    $res = get("/page/$name", @gz);
    ($complete, $body) = gunzip_all($res->content);
    ok t_cmp(($complete && $body eq $page ? 'whole' : 'broken')
             . ' ' . scalar(hits($name)), 'whole 2',
             "$what: the new copy is stored and served");
}
