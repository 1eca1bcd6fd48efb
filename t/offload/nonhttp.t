# Offload for members that are not HTTP (docs/offload.md, "Members that are
# not HTTP"): a fcgi:// and an ajp:// balancer member, each a real backend
# process (t/bin/fcgi-responder.pl, t/bin/ajp-responder.pl) that reports
# what it received.  For both: the node never sees Accept-Encoding, the
# client gets gzip that gunzips to the node's exact bytes (or the exact
# identity bytes), HEAD and If-None-Match behave as over HTTP, the access
# log shows the client's own headers, connections are reused, and httpd
# logs no error.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest;
use lib 't/lib';
use PiOffloadTest qw(gunzip_all log_wait);
use PiResponder ();

my @kinds = qw(fcgi ajp);
my $per_kind = 27;
plan tests => 1 + @kinds * $per_kind + 1 + 1,
    need_module 'proxy', 'proxy_balancer', 'proxy_fcgi', 'proxy_ajp',
    'pibalance';

my $vars = Apache::Test::config()->{vars};
my ($t_dir, $t_logs) = @$vars{qw(t_dir t_logs)};

# The responders' ports: t/conf/nonhttp.conf.in defines them.
my %port;
{
    my $conf = "$vars->{t_conf}/nonhttp.conf";
    open my $fh, '<', $conf or die "$conf: $!";
    while (<$fh>) {
        $port{ lc $1 } = $2 if /^\s*Define\s+PIB_(FCGI|AJP)_PORT\s+(\d+)/;
    }
}

# Only what this run adds to the logs counts.
my $error_log = "$t_logs/error_log";
my $error_mark = -s $error_log // 0;
my $access_log = "$t_logs/nonhttp_log";
my $access_mark = -s $access_log // 0;

my %pid;
END { local $?; PiResponder::stop($pid{$_}) for keys %pid }
for my $k (@kinds) {
    my $log = "$t_logs/$k-responder.log";
    unlink $log;
    $pid{$k} = PiResponder::start($t_dir, $k, $port{$k}, 300, $log);
}
ok t_cmp(scalar(keys %pid), 2,
         "responders up: fcgi on $port{fcgi}, ajp on $port{ajp}");

