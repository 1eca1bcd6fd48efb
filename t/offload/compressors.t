# PiBalanceDeflateCompressors 1 (t/conf/offload.conf.in): a child has one
# libdeflate compressor a level (here level 2, under /lvl2/: level 1 is
# ISA-L's igzip where the build has it, which keeps no such limit), so responses compressed at the same
# moment take turns with it.  Many clients at once each get their own
# body, whole: none is lost, mixed up with another's, or held up for
# good.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Digest::MD5 qw(md5_hex);
use File::Path qw(make_path);
use lib 't/lib';
use PiOffloadTest qw(master_get gunzip_all htdocs deflate_counts);

my $clients = 8;
my $rounds = 6;
my $files = 6;

plan tests => 5 + $clients, need_module 'proxy', 'proxy_http',
    'proxy_balancer', 'pibalance';

# Six different bodies of 200-700 KB (under PiBalanceDeflateBuffer: one
# pass through libdeflate), text that compresses but takes some time.
my $dir = htdocs() . '/comp';
make_path($dir);
srand(8);
my @words = map { join '', map { chr(97 + int rand 26) } 1 .. 1 + int rand 9 }
    1 .. 400;
my %want;
for my $f (0 .. $files - 1) {
    my $body = '';
    my $n = 200_000 + 100_000 * $f;
    $body .= $words[int rand @words] . ($f % 2 ? "\n" : ' ')
        while length($body) < $n;
    open my $fh, '>:raw', "$dir/c$f.html" or die "$dir/c$f.html: $!";
    print $fh $body;
    close $fh;
    $want{$f} = md5_hex($body);
}

# One request, checked: "ok", or what was wrong; $one_pass counts the
# responses compressed in one pass (libdeflate, Content-Length).  A node
# pausing 250 ms inside a body has it streamed through zlib instead
# (t/offload/paced.t), which a loaded machine may make happen.
my $one_pass = 0;
sub fetch_one {
    my ($f) = @_;
    my $res = master_get("/lvl2/comp/c$f.html", 'Accept-Encoding' => 'gzip');
    return "c$f: status " . $res->code if $res->code != 200;
    return "c$f: not gzip"
        if ($res->header('Content-Encoding') // '') ne 'gzip';
    $one_pass++ if defined $res->header('Content-Length');
    my ($complete, $body) = gunzip_all($res->content);
    return "c$f: not a complete gzip stream" unless $complete;
    return "c$f: gunzips to other bytes" if md5_hex($body) ne $want{$f};
    return 'ok';
}

my $before = deflate_counts();

# A first request alone: the set-up is right.
ok t_cmp(fetch_one(0), 'ok', 'one request alone');

# The clients, each in a process of its own, all at once; each reports
# "ok" or its first failure, and how many of its responses were one
# pass, through a pipe.  Bounded: 60 s a client.
my @kids;
for my $c (0 .. $clients - 1) {
    pipe(my $r, my $w) or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        close $r;
        alarm 60;
        $one_pass = 0;
        my $verdict = 'ok';
        for my $i (0 .. $rounds - 1) {
            my $v = fetch_one(($c + $i) % $files);
            if ($v ne 'ok') {
                $verdict = $v;
                last;
            }
        }
        print $w "$one_pass $verdict\n";
        close $w;
        require POSIX;
        POSIX::_exit(0);
    }
    close $w;
    push @kids, [$pid, $r];
}
my $kids_one_pass = 0;
for my $c (0 .. $#kids) {
    my ($pid, $r) = @{ $kids[$c] };
    my $line = <$r> // '0 no answer (killed after 60 s?)';
    chomp $line;
    my ($n, $verdict) = split / /, $line, 2;
    $kids_one_pass += $n;
    waitpid $pid, 0;
    ok t_cmp($verdict, 'ok', "client $c: $rounds bodies, each whole");
}
# The compressor was shared, not sidestepped: bodies went through it in
# one pass, and one that did not was one the node trickled (a pause of
# 250 ms or more, which a loaded machine may cause: t/offload/paced.t),
# never one streamed for another reason.
my $all = $clients * $rounds;
my $mid = deflate_counts();
my ($st, $tr) = map { $mid->{$_} - $before->{$_} } qw(streamed trickled);
ok t_cmp($kids_one_pass >= 1 && $st == $tr ? 1 : 0, 1,
         "$kids_one_pass of $all in one pass; the $st streamed were all "
         . "trickled ($tr)");

# After them, the master still answers, and with its one compressor.
ok t_cmp(fetch_one(1), 'ok', 'a request after them');
ok t_cmp(fetch_one(5), 'ok', 'the largest body after them');

# Every response above counted once, whichever child or thread made it.
my $after = deflate_counts();
my ($one, $streamed, $waits) = map { $after->{$_} - $before->{$_} }
    qw(one_pass streamed compressor_waits);
ok t_cmp($one + $streamed, $all + 3,
         "/pi-status: $one one pass + $streamed streamed = every response "
         . "($waits waited for the compressor)");
