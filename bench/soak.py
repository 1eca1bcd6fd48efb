#!/usr/bin/env python3
"""bench/soak.py -- bench/soak.sh's plan, scraper and report.

  soak.py plan --seed N --secs S --nodes K --port-base P --out DIR
      DIR/nodes.txt ("node NAME PORT hot|plain"), DIR/NAME.scen (each
      node's pisim scenario: the hot one with heat events) and
      DIR/plan.tsv ("SECONDS ACTION NODE": kill/start, hang/answer,
      graceful), all drawn from the seed: the same seed, the same soak.
  soak.py scrape --port P --secs S --out FILE
      GET /pi-status?json of the front every second (on the second of
      its start, bounded by a 2 s timeout each), one JSON line a scrape.
  soak.py report DIR
      report.md on stdout; exit status 1 when a check fails.

What the report checks, and from what:
  - crashes: the front's error log (exit signal, AH00052, ...): none;
  - failed requests: openloop's line per request (requests.txt) joined by
    X-Request-Id with the front's access log (which member, when): each
    must have been in flight to a node when it was killed (SIGKILL:
    actions.log) or hung (the node's own log), or sent to it while it was
    hung; nothing else may fail;
  - events: what the nodes' own logs (kills in actions.log, hangs and
    throttling in NAME.log, temperatures in the traces) say the front
    must have seen, against the events /pi-status recorded (the union of
    every scrape's ring): each once, within a window, nothing extra;
  - throttled seconds per node (pisim's summaries; a killed process's
    from its trace).
"""
import argparse
import glob
import gzip
import json
import os
import random
import re
import sys
import time
import urllib.request

# ---- plan ---------------------------------------------------------------

# Thermal model of every node (pisim's defaults otherwise): a fast time
# constant, so that a heat event passes the limits within the soak.  The
# hot node's heat event: ambient +45 C, an idle target of 85 C: past the
# front's hard limit (75, PiBalanceThermal 65 75 in bench/soak.sh) and
# pisim's throttle point (80), then cool again.
NODE_LINE = ("node {name} port={port} slots=8 cpus=4 service=exp:20 "
             "body=size:8192 seed={seed} ambient=40 k=30 tau=10")
HEAT = " heat_at={at:.1f} heat_for=45 heat_every=150 heat_ambient=45"


def plan(args):
    rng = random.Random(args.seed)
    names = ["s%d" % (i + 1) for i in range(args.nodes)]
    hot = rng.choice(names)
    os.makedirs(args.out, exist_ok=True)
    heat_at = rng.uniform(30, 60)
    with open(os.path.join(args.out, "nodes.txt"), "w") as f:
        for i, n in enumerate(names):
            f.write("node %s %d %s\n" % (n, args.port_base + i,
                                         "hot" if n == hot else "plain"))
            line = NODE_LINE.format(name=n, port=args.port_base + i,
                                    seed=args.seed * 100 + i)
            if n == hot:
                line += HEAT.format(at=heat_at)
            with open(os.path.join(args.out, n + ".scen"), "w") as s:
                s.write("# bench/soak.py plan --seed %d\n%s\n"
                        % (args.seed, line))
    # One node out at a time, never the hot one (its heat cycles stay
    # whole): killed or hung for 6-15 s, 15-35 s apart, kinds alternating
    # from a random first; the last one over 30 s before the end.
    acts = []
    others = [n for n in names if n != hot]
    kind = rng.choice(["kill", "hang"])
    t = rng.uniform(15, 25)
    while True:
        dur = rng.uniform(6, 15)
        if t + dur > args.secs - 30:
            break
        node = rng.choice(others)
        end = "start" if kind == "kill" else "answer"
        acts.append((t, kind, node))
        acts.append((t + dur, end, node))
        kind = "hang" if kind == "kill" else "kill"
        t += dur + rng.uniform(15, 35)
    for g in range(60, args.secs, 60):
        acts.append((float(g), "graceful", "-"))
    acts.sort()
    with open(os.path.join(args.out, "plan.tsv"), "w") as f:
        f.write("# seconds after the load starts, action, node; seed %d;"
                " hot node %s: heat events from %.1f s for 45 s every"
                " 150 s\n" % (args.seed, hot, heat_at))
        for a in acts:
            f.write("%.1f\t%s\t%s\n" % a)


