# Recent events on /pi-status (issue 20 item 3): a member heated above
# its hard limit is drained, cooled below the re-admit line it comes
# back; both events reach the page and ?json from mod_pibalance through
# pis_post_event, newest first, with their times and temperatures.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use File::Path qw(make_path);
use Time::HiRes qw(time);
use lib 't/lib';
use PiTest qw(status_json member wait_for);

plan tests => 13, need_module 'pistats', 'pibalance', 'proxy_balancer';

my $vars = Apache::Test::vars();
my $cfg = Apache::Test::config();
my %port = map { $_ => $cfg->{vhosts}{$_}{port} } qw(opnode1 opnode2);
my $B = 'balancer://op';

sub set_temp {
    my ($node, $celsius) = @_;
    my $d = "$vars->{serverroot}/tmp/op/$node";
    make_path($d);
    chmod 0755, "$vars->{serverroot}/tmp/op", $d;
    open my $fh, '>', "$d/temp.new" or die "$d: $!";
    print $fh int($celsius * 1000), "\n";
    close $fh;
    chmod 0644, "$d/temp.new";
    rename "$d/temp.new", "$d/temp" or die "$d: $!";
}

# The member once the master has read $celsius for it, fresh (bounded:
# 30 s; the probe runs every 500 ms).
sub seen {
    my ($node, $celsius) = @_;
    return wait_for(30, 0.2, sub {
        my $m = member(status_json('operator'), $B, $port{$node});
        return $m && defined $m->{telemetry}{temperature_c}
               && $m->{telemetry}{temperature_c} == $celsius
               && !$m->{telemetry_stale} ? $m : undef;
    });
}

# Requests through the balancer: the finder sees the state change.
sub traffic {
    Apache::TestRequest::module('operator');
    GET('/op/page.html') for 1 .. 4;
}

# Events of opnode1 in ?json, newest first.
sub node1_events {
    my $doc = status_json('operator');
    return [ grep { ($_->{member} // '') =~ /:\Q$port{opnode1}\E\/?$/ }
             @{ $doc->{events} // [] } ];
}

# Waits (bounded: 30 s, with traffic) until opnode1's newest event is
# $what; returns the events.
sub until_event {
    my ($what) = @_;
    my $ev;
    wait_for(30, 0.2, sub {
        traffic();
        $ev = node1_events();
        return @$ev && $ev->[0]{event} eq $what;
    });
    return $ev;
}

set_temp($_, 50) for qw(opnode1 opnode2);
ok t_cmp(seen('opnode1', 50) ? 1 : 0, 1, 'opnode1 at 50 C');
ok t_cmp(seen('opnode2', 50) ? 1 : 0, 1, 'opnode2 at 50 C');
traffic();

my $t0 = time;
set_temp('opnode1', 60);
ok t_cmp(seen('opnode1', 60) ? 1 : 0, 1, 'opnode1 at 60 C: above the hard limit (58)');
my $ev = until_event('drained');
ok t_cmp($ev->[0]{event}, 'drained', 'the newest event: drained');
ok t_cmp($ev->[0]{temperature_c}, 60, 'at 60 C');
ok t_cmp($ev->[0]{balancer}, $B, 'of its balancer');
ok t_cmp(abs(($ev->[0]{time} // 0) - $t0) < 120 ? 1 : 0, 1,
         'with the time it happened');

# Drained for a few seconds at least, so that the chart's drained period
# (whole seconds) is seen whatever the machine's speed.
my $drained_at = $ev->[0]{time} // time;
wait_for(10, 0.2, sub { time - $drained_at >= 3 });
set_temp('opnode1', 54);
ok t_cmp(seen('opnode1', 54) ? 1 : 0, 1, 'opnode1 at 54 C: below the re-admit line (54.7)');
$ev = until_event('re-admitted');
ok t_cmp(join(',', map { $_->{event} } @$ev[0, 1]), 're-admitted,drained',
         'newest first: re-admitted, then drained');
ok t_cmp($ev->[0]{time} >= $ev->[1]{time} ? 1 : 0, 1, 'times in order');

Apache::TestRequest::module('operator');
my $html = GET_BODY('/pi-status');
my ($section) = $html =~ /<h2 id="events">Recent events<\/h2>(.*?)<\/table>/s;
$section //= '';
ok t_cmp($section, qr/re-admitted.*:\Q$port{opnode1}\E.*drained/s,
         'the page lists them, newest first');
ok t_cmp($section, qr/\d\d:\d\d:\d\d UTC/, 'with times');
ok t_cmp($html, qr/<svg class="chart"[^>]*>.*?<rect class="drained" x="[\d.]+" y="10" width="[1-9][\d.]*"/s,
         'the chart shades the drained period');

set_temp('opnode1', 50);
