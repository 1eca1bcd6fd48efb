#!/usr/bin/env python3
"""dcz-refserver.py -- a reference RFC 9842 server on 127.0.0.1, to learn
what a real browser does (and to check our own encoder's bytes against
an independent one: this one compresses with the zstd command-line tool).

    dcz-refserver.py PORT [--seconds N] [--tls CERT KEY] [--encoder DCZENC]

Serves:
  /page          the dynamic page (t/bin/dynpage.py, a new version on
                 every request), Cache-Control: no-cache, announcing
                 Link: </dict/page.dict>; rel="compression-dictionary";
                 sent as dcz when the request offers dcz and names the
                 dictionary's SHA-256 in Available-Dictionary, else gzip.
  /dict/page.dict  the dictionary: version 0 of the page, max-age one
                 year, Use-As-Dictionary: match="/page",
                 match-dest=("document").
  /log           every request so far, one JSON object a line (path,
                 Accept-Encoding, Available-Dictionary, Dictionary-ID,
                 Sec-Fetch-*, the coding sent and the bytes).

Many clients at once (one thread each), every connection with a 10 s
deadline; stops by itself after --seconds (default 300).
"""
import base64
import gzip
import hashlib
import json
import os
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dynpage  # noqa: E402

with open(dynpage.DEFAULT_BASE, 'rb') as f:
    BASE = f.read()
DICT = dynpage.page(0, BASE)
DICT_HASH = hashlib.sha256(DICT).digest()
DICT_SF = ':' + base64.b64encode(DICT_HASH).decode() + ':'
DICT_FILE = tempfile.NamedTemporaryFile(prefix='dcz-ref-', delete=False)
DICT_FILE.write(DICT)
DICT_FILE.close()

# Every body served with Use-As-Dictionary, by SHA-256 (the server may
# only compress against what it served itself).
DICTS = {DICT_HASH: DICT}
# --encoder PATH: bench/dczenc (mod_pibalance's encoder) instead of the
# zstd command-line tool, header included.
ENCODER = (sys.argv[sys.argv.index('--encoder') + 1]
           if '--encoder' in sys.argv else None)
LOG = []
LOCK = threading.Lock()
COUNTER = [0]


def dcz(body, digest=DICT_HASH):
    """RFC 9842 section 4: the 40-byte header, then a zstd frame with the
    dictionary as raw content (the CLI loads a file without the
    dictionary magic as raw content)."""
    with tempfile.NamedTemporaryFile(prefix='dcz-ref-') as d:
        d.write(DICTS[digest])
        d.flush()
        cmd = ([ENCODER, d.name, '3'] if ENCODER
               else ['zstd', '-q', '-3', '-c', '-D', d.name])
        out = subprocess.run(cmd,
                             input=body, stdout=subprocess.PIPE, check=True,
                             timeout=10).stdout
    if ENCODER:
        return out                  # header and frame, both its own
    return b'\x5e\x2a\x4d\x18\x20\x00\x00\x00' + digest + out


def held(header):
    """The dictionary an Available-Dictionary value names, if we hold it."""
    v = (header or '').strip()
    if len(v) < 3 or v[0] != ':' or v[-1] != ':':
        return None
    try:
        d = base64.b64decode(v[1:-1], validate=True)
    except ValueError:
        return None
    return d if d in DICTS else None


