# HTTP/2 clients: over h2c (cleartext, prior knowledge) and over h2 with
# TLS, the offload gzips for the client (decoded body identical, Vary,
# the node asked for identity), the balancer spreads the requests over
# its members, and /pi-status counts them.  Client: curl (HTTP2 feature).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Temp ();
use JSON::PP ();
use lib 't/lib';
use PiOffloadTest qw(gunzip_all htdocs);
use PiTest qw(wait_for);

my $curl_h2 = (`curl -V 2>/dev/null` // '') =~ /^Features:.*\bHTTP2\b/m;
plan tests => 2 * 12,
    need need_module('pibalance', 'pistats', 'proxy_balancer', 'http2',
                     'ssl'),
         { 'curl with HTTP2 (build/setup-deps.sh installs curl)' => $curl_h2 };

my $cfg = Apache::Test::config();
# Under prefork mod_http2 still serves h2c with prior knowledge, but
# offers no h2 in the TLS handshake (ALPN): clients fall back to HTTP/1.1.
my $prefork = ($cfg->{server}{mpm} // '') eq 'prefork';
my $vars = Apache::Test::vars();
my $cert = "$vars->{serverroot}/tmp/h2/cert.pem";
my $tmp = File::Temp::tempdir(CLEANUP => 1);
my $page = do {
    open my $fh, '<:raw', htdocs() . '/page.html' or die $!;
    local $/;
    <$fh>;
};

# GET $path over HTTP/2 from the front $vhost; returns (HTTP version,
# { lower-case header => value, repeats joined by ", " }, raw body).
sub h2_get {
    my ($vhost, $path, @hdr) = @_;
    my $port = $cfg->{vhosts}{$vhost}{port};
    my @mode = $vhost eq 'h2tls'
        ? ('--http2', '--cacert', $cert, "https://127.0.0.1:$port$path")
        : ('--http2-prior-knowledge', "http://127.0.0.1:$port$path");
    my @cmd = ('curl', '-s', '--max-time', '20', '-D', "$tmp/head",
               '-o', "$tmp/body", '-w', '%{http_version}',
               (map { ('-H', $_) } @hdr), @mode);
    open my $out, '-|', @cmd or die "curl: $!";
    my $version = <$out> // '';
    close $out;
    my %h;
    if (open my $fh, '<', "$tmp/head") {
        while (my $l = <$fh>) {
            $l =~ s/\r?\n$//;
            next unless $l =~ /^([^:\s]+):\s*(.*)$/;
            my $k = lc $1;
            $h{$k} = defined $h{$k} ? "$h{$k}, $2" : $2;
        }
    }
    my $body = '';
    if (open my $fh, '<:raw', "$tmp/body") {
        local $/;
        $body = <$fh> // '';
    }
    unlink "$tmp/head", "$tmp/body";
    return ($version, \%h, $body);
}

# Requests the members of balancer $b have counted, as the front's
# /pi-status?json (fetched over HTTP/2 too) says.
sub counted {
    my ($vhost, $b) = @_;
    my ($v, $h, $body) = h2_get($vhost, '/pi-status?json');
    my $doc = eval { JSON::PP->new->utf8->decode($body) } or return -1;
    my $n = 0;
    for my $bal (grep { $_->{name} eq $b } @{ $doc->{balancers} }) {
        $n += $_->{requests} // 0 for @{ $bal->{members} };
    }
    return $n;
}

for my $front (qw(h2cfront h2tls)) {
    my $b = $front eq 'h2tls' ? 'balancer://h2tls' : 'balancer://h2c';
    my $n0 = counted($front, $b);

    my ($v, $h, $body) = h2_get($front, '/page.html',
                                'Accept-Encoding: gzip');
    if ($front eq 'h2tls' && $prefork) {
        # The rest of this pass then runs over HTTP/1.1 with TLS.
        skip 'mod_http2 does not negotiate h2 over TLS under prefork'
             . ' (AH10034)';
    }
    else {
        ok t_cmp($v, '2', "$front: the client spoke HTTP/2");
    }
    ok t_cmp($h->{'content-encoding'} // '', 'gzip', "$front: gzip");
    ok t_cmp(($h->{vary} // '') =~ /\baccept-encoding\b/i ? 1 : 0, 1,
             "$front: Vary: Accept-Encoding");
    my ($complete, $plain) = gunzip_all($body);
    ok t_cmp($complete && $plain eq $page ? 1 : 0, 1,
             "$front: decodes to the node's page (" . length($body)
             . ' of ' . length($page) . ' bytes)');
    ok t_cmp($h->{'x-upstream-ae'} // '', '',
             "$front: the node was not asked to compress");

    ($v, $h, $body) = h2_get($front, '/page.html');
    ok t_cmp(!defined $h->{'content-encoding'} && $body eq $page ? 1 : 0,
             1, "$front: no Accept-Encoding: identity, whole");

    # A body of unknown length, sent in flushed pieces: streamed (zlib).
    ($v, $h, $body) = h2_get($front, '/chunked?n=100000',
                             'Accept-Encoding: gzip');
    ($complete, $plain) = gunzip_all($body);
    my $line = "<tr><td>chunked</td><td>0123456789</td></tr>\n";
    my $want_body = substr($line x (int(100000 / length $line) + 1), 0,
                           100000);
    ok t_cmp(($h->{'content-encoding'} // '') eq 'gzip' && $complete
             && $plain eq $want_body ? 1 : 0, 1,
             "$front: a streamed body decodes whole");

    # HEAD: the headers a GET would get, no body.
    my @head = ('curl', '-s', '--max-time', '20', '-I', '-H',
                'Accept-Encoding: gzip',
                $front eq 'h2tls'
                ? ('--http2', '--cacert', $cert, 'https://127.0.0.1:'
                   . $cfg->{vhosts}{$front}{port} . '/page.html')
                : ('--http2-prior-knowledge', 'http://127.0.0.1:'
                   . $cfg->{vhosts}{$front}{port} . '/page.html'));
    my $hh = do { open my $o, '-|', @head or die $!; local $/; <$o> } // '';
    ok t_cmp($hh =~ /^content-encoding:\s*gzip\r?$/mi ? 1 : 0, 1,
             "$front: HEAD says gzip, as GET does");
    ok t_cmp($hh =~ /^vary:.*accept-encoding/mi ? 1 : 0, 1,
             "$front: HEAD has Vary");

    my %node;
    for (1 .. 20) {
        ($v, $h) = h2_get($front, '/page.html', 'Accept-Encoding: gzip');
        $node{ $h->{'x-node'} // "HTTP/$v" }++;
    }
    my $min = 20;
    for (qw(h2node1 h2node2)) {
        $min = $node{$_} // 0 if ($node{$_} // 0) < $min;
    }
    ok t_cmp($min >= 4 ? 1 : 0, 1, "$front: spread over both members ("
             . join(' ', map { "$_=$node{$_}" } sort keys %node) . ')');

    my $want = $n0 + 24;
    my $got = wait_for(10, 0.2, sub {
        my $n = counted($front, $b);
        return $n == $want ? $n : undef;
    }) // counted($front, $b);
    ok t_cmp($got, $want, "$front: /pi-status counts the 24 requests");
    ok t_cmp($n0 >= 0 ? 1 : 0, 1, "$front: /pi-status?json over HTTP/2");
}
