#!/bin/sh
# bench/codings.sh -- bytes and CPU per page of gzip, zstd and br at each
# level, on both benchmark pages, through mod_pibalance's codec rows
# (bench/codings.c), on the three benchmark pages, pinned to core 1.
# Needs a built tree (make all).  Writes
# bench/results/DATE-codings/{codings.txt,host.txt} and prints the path.
#   PIB_CODINGS_SECS=0.1   CPU seconds per cell and round
#   PIB_CODINGS_ROUNDS=5   interleaved rounds (the least and the median)
#   PIB_CODINGS_CORE=1     the core
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s -C sim phpinfo.html phpinfo-dense.html >/dev/null
out="bench/results/$(date -u +%Y-%m-%d-%H%M)-codings"
mkdir -p "$out"
pib=mod_pibalance
isal=$(sed -n 's/^ISAL_LIBS *= *//p' Makefile)
cc -O2 -I"$pib" -o "$out/codings" bench/codings.c \
    $pib/pib_codec.o $pib/pib_codec_zstd.o $pib/pib_codec_br.o \
    $pib/pib_codec_igzip.o \
    $pib/pib_pool.o $pib/pib_coding_table.o -lz -ldeflate -lzstd -lbrotlienc $isal -pthread
{
    uname -srm
    grep -m1 'model name' /proc/cpuinfo || true
    nproc
    git rev-parse --short HEAD
} > "$out/host.txt"
make -s -C sim phpinfo-bench.html >/dev/null
for page in sim/phpinfo-bench.html sim/phpinfo.html sim/phpinfo-dense.html; do
    taskset -c "${PIB_CODINGS_CORE:-1}" "$out/codings" "$page" \
        "${PIB_CODINGS_SECS:-0.1}" "${PIB_CODINGS_ROUNDS:-5}"
done > "$out/codings.txt"
rm -f "$out/codings"
echo "$out"
