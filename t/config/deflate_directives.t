# Bad PiBalanceDeflate* values stop start-up with a message naming the
# directive and the accepted range; a good configuration passes.
use strict;
use warnings FATAL => 'all';

use Apache::Test;
use Apache::TestUtil;
use lib 't/lib';
use PiTest qw(check_config);

my @bad = (
    ['PiBalanceDeflate maybe', qr/PiBalanceDeflate must be On or Off/],
    ['PiBalanceDeflateLevel 0',
     qr/PiBalanceDeflateLevel: '0' must be a whole number in \[1, 9\]/],
    ['PiBalanceDeflateLevel 10', qr/PiBalanceDeflateLevel: '10' .*\[1, 9\]/],
    ['PiBalanceDeflateLevel 1x', qr/PiBalanceDeflateLevel: '1x' .*\[1, 9\]/],
    ['PiBalanceDeflateLevel -1', qr/PiBalanceDeflateLevel: '-1' .*\[1, 9\]/],
    ['PiBalanceDeflateWindowBits 8',
     qr/PiBalanceDeflateWindowBits: '8' must be a whole number in \[9, 15\]/],
    ['PiBalanceDeflateWindowBits 16',
     qr/PiBalanceDeflateWindowBits: '16' .*\[9, 15\]/],
    ['PiBalanceDeflateMemLevel 0',
     qr/PiBalanceDeflateMemLevel: '0' must be a whole number in \[1, 9\]/],
    ['PiBalanceDeflateMemLevel 99',
     qr/PiBalanceDeflateMemLevel: '99' .*\[1, 9\]/],
    ['PiBalanceDeflateBuffer 67108865',
     qr/PiBalanceDeflateBuffer: '67108865' .*\[0, 67108864\]/],
    ['PiBalanceDeflateBuffer 1M',
     qr/PiBalanceDeflateBuffer: '1M' .*\[0, 67108864\]/],
    ['PiBalanceDeflateMinLength -5',
     qr/PiBalanceDeflateMinLength: '-5' .*\[0, 1073741824\]/],
    ['PiBalanceDeflateTypes text/html nonsense',
     qr/PiBalanceDeflateTypes: 'nonsense' must be a media type/],
    ['PiBalanceDeflateTypes "text/html; charset=utf-8"',
     qr/PiBalanceDeflateTypes: .* must be a media type/],
    ['PiBalanceDeflateAdaptive', qr/PiBalanceDeflateAdaptive: the first/],
    ['PiBalanceDeflateAdaptive sometimes',
     qr/PiBalanceDeflateAdaptive: the first argument must be On or Off/],
    ['PiBalanceDeflateAdaptive On cpu=5',
     qr/PiBalanceDeflateAdaptive: 'cpu=5': cpu= .*\[10, 100\]/],
    ['PiBalanceDeflateAdaptive On temp=500',
     qr/PiBalanceDeflateAdaptive: 'temp=500': temp= .*\[30, 120\]/],
    ['PiBalanceDeflateAdaptive On stat=proc',
     qr/PiBalanceDeflateAdaptive: 'stat=proc': options are/],
    ['PiBalanceDeflateCompressors 0',
     qr/PiBalanceDeflateCompressors: '0' must be a whole number in \[1, 64\]/],
    ['PiBalanceDeflateCompressors 65',
     qr/PiBalanceDeflateCompressors: '65' .*\[1, 64\]/],
    ['PiBalanceDeflateCompressors cores',
     qr/PiBalanceDeflateCompressors: 'cores' .*\[1, 64\]/],
    ["<VirtualHost 127.0.0.1:65001>\nPiBalanceDeflateCompressors 2\n"
     . "</VirtualHost>",
     qr/PiBalanceDeflateCompressors cannot occur within <VirtualHost> section/],
    ["<VirtualHost 127.0.0.1:65001>\nPiBalanceDeflateAdaptive On\n"
     . "</VirtualHost>",
     qr/PiBalanceDeflateAdaptive cannot occur within <VirtualHost> section/],
    ["<Directory /tmp>\nPiBalanceDeflateAdaptive On\n</Directory>",
     qr/PiBalanceDeflateAdaptive not allowed in <Directory> context/],
    ["<Directory /tmp>\nAllowOverride All\n</Directory>\n"
     . "<Files x>\nPiBalanceDeflateLevel 0\n</Files>",
     qr/PiBalanceDeflateLevel: not allowed in <Directory> or <Files>/],
    # issue 19: PiBalanceDeflateCodecs
    ['PiBalanceDeflateCodecs', qr/PiBalanceDeflateCodecs: '': name at least/],
    ['PiBalanceDeflateCodecs gzip deflate',
     qr/PiBalanceDeflateCodecs: 'deflate': unknown coding.*gzip, br, zstd and dcz/],
    ['PiBalanceDeflateCodecs dcz dcb gzip',
     qr/PiBalanceDeflateCodecs: 'dcb': dcb needs libbrotli 1.1 or later/],
    ['PiBalanceDictionaryRoot /nonexistent/pib-dict',
     qr/PiBalanceDictionaryRoot: '\/nonexistent\/pib-dict' must be an existing directory/],
    ['PiBalanceDictionaryMaxSize 10',
     qr/PiBalanceDictionaryMaxSize: '10' must be a whole number of bytes in \[65536, 1073741824\]/],
    ['PiBalanceDictionaryLifetime 5',
     qr/PiBalanceDictionaryLifetime: '5' must be a whole number of seconds in \[60, 31536000\]/],
    ["<Location /a>\nPiBalanceDictionaryPrefix app\n</Location>",
     qr/PiBalanceDictionaryPrefix: 'app' must be a URL path from '\/'/],
    ['PiBalanceDeflateCodecs zstd br zstd',
     qr/PiBalanceDeflateCodecs: 'zstd': coding listed twice/],
    ['PiBalanceDeflateCodecs zstd=20',
     qr/PiBalanceDeflateCodecs: 'zstd=20': the zstd level .*\[1, 19\]/],
    ['PiBalanceDeflateCodecs br=0 gzip',
     qr/PiBalanceDeflateCodecs: 'br=0': the br level .*\[1, 11\]/],
    ['PiBalanceDeflateCodecs gzip=6',
     qr/PiBalanceDeflateCodecs: 'gzip=6': gzip takes no level.*Level/],
    ["<Directory /tmp>\nPiBalanceDeflateCodecs zstd gzip\n</Directory>",
     qr/PiBalanceDeflateCodecs: not allowed in <Directory>/],
);