script = dynpage.script


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    timeout = 10

    def log_message(self, fmt, *args):
        pass

    def send(self, status, headers, body):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def record(self, coding, nbytes):
        h = self.headers
        with LOCK:
            LOG.append({
                't': round(time.time(), 3), 'path': self.path,
                'ae': h.get('Accept-Encoding'),
                'avail': h.get('Available-Dictionary'),
                'dict_id': h.get('Dictionary-ID'),
                'site': h.get('Sec-Fetch-Site'),
                'mode': h.get('Sec-Fetch-Mode'),
                'dest': h.get('Sec-Fetch-Dest'),
                'coding': coding, 'bytes': nbytes,
                'dict_match': h.get('Available-Dictionary') == DICT_SF,
            })

    def do_GET(self):
        ae = [t.split(';')[0].strip()
              for t in (self.headers.get('Accept-Encoding') or '').split(',')]
        if self.path == '/log':
            with LOCK:
                body = ''.join(json.dumps(e) + '\n' for e in LOG).encode()
            return self.send(200, [('Content-Type', 'text/plain'),
                                   ('Cache-Control', 'no-store')], body)
        if self.path == '/dict/page.dict':
            body, hdr = DICT, [
                ('Content-Type', os.environ.get('DCZ_REF_DICT_TYPE',
                                                'text/html')),
                ('X-Content-Type-Options', 'nosniff'),
                ('Cache-Control', 'public, max-age=31536000'),
                ('Use-As-Dictionary',
                 'match="/page", match-dest=("document")')]
            coding = 'identity'
            if 'gzip' in ae:
                body, coding = gzip.compress(body, 1), 'gzip'
                hdr += [('Content-Encoding', 'gzip'),
                        ('Vary', 'Accept-Encoding')]
            self.record(coding, len(body))
            return self.send(200, hdr, body)
        if self.path.startswith('/app?v='):
            n = int(self.path.split('=')[1])
            body = ('<!DOCTYPE html><html><head><script src="/s/app.js?v=%d">'
                    '</script></head><body><p id="build">none</p>'
                    '</body></html>' % n).encode()
            self.record('identity', len(body))
            return self.send(200, [('Content-Type', 'text/html'),
                                   ('Cache-Control', 'no-cache')], body)
        if self.path.startswith('/s/app'):
            n = int(self.path.split('=')[1])
            body = script(n)
            digest = hashlib.sha256(body).digest()
            with LOCK:
                DICTS[digest] = body
            match = os.environ.get('DCZ_REF_MATCH', '/s/app.js')
            hdr = [('Content-Type', 'text/javascript'),
                   ('Cache-Control', os.environ.get('DCZ_REF_CC',
                                                    'public, max-age=3600')),
                   ('Use-As-Dictionary', 'match="%s", match-dest=("script")'
                    % match),
                   ('Vary', 'Accept-Encoding, Available-Dictionary')]
            d = held(self.headers.get('Available-Dictionary'))
            coding = 'identity'
            if 'dcz' in ae and d is not None:
                body, coding = dcz(body, d), 'dcz'
            elif 'gzip' in ae:
                body, coding = gzip.compress(body, 1), 'gzip'
            if coding != 'identity':
                hdr.append(('Content-Encoding', coding))
            self.record(coding, len(body))
            return self.send(200, hdr, body)
        if self.path.startswith('/self/'):
            # /self/<max-age or "nocache">/...: a page that names itself as
            # its next version's dictionary.
            kind = self.path.split('/')[2]
            with LOCK:
                COUNTER[0] += 1
                n = COUNTER[0]
            body = dynpage.page(n, BASE)
            digest = hashlib.sha256(body).digest()
            with LOCK:
                DICTS[digest] = body
            cc = 'no-cache' if kind == 'nocache' else 'max-age=' + kind
            hdr = [('Content-Type', 'text/html'), ('Cache-Control', cc),
                   ('Use-As-Dictionary',
                    'match="/self/%s/*", match-dest=("document")' % kind),
                   ('Vary', 'Accept-Encoding, Available-Dictionary')]
            d = held(self.headers.get('Available-Dictionary'))
            coding = 'identity'
            if 'dcz' in ae and d is not None:
                body, coding = dcz(body, d), 'dcz'
            elif 'gzip' in ae:
                body, coding = gzip.compress(body, 1), 'gzip'
            if coding != 'identity':
                hdr.append(('Content-Encoding', coding))
            self.record(coding, len(body))
            return self.send(200, hdr, body)
        if self.path.startswith('/page'):
            with LOCK:
                COUNTER[0] += 1
                n = COUNTER[0]
            body = dynpage.page(n, BASE)
            hdr = [('Content-Type', 'text/html; charset=utf-8'),
                   ('Cache-Control', 'no-cache'),
                   ('Link', '</dict/page.dict>; rel="compression-dictionary"'),
                   ('Vary', 'Accept-Encoding, Available-Dictionary')]
            coding = 'identity'
            if ('dcz' in ae
                    and self.headers.get('Available-Dictionary') == DICT_SF):
                body, coding = dcz(body), 'dcz'
            elif 'gzip' in ae:
                body, coding = gzip.compress(body, 1), 'gzip'
            if coding != 'identity':
                hdr.append(('Content-Encoding', coding))
            self.record(coding, len(body))
            return self.send(200, hdr, body)
        self.record('404', 0)
        return self.send(404, [('Content-Type', 'text/plain')], b'no\n')


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    port = int(sys.argv[1])
    seconds = 300
    if '--seconds' in sys.argv:
        seconds = float(sys.argv[sys.argv.index('--seconds') + 1])
    srv = Server(('127.0.0.1', port), Handler)
    if '--tls' in sys.argv:
        # --tls CERT KEY: HTTPS (a TLS variant of the browser test)
        import ssl
        i = sys.argv.index('--tls')
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[i + 1], sys.argv[i + 2])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Timer(seconds, srv.shutdown).start()
    try:
        srv.serve_forever()
    finally:
        os.unlink(DICT_FILE.name)


if __name__ == '__main__':
    main()
