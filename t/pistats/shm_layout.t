# Shared memory across graceful restarts.  (1) A child of an old
# generation, still serving a member that a restart removed, never writes
# into the slot that a later restart gave to another member.  (2) A
# graceful restart into a build of another layout (t/tmp/layout, built
# with -DPIS_TEST_LAYOUT) makes a new segment with a notice instead of
# reading the old one with the wrong layout; and back again.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Spec;
use IO::Socket::IP;
use IO::Select;
use POSIX qw(WNOHANG _exit);
use Time::HiRes qw(time sleep);
use lib 't/lib';
use PiTest qw(status_json wait_for shm_mappings);
use PiLog;

plan tests => 19, need_module 'pistats', 'proxy_balancer';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my $tmp = "$vars->{serverroot}/tmp";
my $top = File::Spec->rel2abs("$vars->{serverroot}/..");
my $conf = "$tmp/shm-balancer.conf";
my $flag = "$tmp/shm-hold.flag";
# This build's layout version (mod_pistats/pis_claim.h).
my $layout;
{
    open my $fh, '<', "$top/mod_pistats/pis_claim.h" or die "pis_claim.h: $!";
    while (<$fh>) {
        $layout = $1 if !defined $layout
                        && /^#define PIS_LAYOUT_VERSION (\d+)U/;
    }
}
my $log = PiLog->new(qr/resuming normal operations|PIS\d+|exit signal|Segmentation/);

sub parent_pid { return PiTest::parent_pid() }

# SIGUSR1, then wait (bounded) until the new generation serves.
sub graceful {
    my $before = $log->count(qr/resuming normal operations/);
    kill 'USR1', parent_pid();
    my $ok = wait_for(30, 0.1, sub {
        $log->count(qr/resuming normal operations/) > $before
    });
    Apache::TestRequest::module('pishm');
    return $ok && wait_for(15, 0.1, sub { GET('/pi-status?auto')->is_success });
}

sub own_members {
    my $doc = status_json('pishm');
    my ($b) = grep { $_->{name} eq 'balancer://own' } @{ $doc->{balancers} };
    return $b ? @{ $b->{members} } : ();
}

sub write_conf {
    my @members = @_;
    open my $fh, '>', $conf or die "$conf: $!";
    print $fh "<Proxy \"balancer://own\">\n";
    print $fh "    BalancerMember \"$_\"\n" for @members;
    print $fh "</Proxy>\nProxyPass \"/own/\" \"balancer://own/\"\n";
    close $fh;
}

# ---- the node: this test, on a port of its own --------------------------
my $node = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0,
                               Listen => 16, ReuseAddr => 1)
    or die "listen: $@";
my $np = $node->sockport;
open my $ffh, '>', $flag or die "$flag: $!";
close $ffh;
my $node_pid = fork // die "fork: $!";
if ($node_pid == 0) {
    # Answers each request; one for ".../hold" once the flag file is gone
    # (at most 60 s).  Lives at most 150 s.
    my $end = time + 150;
    my $sel = IO::Select->new($node);
    while (time < $end) {
        next unless $sel->can_read(0.5);
        my $c = $node->accept or next;
        next if fork;                      # the parent accepts on
        my $req = '';
        while ($req !~ /\r\n\r\n/) {
            last unless IO::Select->new($c)->can_read(10);
            last unless sysread($c, $req, 4096, length $req);
        }
        if ($req =~ /^GET \S*hold/) {
            my $hold_end = time + 60;
            sleep 0.05 while -e $flag && time < $hold_end;
        }
        print $c "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
               . "Content-Length: 3\r\n\r\nok\n";
        close $c;
        _exit(0);
    }
    _exit(0);
}
close $node;
$SIG{CHLD} = 'DEFAULT';

# ---- (1) an old generation's child and a slot that changed hands ------
write_conf("http://127.0.0.1:$np/a");
ok t_cmp(graceful() ? 1 : 0, 1, 'graceful restart: balancer://own with /a');

my $port = $cfg->{vhosts}{pishm}{port};
my $client = fork // die "fork: $!";
if ($client == 0) {
    my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port)
        or _exit(2);
    print $s "GET /own/hold HTTP/1.0\r\nHost: 127.0.0.1:$port\r\n"
           . "Connection: close\r\n\r\n";
    my $end = time + 90;
    my $res = '';
    while (time < $end) {
        next unless IO::Select->new($s)->can_read(1);
        my $n = sysread($s, $res, 4096, length $res);
        last unless $n;
    }
    _exit($res =~ /^HTTP\/1\.\d 200/ ? 0 : 1);
}
my $held = wait_for(20, 0.1, sub {
    my ($m) = own_members();
    return $m && $m->{inflight} == 1;
});
ok t_cmp($held ? 1 : 0, 1, 'a request to /a is in flight');