plan tests => 2 * @bad + 2, need_module 'pibalance';

my ($rc, $out) = check_config(<<'GOOD', [qw(pibalance)]);
PiBalanceDeflate On
PiBalanceDeflateLevel 9
PiBalanceDeflateWindowBits 9
PiBalanceDeflateMemLevel 1
PiBalanceDeflateBuffer 0
PiBalanceDeflateMinLength 0
PiBalanceDeflateTypes text/html application/vnd.api+json
PiBalanceDeflateAdaptive On cpu=80 temp=70 stat=/proc/stat thermal=/sys/x*
PiBalanceDeflateCompressors 64
PiBalanceDeflateCodecs zstd=19 BR=11 gzip
<Location /x>
    PiBalanceDeflateCodecs br gzip zstd=1
    PiBalanceDeflate Off
    PiBalanceDeflateLevel 1
</Location>
<Proxy "balancer://x">
    PiBalanceDeflate On
</Proxy>
GOOD
ok t_cmp($rc, 0, 'a good configuration passes');
ok t_cmp($out, qr/Syntax OK/, 'httpd -t says Syntax OK') or print $out;

for my $case (@bad) {
    my ($line, $want) = @$case;
    ($rc, $out) = check_config($line, [qw(pibalance)]);
    (my $name = $line) =~ s/\n/ /g;
    $name = substr($name, 0, 60);
    ok t_cmp($rc != 0, 1, "refused: $name");
    ok t_cmp($out, $want, "message: $name");
}