Apache::TestRequest::module('nonhttp_master');
my $gz = ['Accept-Encoding' => 'gzip'];
sub ce   { $_[0]->header('Content-Encoding') // 'none' }
sub vary { $_[0]->header('Vary') // 'none' }

# The responder's last log line for a request.
sub seen {
    my ($k) = @_;
    open my $fh, '<', "$t_logs/$k-responder.log" or die "$k log: $!";
    my ($l) = reverse grep { / req=\d+ / } <$fh>;
    return $l // '';
}

for my $k (@kinds) {
    my $page = PiResponder::page($k);
    my $etag = PiResponder::etag($k);
    (my $gzetag = $etag) =~ s/"$/-gzip"/;

    # ---- gzip client -----------------------------------------------------
    my $res = GET("/$k/page.html", @$gz);
    ok t_cmp($res->code . ' ' . ($res->header('X-Backend') // 'none'),
             "200 $k", "$k: GET answered by the $k responder");
    ok t_cmp(ce($res), 'gzip', "$k: Content-Encoding gzip");
    ok t_cmp(vary($res), qr/Accept-Encoding/, "$k: Vary");
    ok t_cmp($res->header('X-Seen-AE'), '(none)',
             "$k: the responder saw no Accept-Encoding");
    my ($complete, $body) = gunzip_all($res->content);
    ok t_cmp($complete && $body eq $page ? 1 : 0, 1,
             "$k: gunzips to exactly the responder's " . length($page)
             . ' bytes');
    ok t_cmp($res->header('ETag'), $gzetag, "$k: strong ETag suffixed");

    # ---- identity client -------------------------------------------------
    $res = GET("/$k/page.html");
    ok t_cmp(ce($res), 'none', "$k: no Accept-Encoding: identity");
    ok t_cmp($res->content eq $page ? 1 : 0, 1, "$k: identity body exact");
    ok t_cmp(vary($res), qr/Accept-Encoding/, "$k: identity: Vary too");
    ok t_cmp($res->header('ETag'), $etag, "$k: identity: ETag unchanged");

    # A client that accepts only br: still nothing for the node, identity.
    $res = GET("/$k/page.html", 'Accept-Encoding' => 'br');
    ok t_cmp(ce($res) . ' ' . ($res->header('X-Seen-AE') // 'absent'),
             'none (none)', "$k: br only: identity, node saw nothing");

    # ---- HEAD ------------------------------------------------------------
    $res = HEAD("/$k/page.html", @$gz);
    ok t_cmp($res->code, 200, "$k: HEAD 200");
    ok t_cmp(ce($res) . ' ' . vary($res), qr/^gzip .*Accept-Encoding/,
             "$k: HEAD: gzip and Vary, as the GET");
    ok t_cmp(length($res->content) . ' '
             . ($res->header('Content-Length') // 'absent'), '0 absent',
             "$k: HEAD: no body, no Content-Length");
    ok t_cmp(seen($k), qr/ ae=\[\(none\)\]/,
             "$k: HEAD: the responder saw no Accept-Encoding");
    $res = HEAD("/$k/page.html");
    ok t_cmp(ce($res) . ' ' . length($res->content), 'none 0',
             "$k: HEAD identity");
    if ($k eq 'fcgi') {   # a CGI-like responder that sends a body for HEAD
        $res = HEAD("/$k/page.html?headbody", @$gz);
        ok t_cmp(ce($res) . ' ' . vary($res) . ' ' . length($res->content),
                 qr/^gzip .*Accept-Encoding.* 0$/,
                 "$k: HEAD answered with a body: gzip, Vary, no body");
    }

    # ---- If-None-Match -----------------------------------------------------
    $res = GET("/$k/page.html", @$gz, 'If-None-Match' => $gzetag);
    ok t_cmp($res->code, 304, "$k: If-None-Match with the gzip ETag: 304");
    ok t_cmp(seen($k), qr/ ae=\[\(none\)\] inm=\[\Q$etag\E\]/,
             "$k: the responder got the ETag without -gzip");
    ok t_cmp(($res->header('ETag') // 'none') . ' ' . vary($res),
             qr/^\Q$gzetag\E .*Accept-Encoding/,
             "$k: 304 carries the gzip ETag and Vary");
    $res = GET("/$k/page.html", 'If-None-Match' => $etag);
    ok t_cmp(($res->code) . ' ' . ($res->header('ETag') // 'none'),
             "304 $etag", "$k: plain ETag from an identity client: 304, "
             . 'plain ETag');
    $res = GET("/$k/page.html", @$gz, 'If-None-Match' => '"other-gzip"');
    ok t_cmp($res->code . ' ' . ce($res), '200 gzip',
             "$k: another ETag: 200, gzip");

    # ---- the access log: the client's headers, put back --------------------
    # the last request above ("other-gzip") logged: the others were before
    my @log = map { s/\\"/"/gr } grep { m{^/$k/page\.html } }
        log_wait($access_log, $access_mark,
                 [qr{^/\Q$k\E/page\.html GET 200 ae=\[gzip\] inm=\[\\?"other-gzip}]);
    my $logged = sub {
        my ($re) = @_;
        return scalar(grep { $_ =~ $re } @log) >= 1 ? 1 : 0;
    };
    my $gzip_get = qr{ GET 200 ae=\[gzip\] inm=\[-\] deflate=compress in=3000 };
    ok t_cmp($logged->($gzip_get), 1,
             "$k: log: gzip GET with ae=[gzip], compressed");
    ok t_cmp($logged->(qr{ HEAD 200 ae=\[gzip\] inm=\[-\] deflate=compress }),
             1, "$k: log: HEAD with ae=[gzip]");
    ok t_cmp($logged->(qr{ GET 304 ae=\[gzip\] inm=\[\Q$gzetag\E\] }), 1,
             "$k: log: 304 with the client's ae and -gzip If-None-Match");
    ok t_cmp($logged->(qr{ GET 200 ae=\[br\] inm=\[-\] deflate=vary_only }),
             1, "$k: log: ae=[br]");

    # ---- connections reused, stripped on every request ---------------------
    # Up to 60 requests: more than the processes (prefork) that could each
    # hold a connection of their own, so some connection must be reused.
    my ($reused, $leaks, $wrong) = (0, 0, 0);
    for (1 .. 60) {
        $res = GET("/$k/page.html", @$gz);
        my (undef, $n) = ($res->header('X-Conn') // '0/0') =~ m{(\d+)/(\d+)};
        $reused++ if $n > 1;
        $leaks++ if ($res->header('X-Seen-AE') // '') ne '(none)';
        my ($ok, $b) = gunzip_all($res->content);
        $wrong++ unless ce($res) eq 'gzip' && $ok && $b eq $page;
        last if $reused >= 3 && $_ >= 10;
    }
    ok t_cmp($reused >= 3 ? 1 : 0, 1,
             "$k: connections to the responder reused ($reused requests)");
    ok t_cmp("$leaks $wrong", '0 0',
             "$k: no Accept-Encoding reached it, every body right");
}

# ---- httpd logged no error --------------------------------------------------
my @errors = do {
    open my $fh, '<', $error_log or die "$error_log: $!";
    seek $fh, $error_mark, 0;
    grep { /:(?:error|crit|alert|emerg)\]/
           || /(?:proxy_fcgi|proxy_ajp|proxy|pibalance):warn\]/ } <$fh>;
};
ok t_cmp(join('', @errors), '', 'no errors in the error_log');
