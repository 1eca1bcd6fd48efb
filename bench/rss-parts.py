#!/usr/bin/env python3
"""bench/rss-parts.py STACK_KIB PID... -- where the processes' resident
memory is, summed over them, from /proc/PID/smaps.  Prints one line of
tab-separated KiB:

    total  stacks  heap  anon  files

stacks: anonymous read-write mappings of exactly STACK_KIB (the size a
        thread's stack is created with: ThreadStackSize, else the stack
        rlimit), i.e. the worker threads' stacks;
heap:   glibc's main heap ([heap]);
anon:   every other anonymous mapping: glibc's thread arenas, APR's
        allocator blocks, mod_pibalance's buffers and libdeflate's
        compressors, shared memory not backed by a file;
files:  mappings of files (libraries, shared memory files).

A process gone while being read counts as 0.
"""
import sys


def parts(pid, stack_kib):
    out = {"stacks": 0, "heap": 0, "anon": 0, "files": 0}
    kind = None
    size = 0
    try:
        with open("/proc/%s/smaps" % pid) as f:
            for line in f:
                head = line.split()
                if not head:
                    continue
                if "-" in head[0] and not head[0].endswith(":"):
                    path = head[5] if len(head) > 5 else ""
                    perms = head[1]
                    if path == "[heap]":
                        kind = "heap"
                    elif path.startswith("/"):
                        kind = "files"
                    elif path == "" and perms.startswith("rw"):
                        kind = "anon?"      # stack or not: by its size
                    else:
                        kind = "anon"
                elif head[0] == "Size:":
                    size = int(head[1])
                    if kind == "anon?":
                        kind = "stacks" if size == stack_kib else "anon"
                elif head[0] == "Rss:":
                    out[kind] += int(head[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    stack_kib = int(sys.argv[1])
    total = {"stacks": 0, "heap": 0, "anon": 0, "files": 0}
    for pid in sys.argv[2:]:
        for k, v in parts(pid, stack_kib).items():
            total[k] += v
    print("\t".join(str(x) for x in (
        sum(total.values()), total["stacks"], total["heap"], total["anon"],
        total["files"])))


if __name__ == "__main__":
    main()
