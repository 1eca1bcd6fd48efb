# The tree works wherever it is cloned (issue 28 item 8): started by root
# from a private copy (mode 700, as a clone under /root is), whose files
# httpd's children (nobody) cannot read, each way in that httpd must read
# the tree works or stops at once, saying why:
#   - t/TEST refuses at once, naming `make test-httpd` (it had waited out
#     every test's timeout: alerts.t "no samples after 30 s");
#   - `make test-httpd` runs t/TEST in a world-readable copy it names
#     (PERL= a stand-in that records where and how it was run);
#   - build/cross.sh's smoke test points qemu at a readable copy of the
#     sysroot (a child dlopens libgcc_s.so.1 from it: "libgcc_s.so.1 must
#     be installed for pthread_exit to work"); its smoke_sysroot, sourced;
#   - build/demo.sh serves /pi-status and pages (it had answered 403: the
#     children could not read its document root under the tree).
# Root only (otherwise the children run as the caller, who can read).
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);

my $top = Apache::Test::config()->{vars}{top_dir};
my $user = $ENV{APACHE_TEST_USER} || 'nobody';

plan tests => 16,
    need { "root only: the children run as $user" => $> == 0 },
    need_module 'pistats', 'pibalance';

# The nested t/TEST, make and demo runs must not see this suite: the
# harness's PERL5LIB names its tree, where Apache::Test would find this
# server's saved configuration (t/conf/apache_test_config.pm) and clean
# it (-clean), and APACHE_TEST_* its settings.
delete $ENV{PERL5LIB};
delete @ENV{grep { /^APACHE_TEST_/ } keys %ENV};

sub child_reads { system('runuser', '-u', $user, '--', 'test', '-r', $_[0]) == 0 }
sub sh_quote { my $s = shift; $s =~ s/'/'\\''/g; "'$s'" }

sub free_run {              # a base with N free 127.0.0.1 ports from it
    my ($n) = @_;
    for (1 .. 200) {
        my $p = 20000 + int(rand(12000));
        my @s;
        for my $i (0 .. $n - 1) {
            my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1',
                LocalPort => $p + $i, Proto => 'tcp', Listen => 1,
                ReuseAddr => 1) or last;
            push @s, $s;
        }
        my $ok = @s == $n;
        close $_ for @s;
        return $p if $ok;
    }
    die "no run of $n free ports";
}

# A private directory (0700) with a copy of the built tree in it.
my $base = tempdir('pib-anywhere-XXXXXX', DIR => '/var/tmp', CLEANUP => 1);
chmod 0700, $base;
my $tree = "$base/tree";
my $copy = system('bash', '-c', 'source "$1/build/readable.sh" &&'
                  . ' pib_copy_tree "$1" "$2" $PIB_COPY_SKIP',
                  '-', $top, $tree);
ok t_cmp($copy == 0 && -f "$tree/t/TEST" && !child_reads("$tree/t/TEST.PL"),
         1, "a copy of the built tree in $tree, which $user cannot read");

# 1. t/TEST itself: refuses at once (-conf: would write the configuration
# and stop, on a port of its own); -clean, which starts no server, cleans.
my $t0 = time;
my $test_port = free_run(1);
my $out = `cd $tree && APACHE_TEST_PORT=$test_port perl t/TEST -conf 2>&1`;
my $rc = $? >> 8;
my $secs = time - $t0;
ok t_cmp($rc, 2, 't/TEST in the private tree exits 2');
ok t_cmp($out, qr/not readable by \Q$user\E.*make test-httpd/s,
         't/TEST says why and what to do');
ok t_cmp($secs < 10, 1, sprintf('at once (%.1f s)', $secs));
ok t_cmp(system("cd $tree && perl t/TEST -clean >/dev/null 2>&1"), 0,
         't/TEST -clean still cleans');

# 2. make test-httpd: t/TEST runs in a readable copy (PERL= records it).
my $stage = tempdir('pib-anywhere-stage-XXXXXX', DIR => '/var/tmp',
                    CLEANUP => 1);
my $log = "$base/perl.log";
open my $fh, '>', "$base/perl" or die "$base/perl: $!";
print $fh "#!/bin/sh\nprintf '%s|%s\\n' \"\$(pwd)\" \"\$*\" >> ",
    sh_quote($log), "\n";
