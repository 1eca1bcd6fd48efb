package PiStream;
# Server-side handlers of simulated nodes that answer at once and then
# take long (mod_perl): an SSE stream, a WebSocket that holds its tunnel,
# and a page that fails with the node's own 500 (t/pibalance/streams.t).
use strict;
use warnings;

use Apache2::RequestRec ();
use Apache2::RequestIO ();
use Apache2::RequestUtil ();
use Apache2::Connection ();
use APR::Table ();
use Apache2::Const -compile => qw(OK SERVER_ERROR CONN_CLOSE);
use Time::HiRes ();

# Server-sent events: the headers at once, then an event every 0.5 s for
# 4 s.
sub sse {
    my $r = shift;
    $r->content_type('text/event-stream');
    $r->headers_out->set('Cache-Control' => 'no-cache');
    $r->rflush;
    for my $i (1 .. 8) {
        $r->print("data: event $i\n\n");
        $r->rflush;
        Time::HiRes::sleep(0.5);
    }
    return Apache2::Const::OK;
}

# A WebSocket handshake answered at once with 101, then the tunnel held
# open (silent) for 3 s and closed.  The 101 is written raw (assbackwards:
# httpd adds no status line or headers of its own).
sub websocket {
    my $r = shift;
    my $node = $r->dir_config('PiNodeName') // 'unknown';
    $r->assbackwards(1);
    $r->connection->keepalive(Apache2::Const::CONN_CLOSE);
    $r->print("HTTP/1.1 101 Switching Protocols\r\n"
              . "Upgrade: websocket\r\nConnection: Upgrade\r\n"
              . "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
              . "X-Node: $node\r\n\r\n");
    $r->rflush;
    Time::HiRes::sleep(3);
    return Apache2::Const::OK;
}

# The node's own 500.
sub fail {
    return Apache2::Const::SERVER_ERROR;
}

1;