# ---- scrape -------------------------------------------------------------

def scrape(args):
    url = "http://127.0.0.1:%d/pi-status?json" % args.port
    start = time.time()
    with open(args.out, "a") as out:
        for i in range(args.secs):
            delay = start + i - time.time()
            if delay > 0:
                time.sleep(delay)
            t = time.time()
            rec = {"t": round(t, 3)}
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    rec["http"] = r.status
                    rec["doc"] = json.loads(r.read())
            except Exception as e:          # noqa: BLE001 -- kept, counted
                rec["err"] = str(e)[:200]
            rec["ms"] = round((time.time() - t) * 1000, 1)
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")
            out.flush()


# ---- report: reading the raw data ----------------------------------------

def opener(path):
    """path, or path.gz (soak.sh compresses the big files at the end)."""
    if os.path.exists(path):
        return open(path, "rt")
    return gzip.open(path + ".gz", "rt")


class Run:
    def __init__(self, d):
        self.dir = d
        self.nodes = {}                 # name -> (port, role)
        for line in open(os.path.join(d, "nodes.txt")):
            _, name, port, role = line.split()
            self.nodes[name] = (int(port), role)
        self.by_port = {p: n for n, (p, _) in self.nodes.items()}
        self.conf = open(os.path.join(d, "front.conf")).read()
        m = re.search(r"^PiBalanceThermal\s+(\S+)\s+(\S+)", self.conf, re.M)
        self.soft, self.hard = (float(m.group(1)), float(m.group(2))) \
            if m else (70.0, 80.0)
        m = re.search(r"^PiBalanceThermalHysteresis\s+(\S+)", self.conf,
                      re.M)
        self.hyst = float(m.group(1)) if m else 5.0
        self.actions = []               # (epoch, action, name)
        for line in open(os.path.join(d, "actions.log")):
            f = line.split()
            if len(f) >= 3:
                self.actions.append((float(f[0]), f[1], f[2]))
        self.t_load = next(t for t, a, _ in self.actions if a == "load-start")
        self.t_end = next((t for t, a, _ in self.actions if a == "load-end"),
                          self.actions[-1][0])
        self.read_node_logs()
        self.read_requests()
        self.read_access()
        self.read_events()

    def node_of(self, member):
        m = re.search(r":(\d+)/?$", member or "")
        return self.by_port.get(int(m.group(1))) if m else None

    def read_node_logs(self):
        """Each node's log as (epoch, text), its processes' starts and
        stops, and the traces as (epoch, temp, bits) per process."""
        self.nlog = {}
        self.runs = {}                  # name -> [(start, stop or None)]
        for name in self.nodes:
            lines, runs, base = [], [], None
            for line in open(os.path.join(self.dir, name + ".log")):
                sec, _, text = line.rstrip("\n").partition(" ")
                m = re.match(r"pisim start: epoch (\S+),", text)
                if m:
                    base = float(m.group(1)) - float(sec)
                    runs.append([float(m.group(1)), None])
                if base is None:
                    continue
                t = base + float(sec)
                if text == "pisim stop" and runs:
                    runs[-1][1] = t
                lines.append((t, text))
            self.nlog[name] = lines
            self.runs[name] = runs
        self.trace = {}
        for name in self.nodes:
            pts = []
            for i, (start, _) in enumerate(self.runs[name]):
                path = os.path.join(self.dir, "%s.trace.%d" % (name, i + 1))
                if not os.path.exists(path):
                    continue
                for line in open(path):
                    if line.startswith("#"):
                        continue
                    f = line.split()
                    pts.append((start + float(f[0]), float(f[2]),
                                int(f[3], 16)))
            self.trace[name] = pts

    def read_requests(self):
        self.req = {}
        with opener(os.path.join(self.dir, "requests.txt")) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                i, it, st, en, res, retr = line.split()
                self.req[int(i)] = (float(it), float(st), float(en), res,
                                    int(retr))

    def read_access(self):
        self.acc = {}                   # id -> (start, status, end, node)
        self.acc_noid = 0
        with opener(os.path.join(self.dir, "access_log")) as f:
            for line in f:
                f6 = line.split()
                if len(f6) < 6 or not f6[5].isdigit():
                    self.acc_noid += 1
                    continue
                start = float(f6[0])
                self.acc.setdefault(int(f6[5]), []).append(
                    (start, int(f6[1]), start + int(f6[2]) / 1e6,
                     self.node_of(f6[3])))

    def read_events(self):
        """The union of the rings every scrape returned."""
        self.scrapes = self.scrape_fail = self.wraps = 0
        self.scrape_gap = 0.0
        seen, last, newest = {}, None, None
        self.members_seen = set()
        self.throttled_view = {}        # node -> scrapes showing it throttled
        self.drained_view = {}          # node -> scrapes showing it drained
        with opener(os.path.join(self.dir, "status.jsonl")) as f:
            for line in f:
                rec = json.loads(line)
                if last is not None:
                    self.scrape_gap = max(self.scrape_gap, rec["t"] - last)
                last = rec["t"]
                doc = rec.get("doc")
                if not doc:
                    self.scrape_fail += 1
                    continue
                self.scrapes += 1
                ring = doc.get("events", [])
                # a full ring whose oldest entry is newer than the newest
                # of the scrape before: entries in between may be lost
                if ring and newest is not None and len(ring) >= RING \
                        and min(e["time"] for e in ring) > newest:
                    self.wraps += 1
                if ring:
                    newest = max(e["time"] for e in ring)
                for e in ring:
                    key = (e.get("time"), e.get("event"), e.get("member"),
                           e.get("detail"))
                    seen.setdefault(key, e)
                for b in doc.get("balancers", []):
                    for m in b.get("members", []):
                        n = self.node_of(m.get("name"))
                        bits = (m.get("telemetry") or {}).get("throttled")
                        if n and isinstance(bits, (int, float)) \
                                and int(bits) & 0xe:
                            self.throttled_view[n] = \
                                self.throttled_view.get(n, 0) + 1
                        if n and m.get("thermal_state") == "drained":
                            self.drained_view[n] = \
                                self.drained_view.get(n, 0) + 1
        self.events = sorted(
            ({"time": k[0], "event": k[1], "node": self.node_of(k[2]),
              "member": k[2], "detail": k[3],
              "temp": v.get("temperature_c")} for k, v in seen.items()),
            key=lambda e: e["time"])


