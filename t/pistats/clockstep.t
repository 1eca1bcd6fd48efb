# A step of the wall clock (a Raspberry Pi has no real-time clock: it
# boots with the time it last saved and NTP steps it minutes or days
# later) never makes telemetry look days old or new, never turns a
# request in flight into a sample of a day, and never makes the server's
# uptime wrap (issue 28 item 6): every age comes from the monotonic
# clock.  A master of its own (PiStandalone) runs under libfaketime,
# whose offset of CLOCK_REALTIME this test steps a day back and two days
# forward; CLOCK_MONOTONIC is left alone.  Its nodes are the suite's
# inhhot (60 C) and inhcool (40 C), and a member this test answers by
# hand.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use IO::Select;
use IO::Socket::INET;
use JSON::PP ();
use LWP::UserAgent;
use Time::HiRes qw(time sleep);
use lib 't/lib';
use PiStandalone qw(standalone_start standalone_stop);
use PiTest qw(member wait_for);

plan tests => 16, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(inhhot inhcool);
my ($faketime) = glob('/usr/lib/*/faketime/libfaketime.so.1');
die "libfaketime is missing: build/setup-deps.sh installs it\n"
    unless $faketime;

my $offset = "$vars->{serverroot}/tmp/clockstep.offset";
sub set_offset {
    open my $fh, '>', "$offset.new" or die "$offset: $!";
    print $fh "$_[0]\n";
    close $fh;
    chmod 0644, "$offset.new";
    rename "$offset.new", $offset or die "$offset: $!";
}
set_offset('+0');

# The member this test answers itself.
my $held = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                 Listen => 4, ReuseAddr => 1)
    or die "listen: $!";
my $hport = $held->sockport;
my $top = $vars->{top_dir};

my $h = standalone_start(<<"CONF", env => {
LoadModule pistats_module "$top/mod_pistats/mod_pistats.so"
PiStatsProbeInterval 500ms
PiStatsProbeTimeout 300ms
<Proxy "balancer://ck">
    BalancerMember "http://127.0.0.1:$port{inhhot}"
    BalancerMember "http://127.0.0.1:$port{inhcool}"
    ProxySet lbmethod=pi
    PiBalanceThermal 45 50
</Proxy>
<Proxy "balancer://held">
    BalancerMember "http://127.0.0.1:$hport" timeout=300
    ProxySet lbmethod=pi
</Proxy>
ProxyPass "/pi-status" "!"
ProxyPass "/ck/" "balancer://ck/"
ProxyPass "/held/" "balancer://held/"
<Location "/pi-status">
    SetHandler pi-status
</Location>
CONF
    LD_PRELOAD => $faketime, FAKETIME_TIMESTAMP_FILE => $offset,
    FAKETIME_NO_CACHE => 1, FAKETIME_DONT_FAKE_MONOTONIC => 1 });
END { standalone_stop($h) if $h }
ok t_cmp($h->{rc}, 0, 'a master under libfaketime starts: ' . $h->{out});

