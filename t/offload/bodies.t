# Every compressed body gunzips to exactly the node's bytes: sizes 0 .. 10
# MiB, text and random binary, one-shot (Content-Length) and streamed.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path);
use lib 't/lib';
use PiOffloadTest qw(master_get gunzip_all htdocs);

my @sizes = (0, 1, 255, 256, 65535, 65537, 10 * 1024 * 1024);

plan tests => @sizes * 15 + 6, need_module 'proxy', 'proxy_http',
    'proxy_balancer', 'headers', 'pibalance';

my $gen = htdocs() . '/gen';
make_path($gen);
srand(6);

sub write_file {
    my ($name, $data) = @_;
    open my $fh, '>:raw', "$gen/$name" or die "$gen/$name: $!";
    print $fh $data;
    close $fh;
    return $data;
}

my $line = "<tr><td class=\"e\">pibalance</td><td>0123456789</td></tr>\n";
for my $n (@sizes) {
    my $text = write_file("t$n.html", substr($line x ($n / 40 + 1), 0, $n));
    my $rand = join '', map { chr int rand 256 } 1 .. $n;
    write_file("r$n.txt", $rand);       # random bytes, compressible type
    write_file("r$n.bin", $rand);       # random bytes, other type
    for my $case (["t$n.html", $text], ["r$n.txt", $rand]) {
        my ($file, $want) = @$case;
        my $res = master_get("/min0/gen/$file", 'Accept-Encoding' => 'gzip');
        ok t_cmp($res->code, 200, "$file: 200");
        ok t_cmp($res->header('Content-Encoding') // '', 'gzip',
                 "$file: gzip");
        my ($complete, $body) = gunzip_all($res->content);
        ok t_cmp($complete, 1, "$file: a complete gzip stream");
        ok t_cmp(length($body) == $n && $body eq $want, 1,
                 "$file: gunzips to the node's $n bytes");
        # one pass (libdeflate) up to 1 MiB: Content-Length; else chunked
        my $cl = $res->header('Content-Length');
        if ($n <= 1024 * 1024) {
            ok t_cmp($cl // -1, length $res->content,
                     "$file: Content-Length of the compressed body");
        }
        else {
            # streamed by zlib: chunked, unless the core saw the whole
            # (small) compressed body at EOS and counted it
            ok t_cmp(!defined $cl || $cl == length $res->content, 1,
                     "$file: streamed");
        }
        ok t_cmp($res->header('X-Upstream-AE') // '', '',
                 "$file: the node saw no Accept-Encoding");
    }
    my $res = master_get("/min0/gen/r$n.bin", 'Accept-Encoding' => 'gzip');
    ok t_cmp($res->header('Content-Encoding') // 'none', 'none',
             "r$n.bin (octet-stream): not compressed");
    ok t_cmp($res->content eq $rand, 1, "r$n.bin: the node's bytes as is");
    ok t_cmp($res->header('Vary') // 'none', 'none', "r$n.bin: no Vary");
}

# Unknown length (chunked from the node): streamed through zlib.
for my $n (1000, 300000) {
    my $res = master_get("/chunked?n=$n", 'Accept-Encoding' => 'gzip');
    my ($complete, $body) = gunzip_all($res->content);
    ok t_cmp($complete, 1, "chunked $n: complete gzip");
    ok t_cmp(length $body, $n, "chunked $n: $n bytes");
    my $cl = $res->header('Content-Length');
    ok t_cmp(!defined $cl || $cl == length $res->content, 1,
             "chunked $n: chunked, or a length the core computed at EOS");
}
