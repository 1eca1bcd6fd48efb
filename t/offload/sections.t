# PiBalanceDeflate* settings inherit field by field through sections that
# httpd merges with each other before it merges them onto the virtual
# host: /min0/page.html matches <Location "/min0/"> (MinLength 0) and
# <Location "/min0/page.html"> (Level 9), and the host sets
# PiBalanceDeflate On.  A merge that filled in defaults turned the
# offload off there (the inner merge's "Off" beat the host's On).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use lib 't/lib';
use PiOffloadTest qw(master_get gunzip_all htdocs);

plan tests => 4, need_module 'pibalance', 'proxy_balancer';

my $page = do {
    open my $fh, '<', htdocs() . '/page.html' or die "page.html: $!";
    local $/;
    <$fh>;
};
my $res = master_get('/min0/page.html', 'Accept-Encoding' => 'gzip');
ok t_cmp($res->code, 200, 'served');
ok t_cmp($res->header('Content-Encoding') // 'none', 'gzip',
         "the host's PiBalanceDeflate On holds under both sections");
my ($whole, $body) = gunzip_all($res->content);
ok t_cmp($whole && $body eq $page ? 1 : 0, 1, 'the page, whole');
# The gzip header's XFL byte: 2 is "slowest compression", which the
# encoders write for levels 8 and up: the inner section's Level 9.
ok t_cmp(length($res->content) > 9 ? ord(substr($res->content, 8, 1)) : -1,
         2, 'at level 9 (the inner section)');
