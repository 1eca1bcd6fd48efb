# Every PiBalanceDeflate directive works at every level it is allowed:
# main server, virtual host, <Proxy>, <Location> (issue 15 item 6).  The
# main server's own per-directory configuration is never merged by httpd,
# so this runs a second httpd (t/lib/PiStandalone.pm) whose main server
# offloads to the suite's offload_node.  Offload never strips
# Accept-Encoding without then compressing.  <Directory> and <Files>,
# which httpd never applies to proxied requests, are refused at start-up.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use LWP::UserAgent;
use lib 't/lib';
use PiOffloadTest qw(gunzip_all htdocs);
use PiStandalone qw(standalone_start standalone_stop);
use PiTest qw(check_config);

plan tests => 22, need_module 'proxy', 'proxy_http', 'proxy_balancer',
    'headers', 'pibalance';

my $node = Apache::Test::config()->{vhosts}{offload_node}{port};
my $dir = htdocs();
my $page = do { local $/; open my $fh, '<', "$dir/page.html" or die; <$fh> };
sub put { open my $fh, '>', "$dir/$_[0]" or die; print $fh $_[1]; close $fh }
my $mid = '<p>' . ('m' x 160) . '</p>';       # between 100 and 256 bytes
put('mid.html', $mid);
put('small.html', '<p>' . ('s' x 90) . '</p>');  # 97 bytes, as semantics.t
put('note.txt', $page);

my $h = standalone_start(<<"CONF");
# ---- main server: directives here and no section around them; the
# others (Buffer, MemLevel) keep their defaults -------------------------
PiBalanceDeflate On
PiBalanceDeflateTypes text/html text/css
PiBalanceDeflateLevel 9
PiBalanceDeflateMinLength 100
PiBalanceDeflateWindowBits 15
# no <Proxy> section: it would be merged into every request's config
BalancerMember "balancer://n" "http://127.0.0.1:$node"
ProxySet "balancer://n" lbmethod=pi
ProxyPass "/loc/" "balancer://n/"
ProxyPass "/l1/" "balancer://n/"
ProxyPass "/buf0/" "balancer://n/"
ProxyPass "/off/" "balancer://n/"
ProxyPass "/" "balancer://n/"
<Location "/loc/">
    PiBalanceDeflateTypes text/plain
</Location>
<Location "/l1/">
    PiBalanceDeflateLevel 1
</Location>
<Location "/buf0/">
    PiBalanceDeflateBuffer 0
    PiBalanceDeflateWindowBits 9
    PiBalanceDeflateMemLevel 1
</Location>
<Location "/off/">
    PiBalanceDeflate Off
</Location>

# ---- a virtual host inheriting On; its <Proxy> sets the types -----------
Listen 127.0.0.1:\@PORT2\@
<VirtualHost 127.0.0.1:\@PORT2\@>
    PiBalanceDeflateMinLength 0
    <Proxy "balancer://v">
        BalancerMember "http://127.0.0.1:$node"
        ProxySet lbmethod=pi
        PiBalanceDeflateTypes text/css text/html
        PiBalanceDeflateLevel 1
    </Proxy>
    ProxyPass "/" "balancer://v/"
</VirtualHost>
CONF
ok t_cmp($h->{rc}, 0, 'the standalone master starts') or print $h->{out};