# ---- report: what the nodes say happened ----------------------------------

def outages(run):
    """Kills (actions.log: the node cannot log its own SIGKILL; its
    restart is the next "pisim start" in its log) and hangs (the node's
    log), as dicts: node, kind, t0, t1."""
    out = []
    for t, a, n in run.actions:
        if a != "kill":
            continue
        later = [s for s, _ in run.runs[n] if s > t]
        out.append({"node": n, "kind": "kill", "t0": t,
                    "t1": min(later) if later else run.t_end})
    for n, lines in run.nlog.items():
        t0 = None
        for t, text in lines:
            if text == "node %s hung (control)" % n:
                t0 = t
            elif text == "node %s answers again (control)" % n and t0:
                out.append({"node": n, "kind": "hang", "t0": t0, "t1": t})
                t0 = None
    return sorted(out, key=lambda o: o["t0"])


def throttle_changes(run, name):
    """(epoch, on) from the node's log: its firmware's "now" bits 1-3
    (what PiBalanceThrottleFactor reads) set or clear."""
    out, was = [], False
    for t, text in run.nlog[name]:
        m = re.match(r"node \S+ \S+ C throttled 0x([0-9a-f]+)$", text)
        if not m:
            continue
        on = bool(int(m.group(1), 16) & 0xe)
        if on != was:
            out.append((t, on))
            was = on
    return out


def drain_crossings(run, name):
    """(epoch, drained, temp) where the node's trace (1 s) crosses the
    front's hard limit upwards, then hard - hysteresis downwards."""
    out, drained = [], False
    for t, temp, _ in run.trace[name]:
        if not drained and temp >= run.hard:
            out.append((t, True, temp))
            drained = True
        elif drained and temp < run.hard - run.hyst:
            out.append((t, False, temp))
            drained = False
    return out


