#!/usr/bin/env python3
"""bench/report.py -- capacity of a scenario, and RESULTS.md + SVG plots.

    report.py capacity SCENARIO_FILE FRACTION   -> requests/s (integer)
    report.py report RAW_DIR SCENARIO_DIR PLOT_DIR OUT_MD ELAPSED_S

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

if __name__ == '__main__' and sys.argv[1:2] == ['capacity']:
    cap = sum(node_capacity(n) for n in parse_scenario(sys.argv[2]))
    print(int(round(cap * float(sys.argv[3]))))
    sys.exit(0)
