# Both modules link the helpers of common/ (pi_*), and httpd loads both
# into one process with RTLD_GLOBAL: an exported pi_ symbol would
# interpose, one module calling the other's copy.  common/pi_local.h makes
# them hidden; this checks neither .so exports one, and that what each
# exports carries its own prefix (pib_/pibalance_ or pis_/pistats_).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;

my $top = Apache::Test::config()->{vars}{top_dir};
my %so = (pibalance => "$top/mod_pibalance/mod_pibalance.so",
          pistats   => "$top/mod_pistats/mod_pistats.so");
my %own = (pibalance => qr/^(?:pib_|pibalance_module$)/,
           pistats   => qr/^(?:pis_|pistats_module$)/);

plan tests => 2 * keys(%so), need_module 'pistats', 'pibalance';

for my $m (sort keys %so) {
    # Defined, dynamic symbols: what another module could bind to.
    my @syms = map { (split ' ')[-1] }
               grep { /^\S+\s+[A-Za-z]\s+\S+$/ }
               `nm -D --defined-only '$so{$m}' 2>/dev/null`;
    my @common = grep { /^pi_/ } @syms;
    my @foreign = grep { $_ !~ $own{$m} && !/^_/ && !/^(?:_init|_fini)$/ }
                  @syms;
    ok t_cmp("@common", '', "mod_$m.so exports no pi_ symbol");
    ok t_cmp("@foreign", '', "mod_$m.so exports only its own names");
}
