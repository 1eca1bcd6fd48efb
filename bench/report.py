#!/usr/bin/env python3
"""bench/report.py -- capacity of a scenario, and bench/run.sh's RESULTS file
(RESULTS-run.md, RESULTS-run-quick.md) + SVG plots.

    report.py capacity SCENARIO_FILE FRACTION   -> open-loop requests/s:
                                                  FRACTION of the
                                                  sustainable capacity
    report.py report RAW_DIR SCENARIO_DIR PLOT_DIR OUT_MD ELAPSED_S
    report.py ideal SCENARIO_FILE FRACTION      -> open-loop requests/s:
                                                  FRACTION of the ideal
                                                  (unthrottled) capacity
    report.py joules TRACE                      -> the cluster's joules per
                                                  request of one pisim run
    report.py energy RAW_DIR SCENARIO OUT_MD ELAPSED_S
                                                -> the "Energy per request"
                                                  section of OUT_MD
                                                  (bench/run.sh --energy)

Python 3 standard library only.  The plots are written by svg.py-like
helpers below (no matplotlib).
"""
import sys

def parse_scenario(path):
    """Nodes of a pisim scenario file, defaults applied, file order."""
    defaults, nodes = {}, []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            kv = dict(w.split('=', 1) for w in words[1:] if '=' in w)
            if words[0] == 'defaults':
                defaults.update(kv)
            elif words[0] == 'node':
                n = dict(defaults)
                n.update(kv)
                n['name'] = words[1]
                nodes.append(n)
    return nodes

def mean_service_ms(spec):
    kind, _, rest = spec.partition(':')
    vals = [float(v) for v in rest.split(':')]
    if kind == 'uniform':
        return (vals[0] + vals[1]) / 2
    return vals[0]

def node_capacity(n):
    """Requests/s: slots x speed / mean service time (unthrottled)."""
    ms = mean_service_ms(n.get('service', 'fixed:20'))
    if ms <= 0:
        return float('inf')
    return int(n.get('slots', 4)) * float(n.get('speed', 1)) * 1000.0 / ms


# sim/thermal.h defaults
SIM_AMBIENT, SIM_K, SIM_THROTTLE_AT, SIM_SOFT_SLOW = 40.0, 45.0, 80.0, 1.15

def node_sustainable(n):
    """Requests/s the node can serve for ever without throttling: its
    steady temperature ambient + k x u stays below throttle_at only for
    u < (throttle_at - ambient) / k, and above a soft limit each request
    takes soft_slow times longer (sim/README.md's thermal model)."""
    amb = float(n.get('ambient', SIM_AMBIENT))
    k = float(n.get('k', SIM_K))
    at = float(n.get('throttle_at', SIM_THROTTLE_AT))
    soft = float(n.get('soft_limit', 0))
    u = 1.0 if k <= 0 else max(0.0, min(1.0, (at - amb) / k))
    slow = 1.0
    if soft > 0 and amb + k * u >= soft:
        slow = float(n.get('soft_slowdown', SIM_SOFT_SLOW))
    return node_capacity(n) * u / slow


def open_rate(nodes, fraction):
    """The open-loop rate: a fraction of what the cluster sustains without
    throttling (the unthrottled ideal when no node is poorly cooled)."""
    return int(round(sum(node_sustainable(n) for n in nodes) * fraction))


import glob
import json
import os
import statistics

BALANCERS = ['pi', 'byrequests', 'bybusyness', 'haproxy', 'nginx']
LABELS = {'pi': 'Apache pi', 'byrequests': 'Apache byrequests',
          'bybusyness': 'Apache bybusyness', 'haproxy': 'HAProxy leastconn',
          'nginx': 'nginx least_conn'}
COLORS = {'pi': '#d62728', 'byrequests': '#7f7f7f', 'bybusyness': '#1f77b4',
          'haproxy': '#2ca02c', 'nginx': '#ff7f0e'}


# ---- pi's view: the master's /pi-status?json, one file a second ----------
def samples(d):
    """Prints t member node temp_c throttled thermal_state weight inflight
    rate1s ewma_ms, one line per member per sample."""
    print('# t member node temp_c throttled thermal_state weight inflight '
          'rate1s ewma_ms')
    files = sorted(glob.glob(os.path.join(d, '*.json')),
                   key=lambda f: int(os.path.basename(f).split('.')[0]))
    for f in files:
        t = int(os.path.basename(f).split('.')[0])
        try:
            doc = json.load(open(f))
        except (ValueError, OSError):
            continue
        for b in doc.get('balancers', []):
            for m in b.get('members', []):
                tel = m.get('telemetry') or {}
                print(t, m['name'].rsplit(':', 1)[-1], tel.get('node', '-'),
                      tel.get('temperature_c', '-'),
                      hex(tel.get('throttled') or 0),
                      m.get('thermal_state', '-'), m.get('weight', '-'),
                      m.get('inflight', '-'), (m.get('rate') or {}).get('1s'),
                      round((m.get('response_time_ms') or {})
                            .get('ewma') or 0, 1))