# /a leaves the configuration: its slot is given up ...
write_conf("http://127.0.0.1:$np/b");
ok t_cmp(graceful() ? 1 : 0, 1, 'graceful restart: /a removed');
# ... and taken: more members than there are slots, so every free slot
# (the one of /a among them) now belongs to one of them.
my $full0 = $log->count(qr/PIS10012/);
write_conf("http://127.0.0.1:$np/b",
           map { sprintf "http://127.0.0.1:%d/m%03d", $np, $_ } 1 .. 140);
ok t_cmp(graceful() ? 1 : 0, 1, 'graceful restart: 140 members added');
ok t_cmp($log->count(qr/PIS10012/) > $full0 ? 1 : 0, 1,
         'the table is full: every free slot was taken');

# The old child's request ends now.
unlink $flag;
my $status;
wait_for(60, 0.1, sub {
    my $r = waitpid($client, WNOHANG);
    $status = $? if $r == $client;
    return $r == $client;
});
ok t_cmp($status // -1, 0, 'the held request was answered');
my @touched = map { "$_->{name}: requests $_->{requests}, inflight $_->{inflight}" }
              grep { $_->{requests} != 0 || $_->{inflight} != 0 } own_members();
ok t_cmp(join('; ', @touched), '',
         "the old generation's child wrote into no member's slot");

unlink $conf;
ok t_cmp(graceful() ? 1 : 0, 1, 'graceful restart: balancer://own gone');
kill 'TERM', $node_pid;
waitpid($node_pid, 0);

# ---- (2) a graceful restart into another layout, and back ---------------
my $link = "$tmp/mod_pistats.so";
my $normal = readlink $link;
my $variant = "$tmp/layout/mod_pistats.so";
my $built = system('make', '-s', '-C', $top, 'pistats-layout') == 0;
ok t_cmp($built && -e $variant ? 1 : 0, 1, 'a build of another layout');

sub stats_requests {
    my $doc = status_json('pimaster');
    my ($b) = grep { $_->{name} eq 'balancer://stats' } @{ $doc->{balancers} };
    my ($req, $inflight) = (0, 0);
    for my $m (@{ $b->{members} }) {
        $req += $m->{requests};
        $inflight += $m->{inflight};
    }
    return "requests $req, inflight $inflight";
}

sub switch_to {
    my ($so) = @_;
    unlink $link;
    symlink $so, $link or die "link: $!";
    return graceful();
}

sub stats_get {
    my ($n) = @_;
    Apache::TestRequest::module('pimaster');
    my $ok = 0;
    for (1 .. $n) { $ok++ if GET('/stats/page.html')->code == 200 }
    return $ok;
}

stats_get(3);
my $maps0 = shm_mappings();
my $ev0 = $log->count(qr/PIS12601/);
my $crash0 = $log->count(qr/exit signal|Segmentation/);
my $notes0 = $log->count(qr/PIS11300/);
ok t_cmp(switch_to($variant) ? 1 : 0, 1, 'graceful restart into the other layout');
my @notes = $log->lines(qr/PIS11300/);
ok t_cmp(@notes > $notes0 ? $notes[-1] : '',
         qr/another layout version.*version $layout, .*this build: version 1003/,
         'notice: another layout, a new segment');
ok t_cmp(stats_requests(), 'requests 0, inflight 0',
         'the new build starts from zero (the old segment is not read)');
stats_get(4);
ok t_cmp(stats_requests(), 'requests 4, inflight 0', 'and counts right');

ok t_cmp(switch_to($normal) ? 1 : 0, 1, 'graceful restart back');
@notes = $log->lines(qr/PIS11300/);
ok t_cmp(@notes > $notes0 + 1 ? $notes[-1] : '',
         qr/version 1003, .*this build: version $layout\b/, 'notice again');
stats_get(2);
ok t_cmp(stats_requests(), 'requests 2, inflight 0', 'counts from zero again');
ok t_cmp($log->count(qr/exit signal|Segmentation/), $crash0, 'no crash');
ok t_cmp($log->count(qr/PIS12601/) - $ev0, 2,
         "the events ring remade at each switch (another layout's)");
# Each switch gives up the table and the events ring of the other layout:
# none stays mapped in the parent (bounded wait, 20 s, for the old
# generation's children to go; they keep their own mappings).
my $maps1;
wait_for(20, 0.2, sub { $maps1 = shm_mappings(); $maps1 <= $maps0 });
ok t_cmp($maps1 <= $maps0 ? 1 : 0, 1,
         "no segment kept by the parent ($maps0 -> $maps1 shared mappings)");
