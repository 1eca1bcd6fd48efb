package PiOffload;
# mod_perl response handlers of the offload node vhost (t/conf/offload.conf.in).
use strict;
use warnings FATAL => 'all';

use Apache2::RequestRec ();
use Apache2::RequestIO ();
use Apache2::RequestUtil ();
use Apache2::Connection ();
use Apache2::Response ();
use Apache2::Const -compile => qw(OK NOT_FOUND CONN_CLOSE);
use Time::HiRes ();
use PiPaced qw(paced_body);

# Server-sent events, each flushed at once: five events 200 ms apart; or,
# with ?id=X, in lockstep with the client: event i+1 is sent only once
# the client has created PiSseDir/X-i (it has decoded event i), waiting
# at most 10 s for it.  Lockstep makes "each event is decodable before
# the next is sent" a fact the test checks, whatever the machine's speed.
sub sse {
    my $r = shift;
    my ($id) = ($r->args // '') =~ /id=(\w+)/;
    my $dir = $r->dir_config('PiSseDir');
    $r->content_type('text/event-stream');
    for my $i (1 .. 5) {
        $r->print("data: event $i " . ('x' x 40) . "\n\n");
        $r->rflush;
        if (!defined $id) {
            Time::HiRes::sleep(0.2);
            next;
        }
        my $end = Time::HiRes::time() + 10;
        Time::HiRes::sleep(0.01)
            until -e "$dir/$id-$i" || Time::HiRes::time() > $end;
    }
    return Apache2::Const::OK;
}

# Announces 100000 bytes, sends 30000, closes the connection.
sub dies {
    my $r = shift;
    $r->content_type('text/html');
    $r->set_content_length(100000);
    $r->print('<p>partial</p>' . ('a' x (30000 - 14)));
    $r->rflush;
    $r->connection->keepalive(Apache2::Const::CONN_CLOSE);
    return Apache2::Const::OK;
}

# A body of unknown length (chunked): ?n bytes, in pieces.
sub chunked {
    my $r = shift;
    my ($n) = ($r->args // '') =~ /n=(\d+)/;
    $n //= 100000;
    $r->content_type('text/html');
    my $line = "<tr><td>chunked</td><td>0123456789</td></tr>\n";
    my $body = substr($line x (int($n / length $line) + 1), 0, $n);
    for (my $off = 0; $off < $n; $off += 7000) {
        $r->print(substr($body, $off, 7000));
        $r->rflush;
    }
    return Apache2::Const::OK;
}

# A body of known length sent in pieces with pauses, as a node on a real
# network looks to mod_proxy: /paced/<bytes>/<pieces>/<pause ms>.
sub paced {
    my $r = shift;
    my ($n, $parts, $ms) = $r->uri =~ m{/paced/(\d+)/(\d+)/(\d+)}
        or return Apache2::Const::NOT_FOUND;
    my $body = paced_body($n);
    my $step = int(($n + $parts - 1) / $parts);
    $r->content_type('text/html');
    $r->set_content_length($n);
    for (my $off = 0; $off < $n; $off += $step) {
        Time::HiRes::sleep($ms / 1000) if $off > 0;
        $r->print(substr($body, $off, $step));
        $r->rflush;
    }
    return Apache2::Const::OK;
}

1;