# ---- raw data -------------------------------------------------------------
def kv_line(line):
    return dict(w.split('=', 1) for w in line.split() if '=' in w)


def read_summary(path):
    nodes = []
    if os.path.exists(path):
        for line in open(path):
            d = kv_line(line)
            if 'node' in d:
                nodes.append(d)
    return nodes


def read_trace(path):
    """{node: [(t, temp, served_cum, throttled_bits)]}"""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        if line.startswith('#'):
            continue
        w = line.split()
        if len(w) < 6:
            continue
        out.setdefault(w[1], []).append((float(w[0]), float(w[2]),
                                         int(w[4]), int(w[3], 16)))
    return out


def read_runs(raw):
    runs = {}
    for line in open(os.path.join(raw, 'runs.tsv')):
        w = line.rstrip('\n').split('\t')
        if len(w) < 8:
            continue
        scen, load, bal, secs = w[:4]
        runs[(scen, load, bal)] = {
            'secs': float(secs), 'rps': float(w[4] or 0),
            'p50': float(w[5] or 0), 'p99': float(w[6] or 0),
            'errors': int(float(w[7] or 0)),
            'nodes': read_summary(os.path.join(
                raw, '%s-%s-%s.summary' % (scen, load, bal)))}
    return runs


def read_machine(raw):
    m = {}
    for line in open(os.path.join(raw, 'machine.txt')):
        k, _, v = line.rstrip('\n').partition('=')
        m[k] = v
    return m


# ---- SVG ------------------------------------------------------------------
def svg_panel(x0, y0, w, h, series, title, ylabel, ymax=None, hline=None):
    """One line chart; series: [(bal, [(t, v)])].  Returns SVG text."""
    pts = [p for _, s in series for p in s]
    if not pts:
        return ''
    tmax = max(p[0] for p in pts) or 1
    vmax = ymax or (max(p[1] for p in pts) * 1.1 or 1)
    vmin = 0
    sx = lambda t: x0 + 50 + (w - 60) * t / tmax
    sy = lambda v: y0 + h - 25 - (h - 45) * (v - vmin) / (vmax - vmin)
    o = ['<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>'
         % (x0 + 50, y0 + 14, title)]
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
             'stroke="#ccc"/>' % (x0 + 50, y0 + 20, w - 60, h - 45))
    for i in range(5):
        v = vmin + (vmax - vmin) * i / 4
        o.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end">'
                 '%.0f</text>' % (x0 + 46, sy(v) + 3, v))
    step = 5 if tmax > 12 else 2
    t = 0
    while t <= tmax:
        o.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">'
                 '%d</text>' % (sx(t), y0 + h - 12, t))
        t += step
    o.append('<text x="%d" y="%d" font-size="10">%s; time (s)</text>'
             % (x0 + w - 200, y0 + h, ylabel))
    if hline is not None:
        o.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" '
                 'stroke="#000" stroke-dasharray="4,3"/>'
                 % (sx(0), sx(tmax), sy(hline), sy(hline)))
    for bal, s in series:
        if s:
            d = ' '.join('%.1f,%.1f' % (sx(t), sy(min(v, vmax)))
                         for t, v in s)
            o.append('<polyline fill="none" stroke="%s" stroke-width="%s" '
                     'points="%s"/>' % (COLORS[bal],
                                        '2.5' if bal == 'pi' else '1.5', d))
    return '\n'.join(o)


def write_plot(path, title, panels):
    w, ph = 720, 220
    h = 40 + ph * len(panels) + 30
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif">' % (w, h),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="20" font-size="15">%s</text>' % title]
    for i, p in enumerate(panels):
        o.append(svg_panel(0, 30 + i * ph, w, ph, *p))
    x = 50
    for bal in BALANCERS:
        o.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" '
                 'stroke-width="3"/><text x="%d" y="%d" font-size="11">%s'
                 '</text>' % (x, x + 20, h - 14, h - 14, COLORS[bal],
                              x + 24, h - 10, LABELS[bal]))
        x += 135
    o.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(o) + '\n')


def per_second(tr, node):
    """[(t, served in that second)] for node, or cluster when None."""
    names = [node] if node else list(tr)
    series = {}
    for n in names:
        prev = 0
        for t, _, served, _ in tr.get(n, []):
            series[t] = series.get(t, 0) + served - prev
            prev = served
    return sorted(series.items())


