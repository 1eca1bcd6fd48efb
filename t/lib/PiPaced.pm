package PiPaced;
# The body PiOffload::paced sends, for the node and for t/offload/paced.t.
use strict;
use warnings FATAL => 'all';
use Exporter 'import';

our @EXPORT_OK = qw(paced_body);

# $n bytes of numbered lines.
sub paced_body {
    my ($n) = @_;
    my $body = join '', map { sprintf "%07d paced line of text\n", $_ }
        0 .. int($n / 26) + 1;
    return substr $body, 0, $n;
}

1;
