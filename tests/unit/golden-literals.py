#!/usr/bin/env python3
"""tests/unit/golden-literals.py -- rewrites test_render_golden.c from the
outputs PIS_GOLDEN_DIR=dir tests/unit/unit_tests wrote (dir/auto.txt,
json.txt, prom.txt, html.txt): one C literal each, a line of output per
literal line (long ones split under 80 columns), octal escapes for bytes
outside printable ASCII.  Review the diff before committing.

    PIS_GOLDEN_DIR=/tmp/g tests/unit/unit_tests
    tests/unit/golden-literals.py /tmp/g > /tmp/g/new.c
    cp /tmp/g/new.c tests/unit/test_render_golden.c     (it reads the old one)
"""
import os
import sys

NAMES = [('auto', 'auto.txt'), ('json', 'json.txt'), ('prom', 'prom.txt'),
         ('html', 'html.txt')]
WIDTH = 74 - 6                     # 4 spaces, two quotes: 74 columns


def units(data):
    """The escaped source text of each byte."""
    for b in data:
        c = chr(b)
        if c == '\\':
            yield '\\\\'
        elif c == '"':
            yield '\\"'
        elif c == '\n':
            yield '\\n'
        elif c == '\t':
            yield '\\t'
        elif c == '\r':
            yield '\\r'
        elif 32 <= b < 127:
            # a '?' after '?' could start a trigraph: keep them apart
            yield c
        else:
            yield '\\%03o' % b


def literal(data):
    out, cur = [], ''
    for u in units(data):
        if len(cur) + len(u) > WIDTH:
            out.append(cur)
            cur = ''
        cur += u
        if u == '\\n':
            out.append(cur)
            cur = ''
    if cur:
        out.append(cur)
    return '\n'.join('    "%s"' % line for line in out)


def main(argv):
    d = argv[1]
    head = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             'test_render_golden.c')).read()
    head = head[:head.index('extern const char pis_golden_auto[]')]
    parts = [head.rstrip('\n') + '\n']
    for name, f in NAMES:
        data = open(os.path.join(d, f), 'rb').read()
        parts.append('\nextern const char pis_golden_%s[];\n'
                     'const char pis_golden_%s[] =\n%s;\n'
                     % (name, name, literal(data)))
    sys.stdout.write(''.join(parts))


if __name__ == '__main__':
    sys.exit(main(sys.argv))