def plot_scenario(raw, plots, scen, load, nodes, focus):
    traces = {b: read_trace(os.path.join(raw, '%s-%s-%s.trace'
                                         % (scen, load, b)))
              for b in BALANCERS}
    temp, share, tput = [], [], []
    for b in BALANCERS:
        tr = traces[b]
        temp.append((b, [(t, c) for t, c, _, _ in tr.get(focus, [])]))
        tot = dict(per_second(tr, None))
        mine = per_second(tr, focus)
        share.append((b, [(t, 100.0 * v / tot[t]) for t, v in mine
                          if tot.get(t)]))
        tput.append((b, sorted(tot.items())))
    name = '%s-%s.svg' % (scen, load)
    write_plot(os.path.join(plots, name),
               '%s, %s loop: node %s (and the cluster), one line per '
               'balancer' % (scen, load, focus),
               [(temp, 'temperature of %s' % focus, 'deg C', None, 80),
                (share, 'share of requests served by %s' % focus, '%', 100,
                 None),
                (tput, 'cluster: requests served per second', 'req/s',
                 None, None)])
    return name


# ---- the report -------------------------------------------------------------
def focus_node(nodes):
    for n in nodes:
        if 'down_at' in n or 'hang_at' in n:
            return n['name'], 'fails and comes back'
    ks = [float(n.get('k', 45)) for n in nodes]
    if max(ks) > min(ks):
        n = nodes[ks.index(max(ks))]
        return n['name'], 'poorly cooled'
    sp = [float(n.get('speed', 1)) for n in nodes]
    n = nodes[sp.index(max(sp))]
    return n['name'], 'fastest' if max(sp) > min(sp) else 'first'


def fmt_nodes(run, key, fmt):
    return '/'.join(fmt % float(n.get(key, 0)) for n in run['nodes'])


def shares(run):
    tot = sum(int(n['served']) for n in run['nodes']) or 1
    return '/'.join('%.0f' % (100.0 * int(n['served']) / tot)
                    for n in run['nodes'])


def scenario_table(runs, scen, load, nodes, cap, offered):
    o = []
    names = '/'.join(n['name'] for n in nodes)
    o.append('| balancer | req/s | %s | p50 ms | p99 ms | errors | '
             'share %% (%s) | throttled s | peak °C |'
             % ('% of ideal' if load == 'closed' else '% of offered',
                names))
    o.append('|---|---:|---:|---:|---:|---:|---|---|---|')
    for b in BALANCERS:
        r = runs.get((scen, load, b))
        if not r:
            continue
        ref = cap if load == 'closed' else offered
        o.append('| %s | %.0f | %.1f | %.1f | %.1f | %d | %s | %s | %s |' % (
            LABELS[b], r['rps'], 100.0 * r['rps'] / ref, r['p50'], r['p99'],
            r['errors'], shares(r), fmt_nodes(r, 'throttled_s', '%.1f'),
            fmt_nodes(r, 'peak_c', '%.0f')))
    return o


def pi_view(raw, scen, load, focus_port):
    """Lines of pi's own view of the focus member, and its log lines."""
    o = []
    p = os.path.join(raw, '%s-%s-pi.pisamples.tsv' % (scen, load))
    if os.path.exists(p):
        rows = [l.split() for l in open(p) if not l.startswith('#')]
        rows = [r for r in rows if r[1] == focus_port]
        if rows:
            o.append('pi\'s view of the focus member, from the master\'s '
                     '`/pi-status?json` each second (t s: temp °C, throttle '
                     'bits, state, effective weight, in flight, req/s):')
            o.append('')
            o.append('    ' + '  '.join(
                '%s: %s %s %s w=%s if=%s r=%s' % (r[0], r[3], r[4], r[5],
                                                  r[6], r[7], r[8])
                for r in rows[:6]))
            for i in range(6, len(rows), 6):
                o.append('    ' + '  '.join(
                    '%s: %s %s %s w=%s if=%s r=%s' % (r[0], r[3], r[4], r[5],
                                                      r[6], r[7], r[8])
                    for r in rows[i:i + 6]))
            o.append('')
    p = os.path.join(raw, '%s-%s-pi.piblog' % (scen, load))
    if os.path.exists(p):
        lines = [l.strip() for l in open(p) if l.strip()]
        if lines:
            o.append('pi\'s state-change log lines (PIB102xx), %d:'
                     % len(lines))
            o.append('')
            for l in lines[:8]:
                o.append('    ' + l.split('] ', 3)[-1])
            o.append('')
    return o


