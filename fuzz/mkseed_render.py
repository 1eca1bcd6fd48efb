#!/usr/bin/env python3
"""fuzz/mkseed_render.py -- writes fuzz/corpus/fuzz_render/structured,
a seed laid out field by field as fuzz_render.c's fz_build() reads it:
two balancers (two members and one), a hostile string in every string
field, NaN / infinity / huge / negative doubles, histories with gaps,
flat runs, lone points and 32-bit counts.

Keep in step with fuzz_render.c (STR_MAX, field order, history runs).
Run from anywhere:  python3 fuzz/mkseed_render.py
"""
import os
import struct

STR_MAX = 16
HIST_BUCKETS = 24 * 6 + 2
HISTORY_S = 300


class Seed:
    def __init__(self):
        self.b = bytearray()

    def u8(self, v):
        self.b.append(v & 0xff)

    def u32(self, v):
        """fz_u32: four bytes, big end first, then taken modulo max + 1."""
        self.b += struct.pack(">I", v & 0xffffffff)

    def s(self, text):
        """fz_str: up to STR_MAX bytes, ended by a 0x00."""
        raw = bytes(text)
        assert len(raw) <= STR_MAX and 0 not in raw, raw
        self.b += raw + b"\0"

    def ns(self, text):
        """A nullable string: a selector byte, (b & 7) == 0 is NULL."""
        if text is None:
            self.u8(0)
        else:
            self.u8(1)
            self.s(text)

    def d(self, kind, value=0):
        """fz_double: kind 0 is -1, 1 is a bit pattern, else u32/(1+k>>3)."""
        self.u8(kind)
        if kind & 7 == 0:
            return
        if kind & 7 == 1:
            self.b += struct.pack(">d", value)
        else:
            self.u32(int(value))

    def tel(self, has, node, temp_dc, throttled, load_c, cpus, mem, up):
        self.u8(has)
        self.s(node)
        self.u32(temp_dc + 400)            # PIS_TEMP_MIN_DC + v
        self.u32(throttled)
        self.u32(load_c)
        self.u32(cpus - 1)
        self.u32(mem)
        self.u32(up)

    def history(self, runs):
        """(k, length) runs; k >= 200 takes a 32-bit count after the
        length byte."""
        total = 0
        for k, n, *big in runs:
            self.u8(k)
            self.u8(n - 1)
            if k >= 200:
                self.u32(big[0])
            total += n
        assert total >= HISTORY_S, total

    def member(self, name, route, state, thermal, node, probe_error,
               runs, hot=False):
        self.s(name)
        self.s(route)
        self.s(state)
        self.u8(1)                         # usable
        self.u32(150)                      # lbfactor x 100
        self.u8(1)                         # has_weight
        self.d(1, 1.5)
        self.ns(thermal)
        self.u32(3)                        # inflight
        self.u32(123456)                   # requests
        for c in (0, 120000, 3000, 400, 56):
            self.u32(c)
        self.u32(7)                        # proxy errors
        self.u32(42)                       # bytes_in (<< 20)
        self.u32(987654321)                # bytes_out
        self.d(1, 12.5)                    # rate1
        self.d(1, float("nan"))            # rate10
        self.d(1, float("inf"))            # rate60
        self.d(2, 2500)                    # p50_us
        self.d(0)                          # p95_us: no sample
        self.d(1, -0.0)                    # p99_us
        self.d(1, 1e300 if hot else 3100.25)  # ewma_us
        for i in range(HIST_BUCKETS):      # every 9th bucket counted
            if i % 9 == 0:
                self.u8(0)
                self.u32(i * 3 + 1)
            else:
                self.u8(1)
        self.d(1, 1.25e9)                  # hist_sum_us
        self.u8(1)                         # probed
        self.tel(0x3f, node, 855 if hot else 483, 0x50005, 152, 4,
                 3512345, 86400)
        self.d(2, 3)                       # tel_age_s
        self.u8(1 if hot else 0)           # tel_stale
        self.ns(probe_error)
        self.u8(3 if hot else 1)           # severity
        self.history(runs)


def main():
    f = Seed()
    f.tel(0x3f, b"pi1<b>\"&'\n\x01\x7f", 483, 0, 52, 4, 3512345, 86400)
    f.s(b"Apache/2.4 <i>\"")               # server_version
    f.ns(b"ok\r\n\t\\\"")                   # deflate_state
    f.d(1, 1.7e9)                          # now
    f.u32(86400)                           # uptime_s
    f.d(1, 2.0)                            # probe_interval_s
    f.u8(2)                                # two balancers

    f.s(b"balancer://p\"}\n#")              # name ('#' becomes '_')
    f.s(b"host:80<&>'")                     # vhost
    f.s("pi\xe9\u20ac\U0001d11e".encode())  # lbmethod: UTF-8 2, 3, 4 bytes
    f.u8(2)                                # two members
    f.member(b"http://a\"b\\c\n", b"r1\xff\xfe", b"Init Ok \x1b[",
             b"warm</td>", b"node\xc3(\xe2\x82", b"ECONN <x>\n",
             [(10, 40), (201, 1, 4000000000), (11, 30), (12, 29),
              (3, 1), (40, 199)])
    f.member(b"ws://[::1]:8@x", b"", b"Drn ", None,
             b"\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf", None,
             [(0, 256), (1, 44)], hot=True)

    f.s(b"balancer://t@")                   # '@' becomes '_'
    f.s(b"")                               # vhost empty
    f.s(b"byrequests")
    f.u8(1)
    f.member(b"ajp://\x7f\x01", b"\"r\"", b"Err ", b"stale", b"", b"timeout",
             [(7, 1), (8, 1), (9, 1), (200, 256, 0), (5, 41)])

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "corpus", "fuzz_render", "structured")
    with open(path, "wb") as out:
        out.write(f.b)
    print("%s: %d bytes" % (path, len(f.b)))


if __name__ == "__main__":
    main()