def expectations(run):
    """Each event the front must have recorded: (node, event, lo, hi,
    how, why, since); how: "one" (exactly one in [lo, hi]) or "optional"
    (at most one); since: when what calls for it began (an outage's
    start).  Windows: a probe every 0.5 s, stale after three missed
    (1.5 s), a probe's timeout 0.4 s; mod_proxy's retry=2.  A kill's time
    is taken after kill(2) returned: its windows open EPS earlier."""
    exp = []
    for o in outages(run):
        n, t0, t1 = o["node"], o["t0"], o["t1"]
        lo = t0 - EPS if o["kind"] == "kill" else t0
        what = "%s %s %.1f-%.1f s" % (o["kind"], n, t0 - run.t_load,
                                      t1 - run.t_load)
        exp.append((n, "telemetry stale", lo, t1 + 3, "one", what, t0))
        exp.append((n, "telemetry back", t1, t1 + 5, "one", what, t0))
        how = "one" if o["kind"] == "kill" else "optional"
        exp.append((n, "member failed", lo, t1 + 3, how, what, t0))
        exp.append((n, "member back", t1, t1 + 8, how, what, t0))
    for n in run.nodes:
        for t, on in throttle_changes(run, n):
            ev = "throttled" if on else "no longer throttled"
            exp.append((n, ev, t - 0.1, t + 3, "one",
                        "%s %s at %.1f s (node log)" % (n, ev, t - run.t_load),
                        t))
        for t, on, temp in drain_crossings(run, n):
            ev = "drained" if on else "re-admitted"
            exp.append((n, ev, t - 1.5, t + 3, "one",
                        "%s %.1f C at %.1f s (trace)" % (n, temp,
                                                         t - run.t_load), t))
    return sorted(exp, key=lambda e: e[2])


def match(run):
    """Matches expectations to the recorded events: returns (rows,
    missing, duplicates, extra); a row: (expectation, event or None)."""
    used = set()
    rows, missing, dups = [], [], []
    for x in expectations(run):
        n, ev, lo, hi, how = x[:5]
        cand = [i for i, e in enumerate(run.events)
                if i not in used and e["node"] == n and e["event"] == ev
                and lo <= e["time"] <= hi]
        if cand:
            used.add(cand[0])
            rows.append((x, run.events[cand[0]]))
            for i in cand[1:]:
                used.add(i)
                dups.append((x, run.events[i]))
        else:
            rows.append((x, None))
            if how == "one":
                missing.append(x)
    extra = [e for i, e in enumerate(run.events) if i not in used]
    return rows, missing, dups, extra


# ---- report: requests ------------------------------------------------------

EPS = 0.2       # s: the kill's time is taken just after kill(2) returned
RING = 64       # events mod_pistats keeps (docs/metrics.md)


def classify(run, outs):
    """Every failed request, with the outage it belongs to (or none)."""
    fails = []
    for i, (it, st, en, res, retr) in sorted(run.req.items()):
        if res.isdigit() and 200 <= int(res) < 400:
            continue
        acc = run.acc.get(i)
        f = {"id": i, "result": res, "sent": st, "end": en, "retried": retr,
             "node": None, "class": "other", "outage": None}
        if acc:
            a = acc[-1]
            f.update(start=a[0], status=a[1], aend=a[2], node=a[3])
            for o in outs:
                if o["node"] != a[3]:
                    continue
                if a[0] < o["t0"] + EPS and a[2] >= o["t0"] - EPS:
                    f["class"] = "in flight at " + o["kind"]
                elif o["kind"] == "hang" and o["t0"] <= a[0] < o["t1"]:
                    stale = [e["time"] for e in run.events
                             if e["node"] == o["node"]
                             and e["event"] == "telemetry stale"
                             and o["t0"] <= e["time"] <= o["t1"]]
                    f["class"] = ("sent while hung, after /pi-status showed"
                                  " it stale" if stale and a[0] >= stale[0]
                                  else "sent while hung, before it was"
                                  " stale")
                else:
                    continue
                f["outage"] = o
                break
        else:
            f["class"] = "other (not in the front's access log)"
        fails.append(f)
    return fails


