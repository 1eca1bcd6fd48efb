package PiStandalone;
# A second httpd, started by a test with a configuration of its own, for
# what the suite's server cannot show: directives in the main server
# (there httpd never merges the per-directory configuration), start-up
# refusals.  It listens on a free 127.0.0.1 port the kernel picks, loads
# mod_proxy and mod_pibalance, and proxies wherever its configuration
# says (usually to a node virtual host of the suite's server).
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use File::Temp ();
use IO::Socket::INET;
use Time::HiRes ();
use Exporter 'import';

our @EXPORT_OK = qw(standalone_start standalone_stop);

sub free_port {
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                  Proto => 'tcp', Listen => 1, ReuseAddr => 1)
        or die "no free port: $!";
    my $port = $s->sockport;
    close $s;
    return $port;
}

sub wait_until {
    my ($max, $probe) = @_;
    my $end = Time::HiRes::time() + $max;
    while (Time::HiRes::time() < $end) {
        return 1 if $probe->();
        Time::HiRes::sleep(0.05);
    }
    return $probe->();
}

# Starts httpd with $body after the module lines (@PORT2@ in it: a
# second free port), with the environment variables of %opt{env} set for
# it (and its children).  Returns a handle { port, port2, dir, rc, out }: rc != 0 when httpd refused to start (out says
# why), else the server answers on 127.0.0.1:port (waited for, at most
# 30 s).
sub standalone_start {
    my ($body, %opt) = @_;
    my $vars = Apache::Test::config()->{vars};
    my $apxs = $vars->{apxs} || 'apxs';
    chomp(my $libexec = `$apxs -q LIBEXECDIR`);
    my $top = $vars->{top_dir};
    my $dir = File::Temp::tempdir('pib-standalone-XXXXXX', TMPDIR => 1,
                                  CLEANUP => 1);
    chmod 0755, $dir;
    my $port = free_port();
    my $port2 = free_port();
    $port2 = free_port() while $port2 == $port;
    $body =~ s/\@PORT2\@/$port2/g;
    my $user = $> == 0 ? "User nobody\nGroup nogroup\n" : '';
    my $load = join '', map { "LoadModule ${_}_module \"$libexec/mod_$_.so\"\n" }
        qw(mpm_event authz_core mime headers proxy proxy_http slotmem_shm
           proxy_balancer);
    open my $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
    print $fh <<"CONF";
ServerRoot "$dir"
ServerName 127.0.0.1
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error_log"
LogLevel warn
DefaultRuntimeDir "$dir"
Mutex file:$dir
${user}${load}LoadModule pibalance_module "$top/mod_pibalance/mod_pibalance.so"
TypesConfig /etc/mime.types
Listen 127.0.0.1:$port
StartServers 1
ServerLimit 1
ThreadsPerChild 4
MaxRequestWorkers 4
$body
CONF
    close $fh;
    my $out = do {
        local %ENV = (%ENV, %{ $opt{env} // {} });
        `"$vars->{httpd}" -f "$dir/httpd.conf" -k start 2>&1`;
    };
    my $h = { port => $port, port2 => $port2, dir => $dir, rc => $? >> 8, out => $out,
              httpd => $vars->{httpd} };
    return $h if $h->{rc} != 0;
    wait_until(30, sub {
        IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1)
    }) or die "standalone httpd did not answer on $port: $out";
    return $h;
}

# Stops it and waits (at most 30 s) until its pid is gone.
sub standalone_stop {
    my ($h) = @_;
    return if !$h || $h->{rc} != 0;
    my $pidf = "$h->{dir}/httpd.pid";
    open my $fh, '<', $pidf or return;
    chomp(my $pid = <$fh> // '');
    close $fh;
    return unless $pid =~ /^\d+$/;
    kill 'TERM', $pid;
    wait_until(30, sub { !kill 0, $pid });
}

1;