my $ua = LWP::UserAgent->new(timeout => 30);
sub get {
    my ($port, $path, @h) = @_;
    return $ua->get("http://127.0.0.1:$port$path", @h);
}
my @gz = ('Accept-Encoding' => 'gzip');
sub ce { $_[0]->header('Content-Encoding') // 'none' }
sub upstream_ae { $_[0]->header('X-Upstream-AE') // 'absent' }

# main server: On + Types + Level + MinLength + Buffer, no section
my $res = get($h->{port}, '/page.html', @gz);
ok t_cmp(ce($res), 'gzip', 'main server On and Types: gzip');
ok t_cmp(upstream_ae($res), '', 'main server: the node saw no Accept-Encoding');
my ($complete, $body) = gunzip_all($res->content);
ok t_cmp($complete && $body eq $page, 1, 'main server: gunzips to the page');
ok t_cmp(defined $res->header('Content-Length') ? 1 : 0, 1,
         'main server, default Buffer: one pass, Content-Length');
my $l9 = length $res->content;
$res = get($h->{port}, '/style.css', @gz);
ok t_cmp(ce($res), 'gzip', 'main server Types: text/css too');
$res = get($h->{port}, '/mid.html', @gz);
ok t_cmp(ce($res), 'gzip', 'main server MinLength 100: a 167-byte page');
$res = get($h->{port}, '/small.html', @gz);
ok t_cmp($res->code . ' ' . ce($res), '200 none',
         'main server MinLength 100: 97 bytes stay');
$res = get($h->{port}, '/page.html');
ok t_cmp(ce($res) . ' ' . ($res->header('Vary') // ''),
         'none Accept-Encoding', 'identity client: Vary');

# <Location> in the main server
$res = get($h->{port}, '/l1/page.html', @gz);
ok t_cmp(ce($res), 'gzip', '<Location> Level 1: gzip');
ok t_cmp($l9 < length $res->content, 1,
         "main server Level 9 ($l9 bytes) beats <Location> Level 1 ("
         . length($res->content) . ')');
$res = get($h->{port}, '/loc/note.txt', @gz);
ok t_cmp(ce($res), 'gzip', '<Location> Types text/plain: gzip');
$res = get($h->{port}, '/loc/page.html', @gz);
ok t_cmp(ce($res), 'none', '<Location> Types replaces the list: html stays');
$res = get($h->{port}, '/buf0/page.html', @gz);
($complete, $body) = gunzip_all($res->content);
ok t_cmp(ce($res) . ' ' . ($complete && $body eq $page ? 'whole' : 'bad'),
         'gzip whole', '<Location> Buffer 0, WindowBits 9, MemLevel 1: gzip');
$res = get($h->{port}, '/off/page.html', @gz);
ok t_cmp(ce($res) . ' ' . upstream_ae($res), 'none gzip',
         '<Location> Off: the node gets the client\'s Accept-Encoding');

# virtual host inheriting On, <Proxy> with Types and Level
$res = get($h->{port2}, '/page.html', @gz);
ok t_cmp(ce($res) . ' [' . upstream_ae($res) . ']', 'gzip []',
         'vhost + <Proxy>: gzip, node saw no Accept-Encoding');
$res = get($h->{port2}, '/small.html', @gz);
ok t_cmp(ce($res), 'gzip', 'vhost MinLength 0: 97 bytes gzipped');
$res = get($h->{port2}, '/note.txt', @gz);
ok t_cmp(ce($res), 'none', '<Proxy> Types without text/plain: identity');

my $errors = do { local $/; open my $fh, '<', "$h->{dir}/error_log"; <$fh> } // '';
ok t_cmp($errors =~ /PIB10100|cannot set up/ ? 'yes' : 'no', 'no',
         'no compressor failed to set up');
standalone_stop($h);

# ---- sections httpd never applies to proxied requests: refused ----------
for my $sec (['<Directory "/tmp">', '</Directory>'],
             ['<Files "x.html">', '</Files>']) {
    my ($rc, $out) = check_config(
        "$sec->[0]\nPiBalanceDeflate On\n$sec->[1]", [qw(pibalance)]);
    ok t_cmp($rc != 0 && $out =~ /PiBalanceDeflate.*<Location> or <Proxy>/
             ? 1 : 0, 1, "refused in $sec->[0]") or print $out;
}
my ($rc, $out) = check_config(
    "<Directory \"/tmp\">\nPiBalanceDeflateTypes text/html\n</Directory>",
    [qw(pibalance)]);
ok t_cmp($rc != 0 ? 1 : 0, 1, 'PiBalanceDeflateTypes refused in <Directory>');