def target_rows(runs, scen_nodes, ovh):
    rows = []

    def get(s, l, b):
        return runs.get((s, l, b))

    if 'hetero' in scen_nodes:
        nodes, cap = scen_nodes['hetero']
        pi, bb, hp = (get('hetero', 'closed', b)
                      for b in ('pi', 'bybusyness', 'haproxy'))
        if pi and bb and hp:
            best = max(bb['rps'], hp['rps'])
            ok = (pi['rps'] >= best and pi['rps'] >= 0.95 * cap
                  and pi['p99'] <= max(bb['p99'], hp['p99']))
            rows.append((
                'heterogeneous: pi ≥ better of bybusyness/HAProxy, ≥ 95% '
                'of ideal, p99 no worse',
                'pi %.0f req/s (%.1f%% of ideal %.0f); bybusyness %.0f, '
                'HAProxy %.0f; p99 pi %.0f ms vs %.0f / %.0f ms'
                % (pi['rps'], 100 * pi['rps'] / cap, cap, bb['rps'],
                   hp['rps'], pi['p99'], bb['p99'], hp['p99']), ok))
    for scen in ('heat-fast', 'heat-slow'):
        if scen not in scen_nodes:
            continue
        nodes, cap = scen_nodes[scen]
        focus, _ = focus_node(nodes)
        pi, bb = get(scen, 'closed', 'pi'), get(scen, 'closed', 'bybusyness')
        if pi and bb:
            th = lambda r: float(next(n for n in r['nodes']
                                      if n['node'] == focus)['throttled_s'])
            tpi, tbb = th(pi), th(bb)
            ok = (tpi <= 0.1 * tbb if tbb > 0 else tpi == 0) \
                and pi['rps'] >= bb['rps']
            rows.append((
                '%s closed: %s throttled ≤ 10%% of bybusyness\' time, '
                'throughput ≥ bybusyness\'' % (scen, focus),
                '%s throttled %.1f s (pi) vs %.1f s (bybusyness); '
                '%.0f vs %.0f req/s' % (focus, tpi, tbb, pi['rps'],
                                         bb['rps']), ok))
        pi, bb = get(scen, 'open', 'pi'), get(scen, 'open', 'bybusyness')
        if pi and bb:
            tsum = sum(float(n['throttled_s']) for n in pi['nodes'])
            ok = tsum == 0 and pi['p99'] <= bb['p99']
            rows.append((
                '%s open ~70%%: no node throttles, p99 ≤ bybusyness\''
                % scen,
                'throttled s under pi: %s (bybusyness: %s); p99 %.0f vs '
                '%.0f ms' % (fmt_nodes(pi, 'throttled_s', '%.1f'),
                             fmt_nodes(bb, 'throttled_s', '%.1f'),
                             pi['p99'], bb['p99']), ok))
    if ovh.get('cpu_ratio'):
        r = ovh['cpu_ratio']
        rows.append(('overhead: pi within 3% of byrequests',
                     'front CPU a request, median %.1f vs %.1f µs: capacity '
                     'ratio %.3f (req/s: median %.0f vs %.0f, %.3f)'
                     % (ovh['cpu_pi'], ovh['cpu_br'], r, ovh['pi'],
                        ovh['byrequests'], ovh['pi'] / ovh['byrequests']),
                     r >= 0.97))
    elif ovh.get('pi') and ovh.get('byrequests'):
        r = ovh['pi'] / ovh['byrequests']
        rows.append(('overhead: pi within 3% of byrequests',
                     'median %.0f vs %.0f req/s: ratio %.3f'
                     % (ovh['pi'], ovh['byrequests'], r), r >= 0.97))
    return rows


def offload_table(bench_dir):
    """The targets table of RESULTS-offload.md (its section headed
    '## Targets'), up to the first blank line after the table."""
    p = os.path.join(bench_dir, 'RESULTS-offload.md')
    if not os.path.exists(p):
        return []
    out, on = [], False
    for l in open(p).read().split('\n'):
        if l.startswith('## Targets'):
            on = True
            continue
        if on and l.startswith('|'):
            out.append(l)
        elif on and out:
            break
    return [''] + out if out else []


