# A virtual host's balancer with the name of a main-server one
# (BalancerInherit Off) is probed, shown and counted on its own, with its
# own PiBalance settings; <Proxy "balancer://x/"> (a trailing slash)
# honours the PiBalance directives inside it.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use JSON::PP ();
use lib 't/lib';
use PiTest qw(status_json wait_for);

plan tests => 14, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(grow1 grow2 twinhost);
my $T = 'balancer://twin';

for my $node (qw(grow1 grow2)) {
    my $d = "$vars->{serverroot}/tmp/grow/$node";
    make_path($d);
    chmod 0755, "$vars->{serverroot}/tmp/grow", $d;
    open my $fh, '>', "$d/temp.new" or die "$d: $!";
    print $fh "50000\n";
    close $fh;
    chmod 0644, "$d/temp.new";
    rename "$d/temp.new", "$d/temp" or die "$d: $!";
}

# The main server's page shows every server's balancers.
sub main_doc {
    Apache::TestRequest::module('default');
    my $res = GET('/pi-status-twins?json');
    die 'pi-status-twins: ' . $res->code unless $res->is_success;
    return JSON::PP->new->utf8->decode($res->content);
}

# The balancers named $name in a document: { vhost => balancer }.
sub by_vhost {
    my ($doc, $name) = @_;
    return { map { $_->{vhost} => $_ } grep { $_->{name} eq $name }
             @{ $doc->{balancers} } };
}

sub member_of {
    my ($b, $p) = @_;
    return undef unless $b;
    my ($m) = grep { $_->{name} =~ /:\Q$p\E\/?$/ } @{ $b->{members} };
    return $m;
}

my $twins = by_vhost(main_doc(), $T);
my ($vh) = grep { /:\Q$port{twinhost}\E$/ } keys %$twins;
my ($mainb) = grep { !/:\Q$port{twinhost}\E$/ } keys %$twins;
ok t_cmp(scalar(keys %$twins), 2,
         'the main page shows both balancer://twin: ' . join(' ', sort keys %$twins));
ok t_cmp(defined $vh && scalar @{ $twins->{$vh}{members} }, 2,
         "the virtual host's has its own two members");
ok t_cmp(defined $mainb && scalar @{ $twins->{$mainb}{members} }, 1,
         "the main server's has its one member");

# Probed on its own: the virtual host's grow2 gets fresh telemetry.
my $m = wait_for(20, 0.2, sub {
    my $b = by_vhost(status_json('twinhost'), $T)->{$vh // ''};
    my $x = member_of($b, $port{grow2});
    return $x && !$x->{telemetry_stale}
           && ($x->{telemetry}{node} // '') eq 'grow2' ? $x : undef;
});
ok t_cmp(defined $m, 1, "the virtual host's member is probed");

# Its own settings: the main server's twin drains at 45 C, the virtual
# host's (default limits) does not.
my $hot = wait_for(20, 0.2, sub {
    my $x = member_of(by_vhost(main_doc(), $T)->{$mainb // ''}, $port{grow1});
    return $x && ($x->{thermal_state} // '') eq 'drained' ? $x : undef;
});
ok t_cmp(defined $hot, 1, "main server's twin: its PiBalanceThermal 40 45");
my $x = member_of(by_vhost(main_doc(), $T)->{$vh // ''}, $port{grow1});
ok t_cmp(defined $x && ($x->{thermal_state} // '') ne 'drained', 1,
         "the virtual host's twin: its own (default) limits");

# Counted on its own.
Apache::TestRequest::module('twinhost');
my $served = 0;
for (1 .. 20) {
    $served++ if GET('/twin/page.html')->is_success;
}
ok t_cmp($served, 20, 'the virtual host serves through its twin');
# A request is counted when it ends, after its answer is sent: wait
# (bounded, 10 s) for the last one.
my ($doc, $sum);
wait_for(10, 0.1, sub {
    $doc = main_doc();
    my $own = by_vhost($doc, $T)->{$vh // ''};
    $sum = 0;
    $sum += $_->{requests} // 0 for @{ $own ? $own->{members} : [] };
    return $sum >= 20;
});
ok t_cmp($sum, 20, "counted on the virtual host's members");
my $mm = member_of(by_vhost($doc, $T)->{$mainb // ''}, $port{grow1});
ok t_cmp($mm ? $mm->{requests} // 0 : -1, 0,
         "not on the main server's member of the same URL");

# <Proxy "balancer://slash/">: its PiBalanceThermal 40 45 holds.
my $s = wait_for(20, 0.2, sub {
    my $b = by_vhost(status_json('twinhost'), 'balancer://slash')->{$vh // ''};
    my $y = member_of($b, $port{grow2});
    return $y && ($y->{thermal_state} // '') eq 'drained' ? $y : undef;
});
ok t_cmp(defined $s, 1, 'trailing slash: the section\'s PiBalanceThermal');
Apache::TestRequest::module('twinhost');
ok t_cmp(GET('/slash/page.html')->header('X-Node') // '', 'grow2',
         'all hot: still served');
# The main server's page tells the virtual host's balancer as that host
# does: its member's state and telemetry are looked up as the host's
# (issue 28 item 5), not as if the main server owned it.
my $ms = member_of(by_vhost(main_doc(), 'balancer://slash')->{$vh // ''},
                   $port{grow2});
ok t_cmp(join(' ', $ms ? ($ms->{thermal_state} // 'none',
                          $ms->{telemetry_stale} ? 'stale' : 'fresh')
                       : 'missing'),
         'drained fresh', "the main page: slash's grow2 drained, fresh");

# Prometheus on the main page: the two balancer://twin are told apart by
# a vhost label (the member of the same URL is in both), never the same
# series twice.
Apache::TestRequest::module('default');
my $prom = GET_BODY('/pi-status-twins?prometheus');
my %seen;
my @dups = grep { $seen{$_}++ == 1 }
           map { /^([^#\s]\S*)\s/ ? $1 : () } split /\n/, $prom;
ok t_cmp(join("\n", @dups), '', 'Prometheus: no series twice');
ok t_cmp(scalar(() = $prom =~ /^pistats_member_requests_total\{balancer="balancer:\/\/twin",member="[^"]*:$port{grow1}\/?",vhost="[^"]+"\} \d+$/mg),
         2, 'Prometheus: both twins\' grow1 member, each with its vhost');
