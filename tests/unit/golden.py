#!/usr/bin/env python3
"""tests/unit/golden.py -- regenerates tests/unit/test_render_golden.c.

    make -s tests/unit/unit_tests
    PIS_GOLDEN_DIR=$(mktemp -d) tests/unit/unit_tests   # writes *.txt
    tests/unit/golden.py DIR > tests/unit/test_render_golden.c

then review the diff: every change of a golden file is a change of what
/pi-status prints.  Bytes outside printable ASCII become octal escapes;
lines are cut at 66 escaped characters (never inside an escape).
"""
import sys

HEAD = """/* test_render_golden.c -- golden output of the master's formats on the
 * fixture of test_render_snap.c, with runs of equal array items squashed
 * ("0*290").  Regenerate with tests/unit/golden.py (its usage says how)
 * and review the diff.
 */
"""
WIDTH = 66


def tokens(data):
    for b in data:
        c = chr(b)
        if c == '"':
            yield '\\"'
        elif c == '\\':
            yield '\\\\'
        elif c == '\n':
            yield '\\n'
        elif 32 <= b < 127:
            yield c
        else:
            yield '\\%03o' % b


def literal(name, data):
    out = ['\nextern const char %s[];\nconst char %s[] =\n' % (name, name)]
    line, prev_octal = '', False
    for t in tokens(data):
        # an octal escape followed by a digit would read on: cut there
        if prev_octal and t[0] in '01234567':
            out.append('    "%s"\n' % line)
            line = ''
        line += t
        prev_octal = t.startswith('\\') and len(t) == 4 and t[1:].isdigit()
        if t == '\\n' or len(line) >= WIDTH:
            out.append('    "%s"\n' % line)
            line = ''
    if line:
        out.append('    "%s"\n' % line)
    out[-1] = out[-1][:-1] + ';\n'
    return ''.join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    text = HEAD
    for kind in ('auto', 'json', 'prom', 'html'):
        with open('%s/%s.txt' % (d, kind), 'rb') as f:
            text += literal('pis_golden_' + kind, f.read())
    sys.stdout.write(text)


main()
