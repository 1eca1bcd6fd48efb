# bench/soak.py report, on a soak's raw data made up here, whose truth is
# known: a node killed 10-18 s (one request in flight to it failed), one
# hung 20-28 s (one request sent to it while hung, before the front saw
# its telemetry stale, failed), the hot node
# throttled 30-40 s and past the hard limit 25-45 s (its trace).  With
# every event /pi-status should have recorded there once, the verdict
# passes (exit 0); with a failure in no outage, one not in the front's
# access log, one sent to the hung node after it was stale, an event
# twice, one no node's log calls for and one missing, it fails (exit 1)
# and counts each.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use File::Temp qw(tempdir);

my $top = Apache::Test::config()->{vars}{top_dir};

plan tests => 13;

my $T = 1_800_000_000;                  # the soak's epoch base
my %port = (s1 => 30401, s2 => 30402, s3 => 30403);
sub url { "http://127.0.0.1:$port{$_[0]}" }

sub put {
    my ($path, @lines) = @_;
    open my $fh, '>', $path or die "$path: $!";
    print $fh map { "$_\n" } @lines;
    close $fh;
}

# One soak's raw data in $dir; %o: requests and events to add or leave out.
sub make_run {
    my ($dir, %o) = @_;
    put("$dir/nodes.txt", 'node s1 30401 plain', 'node s2 30402 hot',
        'node s3 30403 plain');
    put("$dir/front.conf", 'PiBalanceThermal 65 75');
    put("$dir/openloop.txt", 'rate=200 duration_s=58.0 due=10 ok=8');
    put("$dir/error_log", '[notice] AH00489: Apache configured',
        @{ $o{errlog} || [] });
    put("$dir/actions.log", map { sprintf '%.2f %s', $T + $_->[0], $_->[1] }
        [0, 'start s1'], [0, 'start s2'], [0, 'start s3'],
        [1, 'front-start -'], [2, 'load-start 200/s'], [10, 'kill s3'],
        [18, 'start s3'], [60, 'load-end -'], [65, 'end -']);
    put("$dir/s1.log", "0.000 pisim start: epoch $T.000, 1 node(s)",
        '20.000 node s1 hung (control)',
        '28.000 node s1 answers again (control)', '65.000 pisim stop');
    put("$dir/s2.log", "0.000 pisim start: epoch $T.000, 1 node(s)",
        '30.000 node s2 80.1 C throttled 0x60006',
        '40.000 node s2 77.9 C throttled 0x60000', '65.000 pisim stop');
    put("$dir/s3.log", "0.000 pisim start: epoch $T.000, 1 node(s)",
        '0.000 pisim start: epoch ' . ($T + 18) . '.000, 1 node(s)',
        '47.000 pisim stop');
    my @flat = map { "$_ x 44.0 0x0 0 0" } 0 .. 60;
    put("$dir/$_", '# t name temp_c throttled served busy', @flat)
        for qw(s1.trace.1 s3.trace.1 s3.trace.2);
    put("$dir/s2.trace.1", '# t name temp_c throttled served busy',
        map { my $c = $_ < 25 ? 50 : $_ < 45 ? 78 : 60;
              my $b = $_ >= 30 && $_ < 40 ? '0x60006' : '0x0';
              "$_ s2 $c.0 $b 0 0" } 0 .. 60);
    put("$dir/s2.summary.1", 'node=s2 port=30402 served=9 throttled_s=10.0');
    # requests: id => [result, front start (s), status, µs, member]
    my %req = (0 => ['200', 5, 200, 20000, 's1'],
               1 => ['200', 6, 200, 20000, 's2'],
               2 => ['200', 9, 200, 20000, 's3'],
               3 => ['502', 9.9, 502, 150000, 's3'],   # in flight: kill
               4 => ['504', 21, 504, 3000000, 's1'],   # sent while hung
               %{ $o{req} || {} });
    my (@r, @a);
    for my $id (sort { $a <=> $b } keys %req) {
        my ($res, $st, $code, $us, $m) = @{ $req{$id} };
        my $s = $T + $st;
        push @r, sprintf '%d %.6f %.6f %.6f %s 0', $id, $s, $s, $s + $us / 1e6,
            $res;
        push @a, sprintf '%.3f %d %d %s /page %d', $s, $code, $us, url($m), $id
            if $m;
    }
    put("$dir/requests.txt", '# id intended sent end result retried', @r);
    put("$dir/access_log", @a);
    my %ev = (
        'member failed s3' => 10.1, 'telemetry stale s3' => 11.6,
        'telemetry back s3' => 18.6, 'member back s3' => 20.5,
        'telemetry stale s1' => 21.6, 'telemetry back s1' => 28.5,
        'drained s2' => 25.5, 'throttled s2' => 30.4,
        'no longer throttled s2' => 40.3, 're-admitted s2' => 45.5,
        %{ $o{ev} || {} });
    delete $ev{$_} for @{ $o{drop} || [] };
    my @events = map {
        my ($what, $n) = /^(.*) (s\d)(?: #\d)?$/;
        { time => $T + $ev{$_}, event => $what, balancer => 'balancer://b',
          member => url($n), temperature_c => 70, detail => undef }
    } sort keys %ev;
    require JSON::PP;
    my $js = JSON::PP->new->canonical;
    # three scrapes, each with the whole ring (their union is read)
    put("$dir/status.jsonl", map {
        $js->encode({ t => $T + $_, http => 200, ms => 3,
                      doc => { balancers => [], events => \@events } })
    } 3, 30, 59);
}

sub report {
    my ($dir) = @_;
    my $out = `python3 $top/bench/soak.py report $dir 2>&1`;
    my $rc = $? >> 8;
    my %v;
    $v{$1} = [$2, $3] while $out =~ /^\| ([^|]+?) \| (\d+) \| (ok|\*\*FAIL\*\*) \|$/mg;
    return ($rc, $out, %v);
}

# 1. Clean: each event once, the two failures in their outages.
my $d1 = tempdir('pib-soak-XXXXXX', TMPDIR => 1, CLEANUP => 1);
make_run($d1);
my ($rc, $out, %v) = report($d1);
ok t_cmp($rc, 0, 'a clean soak passes') or t_debug($out);
ok t_cmp(join(' ', map { $v{$_} ? $v{$_}[0] : 'none' }
              "child crashes in the front's error log",
              'failed requests not in flight to a killed or hung node',
              "events the nodes' logs call for, missing at /pi-status",
              'events recorded twice',
              "events recorded that no node's log calls for"),
         '0 0 0 0 0', 'its verdict: nothing missing, twice or extra');
ok t_cmp($out, qr/^\| in flight at kill \| 1 \|$/m,
         'the failure in flight to the killed node');
ok t_cmp($out, qr/^\| sent while hung, before it was stale \| 1 \|$/m,
         'the one sent to the hung node before the front saw it stale');
ok t_cmp($out, qr/^\| s3 \| kill \| 8\.0 \| 16\.0 \| 1 \| 0 \|/m,
         'the kill: 8-16 s after the load started, one failed in flight');
ok t_cmp($out, qr/^\| s2 \| 10\.0 \| 1 \|/m, 's2 throttled 10 s (pisim)');

# 2. Dirty: the front's fault shows.
my $d2 = tempdir('pib-soak-XXXXXX', TMPDIR => 1, CLEANUP => 1);
make_run($d2,
         req => { 5 => ['502', 50, 502, 10000, 's2'],      # in no outage
                  6 => ['read', 52, 0, 0, undef],          # front never saw
                  7 => ['502', 24, 502, 3000000, 's1'] },  # hung, known stale
         ev => { 'member failed s3 #2' => 12.0,            # twice
                 'telemetry stale s2' => 50.0 },           # called for by none
         drop => ['re-admitted s2'],                       # missing
         errlog => ['[core:notice] AH00052: child pid 7 exit signal'
                    . ' Segmentation fault (11)']);
($rc, $out, %v) = report($d2);
ok t_cmp($rc, 1, 'a soak with faults fails');
ok t_cmp($v{"child crashes in the front's error log"}[0], 1, 'the crash');
ok t_cmp($v{'failed requests not in flight to a killed or hung node'}[0], 2,
         'two failures in no outage') or t_debug($out);
ok t_cmp($v{'failed requests sent to a hung node after /pi-status showed'
            . ' it stale'}[0], 1, 'one sent to the hung node after it was stale');
ok t_cmp($v{"events the nodes' logs call for, missing at /pi-status"}[0], 1,
         'the re-admission missing');
ok t_cmp($v{'events recorded twice'}[0], 1, "'member failed' twice");
ok t_cmp($v{"events recorded that no node's log calls for"}[0], 1,
         "'telemetry stale' of the hot node, for nothing");