def data_name(raw):
    """raw's path from the tree's top (bench/results/...), else as is."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rel = os.path.relpath(os.path.abspath(raw), top)
    return (rel if not rel.startswith('..') else os.path.abspath(raw)) + '/'


def ratio(a, b):
    return '%.3f' % (a / b) if b else '-'


def baseline_section(m, runs, ovh_runs):
    """Each Apache run beside its METHOD@base twin (run.sh --baseline):
    ratios this tree / baseline."""
    pairs = sorted(k for k in runs if not k[2].endswith('@base')
                   and (k[0], k[1], k[2] + '@base') in runs)
    obal = [b for b in BALANCERS if b + '@base' in ovh_runs and b in ovh_runs]
    if not pairs and not obal:
        return []
    o = ['## This tree beside a baseline build', '',
         'Modules of this tree: %s; baseline: %s (`%s`).  Each Apache run '
         'was made twice, back to back: this tree\'s modules, then the '
         'baseline\'s (the overhead repetitions alternate which goes '
         'first).  **One run on a shared, noisy 2-core machine**: the '
         'figures are ratios of adjacent runs (1.000 = no change), read '
         'with the spread of the ratios in mind, not absolute numbers.'
         % (m.get('commit', '?'), m.get('baseline_commit', '?'),
            m.get('baseline', '?')), '',
         '| scenario | load | method | req/s this / base | p99 this / base '
         '| errors this, base |', '|---|---|---|---:|---:|---|']
    for scen, load, bal in pairs:
        a, b = runs[(scen, load, bal)], runs[(scen, load, bal + '@base')]
        o.append('| %s | %s | %s | %s | %s | %d, %d |' % (
            scen, load, bal, ratio(a['rps'], b['rps']),
            ratio(a['p99'], b['p99']), a['errors'], b['errors']))
    o.append('')
    if obal:
        o += ['Per-request overhead (medians of the repetitions):', '',
              '| method | req/s this / base | µs CPU/req this / base |',
              '|---|---:|---:|']
        for bal in obal:
            a, b = ovh_runs[bal], ovh_runs[bal + '@base']
            med = lambda v, i: statistics.median(x[i] for x in v)
            o.append('| %s | %s | %s |' % (
                bal, ratio(med(a, 0), med(b, 0)), ratio(med(a, 2), med(b, 2))))
        o.append('')
    return o


def report(raw, scen_dir, plots, out_md, elapsed):
    m = read_machine(raw)
    runs = read_runs(raw)
    o = ['# Balancer benchmark results (issue 7)', '']
    o.append('Run: `bench/run.sh%s%s` on %s, whole suite %s s.  Raw data '
             'and plots: %s.  Modules built from %s.'
             % (' --baseline ...' if m.get('baseline') else '',
                ' --quick' if m['mode'] == 'quick' else '', m['date'],
                elapsed, data_name(raw), m.get('commit', 'unknown')))
    if m.get('loadavg'):
        o[-1] += '  Load average at the start: %s.' % m['loadavg']
    o.append('')
    o.append('Machine: %s, `nproc` = %s, %s, kernel %s.  Versions: %s '
             '(event MPM), %s, nginx %s, wrk %s.'
             % (m['cpu'], m['nproc'], m['os'], m['kernel'], m['apache'],
                m['haproxy'], m['nginx'], m['wrk']))
    o.append('')
    o += open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'METHOD.md')).read().rstrip('\n').split('\n')
    o.append('')
    gen = os.path.join(raw, 'generator.txt')
    if os.path.exists(gen):
        o.append('Open-loop generator self-check (straight at a zero-time '
                 'pisim node serving the 50 KB page, same core as pisim):')
        o.append('')
        for l in open(gen):
            d = kv_line(l)
            o.append('    rate %s/s: achieved %s, p99 %s ms, send lag p99 %s '
                     'ms, errors %s, own CPU %s s in %s s'
                     % (d.get('rate'), d.get('achieved_rps'),
                        d.get('p99_ms'), d.get('lag_p99_ms'),
                        d.get('errors'), d.get('cpu_s'),
                        d.get('elapsed_s')))
        o.append('')
    scen_nodes = {}
    for spec in m['scenarios'].split():
        scen, conf, secs, loads = spec.split(':')
        nodes = parse_scenario(os.path.join(scen_dir, conf))
        cap = sum(node_capacity(n) for n in nodes)
        scen_nodes[scen] = (nodes, cap)
        focus, why = focus_node(nodes)
        o.append('## %s (`sim/scenarios/%s`, %s s per run)' % (scen, conf,
                                                               secs))
        o.append('')
        o.append('Nodes: %s.  Ideal (capacity-proportional, unthrottled) '
                 'throughput = Σ slots × speed / mean service = **%.0f '
                 'req/s**.  Focus node in the plot: %s (%s).'
                 % ('; '.join('%s %s× k=%s' % (n['name'],
                                                n.get('speed', '1'),
                                                n.get('k', '45'))
                              for n in nodes), cap, focus, why))
        o.append('')
        sus = sum(node_sustainable(n) for n in nodes)
        if sus < cap - 0.5:
            o.append('Sustainable without throttling (each node at most at '
                     'the utilisation whose steady temperature stays below '
                     '80 °C, soft-limit slowdown included): **%.0f req/s**; '
                     'the open-loop rate is a fraction of this, since more '
                     'cannot be served without some node throttling.'
                     % sus)
            o.append('')
        fport = None
        for load in loads.split(','):
            offered = open_rate(nodes, float(m['open_load']))
            o.append('### %s loop%s' % (
                load, ' (wrk, %s connections)' % m['closed_conns']
                if load == 'closed' else
                ' (bench/openloop, %d req/s = %.0f%% of %s)'
                % (offered, 100 * float(m['open_load']),
                   'ideal' if sus >= cap - 0.5 else 'sustainable')))
            o.append('')
            o += scenario_table(runs, scen, load, nodes, cap, offered)
            o.append('')
            name = plot_scenario(raw, plots, scen, load, nodes, focus)
            rel = os.path.relpath(os.path.join(plots, name),
                                  os.path.dirname(out_md))
            o.append('Plot: [%s](%s)' % (rel, rel))
            o.append('')
            r = runs.get((scen, load, 'pi'))
            if r:
                for n in r['nodes']:
                    if n['node'] == focus:
                        fport = n['port']
            if fport and ('heat' in scen or 'fail' in scen):
                o += pi_view(raw, scen, load, fport)
    ovh_runs = {}
    p = os.path.join(raw, 'overhead.tsv')
    if os.path.exists(p):
        for l in open(p):
            w = l.rstrip('\n').split('\t')
            if len(w) >= 6:
                ovh_runs.setdefault(w[0], []).append(
                    (float(w[2] or 0), float(w[4] or 0),
                     float(w[6] or 0) if len(w) >= 7 else 0.0))
    ovh = {b: statistics.median(x[0] for x in v)
           for b, v in ovh_runs.items()}
    # front CPU time per request (µs), median; 0 when not measured
    ovh_cpu = {b: statistics.median(x[2] for x in v)
               for b, v in ovh_runs.items()}
    if ovh_cpu.get('pi') and ovh_cpu.get('byrequests'):
        ovh['cpu_ratio'] = ovh_cpu['byrequests'] / ovh_cpu['pi']
        ovh['cpu_pi'] = ovh_cpu['pi']
        ovh['cpu_br'] = ovh_cpu['byrequests']
    o.append('## Per-request overhead (200-byte page, %s connections, %s s '
             '× %s, alternating)' % (m['ovh_conns'], m['ovh_secs'],
                                     m['ovh_reps']))
    o.append('')
    o.append('Three pisim nodes answering at once (`service=fixed:0`, '
             '256 slots, 200-byte body) on core 0 with wrk; the front on '
             'core 1.  Each repetition restarts pisim and the front.')
    o.append('')
    o.append('"µs CPU/req" is the front\'s own CPU time (utime + stime of '
             'its processes, /proc) divided by the requests of the run: '
             'it does not move when other work shares the machine, as '
             'req/s does.  "capacity vs byrequests" = byrequests\' '
             'µs ÷ this one\'s.')
    o.append('')
    o.append('| balancer | runs (req/s) | median req/s | median p99 ms | '
             'req/s vs byrequests | runs (µs CPU/req) | median µs CPU/req '
             '| capacity vs byrequests |')
    o.append('|---|---|---:|---:|---:|---|---:|---:|')
    for b in BALANCERS:
        if b in ovh_runs:
            v = ovh_runs[b]
            o.append('| %s | %s | %.0f | %.2f | %.3f | %s | %.1f | %.3f |' % (
                LABELS[b], ', '.join('%.0f' % x[0] for x in v), ovh[b],
                statistics.median(x[1] for x in v),
                ovh[b] / ovh['byrequests'] if ovh.get('byrequests') else 0,
                ', '.join('%.1f' % x[2] for x in v), ovh_cpu[b],
                ovh_cpu['byrequests'] / ovh_cpu[b]
                if ovh_cpu.get('byrequests') and ovh_cpu[b] else 0))
    o.append('')
    off = offload_table(os.path.dirname(os.path.abspath(out_md)))
    if off:
        o.append('## Offload (targets from [RESULTS-offload.md]'
                 '(RESULTS-offload.md), `bench/offload.sh 8 50`, not re-run '
                 'by this suite)')
        o += off
        o.append('')
    o += baseline_section(m, runs, ovh_runs)
    o.append('## Targets (issue 7 §4)')
    o.append('')
    o.append('| target | measured | met? |')
    o.append('|---|---|---|')
    for what, meas, ok in target_rows(runs, scen_nodes, ovh):
        o.append('| %s | %s | %s |' % (what, meas,
                                        '**yes**' if ok else '**no**'))
    o.append('')
    notes = os.path.join(os.path.dirname(os.path.abspath(out_md)),
                         'NOTES.md')
    if m['mode'] != 'quick' and os.path.exists(notes):
        o += open(notes).read().rstrip('\n').split('\n')
        o.append('')
    kept = kept_section(out_md, ENERGY_HEAD)   # bench/run.sh --energy's
    if kept:
        o += kept
    with open(out_md, 'w') as f:
        f.write('\n'.join(o) + '\n')


# ---- energy per request (bench/run.sh --energy, issue 31) ----------------
ENERGY_HEAD = '## Energy per request (issue 31)'
ENERGY_LABELS = {'pi': 'Apache pi', 'pi+energy': 'Apache pi, PiBalanceEnergy On',
                 'bybusyness': 'Apache bybusyness'}


def trace_window(path):
    """From a pisim trace with energy: {node: (served, joules)} over the
    seconds the load ran (the first trace line after which the cluster
    served, to the last one it served by), and the window's seconds."""
    rows = {}
    if not os.path.exists(path):
        return {}, 0.0
    for line in open(path):
        if line.startswith('#'):
            continue
        w = line.split()
        if len(w) < 7:
            continue
        rows.setdefault(float(w[0]), {})[w[1]] = (int(w[4]), float(w[6]))
    ts = sorted(rows)
    served = [sum(v[0] for v in rows[t].values()) for t in ts]
    if not ts or served[-1] == 0:
        return {}, 0.0
    a = max(i for i in range(len(ts)) if served[i] == 0) if served[0] == 0 \
        else 0
    b = min(i for i in range(len(ts)) if served[i] == served[-1])
    out = {}
    for n in rows[ts[b]]:
        s0, e0 = rows[ts[a]].get(n, (0, 0.0))
        s1, e1 = rows[ts[b]][n]
        out[n] = (s1 - s0, e1 - e0)
    return out, ts[b] - ts[a]


