# Dictionaries in a real browser (issue 30 item 6): Debian's chromium,
# headless, driven by puppeteer-core (build/setup-deps.sh installs both;
# the test fails without them), visits a dynamic page of the master on
# http://localhost three times; the page changes between visits.  By the
# second or third visit the document arrives as dcz, and every visit
# shows exactly the version the node sent for it (the DOM's text).  The
# bytes the browser received for each visit are printed.  Between visits
# the driver waits (bounded) for the master to have served the
# dictionary: chromium fetches a Link dictionary when idle.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use JSON::PP;
use Time::HiRes ();
use lib 't/lib';
use PiDict ();

my $vars = Apache::Test::vars();
my $top = Apache::Test::config()->{vars}{top_dir};
my $driver = "$top/build/browser/node_modules/puppeteer-core/package.json";
my $chromium = $ENV{PI_CHROMIUM} // '/usr/bin/chromium';
my ($node) = grep { -x $_ } map { "$_/node" } split /:/, $ENV{PATH};

plan tests => 2 + 3 * 2 + 1, need_module 'proxy', 'proxy_http',
    'proxy_balancer', 'perl', 'alias', 'pibalance';

my @missing = grep { defined } (-x $chromium ? undef : $chromium),
    (-e $driver ? undef : 'puppeteer-core in build/browser'),
    (defined $node ? undef : 'node');
ok t_cmp("@missing", '', 'chromium, node and puppeteer-core are installed '
                         . '(build/setup-deps.sh)');
exit 0 if @missing;

my $port = Apache::Test::config()->{vhosts}{dict_master}{port};
Apache::TestRequest::module('dict_master');

# The prefix has a dictionary (the master builds it from the pages it
# sends: a few requests, then the build thread; at most 30 s).
my $linked = 0;
my $end = Time::HiRes::time() + 30;
while (!$linked && Time::HiRes::time() < $end) {
    my $res = Apache::TestRequest::GET('/dyn/plain-warm',
        'Accept-Encoding' => 'gzip, deflate, br, zstd, dcb, dcz');
    $linked = ($res->header('Link') // '') =~ /compression-dictionary/;
    Time::HiRes::sleep(0.2) unless $linked;
}
ok t_cmp($linked ? 1 : 0, 1, 'the master announces a /dyn/ dictionary');

my $url = "http://localhost:$port/dyn/plain-browser";
my $out = `timeout 240 $node $top/t/bin/dcz-visits.js $url 3 --text='#version' --wait=http://127.0.0.1:$port/dictlog '--match= /pib-dict/[0-9a-f]{64} ' 2>&1`;
my @v = map { eval { decode_json($_) } // () } grep { /^\{/ } split /\n/, $out;
t_debug($out) unless @v == 3;
my @hits = PiDict::hits("$vars->{serverroot}/tmp/dict/node", 'plain-browser');
for my $i (0 .. 2) {
    my $r = $v[$i] // {};
    my $sent = $hits[$i] ? "version $hits[$i][1]" : '(no request)';
    printf "# visit %d: %s, %s bytes received\n", $i + 1,
        $r->{content_encoding} // 'identity', $r->{bytes} // '?';
    ok t_cmp($r->{status} // 0, 200, 'visit ' . ($i + 1) . ': 200');
    ok t_cmp($r->{text} // '', $sent,
             'visit ' . ($i + 1) . ': the browser shows the version sent');
}
ok t_cmp(scalar(grep { ($_->{content_encoding} // '') eq 'dcz' } @v[1, 2])
         > 0 ? 1 : 0, 1, 'by the second or third visit the page came as dcz');
