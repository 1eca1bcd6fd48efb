#!/usr/bin/perl
# t/bin/ajp-responder.pl PORT SECONDS [PARENT_PID]
#
# A minimal AJP13 container (Perl core only) for t/offload/nonhttp.t:
# listens on 127.0.0.1:PORT, answers every forwarded request with the same
# 3000-byte text/html page (PiResponder::page('ajp')), in several body
# chunks, with a strong ETag and Content-Length, and tells what it received
# -- the accept-encoding header (coded 0xA003, or spelt out) and
# If-None-Match -- in X-Seen-* response headers and in one log line a
# request (stderr).  Like Tomcat it answers If-None-Match itself (304), and
# HEAD without a body.  Connections are persistent: END_RESPONSE says
# "reuse", and CPING gets CPONG.  Exits after SECONDS, or once PARENT_PID is
# gone.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use PiResponder ();

use constant {
    FORWARD_REQUEST => 2, SEND_BODY_CHUNK => 3, SEND_HEADERS => 4,
    END_RESPONSE => 5, GET_BODY_CHUNK => 6, SHUTDOWN => 7, CPONG => 9,
    CPING => 10, M_HEAD => 3, A_REQ_ATTRIBUTE => 10, A_SSL_KEY_SIZE => 11,
    A_ARE_DONE => 0xFF,
};
# Request header codes (ajp_header.h: SC_ACCEPT ... SC_USER_AGENT).
my %REQ_HEADER = (
    0xA001 => 'accept', 0xA002 => 'accept-charset',
    0xA003 => 'accept-encoding', 0xA004 => 'accept-language',
    0xA005 => 'authorization', 0xA006 => 'connection',
    0xA007 => 'content-type', 0xA008 => 'content-length',
    0xA009 => 'cookie', 0xA00A => 'cookie2', 0xA00B => 'host',
    0xA00C => 'pragma', 0xA00D => 'referer', 0xA00E => 'user-agent',
);

my ($port, $seconds, $parent) = @ARGV;
die "usage: $0 PORT SECONDS [PARENT_PID]\n"
    unless defined $seconds && $port =~ /^\d+$/ && $seconds =~ /^\d+$/;

my $page = PiResponder::page('ajp');
my $etag = PiResponder::etag('ajp');

sub packet { return 'AB' . pack('n', length $_[0]) . $_[0] }
sub astring { return pack('n', length $_[0]) . $_[0] . "\0" }

# The forward-request packet as {method, uri, headers => {lc name => [v]}}.
sub parse_request {
    my ($pkt) = @_;
    my $p = 1;
    my $u8  = sub { my $v = ord substr($pkt, $p, 1); $p += 1; $v };
    my $u16 = sub { my $v = unpack 'n', substr($pkt, $p, 2); $p += 2; $v };
    my $str = sub {
        my $l = $u16->();
        return undef if $l == 0xFFFF;
        my $s = substr($pkt, $p, $l);
        $p += $l + 1;
        return $s;
    };
    my %r = (method => $u8->());
    $r{protocol} = $str->();
    $r{uri} = $str->();
    $str->() for 1 .. 3;                # remote addr, remote host, server
    $u16->();                           # server port
    $u8->();                            # is_ssl
    my $nh = $u16->();
    for (1 .. $nh) {
        my $code = unpack 'n', substr($pkt, $p, 2);
        my $name;
        if (($code & 0xFF00) == 0xA000) {
            $p += 2;
            $name = $REQ_HEADER{$code} // sprintf('sc-%04x', $code);
        }
        else {
            $name = lc $str->();
        }
        push @{ $r{headers}{$name} }, $str->() // '';
    }
    while ($p < length $pkt) {          # attributes
        my $a = $u8->();
        last if $a == A_ARE_DONE;
        if ($a == A_REQ_ATTRIBUTE) { $str->(); $str->() }
        elsif ($a == A_SSL_KEY_SIZE) { $u16->() }
        else { $r{attr}{$a} = $str->() }
    }
    return \%r;
}

sub header_value {
    my ($r, $name) = @_;
    my $v = $r->{headers}{$name};
    return $v ? join(', ', @$v) : undef;
}

sub respond {
    my ($st, $r) = @_;
    my $ae  = header_value($r, 'accept-encoding') // '(none)';
    my $inm = header_value($r, 'if-none-match') // '(none)';
    $st->{n}++;
    PiResponder::note('conn=%d req=%d method=%d %s ae=[%s] inm=[%s]',
                      $st->{id}, $st->{n}, $r->{method}, $r->{uri} // '-',
                      $ae, $inm);
    my $match = $inm ne '(none)'
        && grep { $_ eq '*' || $_ eq $etag || $_ eq "W/$etag" }
                map { s/^\s+|\s+$//gr } split /,/, $inm;
    my ($status, $msg) = $match ? (304, 'Not Modified') : (200, 'OK');
    my @h = (['ETag', $etag], ['X-Backend', 'ajp'], ['X-Seen-AE', $ae],
             ['X-Seen-INM', $inm], ['X-Conn', "$st->{id}/$st->{n}"]);
    unshift @h, ['Content-Type', 'text/html; charset=utf-8'],
                ['Content-Length', length $page] if $status == 200;
    my $out = packet(pack('Cn', SEND_HEADERS, $status) . astring($msg)
                     . pack('n', scalar @h)
                     . join('', map { astring($_->[0]) . astring($_->[1]) }
                                    @h));
    if ($status == 200 && $r->{method} != M_HEAD) {
        for (my $off = 0; $off < length $page; $off += 1024) {
            my $chunk = substr($page, $off, 1024);
            $out .= packet(pack('Cn', SEND_BODY_CHUNK, length $chunk)
                           . $chunk . "\0");
        }
    }
    return $out . packet(pack('CC', END_RESPONSE, 1));
}

sub handler {
    my ($st) = @_;
    my $out = '';
    while (length $st->{in} >= 4) {
        my ($magic, $len) = unpack 'nn', $st->{in};
        if ($magic != 0x1234) {
            PiResponder::note('conn=%d: not AJP13 (magic %04x)',
                              $st->{id}, $magic);
            $st->{close} = 1;
            last;
        }
        last if length $st->{in} < 4 + $len;
        my $pkt = substr($st->{in}, 4, $len);
        substr($st->{in}, 0, 4 + $len) = '';
        if ($st->{body_left}) {        # a request body chunk: not used
            my $n = unpack 'n', $pkt;
            $st->{body_left} -= $n;
            if ($n == 0 || $st->{body_left} <= 0) {
                $st->{body_left} = 0;
                $out .= respond($st, delete $st->{pending});
            }
            else {
                $out .= packet(pack('Cn', GET_BODY_CHUNK, 8186));
            }
            next;
        }
        my $type = ord $pkt;
        if ($type == FORWARD_REQUEST) {
            my $r = parse_request($pkt);
            my $cl = header_value($r, 'content-length') // 0;
            if ($cl =~ /^\d+$/ && $cl > 0) {   # the first chunk follows
                $st->{body_left} = $cl;
                $st->{pending} = $r;
                next;
            }
            $out .= respond($st, $r);
        }
        elsif ($type == CPING) {
            $out .= packet(pack('C', CPONG));
        }
        elsif ($type == SHUTDOWN) {
            $st->{close} = 1;
            last;
        }
    }
    return $out;
}

exit PiResponder::serve(port => $port, seconds => $seconds,
                        parent => $parent, handler => \&handler);