def joules(path, nodes=None):
    """(cluster J/request, J/request above idle, Pi 5 share %) of a run."""
    win, secs = trace_window(path)
    req = sum(v[0] for v in win.values())
    j = sum(v[1] for v in win.values())
    if req == 0:
        return None
    idle = sum(float(n.get('idle_w', 0)) for n in nodes or [])
    fast = sum(v[0] for n, v in win.items() if n.startswith('pi5'))
    return (j / req, max(0.0, j - idle * secs) / req, 100.0 * fast / req)


def read_energy_runs(raw, nodes):
    runs = []
    for line in open(os.path.join(raw, 'energy.tsv')):
        w = line.rstrip('\n').split('\t')
        if len(w) < 9:
            continue
        rnd, load, bal, rate, secs = w[:5]
        base = os.path.join(raw, '%s-%s-%s' % (load, bal, rnd))
        jr = joules(base + '.trace', nodes)
        master = None
        try:
            doc = json.load(open(base + '.pistatus.json'))
            master = doc['balancers'][0]['power'].get('joules_per_request')
        except (OSError, ValueError, KeyError, IndexError):
            pass
        runs.append({'round': int(rnd), 'load': load, 'bal': bal,
                     'rate': float(rate), 'rps': float(w[5] or 0),
                     'p50': float(w[6] or 0), 'p99': float(w[7] or 0),
                     'errors': int(float(w[8] or 0)), 'j': jr,
                     'master': master})
    return runs


