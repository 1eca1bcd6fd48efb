# bench/openloop.c's record of every request (-o), which bench/soak.sh
# joins with the front's access log to tell which failures were in flight
# to a node that was killed or hung: each request numbered (X-Request-Id,
# the same number on its line), due 1/RATE apart, its times ordered, its
# outcome named -- a status, "connect" (nothing listens), "timeout" (no
# answer within -T).  A small server here answers or stays silent.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Temp qw(tempdir);
use IO::Select;
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(time);

my $top = Apache::Test::config()->{vars}{top_dir};
my $have_gcc = system('sh', '-c', 'command -v gcc >/dev/null') == 0;

plan tests => 10, need { 'gcc builds bench/openloop.c' => $have_gcc };

my $dir = tempdir('pib-openloop-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $bin = "$dir/openloop";
system('gcc', '-O2', '-Wall', '-Wextra', '-o', $bin,
       "$top/bench/openloop.c") == 0 or die "cannot build openloop";

sub listener {
    IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                          Proto => 'tcp', Listen => 64, ReuseAddr => 1)
        or die "listen: $!";
}

# A keep-alive HTTP server in a child: answers every request "ok", writes
# each request's X-Request-Id to $ids, for at most $secs seconds.
sub serve {
    my ($l, $ids, $secs) = @_;
    my $pid = fork // die "fork: $!";
    return $pid if $pid;
    open my $out, '>', $ids or POSIX::_exit(1);
    $out->autoflush(1);
    my $sel = IO::Select->new($l);
    my %buf;
    my $end = time + $secs;
    while (time < $end) {
        for my $s ($sel->can_read(0.1)) {
            if ($s == $l) {
                my $c = $l->accept or next;
                $sel->add($c);
                $buf{$c} = '';
                next;
            }
            my $n = sysread($s, my $chunk, 65536);
            if (!$n) {
                $sel->remove($s);
                delete $buf{$s};
                close $s;
                next;
            }
            $buf{$s} .= $chunk;
            while ($buf{$s} =~ s/\A(.*?)\r\n\r\n//s) {
                my $head = $1;
                my ($id) = $head =~ /^X-Request-Id: (\S+)\r?$/mi;
                print $out (defined $id ? $id : 'none'), "\n";
                syswrite $s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
            }
        }
    }
    POSIX::_exit(0);
}

# Runs openloop; returns its per-request lines as [id, intended, sent,
# end, result, retried], and the header line.
sub run_ol {
    my ($args, $url) = @_;
    my $file = "$dir/out-" . int(rand(1e9));
    my $summary = `$bin $args -o $file $url 2>&1`;
    open my $fh, '<', $file or return ($summary, undef);
    my $head = <$fh>;
    my @lines = map { chomp; [split ' '] } <$fh>;
    close $fh;
    return ($summary, $head, @lines);
}

# 1. A server that answers: 100 requests at 100/s, 10 ms apart.
my $l = listener();
my $port = $l->sockport;
my $ids = "$dir/ids";
my $pid = serve($l, $ids, 10);
close $l;
my $t0 = time;
my ($summary, $head, @r) = run_ol('-r 100 -d 1 -c 8 -T 5 -w 3',
                                  "http://127.0.0.1:$port/page");
kill 'TERM', $pid;
waitpid $pid, 0;
ok t_cmp($head // '', "# id intended sent end result retried\n",
         'the file starts with its header');
ok t_cmp(scalar(@r), 100, 'one line a request') or t_debug($summary);
ok t_cmp(join(',', sort { $a <=> $b } map { $_->[0] } @r),
         join(',', 0 .. 99), 'each id once, 0 to 99');
ok t_cmp(join(' ', sort { $a <=> $b } do {
             open my $fh, '<', $ids or die; map { chomp; $_ } <$fh> }),
         join(' ', 0 .. 99), 'the server saw X-Request-Id 0 to 99, once each');
ok t_cmp(scalar(grep { $_->[4] ne '200' || $_->[5] != 0 } @r), 0,
         'every one answered 200, none retried');
my %by = map { $_->[0] => $_ } @r;
my $bad = grep {
    my $x = $by{$_};
    abs(($x->[1] - $by{0}[1]) - $_ * 0.01) > 1e-4   # due 10 ms apart
        || $x->[2] < $x->[1] || $x->[3] < $x->[2]   # intended <= sent <= end
} 0 .. 99;
ok t_cmp($bad, 0, 'due 10 ms apart; intended <= sent <= end');
ok t_cmp(abs($by{0}[1] - $t0) < 5, 1,
         sprintf('epoch times (first due %.3f, the test started %.3f)',
                 $by{0}[1], $t0));

# 2. Nothing listens: every request "connect", never sent (sent 0).
$l = listener();
$port = $l->sockport;
close $l;
($summary, $head, @r) = run_ol('-r 50 -d 0.2 -T 1 -w 1',
                               "http://127.0.0.1:$port/");
ok t_cmp(join(' ', map { "$_->[4]:$_->[2]" } @r), join(' ', ('connect:0.000000') x 10),
         'nothing listening: 10 x connect, not sent') or t_debug($summary);

# 3. A listener that never answers: each "timeout" after -T.
$l = listener();
$port = $l->sockport;
($summary, $head, @r) = run_ol('-r 20 -d 0.1 -T 0.3 -w 2',
                               "http://127.0.0.1:$port/");
close $l;
ok t_cmp(join(' ', map { $_->[4] } @r), 'timeout timeout',
         'no answer: 2 x timeout') or t_debug($summary);
ok t_cmp(scalar(grep { $_->[3] - $_->[2] < 0.3 } @r), 0,
         'each ended no sooner than -T after it was sent');
