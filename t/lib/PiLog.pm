package PiLog;
# The server's error_log, read incrementally.  The suite logs at trace8
# (Apache::Test's default with mod_version), so the log reaches hundreds
# of MB: a test that re-read it whole on each poll would spend seconds a
# poll, more on a busy machine.  This reads only what was added since the
# last call, and keeps only the lines that match the filter given.
#
#   my $log = PiLog->new(qr/PIS\d+|resuming normal/);   # from the end now
#   my $log = PiLog->new($filter, from_start => 1);     # the whole log
#   $log->count(qr/resuming normal operations/);        # reads, then counts
#   my @l = $log->lines(qr/HTTP status 403/);
use strict;
use warnings;

use Apache::Test ();

sub new {
    my ($class, $filter, %opt) = @_;
    my $file = Apache::Test::vars('t_logs') . '/error_log';
    my $self = bless { file => $file, filter => $filter, kept => [],
                       off => $opt{from_start} ? 0 : (-s $file // 0) },
                     $class;
    return $self;
}

# Reads what was added; returns the lines kept so far.
sub update {
    my ($self) = @_;
    open my $fh, '<', $self->{file} or return @{ $self->{kept} };
    my $size = -s $fh;
    $self->{off} = 0 if $size < $self->{off};    # truncated: start over
    seek $fh, $self->{off}, 0;
    my $re = $self->{filter};
    while (my $line = <$fh>) {
        last unless $line =~ /\n\z/;             # half written: next time
        $self->{off} += length $line;
        push @{ $self->{kept} }, $line if $line =~ $re;
    }
    close $fh;
    return @{ $self->{kept} };
}

sub lines {
    my ($self, $re) = @_;
    return grep { $_ =~ $re } $self->update;
}

sub count { my ($self, $re) = @_; return scalar $self->lines($re) }

1;