# ---- report: writing it -------------------------------------------------------

def rel(run, t):
    return t - run.t_load


def summarize(evs, t0):
    """"member failed +0.3 (x 350, last +10.8); telemetry stale +2.0"."""
    by = {}
    for e in evs:
        by.setdefault(e["event"], []).append(e["time"] - t0)
    parts = []
    for k, ts in sorted(by.items(), key=lambda kv: kv[1][0]):
        parts.append("%s %+.1f%s" % (k, ts[0], " (× %d, last %+.1f)"
                                     % (len(ts), ts[-1]) if len(ts) > 1
                                     else ""))
    return "; ".join(parts)


def group(pairs):
    """[(expectation, event)] -> [(expectation, [events])], in order."""
    out = []
    for x, e in pairs:
        if out and out[-1][0] is x:
            out[-1][1].append(e)
        else:
            out.append((x, [e]))
    return out


def gracefuls_between(run, lo, hi):
    return [t for t, a, _ in run.actions if a == "graceful" and lo <= t <= hi]


def note_graceful(run, lo, hi):
    g = gracefuls_between(run, lo, hi)
    return " (graceful restart at %s s)" % ", ".join(
        "%.1f" % rel(run, t) for t in g) if g else ""


def report(args):
    run = Run(args.dir)
    out = []
    w = out.append
    checks = []

    # crashes
    crash_re = re.compile(r"exit signal|AH00052|Segmentation|Bus error|"
                          r"Illegal instruction|Aborted|core dumped")
    errlog = open(os.path.join(run.dir, "error_log"), errors="replace") \
        .read().splitlines()
    crashes = [line for line in errlog if crash_re.search(line)]
    checks.append(("child crashes in the front's error log", len(crashes),
                   len(crashes) == 0))
    # requests
    outs = outages(run)
    fails = classify(run, outs)
    other = [f for f in fails if f["class"].startswith("other")]
    checks.append(("failed requests not in flight to a killed or hung node",
                   len(other), len(other) == 0))
    late = [f for f in fails if "after /pi-status" in f["class"]]
    checks.append(("failed requests sent to a hung node after /pi-status"
                   " showed it stale", len(late), len(late) == 0))
    # events
    rows, missing, dups, extra = match(run)
    checks.append(("events the nodes' logs call for, missing at /pi-status",
                   len(missing), len(missing) == 0))
    checks.append(("events recorded twice", len(dups), len(dups) == 0))
    checks.append(("events recorded that no node's log calls for",
                   len(extra), len(extra) == 0))
    checks.append(("scrapes that found the event ring wrapped since the"
                   " last (events may be lost)", run.wraps, run.wraps == 0))
    checks.append(("scrapes of /pi-status?json that failed",
                   run.scrape_fail, True))

    kinds = {}
    for t, a, _ in run.actions:
        kinds[a] = kinds.get(a, 0) + 1
    w("# Soak: %s" % os.path.basename(run.dir.rstrip("/")))
    w("")
    w("Load from %s for %.0f s; %d nodes (%s); front: %s; thermal limits"
      " %g/%g C, hysteresis %g C." % (
          time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(run.t_load)),
          run.t_end - run.t_load, len(run.nodes),
          ", ".join("%s :%d %s" % (n, p, r)
                    for n, (p, r) in sorted(run.nodes.items())),
          "lbmethod pi, PiBalanceDeflate On, probe 500 ms",
          run.soft, run.hard, run.hyst))
    w("Done to it: %d kills, %d hangs, %d graceful restarts, heat events"
      " on the hot node (plan.tsv)." % (kinds.get("kill", 0),
                                         kinds.get("hang", 0),
                                         kinds.get("graceful", 0)))
    w("")
    w("## Verdict")
    w("")
    w("| check | count | |")
    w("|---|---:|---|")
    for what, n, ok in checks:
        w("| %s | %d | %s |" % (what, n, "ok" if ok else "**FAIL**"))
    w("")

    # requests
    res = {}
    for it, st, en, r, retr in run.req.values():
        res[r] = res.get(r, 0) + 1
    w("## Requests")
    w("")
    ol = open(os.path.join(run.dir, "openloop.txt")).read().strip()
    w("openloop: `%s`" % ol)
    w("")
    w("Outcomes (requests.txt): " + ", ".join(
        "%s × %d" % kv for kv in sorted(res.items())) + ".  Retried after"
      " a keep-alive close: %d." % sum(1 for v in run.req.values() if v[4]))
    w("")
    cls = {}
    for f in fails:
        cls[f["class"]] = cls.get(f["class"], 0) + 1
    w("| failed requests | count |")
    w("|---|---:|")
    for k in sorted(cls):
        w("| %s | %d |" % (k, cls[k]))
    w("| all | %d |" % len(fails))
    w("")
    if other:
        w("Failed and in no outage (id, result, member, front start → end,"
          " s after the load started):")
        w("")
        for f in other[:40]:
            w("- %d %s %s %s" % (f["id"], f["result"], f["node"] or "-",
                                 "%.3f → %.3f" % (rel(run, f["start"]),
                                                  rel(run, f["aend"]))
                                 if "start" in f else
                                 "sent %.3f, ended %.3f" % (
                                     rel(run, f["sent"]) if f["sent"] else -1,
                                     rel(run, f["end"]) if f["end"] else -1)))
        if len(other) > 40:
            w("- ... %d more" % (len(other) - 40))
        w("")

    # outages
    w("## Kills and hangs")
    w("")
    w("Times in s after the load started.  *in flight*: requests the front"
      " had sent to the node when it was killed or hung that failed;"
      " *sent while hung*: sent to it after it hung (the last one: how"
      " long after the hang; *after stale*: of those, sent after"
      " /pi-status had recorded it stale).  Events: the /pi-status events"
      " of that node in the outage, s after its start; a graceful restart"
      " in it is named.")
    w("")
    w("| node | what | from | to | in flight failed | sent while hung"
      " (last) | after stale | graceful restart | events at /pi-status |")
    w("|---|---|---:|---:|---:|---|---:|---|---|")
    for o in outs:
        mine = [f for f in fails if f["outage"] is o]
        inf = sum(1 for f in mine if f["class"].startswith("in flight"))
        sw = [f for f in mine if f["class"].startswith("sent while hung")]
        evs = [e for e in run.events if e["node"] == o["node"]
               and o["t0"] - 0.5 <= e["time"] <= o["t1"] + 8]
        g = gracefuls_between(run, o["t0"], o["t1"])
        w("| %s | %s | %.1f | %.1f | %d | %s | %d | %s | %s |" % (
            o["node"], o["kind"], rel(run, o["t0"]), rel(run, o["t1"]), inf,
            "%d (%.0f ms)" % (len(sw), 1000 * max(f["start"] - o["t0"]
                                                  for f in sw))
            if sw else "0",
            sum(1 for f in sw if "after /pi-status" in f["class"]),
            ", ".join("%.1f" % rel(run, t) for t in g) or "-",
            summarize(evs, o["t0"]) or "none"))
    w("")

    # heat and throttling
    w("## Heat, drains, throttling")
    w("")
    w("Each expected event: what calls for it (the node's log: throttle"
      " bits; its trace: the temperature crossing %g C up, %g C down),"
      " and what /pi-status recorded (s after the load started, its"
      " temperature)." % (run.hard, run.hard - run.hyst))
    w("")
    w("| node | expected | called for by | recorded |")
    w("|---|---|---|---|")
    for x, e in rows:
        if x[1] not in ("drained", "re-admitted", "throttled",
                        "no longer throttled"):
            continue
        w("| %s | %s | %s | %s |" % (
            x[0], x[1], x[5], "%.1f s, %s C" % (rel(run, e["time"]),
                                                 e["temp"])
            if e else "**missing**"))
    w("")
    w("| node | throttled s (pisim) | processes | /pi-status scrapes"
      " showing it throttled | drained |")
    w("|---|---:|---:|---:|---:|")
    for n in sorted(run.nodes):
        secs, procs = 0.0, len(run.runs[n])
        for i in range(procs):
            sp = os.path.join(run.dir, "%s.summary.%d" % (n, i + 1))
            m = None
            if os.path.exists(sp):
                m = re.search(r"throttled_s=(\S+)", open(sp).read())
            if m:
                secs += float(m.group(1))
            else:                       # killed: count its trace's seconds
                st = run.runs[n][i][0]
                nxt = run.runs[n][i + 1][0] if i + 1 < procs else 1e18
                secs += sum(1 for t, _, b in run.trace[n]
                            if st <= t < nxt and b & 0x6)
        w("| %s | %.1f | %d | %d | %d |" % (n, secs, procs,
                                             run.throttled_view.get(n, 0),
                                             run.drained_view.get(n, 0)))
    w("")

    # events
    w("## Events: the nodes' logs against /pi-status")
    w("")
    byk = {}
    for x, e in rows:
        k = byk.setdefault(x[1], [0, 0, 0])
        k[0] += 1
        k[1] += e is not None
        k[2] += e is None and x[4] == "one"
    w("| event | called for | recorded | missing |")
    w("|---|---:|---:|---:|")
    for k in sorted(byk):
        w("| %s | %d | %d | %d |" % (k, byk[k][0], byk[k][1], byk[k][2]))
    w("")
    w("(*member failed/back* after a hang: at most once each, as mod_proxy"
      " may or may not have put the member in error; after a kill, once"
      " each.)  Recorded: %d distinct events in %d scrapes (%d failed,"
      " longest gap %.1f s)." % (len(run.events), run.scrapes,
                                 run.scrape_fail, run.scrape_gap))
    w("")
    if missing:
        w("Missing:")
        w("")
        for x in missing:
            w("- %s %s (%s; looked for %.1f-%.1f s)%s" % (
                x[0], x[1], x[5], rel(run, x[2]), rel(run, x[3]),
                note_graceful(run, x[6], x[3])))
        w("")
    if dups:
        w("Recorded twice (or more): the expectation, then each extra"
          " copy's kind, count, first and last time:")
        w("")
        for x, evs in group(dups):
            first = next(ev for xx, ev in rows if xx is x)
            w("- %s %s (%s): first at %.3f s; again × %d, %.3f-%.3f s%s"
              % (x[0], x[1], x[5], rel(run, first["time"]), len(evs),
                 rel(run, evs[0]["time"]), rel(run, evs[-1]["time"]),
                 note_graceful(run, first["time"], evs[-1]["time"])))
        w("")
    if extra:
        w("Recorded, called for by nothing (node, event: count, first and"
          " last time, a detail):")
        w("")
        by = {}
        for e in extra:
            by.setdefault((e["node"], e["event"]), []).append(e)
        for (n, ev), es in sorted(by.items(), key=lambda kv: kv[1][0]["time"]):
            w("- %s %s: × %d, at %s s (%s)" % (
                n, ev, len(es), ", ".join(
                    "%.3f%s" % (rel(run, e["time"]),
                                note_graceful(run, e["time"] - 3, e["time"]))
                    for e in es[:10]) + (", ..." if len(es) > 10 else ""),
                es[0]["detail"] or "-"))
        w("")
    ids = {}
    for line in errlog:
        for m in re.findall(r"\b((?:AH|PIB|PIS)\d{5})\b", line):
            ids[m] = ids.get(m, 0) + 1
    w("Front's error log, message ids: " + (", ".join(
        "%s × %d" % kv for kv in sorted(ids.items())) or "none") + ".")
    w("")
    if crashes:
        w("## Crashes")
        w("")
        for line in crashes[:20]:
            w("    " + line)
        w("")
    print("\n".join(out))
    return 0 if all(ok for _, _, ok in checks) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--secs", type=int, required=True)
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--port-base", type=int, required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("scrape")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--secs", type=int, required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("report")
    p.add_argument("dir")
    args = ap.parse_args()
    if args.cmd == "plan":
        plan(args)
        return 0
    if args.cmd == "scrape":
        scrape(args)
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
