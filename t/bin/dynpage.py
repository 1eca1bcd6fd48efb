#!/usr/bin/env python3
"""dynpage.py -- a phpinfo()-like page (~67 KB) whose few live values
change with every version: the dynamic page of the dictionary tests and
of bench/dictionary.sh (RFC 9842 deltas).

    dynpage.py N [--base FILE] [--item K]   writes version N to stdout
                                 (of item K: item_page())
    dynpage.py --script N        version N of the versioned script
    import dynpage; dynpage.page(n, base_bytes)

Version N is deterministic (the same N gives the same bytes): the bulk
is sim/phpinfo-dense.html (51 KB of modules and directives, 2.4:1 at
gzip 1 as a real page of many distinct values; unchanged); a
"PHP Variables" section of ~16 KB follows, where a dozen values depend
on N the way a real phpinfo() changes between two requests (request
time, the client's port, a unique id, a session cookie, memory use,
load, a counter).  Everything else in that section is constant.
"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BASE = os.path.join(HERE, '..', '..', 'sim', 'phpinfo-dense.html')

# Constant rows of the variables table (names and values as a Debian
# PHP under Apache shows them), repeated with numbered keys to reach the
# size of a real page's environment and $_SERVER dump.
_CONST = [
    ('HTTP_HOST', 'pi-master.local'),
    ('HTTP_USER_AGENT', 'Mozilla/5.0 (X11; Linux aarch64) AppleWebKit/537.36 '
     '(KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'),
    ('HTTP_ACCEPT', 'text/html,application/xhtml+xml,application/xml;'
     'q=0.9,image/avif,image/webp,*/*;q=0.8'),
    ('HTTP_ACCEPT_LANGUAGE', 'en-GB,en;q=0.9'),
    ('PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'),
    ('SERVER_SIGNATURE', '<address>Apache/2.4.71 (Debian) Server at '
     'pi-node-3.local Port 80</address>'),
    ('SERVER_SOFTWARE', 'Apache/2.4.71 (Debian)'),
    ('SERVER_NAME', 'pi-node-3.local'),
    ('SERVER_ADDR', '127.0.0.1'),
    ('SERVER_PORT', '80'),
    ('DOCUMENT_ROOT', '/var/www/html'),
    ('REQUEST_SCHEME', 'http'),
    ('CONTEXT_DOCUMENT_ROOT', '/var/www/html'),
    ('SERVER_ADMIN', 'webmaster@localhost'),
    ('SCRIPT_FILENAME', '/var/www/html/info.php'),
    ('GATEWAY_INTERFACE', 'CGI/1.1'),
    ('SERVER_PROTOCOL', 'HTTP/1.1'),
    ('REQUEST_METHOD', 'GET'),
    ('QUERY_STRING', '<i>no value</i>'),
    ('REQUEST_URI', '/info.php'),
    ('SCRIPT_NAME', '/info.php'),
    ('PHP_SELF', '/info.php'),
]


def _h(n, what, size=16):
    return hashlib.sha256(('%d/%s' % (n, what)).encode()).hexdigest()[:size]


def _live(n):
    """The values that change from one version to the next."""
    t = 1764900000 + 7 * n
    return [
        ('REQUEST_TIME', str(t)),
        ('REQUEST_TIME_FLOAT', '%d.%06d' % (t, (n * 731257) % 1000000)),
        ('REMOTE_PORT', str(32768 + (n * 7919) % 28000)),
        ('UNIQUE_ID', _h(n, 'uid', 24)),
        ('HTTP_COOKIE', 'PHPSESSID=' + _h(n, 'sess', 26)),
        ('memory_get_usage', '%d bytes' % (412000 + (n * 3301) % 9000)),
        ('memory_get_peak_usage', '%d bytes' % (440000 + (n * 4409) % 9000)),
        ('sys_getloadavg', '%.2f %.2f %.2f' % (0.5 + (n % 7) / 10.0,
                                               0.4 + (n % 5) / 10.0,
                                               0.3 + (n % 3) / 10.0)),
        ('opcache.hits', str(1000 + 13 * n)),
        ('opcache.misses', str(20 + n // 4)),
        ('apcu.num_entries', str(300 + (n % 11))),
        ('X_REQUEST_COUNTER', str(n)),
    ]


def _row(k, v):
    return ('<tr><td class="e">%s</td><td class="v">%s</td></tr>\n'
            % (k, v))


def page(n, base):
    """Version n of the page (bytes), built on base (sim/phpinfo.html)."""
    cut = base.rfind(b'</div></body>')
    head, tail = (base[:cut], base[cut:]) if cut >= 0 else (base, b'')
    rows = []
    live = _live(n)
    for i in range(7):
        for k, v in _CONST:
            rows.append(_row('$_SERVER[\'%s%s\']' % (k, '_%d' % i if i else ''),
                             v))
        rows.append(_row(*live[i % len(live)]))
    for k, v in live:
        rows.append(_row('$_SERVER[\'%s\']' % k, v))
    section = ('<h2>PHP Variables</h2>\n<table>\n'
               '<tr class="h"><th>Variable</th><th>Value</th></tr>\n'
               + ''.join(rows) + '</table>\n'
               '<p id="version">version %d</p>\n' % n)
    return head + section.encode() + tail


def item_page(item, n, base):
    """Page n of item `item` under one prefix (/item?id=...): the same
    template and live values as page(), but each item shows its own
    subset of the base's sections in its own order (seeded by item), as
    the pages of one application differ from each other."""
    import random
    parts = base.split(b'<h2>')
    head, sections = parts[0], [b'<h2>' + x for x in parts[1:]]
    rnd = random.Random(item)
    keep = [x for x in sections if rnd.random() < 0.6]
    rnd.shuffle(keep)
    return page(n, head + b''.join(keep) + b'</div></body></html>\n')


def script(n):
    """Version n of a ~100 KB script (a versioned /s/app.js?v=n): the
    same code from one build to the next, a build stamp and a few
    constants changed."""
    lines = ['/* app.js build %d */' % n,
             'var BUILD = %d, STAMP = "%s";' % (n, hashlib.sha1(
                 str(n).encode()).hexdigest())]
    for i in range(1500):
        lines.append('function f%d(a, b) { return a * %d + b - %d; }'
                     % (i, i, (i * 7 + (n if i % 250 == 0 else 0)) % 97))
    lines.append('document.addEventListener("DOMContentLoaded", function () '
                 '{ document.getElementById("build").textContent = '
                 '"build " + BUILD; });')
    return ('\n'.join(lines) + '\n').encode()


def main():
    args = sys.argv[1:]
    base = DEFAULT_BASE
    if '--base' in args:
        i = args.index('--base')
        base = args[i + 1]
        del args[i:i + 2]
    if '--script' in args:
        args.remove('--script')
        sys.stdout.buffer.write(script(int(args[0]) if args else 0))
        return
    item = None
    if '--item' in args:
        i = args.index('--item')
        item = int(args[i + 1])
        del args[i:i + 2]
    n = int(args[0]) if args else 0
    with open(base, 'rb') as f:
        b = f.read()
    sys.stdout.buffer.write(page(n, b) if item is None
                            else item_page(item, n, b))


if __name__ == '__main__':
    main()