def energy_section(raw, scen, elapsed):
    m = read_machine(raw)
    nodes = parse_scenario(scen)
    runs = read_energy_runs(raw, nodes)
    loads, bals = [], []
    for r in runs:
        if r['load'] not in loads:
            loads.append(r['load'])
        if r['bal'] not in bals:
            bals.append(r['bal'])
    med = statistics.median
    o = [ENERGY_HEAD, '']
    o.append('Run: `bench/run.sh --energy` on %s, %s s in all.  Raw data: '
             '%s.  Modules built from %s.  Load average at the start: %s.'
             % (m.get('date'), elapsed, data_name(raw), m.get('commit'),
                m.get('loadavg')))
    o.append('')
    o.append('Scenario `sim/scenarios/%s`: %s.  Ideal capacity %.0f req/s.  '
             'Open loop (bench/openloop) at a fixed rate for each load, %s; '
             'every run restarts pisim and the front (cold, same state); '
             'the balancers of a round run in an order rotated by the round.'
             % (os.path.basename(scen), '; '.join(
                 '%s %s× %s–%s W' % (n['name'], n.get('speed', '1'),
                                      n.get('idle_w', '?'),
                                      n.get('busy_w', '?'))
                 for n in nodes), sum(node_capacity(n) for n in nodes),
                m.get('energy', '')))
    o.append('')
    o.append('**J/request** is the cluster\'s: the joules pisim\'s nodes '
             'used while the load ran (its exact integral of each node\'s '
             'draw, from the trace) over the requests they served; **above '
             'idle** subtracts the nodes\' idle draw over the same time '
             '(what the balancer can move; the idle draw is paid whatever '
             'it does).  **master** is what mod_pistats on the front '
             'measured: `balancers[0].power.joules_per_request` of '
             '`/pi-status?json` at the end of the run (its last minute, the '
             'run and the idle second before it).  Medians of the rounds; '
             '"vs pi" is the ratio of medians.')
    o.append('')
    o.append('| load | balancer | J/request | above idle | vs pi (J/request) '
             '| req/s | p99 ms | errors | Pi 5 share | master J/request | '
             'J/request, each round |')
    o.append('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|')
    summary = {}
    for load in loads:
        for bal in bals:
            rs = [r for r in runs if r['load'] == load and r['bal'] == bal]
            js = [r['j'] for r in rs if r['j']]
            if not rs or not js:
                continue
            summary[(load, bal)] = {
                'j': med(x[0] for x in js), 'above': med(x[1] for x in js),
                'share': med(x[2] for x in js),
                'rps': med(r['rps'] for r in rs),
                'p99': med(r['p99'] for r in rs),
                'errors': sum(r['errors'] for r in rs),
                'master': [r['master'] for r in rs if r['master']],
                'each': [x[0] for x in js], 'rate': rs[0]['rate']}
        for bal in bals:
            x = summary.get((load, bal))
            if not x:
                continue
            ref = summary.get((load, 'pi'))
            o.append('| %s (%.0f/s) | %s | %.1f mJ | %.1f mJ | %s | %.0f | '
                     '%.1f | %d | %.0f%% | %s | %s |' % (
                         load, x['rate'], ENERGY_LABELS.get(bal, bal),
                         x['j'] * 1000, x['above'] * 1000,
                         ratio(x['j'], ref['j']) if ref else '-', x['rps'],
                         x['p99'], x['errors'], x['share'],
                         '%.1f mJ' % (med(x['master']) * 1000)
                         if x['master'] else '-',
                         ', '.join('%.1f' % (v * 1000) for v in x['each'])))
    o.append('')
    if any(b == 'pi+energy' for b in bals):
        o.append('PiBalanceEnergy On against lbmethod pi without it (ratios of '
                 'medians; below 1.000 saves energy / is faster):')
        o.append('')
        for load in loads:
            a, b = summary.get((load, 'pi+energy')), summary.get((load, 'pi'))
            if a and b:
                o.append('- %s: J/request %s (above idle %s), req/s %s, p99 '
                         '%s' % (load, ratio(a['j'], b['j']),
                                 ratio(a['above'], b['above']),
                                 ratio(a['rps'], b['rps']),
                                 ratio(a['p99'], b['p99'])))
        o.append('')
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'NOTES-energy.md')
    if os.path.exists(notes):
        o += open(notes).read().rstrip('\n').split('\n')
        o.append('')
    return o


