package PiNode;
# Server-side handlers of misbehaving simulated nodes (mod_perl).
use strict;
use warnings;

use Apache2::RequestRec ();
use Apache2::RequestIO ();
use Apache2::Const -compile => qw(OK);

# Accepts the request and never answers (for 2 s: bounded, so the
# server's threads come back).
sub hang {
    my $r = shift;
    sleep 2;
    return Apache2::Const::OK;
}

# A page that takes 50 ms.
sub slow {
    my $r = shift;
    require Time::HiRes;
    Time::HiRes::sleep(0.05);
    $r->content_type('text/html');
    $r->print("slow page\n");
    return Apache2::Const::OK;
}

1;