close $fh;
chmod 0755, "$base/perl";
$out = `cd $tree && PIB_TEST_HTTPD_DIR=$stage make -s test-httpd PERL=$base/perl TEST_ARGS='-verbose t/config/docs.t' 2>&1`;
$rc = $? >> 8;
my $ran = -f $log ? do { local (@ARGV, $/) = ($log); <> } : '';
ok t_cmp($rc, 0, 'make test-httpd in the private tree') or t_debug($out);
ok t_cmp($ran, qr/^\Q$stage\E\|t\/TEST -clean\n\Q$stage\E\|t\/TEST -apxs \S+ -verbose t\/config\/docs\.t\n\z/,
         "t/TEST ran in the copy $stage, with the arguments");
ok t_cmp(child_reads("$stage/t/TEST.PL"), 1, "$user reads the copy");
ok t_cmp($out, qr/not readable by \Q$user\E.*testing a copy in \Q$stage\E/s,
         'make test-httpd says why and where');

# 3. build/cross.sh's smoke test: qemu's sysroot (-L) readable.
my $cross = "$base/cross";
my $sr = "$cross/sysroot-arm64";
system('mkdir', '-p', "$sr/lib/aarch64-linux-gnu") == 0 or die;
for (["$sr/.cross-stamp", "v2\n"],
     ["$sr/lib/aarch64-linux-gnu/libgcc_s.so.1", "an ARM library\n"]) {
    open my $f, '>', $_->[0] or die "$_->[0]: $!";
    print $f $_->[1];
    close $f;
}
my $smoke = tempdir('pib-anywhere-smoke-XXXXXX', DIR => '/var/tmp',
                    CLEANUP => 1);
chmod 0755, $smoke;
sub smoke_sysroot {
    my ($dir) = @_;
    my $got = `CROSS_DIR=$dir bash -c 'source "\$1/build/cross.sh" && SMOKE_TMP=\$2 && smoke_sysroot arm64' - $top $smoke 2>&1`;
    chomp $got;
    return $got;
}
my $got = smoke_sysroot($cross);
my ($path) = $got =~ /(\S+)\z/;
ok t_cmp($path, "$smoke/sysroot-arm64",
         'a private sysroot: qemu runs from a copy in the smoke directory')
    or t_debug($got);
ok t_cmp(child_reads("$smoke/sysroot-arm64/lib/aarch64-linux-gnu/libgcc_s.so.1"),
         1, "$user reads libgcc_s.so.1 there");
ok t_cmp($got, qr/the sysroot \Q$sr\E is not readable by \Q$user\E/,
         'and it says why');
system('mv', $cross, "$smoke/pub") == 0 or die;
ok t_cmp(smoke_sysroot("$smoke/pub"), "$smoke/pub/sysroot-arm64",
         'a readable sysroot is used as it is');

# 4. build/demo.sh: serves from the private tree.
my $port = free_run(1);
my $nodes = free_run(4);
my $env = "PIB_DEMO_PORT=$port PIB_DEMO_NODE_BASE=$nodes"
        . " PIB_DEMO_LOAD_SECONDS=5";
my $started;
END {
    if ($started) {
        system("cd $tree && $env build/demo.sh stop >/dev/null 2>&1");
        system('rm', '-rf', "/var/tmp/pib-demo-$port");
    }
}
$started = 1;
$out = `cd $tree && $env build/demo.sh start 2>&1`;
$rc = $? >> 8;
ok t_cmp($rc, 0, 'build/demo.sh starts in the private tree') or t_debug($out);
my $http = HTTP::Tiny->new(timeout => 5);
my ($status, $page);
my $end = time + 20;
while (time < $end) {
    my $r = $http->get("http://127.0.0.1:$port/pi-status?auto");
    ($status, $page) = ($r->{status}, $r->{content});
    last if $status == 200;
    sleep 0.2;
}
ok t_cmp($status, 200, 'its /pi-status answers') or t_debug($page);
my $r = $http->get("http://127.0.0.1:$port/page1.html");
ok t_cmp("$r->{status} " . ($r->{headers}{'x-node'} // 'no X-Node'),
         qr/^200 pi-/, 'a page through its balancer, from a node');
