package PiResponder;
# Minimal backends the tests start themselves: the FastCGI and AJP13
# responders of t/offload/nonhttp.t (t/bin/fcgi-responder.pl,
# t/bin/ajp-responder.pl) and the plain HTTP node of the member and
# client fault tests (t/bin/http-responder.pl).  What they share -- the
# page, a bounded single-process event loop -- and the helpers a .t file
# uses to start and stop them.  Perl core only.
use strict;
use warnings;               # not fatal: a responder goes on

use IO::Socket::INET ();
use IO::Select ();
use POSIX ();
use Time::HiRes ();

# Every answer's body: exactly 3000 bytes of text/html, the same for every
# request to a $kind ('fcgi' or 'ajp') of responder.
our $PAGE_LEN = 3000;

sub page {
    my ($kind) = @_;
    my $tail = "</body></html>\n";
    my $s = "<!DOCTYPE html>\n<html><head><title>$kind responder</title>"
          . "</head><body>\n<h1>Served over $kind</h1>\n";
    my $i = 0;
    while (length($s) < $PAGE_LEN) {
        $s .= sprintf "<p>line %03d of the %s page: the quick brown fox "
                    . "jumps over the lazy dog</p>\n", $i++, $kind;
    }
    return substr($s, 0, $PAGE_LEN - length $tail) . $tail;
}

# The strong entity-tag of that page.
sub etag { return "\"$_[0]-page-1\"" }

# One line to the responder's log (stderr): what a request carried.
sub note {
    my ($fmt, @args) = @_;
    printf STDERR "%.3f $fmt\n", Time::HiRes::time(), @args;
}

# Serves on 127.0.0.1:$o{port} until $o{seconds} have passed or the
# process $o{parent} (if given) is no longer our parent.  $o{handler} gets
# each connection's state hash: {id, in (bytes not yet consumed), ...};
# it consumes what it can of $st->{in} and returns bytes to send; it sets
# $st->{close} to have the connection closed after they are sent.
sub serve {
    my (%o) = @_;
    $SIG{PIPE} = 'IGNORE';
    my $ls = IO::Socket::INET->new(
        LocalAddr => '127.0.0.1', LocalPort => $o{port}, Proto => 'tcp',
        Listen => 32, ReuseAddr => 1)
        or die "listen on 127.0.0.1:$o{port}: $!\n";
    my $sel = IO::Select->new($ls);
    my (%conn, $serial);
    my $end = Time::HiRes::time() + $o{seconds};
    my $drop = sub {
        my ($st) = @_;
        $sel->remove($st->{fh});
        delete $conn{ fileno $st->{fh} };
        close $st->{fh};
        note('conn=%d closed after %d requests', $st->{id}, $st->{n});
    };
    note('listening on 127.0.0.1:%d for %d s', $o{port}, $o{seconds});
    while (Time::HiRes::time() < $end) {
        last if $o{parent} && getppid() != $o{parent};
        for my $fh ($sel->can_read(0.2)) {
            if ($fh == $ls) {
                my $c = $ls->accept or next;
                $conn{ fileno $c } = { fh => $c, id => ++$serial, n => 0,
                                       in => '' };
                $sel->add($c);
                next;
            }
            my $st = $conn{ fileno $fh } or next;
            my $got = sysread $fh, my $buf, 65536;
            if (!$got) {
                $drop->($st);
                next;
            }
            $st->{in} .= $buf;
            my $out = $o{handler}->($st);
            while (defined $out && length $out) {
                my $w = syswrite $fh, $out;
                if (!defined $w) {
                    $st->{close} = 1;
                    last;
                }
                substr($out, 0, $w) = '';
            }
            $drop->($st) if $st->{close};
        }
    }
    $drop->($_) for values %conn;
    note('exiting');
    return 0;
}

# ---- for the .t files ------------------------------------------------------

# Starts t/bin/$kind-responder.pl on $port for at most $seconds, its log in
# $log, with @args after its own; returns its pid once it accepts
# connections (dies otherwise).
sub start {
    my ($t_dir, $kind, $port, $seconds, $log, @args) = @_;
    my $script = "$t_dir/bin/$kind-responder.pl";
    my $parent = $$;
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDOUT, '>>', $log or POSIX::_exit(1);
        open STDERR, '>>', $log or POSIX::_exit(1);
        exec($^X, $script, $port, $seconds, $parent, @args)
            or POSIX::_exit(1);
    }
    my $end = Time::HiRes::time() + 10;
    while (Time::HiRes::time() < $end) {
        my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                      Timeout => 1);
        if ($s) {
            close $s;
            return $pid;
        }
        die "$kind responder exited early (see $log)\n"
            if waitpid($pid, POSIX::WNOHANG()) == $pid;
        Time::HiRes::sleep(0.05);
    }
    kill 'TERM', $pid;
    waitpid $pid, 0;
    die "$kind responder does not listen on $port (see $log)\n";
}

sub stop {
    my ($pid) = @_;
    return unless $pid;
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

1;
