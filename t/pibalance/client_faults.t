# A client's fault is never the member's (issue 28 item 4): a request
# that fails because the client aborted, garbled or stopped sending its
# body -- mod_proxy_http's own 400 or 408 while it streams the body, a
# client silent after "Expect: 100-continue" -- gives
# the member no failure sample in the balancer and no proxy error in
# mod_pistats; it is counted as a client error.  And while a client is
# still sending (or not sending) its body, the member is not "silent":
# the node cannot answer a request it has not received.  (413 is the
# same rule, common/pi_outcome.h, unit-tested: httpd 2.4 does not apply
# LimitRequestBody to a body it proxies, so no 413 shape is made here.)
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);
use lib 't/lib';
use PiResponder ();
use PiTest qw(status_json member wait_for);

plan tests => 22, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $vars = Apache::Test::config()->{vars};
my $cfg = Apache::Test::config();
my $master = $cfg->{vhosts}{fmaster}{port};
my $B = 'balancer://body';
my $port;
{
    my $conf = "$vars->{t_conf}/faults.conf";
    open my $fh, '<', $conf or die "$conf: $!";
    while (<$fh>) {
        $port = $1 if /^\s*Define\s+PIB_BODY_PORT\s+(\d+)/;
    }
}

my $log = "$vars->{t_logs}/body-responder.log";
unlink $log;
my $pid = PiResponder::start($vars->{t_dir}, 'http', $port, 300, $log, 'body');
END { local $?; PiResponder::stop($pid) }

sub body_member { return member(status_json('fmaster'), $B, $port) }

# A raw connection to the master.
sub connect_master {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$master",
                                  Timeout => 10);
    die "connect: $!" unless $s;
    return $s;
}

# Reads from $s until a final status line came (a "100 Continue" is
# skipped and reported), EOF, or $secs passed; returns (status, saw_100).
sub read_status {
    my ($s, $secs) = @_;
    my ($buf, $saw100) = ('', 0);
    my $sel = IO::Select->new($s);
    my $end = time + $secs;
    while (time < $end) {
        last unless $sel->can_read($end - time);
        my $n = sysread $s, $buf, 4096, length $buf;
        last unless $n;
        $saw100 = 1 if $buf =~ s{^HTTP/1\.1 100[^\r\n]*\r\n\r\n}{};
        return ($1, $saw100) if $buf =~ m{^HTTP/1\.\d (\d{3})};
    }
    return ('none', $saw100);
}

sub head_of {
    my ($path, @h) = @_;
    return join("\r\n", "POST $path HTTP/1.1", "Host: 127.0.0.1:$master",
                @h) . "\r\n\r\n";
}

# The member's counters once the request in flight has ended (bounded:
# 30 s; a request is counted when it ends).
sub settled {
    my ($requests) = @_;
    my $m;
    wait_for(30, 0.1, sub {
        $m = body_member();
        return $m && $m->{requests} >= $requests && $m->{inflight} == 0;
    });
    return $m;
}

