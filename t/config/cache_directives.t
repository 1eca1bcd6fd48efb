# PiBalanceDeflateCacheKey, PiBalanceDeflateStoreLevel and
# PiBalanceDeflateCacheRefresh (issue 18): bad values and places stop
# start-up with a message; the key or a full refresh without mod_cache is
# refused (PIB12500, PIB12800); a good configuration passes.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use lib 't/lib';
use PiTest qw(check_config);

my $vars = Apache::Test::config()->{vars};
my $apxs = $vars->{apxs} || 'apxs';
chomp(my $libexec = `$apxs -q LIBEXECDIR`);
my $cache = "LoadModule cache_module \"$libexec/mod_cache.so\"\n";

my @bad = (
    ['PiBalanceDeflateStoreLevel 0',
     qr/PiBalanceDeflateStoreLevel: '0' must be a whole number 1\.\.12/],
    ['PiBalanceDeflateStoreLevel 13',
     qr/PiBalanceDeflateStoreLevel: '13' must be a whole number 1\.\.12/],
    ['PiBalanceDeflateStoreLevel 9x',
     qr/PiBalanceDeflateStoreLevel: '9x' must be/],
    # blanks and signs are refused, as by every number directive (pi_num)
    ['PiBalanceDeflateStoreLevel " 9"',
     qr/PiBalanceDeflateStoreLevel: ' 9' must be/],
    ['PiBalanceDeflateStoreLevel +9',
     qr/PiBalanceDeflateStoreLevel: '\+9' must be/],
    ['PiBalanceDeflateCacheKey maybe',
     qr/PiBalanceDeflateCacheKey must be On or Off/],
    ["<Location /x>\nPiBalanceDeflateCacheKey On\n</Location>",
     qr/PiBalanceDeflateCacheKey not allowed in <Location> context|PiBalanceDeflateCacheKey cannot occur within <Location> section/],
    ["<Proxy balancer://x>\nPiBalanceDeflateStoreLevel 9\n</Proxy>",
     qr/PiBalanceDeflateStoreLevel (not allowed in <Proxy> context|cannot occur within <Proxy> section)/],
    ['PiBalanceDeflateCacheKey On',
     qr/PIB12500: PiBalanceDeflateCacheKey On needs mod_cache/],
    ["<VirtualHost 127.0.0.1:65001>\nPiBalanceDeflateCacheKey On\n"
     . "</VirtualHost>",
     qr/PIB12500: PiBalanceDeflateCacheKey On needs mod_cache/],
    ['PiBalanceDeflateCacheRefresh sometimes',
     qr/PiBalanceDeflateCacheRefresh: 'sometimes' must be conditional or full/],
    ['PiBalanceDeflateCacheRefresh',
     qr/PiBalanceDeflateCacheRefresh takes one argument/],
    ["<Location /x>\nPiBalanceDeflateCacheRefresh full\n</Location>",
     qr/PiBalanceDeflateCacheRefresh (not allowed in <Location> context|cannot occur within <Location> section)/],
    ['PiBalanceDeflateCacheRefresh full',
     qr/PIB12800: PiBalanceDeflateCacheRefresh full needs mod_cache/],
    ["<VirtualHost 127.0.0.1:65001>\nPiBalanceDeflateCacheRefresh full\n"
     . "</VirtualHost>",
     qr/PIB12800: PiBalanceDeflateCacheRefresh full needs mod_cache/],
);

plan tests => 2 * @bad + 2, need_module 'pibalance';

for my $b (@bad) {
    my ($rc, $out) = check_config($b->[0], [qw(pibalance)]);
    ok t_cmp($rc != 0 ? 'refused' : 'accepted', 'refused',
             "refused: $b->[0]");
    ok t_cmp($out, $b->[1], "message for: $b->[0]");
}

my ($rc, $out) = check_config($cache . <<'GOOD', [qw(pibalance)]);
PiBalanceDeflateCacheKey On
PiBalanceDeflateStoreLevel 12
PiBalanceDeflateCacheRefresh full
<VirtualHost 127.0.0.1:65001>
    PiBalanceDeflateCacheKey Off
    PiBalanceDeflateStoreLevel 1
    PiBalanceDeflateCacheRefresh Conditional
</VirtualHost>
GOOD
ok t_cmp($rc, 0, 'a good configuration passes');
ok t_cmp($out, qr/Syntax OK/, 'Syntax OK');
