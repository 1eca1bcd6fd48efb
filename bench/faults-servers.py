#!/usr/bin/env python3
"""bench/faults-servers.py MODE PORT -- misbehaving nodes for bench/faults.sh.

Listens on 127.0.0.1:PORT only.  Every request for a page (any path but
/pi-status and /ready) is answered like a small Pi node: 20 ms, a 4096-byte
HTML page, keep-alive.  /ready answers 200 at once (the script's start check).
/pi-status (the telemetry probe) depends on MODE:

  tel-ok       valid node telemetry (the reference run)
  tel-garbage  "HTTP/1.0 200" + 6 KiB of random bytes, control bytes, NULs,
               over-long and hostile lines (<script>, quotes, 1e999, -1)
  tel-big      "HTTP/1.0 200" + 10 MB of telemetry-looking text
  tel-slow     the valid answer, one byte a second (gives up after 60 bytes)
  reset        every page: headers with Content-Length 60000, then 20000
               bytes of body, then RST (SO_LINGER 0); /good answers fully
  reset-chunked  same, chunked: a 20000-byte chunk, then RST
Bounded: at most 256 threads at once; every socket has a 30 s timeout.
"""
import os, random, socket, struct, sys, threading, time

mode, port = sys.argv[1], int(sys.argv[2])
PAGE = (b"<html><body>" + b"x" * 4070 + b"</body></html>")[:4096]
TEL = (b"Node: pybad\nTemperatureC: 45.0\nThrottled: 0x0\nLoad1: 0.10\n"
       b"CPUs: 4\nMemAvailableKB: 3500000\nUptimeS: 10\n")
sem = threading.BoundedSemaphore(256)
rnd = random.Random(8)


def garbage():
    parts = [bytes(rnd.getrandbits(8) for _ in range(4096)),
             b"\nNode: <script>alert(1)</script>\"'&\x00\x1b[31m\n",
             b"TemperatureC: 1e999\nThrottled: 0xffffffffffffffffff\n",
             b"Load1: -1\nCPUs: 99999999999999999999\n", b"A" * 2000 + b"\n",
             b"Location: http://10.0.0.1/\nBalancerMember: http://10.0.0.1/\n"]
    return b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + b"".join(parts)


def telemetry(c):
    head = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n"
    if mode == "tel-garbage":
        c.sendall(garbage())
    elif mode == "tel-big":
        c.sendall(head)
        chunk = (b"SimPadding: " + b"0" * 1010 + b"\n") * 64  # 65 KiB
        for _ in range(10 * 1024 * 1024 // len(chunk)):
            c.sendall(chunk)
    elif mode == "tel-slow":
        for b in (head + TEL)[:60]:
            c.sendall(bytes([b]))
            time.sleep(1)
    else:
        c.sendall(head + TEL)


def rst(c):
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()


def serve(c):
    try:
        c.settimeout(30)
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            head, buf = buf.split(b"\r\n\r\n", 1)
            line = head.split(b"\r\n", 1)[0].split(b" ")
            path = line[1] if len(line) > 1 else b"/"
            close = b"connection: close" in head.lower() or line[-1] == b"HTTP/1.0"
            if path.startswith(b"/pi-status"):
                telemetry(c)
                return
            if path.startswith(b"/ready"):
                c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
                return
            if mode.startswith("reset") and not path.startswith(b"/good"):
                body = (b"<html>" + b"reset-test " * 6000)[:60000]
                if mode == "reset":
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                              b"Content-Length: 60000\r\n\r\n" + body[:20000])
                else:
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n"
                              + b"%x\r\n" % 20000 + body[:20000] + b"\r\n")
                time.sleep(0.05)
                rst(c)
                c = None
                return
            time.sleep(0.02)
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                      b"Content-Length: %d\r\nX-Node: pybad\r\n%s\r\n"
                      % (len(PAGE), b"Connection: close\r\n" if close else b"")
                      + PAGE)
            if close:
                return
    except OSError:
        pass
    finally:
        if c is not None:
            c.close()
        sem.release()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(512)
while True:
    c, _ = s.accept()
    if not sem.acquire(timeout=5):
        c.close()
        continue
    threading.Thread(target=serve, args=(c,), daemon=True).start()