def replace_section(path, head, lines):
    """OUT_MD with the section headed `head` (to the next "## " heading)
    replaced by lines, or appended."""
    text = open(path).read().split('\n') if os.path.exists(path) else []
    if head in text:
        i = text.index(head)
        j = next((k for k in range(i + 1, len(text))
                  if text[k].startswith('## ')), len(text))
        text[i:j] = lines
    else:
        while text and text[-1] == '':
            text.pop()
        text += [''] + lines
    with open(path, 'w') as f:
        f.write('\n'.join(text).rstrip('\n') + '\n')


def kept_section(path, head):
    """The section headed `head` of an existing file (a full run keeps
    the energy section it does not make)."""
    if not os.path.exists(path):
        return []
    text = open(path).read().split('\n')
    if head not in text:
        return []
    i = text.index(head)
    j = next((k for k in range(i + 1, len(text))
              if text[k].startswith('## ')), len(text))
    return text[i:j]


def main(argv):
    if argv[1:2] == ['capacity']:
        print(open_rate(parse_scenario(argv[2]), float(argv[3])))
    elif argv[1:2] == ['ideal']:
        print(int(round(sum(node_capacity(n) for n in parse_scenario(argv[2]))
                        * float(argv[3]))))
    elif argv[1:2] == ['joules']:
        r = joules(argv[2])
        print('J/request %.1f mJ, Pi 5 share %.0f%%' % (r[0] * 1000, r[2])
              if r else 'J/request unknown')
    elif argv[1:2] == ['energy']:
        replace_section(argv[4], ENERGY_HEAD,
                        energy_section(argv[2], argv[3], argv[5]))
    elif argv[1:2] == ['samples']:
        samples(argv[2])
    elif argv[1:2] == ['report']:
        report(argv[2], argv[3], argv[4], argv[5], argv[6])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
