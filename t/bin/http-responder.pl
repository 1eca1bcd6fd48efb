#!/usr/bin/perl
# t/bin/http-responder.pl PORT SECONDS [PARENT_PID] [NAME]
#
# A minimal HTTP/1.1 node (Perl core only) for the tests of members that
# fail and come back and of clients that break their own requests
# (t/pibalance/member_down.t, t/pibalance/client_faults.t): listens on
# 127.0.0.1:PORT and answers every request, once its body is in
# (Content-Length or chunked), with 200, "X-Node: NAME" (default
# "responder") and a body that says how many body bytes came.  A request
# with "Expect: 100-continue" gets "100 Continue" first, as a node's
# server sends it.  GET /pi-status?auto answers the node telemetry of
# docs/telemetry.md (40.0 C, not throttled).  One request per connection (Connection: close).  Logs
# a line a request (stderr).  Exits after SECONDS, or once PARENT_PID is
# gone.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use PiResponder ();

my ($port, $seconds, $parent, $name) = @ARGV;
die "usage: $0 PORT SECONDS [PARENT_PID] [NAME]\n"
    unless defined $seconds && $port =~ /^\d+$/ && $seconds =~ /^\d+$/;
$name //= 'responder';

# The body's length once all of it is in $in (after the head), else undef.
sub body_in {
    my ($head, $in) = @_;
    if ($head =~ /^Transfer-Encoding:\s*chunked/mi) {
        my ($len, $pos) = (0, 0);
        while ($in =~ /\G([0-9a-fA-F]+)[^\r\n]*\r\n/gc) {
            my $n = hex $1;
            $pos = pos($in) + $n + 2;
            return undef if length($in) < $pos;
            return $len if $n == 0 && substr($in, $pos - 2) =~ /^\r\n/;
            $len += $n;
            pos($in) = $pos;
        }
        return undef;
    }
    my ($cl) = $head =~ /^Content-Length:\s*(\d+)/mi;
    $cl //= 0;
    return length($in) >= $cl ? $cl : undef;
}

sub handle {
    my ($st) = @_;
    if (!defined $st->{head}) {
        my $end = index $st->{in}, "\r\n\r\n";
        return '' if $end < 0;
        $st->{head} = substr $st->{in}, 0, $end + 2;
        substr($st->{in}, 0, $end + 4) = '';
        $st->{n}++;
        if ($st->{head} =~ /^Expect:\s*100-continue/mi) {
            PiResponder::note('conn=%d 100 Continue', $st->{id});
            my $out = "HTTP/1.1 100 Continue\r\n\r\n";
            my $len = body_in($st->{head}, $st->{in});
            return $out unless defined $len;
            return $out . answer($st, $len);
        }
    }
    my $len = body_in($st->{head}, $st->{in});
    return defined $len ? answer($st, $len) : '';
}

sub answer {
    my ($st, $len) = @_;
    my ($line) = $st->{head} =~ /^([^\r\n]*)/;
    PiResponder::note('conn=%d %s body=%d', $st->{id}, $line, $len);
    my $body = $line =~ m{^GET /pi-status}
        ? "Node: $name\nTemperatureC: 40.0\nThrottled: 0x0\nLoad1: 0.10\n"
          . "CPUs: 4\nMemAvailableKB: 100000\nUptimeS: 100\n"
        : "got $len bytes\n";
    $st->{close} = 1;
    return "HTTP/1.1 200 OK\r\nX-Node: $name\r\nContent-Type: text/plain\r\n"
         . "Content-Length: " . length($body) . "\r\n"
         . "Connection: close\r\n\r\n$body";
}

exit PiResponder::serve(port => $port, seconds => $seconds,
                        parent => $parent, handler => \&handle);
