package PiAgent;
# Helpers of the pi-telemetry-agent tests (t/pistats/agent*.t): start and
# stop the real binary, the addresses it logged, one raw request, and the
# master's default probe timeout (what an agent must answer within).
use strict;
use warnings FATAL => 'all';

use Apache::Test ();
use IO::Select;
use IO::Socket::IP;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use Exporter 'import';

our @EXPORT_OK = qw(agent_bin agent_start agent_stop agent_pid agent_err
                    agent_wait
                    agent_ports agent_port agent_raw status_of body_of
                    slurp master_probe_timeout have_ipv6 nobody);

my %pids;
my $dir;                                  # where stderr files go
# A command that agent_start runs the agent through (local it): the
# agent's path and arguments follow it, as with sh -c '...' "$0" "$@".
our @WRAP;

sub agent_bin {
    return Apache::Test::config()->{vars}{top_dir}
           . '/agent/pi-telemetry-agent';
}

sub slurp {
    my ($f) = @_;
    open my $fh, '<', $f or return undef;
    local $/;
    return scalar <$fh>;
}

# Starts the agent as $name with @args, stderr to $errdir/$name.err;
# returns its pid.
sub agent_start {
    my ($errdir, $name, @args) = @_;
    $dir = $errdir;
    my $bin = agent_bin();
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDERR, '>', "$errdir/$name.err" or POSIX::_exit(126);
        open STDOUT, '>', '/dev/null';
        { exec @WRAP, $bin, @args }
        POSIX::_exit(127);
    }
    $pids{$name} = $pid;
    return $pid;
}

sub agent_pid { return $pids{ $_[0] } }
sub agent_err { return slurp("$dir/$_[0].err") // '' }

# Stops an agent: SIGTERM, then waits at most 10 s; returns its exit
# status (-1: still running, then killed).
sub agent_stop {
    my ($name) = @_;
    my $pid = delete $pids{$name} or return -1;
    kill 'TERM', $pid;
    my $end = time + 10;
    while (time < $end) {
        return $? if waitpid($pid, WNOHANG) == $pid;
        sleep 0.05;
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
    return -1;
}
END { agent_stop($_) for keys %pids }

# Waits at most $max seconds for an agent to exit by itself; returns
# its exit status ($?), or undef while it still runs.
sub agent_wait {
    my ($name, $max) = @_;
    my $pid = $pids{$name} or return undef;
    my $end = time + $max;
    while (1) {
        if (waitpid($pid, WNOHANG) == $pid) {
            delete $pids{$name};
            return $?;
        }
        return undef if time >= $end;
        sleep 0.05;
    }
}

# The addresses an agent logged ("listening on HOST:PORT", HOST in []
# for IPv6), as [host, port] pairs, once it logged $min of them (default
# 1), it exited, or 20 s passed: then those it logged.
sub agent_ports {
    my ($name, $min) = @_;
    $min //= 1;
    my $end = time + 20;
    my @a;
    while (1) {
        my $e = agent_err($name);
        @a = ();
        push @a, [$1 // $2, $3]
            while $e =~ /listening on (?:\[([^\]]+)\]|([^\s:]+)):(\d+)/g;
        my $pid = $pids{$name};
        return @a if @a >= $min || time >= $end || !$pid
                     || waitpid($pid, WNOHANG) == $pid;
        sleep 0.05;
    }
}

# The port of the first address an agent logged, 0 when none.
sub agent_port {
    my @a = agent_ports(@_);
    return @a ? $a[0][1] : 0;
}

# Sends $raw to $host:$port and reads to EOF, at most $max seconds
# (default 20).  Returns (answer, seconds taken).
sub agent_raw {
    my ($host, $port, $raw, $max) = @_;
    $max //= 20;
    my $t0 = time;
    my $s = IO::Socket::IP->new(PeerHost => $host, PeerPort => $port,
                                Timeout => $max)
        or return ('', time - $t0);
    print $s $raw;
    my ($ans, $end) = ('', $t0 + $max);
    my $sel = IO::Select->new($s);
    while (time < $end) {
        last unless $sel->can_read($end - time);
        my $n = sysread($s, $ans, 65536, length $ans);
        last unless $n;
    }
    close $s;
    return ($ans, time - $t0);
}

sub status_of { return $_[0] =~ m{^HTTP/1\.1 (\d{3}) } ? $1 : 0 }
sub body_of   { my ($a) = @_; $a =~ s/^.*?\r\n\r\n//s; return $a }

# The master's default probe timeout in seconds, read from the source
# (mod_pistats/pis_config.h, PIS_DEFAULT_PROBE_TIMEOUT): an agent must
# answer a probe well within it.
sub master_probe_timeout {
    my $top = Apache::Test::config()->{vars}{top_dir};
    my $h = slurp("$top/mod_pistats/pis_config.h") // '';
    my ($unit, $n) = $h =~ /PIS_DEFAULT_PROBE_TIMEOUT\s+
                            apr_time_from_(msec|sec)\((\d+)\)/x;
    return $unit eq 'msec' ? $n / 1000 : $n if defined $n;
    die "PIS_DEFAULT_PROBE_TIMEOUT not found in pis_config.h";
}

# Whether this machine can listen and connect on ::1.
sub have_ipv6 {
    my $l = IO::Socket::IP->new(LocalHost => '::1', LocalPort => 0,
                                Listen => 1) or return 0;
    my $c = IO::Socket::IP->new(PeerHost => '::1', PeerPort => $l->sockport,
                                Timeout => 5);
    return $c ? 1 : 0;
}

# The uid and gid of "nobody", the user the agent drops to as root; ()
# when there is none.
sub nobody {
    my @pw = getpwnam('nobody');
    return @pw ? ($pw[2], $pw[3]) : ();
}

1;
