#!/usr/bin/env python3
"""bench/masters.py -- masters.sh's arithmetic: one run's figures from its
raw files (pisim's summary and trace, each master's wrk output and error
log), and the table of all runs.

  masters.py header            the runs.tsv header line
  masters.py run DIR HOT M BAL one runs.tsv line for the run in DIR
  masters.py table RAWDIR      table.md from RAWDIR/runs.tsv (+ drains)
"""
import glob
import os
import re
import statistics
import sys
from datetime import datetime

COLS = ['masters', 'balancer', 'req_s', 'p99_ms', 'errors', 'hot_throttled_s',
        'hot_share_mean', 'hot_share_sd', 'hot_share_flips', 'drains',
        'readmits', 'drain_spread_ms', 'p99_per_master']


def to_ms(v):
    n = float(re.match(r'[\d.]+', v).group(0))
    if v.endswith('us'):
        return n / 1000
    if v.endswith('ms'):
        return n
    if v.endswith('s'):
        return n * 1000
    return n


def wrk(path):
    rps, p99, err = 0.0, 0.0, 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if line.startswith('Requests/sec'):
                rps = float(w[1])
            elif w and w[0] == '99%':
                p99 = to_ms(w[1])
            elif 'Socket errors' in line:
                err += sum(int(x) for x in re.findall(r'\d+', line))
            elif line.strip().startswith('Non-2xx'):
                err += int(w[-1])
    return rps, p99, err


def summary(path, hot):
    with open(path) as f:
        for line in f:
            kv = dict(x.split('=', 1) for x in line.split() if '=' in x)
            if kv.get('node') == hot:
                return float(kv['throttled_s'])
    return float('nan')


def shares(path, hot):
    """The hot node's share of each second's requests while under load:
    seconds with at least a fifth of the median second's requests."""
    served = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            t, name, _temp, _thr, n, _busy = line.split()[:6]
            served.setdefault(round(float(t)), {})[name] = int(n)
    secs = sorted(served)
    per = []
    for a, b in zip(secs, secs[1:]):
        d = {k: served[b][k] - served[a].get(k, 0) for k in served[b]}
        per.append((sum(d.values()), d.get(hot, 0)))
    if not per:
        return []
    med = statistics.median(t for t, _ in per)
    return [h / t for t, h in per if t > 0 and t >= med / 5]


def flips(xs):
    """How often the share changes direction by more than 5 points."""
    n, last = 0, 0
    for a, b in zip(xs, xs[1:]):
        d = b - a
        if abs(d) < 0.05:
            continue
        s = 1 if d > 0 else -1
        if last and s != last:
            n += 1
        last = s
    return n


STAMP = re.compile(r'^\[(\w+ \w+ \d+ [\d:.]+ \d+)\].*PIB10201: pi: \S+ '
                   r'(drained|re-admitted)')


def drains(paths):
    """Per master: the list of (kind, epoch seconds) of PIB10201 lines."""
    out = []
    for p in paths:
        ev = []
        with open(p, errors='replace') as f:
            for line in f:
                m = STAMP.match(line)
                if m:
                    t = datetime.strptime(m.group(1), '%a %b %d %H:%M:%S.%f %Y')
                    ev.append((m.group(2), t.timestamp()))
        out.append(ev)
    return out


def spread(evs):
    """The k-th drain (and re-admit) of every master that had one: the
    largest gap between the masters doing the same change, in ms."""
    worst = None
    for kind in ('drained', 're-admitted'):
        lists = [[t for k, t in e if k == kind] for e in evs]
        k = 0
        while True:
            ts = [lst[k] for lst in lists if len(lst) > k]
            if len(ts) < 2:
                break
            gap = (max(ts) - min(ts)) * 1000
            worst = gap if worst is None else max(worst, gap)
            k += 1
    return worst


def run(d, hot, m, bal):
    ws = [wrk(p) for p in sorted(glob.glob(os.path.join(d, 'wrk-m*.txt')))]
    sh = shares(os.path.join(d, 'trace'), hot)
    logs = sorted(glob.glob(os.path.join(d, 'error_log-m*')))
    evs = drains(logs) if bal.startswith('pi') else []
    sp = spread(evs) if evs else None
    with open(os.path.join(d, 'drains.tsv'), 'w') as f:
        for i, e in enumerate(evs):
            for kind, t in e:
                f.write('m%d\t%s\t%.3f\n' % (i, kind, t))
    row = [m, bal, '%.1f' % sum(r for r, _, _ in ws),
           '%.1f' % max((p for _, p, _ in ws), default=0),
           sum(e for _, _, e in ws),
           '%.1f' % summary(os.path.join(d, 'summary'), hot),
           '%.3f' % (statistics.mean(sh) if sh else float('nan')),
           '%.3f' % (statistics.pstdev(sh) if len(sh) > 1 else float('nan')),
           flips(sh),
           '/'.join(str(sum(1 for k, _ in e if k == 'drained')) for e in evs)
           or '-',
           '/'.join(str(sum(1 for k, _ in e if k == 're-admitted'))
                    for e in evs) or '-',
           '-' if sp is None else '%.0f' % sp,
           ','.join('%.0f' % p for _, p, _ in ws)]
    print('\t'.join(str(x) for x in row))


def table(raw):
    with open(os.path.join(raw, 'runs.tsv')) as f:
        rows = [line.rstrip('\n').split('\t') for line in f][1:]
    print('| masters | balancer | req/s | p99 ms (worst master) | errors '
          '| pi3 throttled s | pi3 share (mean ± sd per second) '
          '| share reversals | drains / re-admits per master '
          '| masters apart (ms) |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for r in rows:
        v = dict(zip(COLS, r))
        print('| %s | %s | %s | %s | %s | %s | %s ± %s | %s | %s / %s | %s |'
              % (v['masters'], v['balancer'], v['req_s'], v['p99_ms'],
                 v['errors'], v['hot_throttled_s'], v['hot_share_mean'],
                 v['hot_share_sd'], v['hot_share_flips'], v['drains'],
                 v['readmits'], v['drain_spread_ms']))


def main(argv):
    if argv[1] == 'header':
        print('\t'.join(COLS))
    elif argv[1] == 'run':
        run(argv[2], argv[3], int(argv[4]), argv[5])
    elif argv[1] == 'table':
        table(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
