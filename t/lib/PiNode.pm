package PiNode;
# Server-side handlers of misbehaving simulated nodes (mod_perl).
use strict;
use warnings;

use Apache2::RequestRec ();
use Apache2::RequestIO ();
use Apache2::RequestUtil ();
use Apache2::Const -compile => qw(OK);

# Accepts the request and never answers (for 2 s: bounded, so the
# server's threads come back).
sub hang {
    my $r = shift;
    sleep 2;
    return Apache2::Const::OK;
}

# A page at once, or after 3 s when the query string says "hang".
sub maybe_hang {
    my $r = shift;
    sleep 3 if ($r->args // '') =~ /\bhang\b/;
    $r->content_type('text/html');
    $r->print("page\n");
    return Apache2::Const::OK;
}

# Telemetry, or no answer for 1 s while the file PiHangFlag exists.
sub telemetry_or_hang {
    my $r = shift;
    my $flag = $r->dir_config('PiHangFlag');
    if (defined $flag && -e $flag) {
        sleep 1;
        return Apache2::Const::OK;
    }
    $r->content_type('text/plain');
    $r->print("Node: nodesilent\nTemperatureC: 50.0\nThrottled: 0x0\n"
              . "CPUs: 4\n");
    return Apache2::Const::OK;
}

# A page that takes 400 ms.
sub slow {
    my $r = shift;
    require Time::HiRes;
    Time::HiRes::sleep(0.4);
    $r->content_type('text/html');
    $r->print("slow page\n");
    return Apache2::Const::OK;
}

1;