my $ua = LWP::UserAgent->new(timeout => 30);
my $base = "http://127.0.0.1:$h->{port}";
sub doc {
    my $res = $ua->get("$base/pi-status?json");
    return $res->is_success ? JSON::PP->new->utf8->decode($res->content)
                            : undef;
}
sub hot { my $d = doc(); return $d ? member($d, 'balancer://ck', $port{inhhot}) : undef }
sub node_of { my $r = $ua->get("$base/ck/page.html"); return $r->header('X-Node') // 'status ' . $r->code }

# The hot member drained, its telemetry fresh (bounded: 30 s).
my $m = wait_for(30, 0.1, sub {
    node_of();
    my $x = hot();
    return $x && !$x->{telemetry_stale}
           && ($x->{thermal_state} // '') eq 'drained' ? $x : undef;
});
ok t_cmp($m ? 1 : 0, 1, 'inhhot (60 C, hard limit 50) drained, fresh');

# Over 4 s (8 probe intervals) after a step, requests and reads of the
# page: the hot member gets none, its telemetry is never old nor stale,
# it is never re-admitted; the server's uptime stays under a day.
sub watch_after_step {
    my ($what) = @_;
    my %c;
    my ($worst_age, $stale, $uptime, $n) = (0, 0, 0, 0);
    my $t0 = time;
    while (time - $t0 < 4 && $n < 400) {
        $c{ node_of() }++;
        my $d = doc() or next;
        my $x = member($d, 'balancer://ck', $port{inhhot});
        $worst_age = $x->{telemetry_age_s}
            if defined $x->{telemetry_age_s} && $x->{telemetry_age_s} > $worst_age;
        $stale++ if $x->{telemetry_stale};
        $uptime = $d->{server}{uptime_s} if $d->{server}{uptime_s} > $uptime;
        $n++;
    }
    ok t_cmp($c{inhhot} // 0, 0, "$what: no request to the hot member ("
             . join(', ', map { "$_ $c{$_}" } sort keys %c) . ')');
    ok t_cmp($worst_age < 3 ? 1 : 0, 1,
             "$what: its telemetry at most $worst_age s old");
    ok t_cmp($stale, 0, "$what: never stale ($n reads)");
    ok t_cmp($uptime < 86400 ? 1 : 0, 1, "$what: uptime $uptime s");
}

set_offset('-1d');
watch_after_step('a day back');
set_offset('+1d');
watch_after_step('two days forward');

my @ev = grep { ($_->{member} // '') =~ /:\Q$port{inhhot}\E\/?$/ }
         @{ (doc() // {})->{events} // [] };
ok t_cmp(join(',', map { $_->{event} } @ev), 'drained',
         'its events: drained, nothing after the steps');

# A request in flight across a step: its sample is the seconds it took,
# not the day the wall clock moved.
my $client = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$h->{port}",
                                   Timeout => 10) or die "connect: $!";
print $client "GET /held/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
# The proxied request, among the probe's (bounded: 30 s).
my $sel = IO::Select->new($held);
my ($conn, $end) = (undef, time + 30);
while (!$conn && time < $end && $sel->can_read($end - time)) {
    my $c = $held->accept or next;
    my $head = '';
    my $cs = IO::Select->new($c);
    while ($head !~ /\r\n\r\n/ && $cs->can_read(10)) {
        last unless sysread $c, $head, 4096, length $head;
    }
    if ($head =~ m{^GET /x }) { $conn = $c } else { close $c }
}
ok t_cmp($conn ? 1 : 0, 1, 'the master sent the request to the held member');
my $t0 = time;
set_offset('+3d');
# Until the master's clock has moved (its page's "now"): bounded, 30 s.
wait_for(30, 0.1, sub {
    my $d = doc();
    return $d && $d->{server}{now} > time + 2.5 * 86400;
});
if ($conn) {
    my $body = "held\n";
    print $conn "HTTP/1.1 200 OK\r\nContent-Length: " . length($body)
              . "\r\nConnection: close\r\n\r\n$body";
    close $conn;
}
my $answer = '';
my $csel = IO::Select->new($client);
while ($csel->can_read(30)) {
    last unless sysread $client, $answer, 4096, length $answer;
    last if $answer =~ /held\n/;
}
my $took = time - $t0;
ok t_cmp($answer, qr/^HTTP\/1\.1 200.*held\n/s, 'answered');
my $x;
wait_for(30, 0.1, sub {
    $x = member(doc() // {}, 'balancer://held', $hport);
    return $x && ($x->{requests} // 0) >= 1;
});
ok t_cmp(defined $x->{estimate_ms} && $x->{estimate_ms} < 1000 * ($took + 30)
         ? 1 : 0, 1, "lbmethod pi's sample: "
         . ($x->{estimate_ms} // 'none') . " ms, not a day (took ${took} s)");
ok t_cmp(defined $x->{response_time_ms}{ewma}
         && $x->{response_time_ms}{ewma} < 1000 * ($took + 30) ? 1 : 0, 1,
         "mod_pistats' response time: " . ($x->{response_time_ms}{ewma} // 'none')
         . ' ms');

standalone_stop($h);
my $crash = 0;
if (open my $fh, '<', "$h->{dir}/error_log") {
    $crash = grep { /exit signal|Segmentation/ } <$fh>;
}
ok t_cmp($crash, 0, 'no child crashed');
undef $h;
