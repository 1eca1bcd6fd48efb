#!/bin/sh
# bench/dictionary.sh -- RFC 9842 dictionaries for a returning client
# (issue 30 item 7): a dynamic phpinfo()-like page (~67 KB, a dozen
# values change on every request; t/bin/dynpage.py) and a versioned
# script (t/bin/dynpage.py --script), ten versions each.
#
# Part 1 (this script today): bytes and master CPU per response of
# gzip-1, zstd-3, br-4 and dcz-3 through mod_pibalance's own codec rows
# (bench/dictcost.c), one pass, as a returning client sees them: the
# page against its prefix's dictionary (an earlier page), the script
# against its previous version; the one-time cost of preparing a
# dictionary apart.  And which dictionary to build for a prefix
# (bench/dictbuild.c): the last page or zstd's builder, on one page and
# on a prefix of differing pages.
# Part 2 (bench/dictionary-fronts.sh): the same through whole fronts on
# a core of their own, mod_pibalance with gzip-1, zstd-3 and br-4, HAProxy
# and nginx sending what they can (gzip); dcz joins when the filter sends
# it (issue 29's table of codings).
#
# Needs a built tree (make all), python3, gcc.  Run it as
#   flock /work/bench.lock bench/dictionary.sh
# Writes bench/results/DATE-dictionary/{cost.txt,build.txt,fronts.txt,
# host.txt} (and the fronts' configurations and wrk outputs) and prints
# the path.
#   PIB_DICT_SECS=0.5         CPU seconds per cell (part 1)
#   PIB_DICT_FRONT_SECS=5     wrk seconds per front and resource (part 2)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s -C sim phpinfo.html phpinfo-dense.html >/dev/null
out="bench/results/$(date -u +%Y-%m-%d-%H%M)-dictionary"
mkdir -p "$out/pages"
pib=mod_pibalance
cc -O2 -I"$pib" -o "$out/dictcost" bench/dictcost.c \
    $pib/pib_codec.o $pib/pib_codec_zstd.o $pib/pib_codec_br.o \
    $pib/pib_pool.o $pib/pib_dcz.o \
    -lz -ldeflate -lzstd -lbrotlienc -lcrypto -pthread
cc -O2 -o "$out/dictbuild" bench/dictbuild.c -lzstd
{
    uname -srm
    grep -m1 'model name' /proc/cpuinfo || true
    nproc
    git rev-parse --short HEAD
    uptime
} > "$out/host.txt"
for i in 0 1 2 3 4 5 6 7 8 9 10; do
    python3 t/bin/dynpage.py "$i" > "$out/pages/page$i.html"
    python3 t/bin/dynpage.py --script "$i" > "$out/pages/app$i.js"
done
secs=${PIB_DICT_SECS:-0.5}
{
    "$out/dictcost" page prefix "$secs" \
        $(for i in 0 1 2 3 4 5 6 7 8 9 10; do echo "$out/pages/page$i.html"; done)
    "$out/dictcost" script previous "$secs" \
        $(for i in 0 1 2 3 4 5 6 7 8 9 10; do echo "$out/pages/app$i.js"; done)
} > "$out/cost.txt"
# The builder's choice: 40 versions of one page; 60 requests over 30
# differing pages of a prefix (seeded: the same sequence every run).
python3 - "$out/pages" <<'PY'
import os, random, subprocess, sys
d = sys.argv[1]
for i in range(1, 41):
    with open(os.path.join(d, 'one%02d.html' % i), 'wb') as f:
        f.write(subprocess.run(['python3', 't/bin/dynpage.py', str(i)],
                               capture_output=True, check=True).stdout)
r = random.Random(7)
for i in range(1, 61):
    it = r.randrange(1, 31)
    with open(os.path.join(d, 'item%02d.html' % i), 'wb') as f:
        f.write(subprocess.run(['python3', 't/bin/dynpage.py', str(i),
                                '--item', str(it)],
                               capture_output=True, check=True).stdout)
PY
{
    for s in 10 20; do
        echo "# one page, 40 versions, $s samples, 64 KiB"
        "$out/dictbuild" 3 "$s" 65536 "$out"/pages/one*.html
    done
    for s in 10 30; do
        echo "# a prefix of 30 differing pages, 60 requests, $s samples, 64 KiB"
        "$out/dictbuild" 3 "$s" 65536 "$out"/pages/item*.html
    done
} > "$out/build.txt"
rm -rf "$out/dictcost" "$out/dictbuild" "$out/pages"
bash bench/dictionary-fronts.sh "$out" "${PIB_DICT_FRONT_SECS:-5}" >/dev/null
echo "$out"