# ---- a whole body: the member's answer -------------------------------------
Apache::TestRequest::module('fmaster');
my $res = POST('/body/upload', content => 'x' x 20000);
ok t_cmp($res->code, 200, 'a whole 20000-byte body: 200');
ok t_cmp($res->content, "got 20000 bytes\n", 'the node read it all');
my $m = settled(1);
my ($req0, $err0, $cli0) = map { $m->{$_} // 0 }
                           qw(requests proxy_errors client_errors);
ok t_cmp($m->{last_attempt_failed} ? 1 : 0, 0, 'its attempt did not fail');
my $est0 = $m->{estimate_ms};
ok t_cmp(defined $est0 ? 1 : 0, 1,
         'the balancer has its estimate (' . ($est0 // 'none') . ' ms)');

# ---- the client aborts halfway through its body ---------------------------
my $s = connect_master();
print $s head_of('/body/upload', 'Content-Length: 100000');
print $s 'a' x 1000;
close $s;
$m = settled($req0 + 1);
ok t_cmp($m->{requests}, $req0 + 1, 'aborted body: one request more');

# ---- a garbled chunked body -----------------------------------------------
$s = connect_master();
print $s head_of('/body/upload', 'Transfer-Encoding: chunked');
print $s "zz\r\nnot a chunk\r\n";
my ($st) = read_status($s, 30);
close $s;
ok t_cmp($st, 400, 'garbled chunked body: 400');

# ---- a client that stops sending: 408, and the member is never silent -----
$s = connect_master();
print $s head_of('/body/upload', 'Content-Length: 100000');
print $s 'c' x 1000;
my %seen;
my $t0 = time;
my $sel = IO::Select->new($s);
# While the master waits for the rest (its body timeout, 3 s), the member's
# state on /pi-status: never "silent" (bounded: 30 s).
while (time - $t0 < 30 && !$sel->can_read(0.1)) {
    my $mm = body_member();
    $seen{ $mm->{thermal_state} // 'none' }++ if $mm;
}
($st) = read_status($s, 30);
close $s;
ok t_cmp($st, 408, 'a body that stops coming: 408');
ok t_cmp($seen{silent} // 0, 0,
         'the member was never silent meanwhile ('
         . join(', ', map { "$_ $seen{$_}" } sort keys %seen) . ')');
ok t_cmp(scalar(keys %seen) > 0 ? 1 : 0, 1, 'its state was read meanwhile');

# ---- Expect: 100-continue, then silence ------------------------------------
$s = connect_master();
print $s head_of('/body/upload', 'Content-Length: 5000',
                 'Expect: 100-continue');
my ($st100, $saw100) = read_status($s, 30);
close $s;
ok t_cmp($saw100, 1, 'Expect: 100-continue: the client got 100 Continue');
ok t_cmp($st100, 408, 'then a silent client: 408');

# ---- what was counted ------------------------------------------------------
$m = settled($req0 + 4);
ok t_cmp($m->{requests}, $req0 + 4, 'four requests more');
ok t_cmp($m->{proxy_errors} // 0, $err0, 'none of them a proxy error');
ok t_cmp(($m->{client_errors} // 0) - $cli0, 4, 'four client errors');
ok t_cmp($m->{responses}{'5xx'} // 0, 0, 'no 5xx');
ok t_cmp($m->{last_attempt_failed} ? 1 : 0, 0,
         'the balancer saw no failed attempt');
my $est = $m->{estimate_ms};
# A failure sample would be at least 1 s (PIB_FAIL_MIN_US), never lower
# the estimate, and a client's stall would be a sample of 3 s: the
# estimate stays below both, whatever the machine's speed.
ok t_cmp(defined $est && $est < 1000 ? 1 : 0, 1,
         "the estimate is no failure's nor the stall's ("
         . ($est // 'none') . ' ms)');

# ---- the member still serves, and is not avoided --------------------------
Apache::TestRequest::module('fmaster');
$res = POST('/body/upload', content => 'y' x 3000);
ok t_cmp($res->code, 200, 'then a whole body again: 200');
$m = settled($req0 + 5);
ok t_cmp($m->{thermal_state} // '', qr/^(ok|stale)$/,
         'its state: not silent, not failed');

# The responder saw the whole bodies and none of the broken ones whole.
open my $fh, '<', $log or die "$log: $!";
my @got = grep { /body=\d+/ && !/pi-status/ } <$fh>;
close $fh;
ok t_cmp(scalar(grep { /body=20000$/ } @got), 1, 'the node got the 20000');
ok t_cmp(scalar(grep { /body=3000$/ } @got), 1, 'and the 3000');
ok t_cmp(join(',', sort map { /body=(\d+)$/ ? $1 : () } @got), '20000,3000',
         'and no other body: none of the broken ones whole');
