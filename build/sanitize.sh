#!/bin/bash
# build/sanitize.sh -- the Apache::Test suite with both modules built with
# AddressSanitizer + UndefinedBehaviorSanitizer, httpd started with the
# ASan runtime preloaded; or (--valgrind) under valgrind memcheck with one
# process (httpd -X).
#
#   build/sanitize.sh                 ASan+UBSan pass (CI: event MPM)
#   build/sanitize.sh --valgrind      memcheck pass (not in CI: slow)
#   build/sanitize.sh [--valgrind] -verbose t/pistats/restart.t
#                                     some tests only (t/TEST arguments)
#   build/sanitize.sh --valgrind-supp vg.123 ...
#                                     prints suppressions for the definite
#                                     leaks of these memcheck logs that
#                                     have no frame of ours (for
#                                     build/valgrind.supp)
#
# Works in a scratch copy of the tree (/var/tmp/pib-sanitize, readable by
# the unprivileged user httpd's children run as), built through the
# Makefile's CFLAGS/LDFLAGS overrides.  Sanitizer reports are written per
# process to $out/asan.* (ASan, UBSan) or $out/vg.* (valgrind) and kept.
# Fails when a report has a frame in our code (a pis_/pib_ function or a
# mod_pistats/ mod_pibalance source) -- reports that are only httpd's,
# APR's or Perl's own are counted and listed, not failed on.  Apache::Test
# failures fail the ASan pass, not the valgrind one (timing under
# valgrind is not the suite's business).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '\n=== %s\n' "$*"; }
# A memcheck stack frame of our code: a pib_/pis_ function or source, a
# mod_pibalance/mod_pistats source or object.
vgours='([^A-Za-z0-9_](pib|pis)_[A-Za-z0-9_]+|mod_pibalance|mod_pistats)'

# Suppressions for the definitely-lost records of memcheck logs "$@" that
# have no frame of ours: one per distinct stack, every frame pinned (no
# "..." wildcard) to its function, or to its object when valgrind cannot
# name it, down to the stack's last frame, which must be named (main,
# clone, ...; or the 30th, beyond which memcheck sees nothing): a
# suppression matches the first frames of a stack, and only a stack's own
# bottom frame admits nothing below it.  So no entry can match a stack with
# a frame of ours.  A comment above each: its functions.
vg_gensupp() {
    awk -v ours="$vgours" '
    function flush(   k, i) {
        if (rec && !bad && n && fr[n] ~ /^fun:/) {
            k = ""
            for (i = 1; i <= n; i++) k = k "   " fr[i] "\n"
            if (!(k in seen)) { seen[k] = 1; order[++m] = k; fns[k] = chain }
        }
        rec = 0; bad = 0; n = 0; chain = ""
    }
    !/^==[0-9]+==/ { next }
    { line = $0; sub(/^==[0-9]+== ?/, "", line) }
    line ~ /^ *$/ || line ~ /^[^ ]/ { flush() }
    line ~ /are definitely lost in loss record/ { rec = 1; next }
    rec && line ~ /^ +(at|by) 0x/ {
        if (line ~ ours) bad = 1
        f = line; sub(/^ +(at|by) 0x[0-9A-Fa-f]+: /, "", f)
        fn = f; sub(/ .*/, "", fn)
        if (fn != "???")
            fr[++n] = "fun:" fn
        else if (match(f, /\(in [^)]*\)$/))
            fr[++n] = "obj:" substr(f, RSTART + 4, RLENGTH - 5)
        else
            bad = 1                 # nothing to pin it to
        chain = chain (chain == "" ? "" : " < ") fn
    }
    END {
        flush()
        for (j = 1; j <= m; j++)
            printf "# %s\n{\n   pib-vg-leak-%d\n   Memcheck:Leak\n" \
                   "   match-leak-kinds: definite\n%s}\n",
                   fns[order[j]], j, order[j]
    }' "$@"
}
if [ "${1:-}" = "--valgrind-supp" ]; then
    shift
    vg_gensupp "$@"
    exit $?
fi

mode=asan
[ "${1:-}" = "--valgrind" ] && mode=valgrind && shift
if [ $mode = valgrind ] && ! command -v valgrind >/dev/null; then
    "$top/build/setup-deps.sh" valgrind || exit 1     # make valgrind
fi
# Further arguments go to t/TEST (e.g. -verbose t/pistats/restart.t).
port=${PIB_SANITIZE_PORT:-9700}
# The scratch copy is named by its port: two passes at once (each on its
# own ports) never share one.  APACHE_TEST_PORT is this pass's port too:
# t/TEST reads it (a caller's value would make it look at another pass's
# server).
export APACHE_TEST_PORT=$port
stage=${PIB_SANITIZE_DIR:-/var/tmp/pib-sanitize}-$mode-$port
out=$stage/reports

# The valgrind pass's verdict, from the memcheck logs $1/vg.<pid>: waits
# (bounded) for each memcheck to finish its leak check (Apache::Test stops
# waiting for httpd after ~20 s), then counts the error records (invalid
# accesses, uninitialised values, bad frees, ...) and the definitely-lost
# records, each split by whether a frame of its stacks is in our code: a
# pib_/pis_ function, a mod_pibalance/mod_pistats file or object.  Lists
# ours in full and the others by their first frames.  Fails when one is
# ours, when there is no log, or when a log has no ERROR SUMMARY (the
# leak check did not run).
vg_summary() {
    local dir=$1 f pid _
    set -- "$dir"/vg.*
    if [ ! -e "$1" ]; then
        echo "sanitize (valgrind): no memcheck log (vg.*): httpd never ran under valgrind"
        return 1
    fi
    for f in "$@"; do
        pid=${f##*.}
        for _ in $(seq 600); do
            grep -q 'ERROR SUMMARY:' "$f" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 1
        done
    done
    awk -v out="$dir" -v suite="$suite" -v ours="$vgours" '
    function num(s) { gsub(/,/, "", s); return s + 0 }
    function fname(l) {            # "   by 0x1234: fn (file.c:12)" -> fn
        sub(/^ +(at|by) 0x[0-9A-Fa-f]+: /, "", l); sub(/ .*/, "", l)
        return l
    }
    # A record: a headline, its stacks, a blank line.  Class "ours" (a
    # frame of ours), "unresolved" (none, but a frame valgrind could not
    # name: it might be ours) or "other".
    function flush(   c, d) {
        if (head != "" && nfr > 0 && head !~ /^(Warning|WARNING):/) {
            c = hit ? "ours" : (unk ? "unresolved" : "other")
            if (head ~ /are (possibly lost|indirectly lost|still reachable) in loss record/) {
                K[c]++                  # shown by PIB_VALGRIND_OPTS only
                if (c != "other") kinds = kinds sprintf("--- %s:\n%s\n", short, rec)
                head = ""; rec = ""; stk = ""; nfr = 0; hit = 0; unk = 0; sec = 0
                return
            }
            if (head ~ /are definitely lost in loss record/) {
                L[c]++
                d = head                # "N (D direct, I indirect) bytes"
                if (match(d, /\([0-9,]+ direct, [0-9,]+ indirect/)) {
                    d = substr(d, RSTART + 1, RLENGTH - 1)
                    split(d, w, " "); LB[c] += num(w[1]); LI[c] += num(w[3])
                } else {
                    split(d, w, " "); LB[c] += num(w[1])
                }
                match(head, / in [0-9,]+ blocks/)
                LK[c] += num(substr(head, RSTART + 4))
            } else
                E[c]++
            if (c == "other")
                others = others sprintf("  %s: %s\n      %s\n", short, head, stk)
            else
                full[c] = full[c] sprintf("--- %s:\n%s\n", short, rec)
        }
        head = ""; rec = ""; stk = ""; nfr = 0; hit = 0; unk = 0; sec = 0
    }
    FNR == 1 { flush(); short = FILENAME; sub(/.*\//, "", short); files++ }
    !/^==[0-9]+==/ { next }               # -v chatter: --<pid>-- ...
    { line = $0; sub(/^==[0-9]+== ?/, "", line) }
    line ~ /^ERROR SUMMARY:/ {                  # -v: twice, same
        if (!(FILENAME in done)) order[++nf] = FILENAME
        done[FILENAME] = short ": " line
        match(line, /suppressed: [0-9,]+/)
        sups[FILENAME] = num(substr(line, RSTART + 12))
    }
    line ~ /^ +suppressed: / { split(line, w, " "); supb += num(w[2]) }
    line ~ /^ *$/ { flush(); next }
    line ~ /^Thread [0-9]+.*:$/ { flush(); next }
    line ~ /^[^ ]/ { flush(); head = line; rec = line; next }
    head == "" { next }
    { rec = rec "\n" line }
    line !~ /^ +(at|by) 0x/ { sec++ }     # Address ..., Block was ...
    line ~ /^ +(at|by) 0x/ {
        if (!sec && nfr < 6 &&
            fname(line) !~ /^(malloc|calloc|realloc|strdup|strndup)$/)
            stk = stk (stk == "" ? "" : " < ") fname(line)
        nfr++
        if (line ~ ours)
            hit = 1
        if (line ~ /: \?\?\?$/)
            unk = 1
    }
    END {
        flush()
        for (i = 1; i <= nf; i++) { print done[order[i]]; sup += sups[order[i]] }
        for (i = 1; i < ARGC; i++) if (!(ARGV[i] in done)) {
            f = ARGV[i]; sub(/.*\//, "", f)
            printf "%s: INCOMPLETE (no ERROR SUMMARY: leak check did not run)\n", f
            bad++
        }
        if (others != "")
            printf "not ours (no frame of mod_pibalance/mod_pistats):\n%s", others
        if (full["unresolved"] != "")
            printf "UNRESOLVED (frames valgrind could not name, none of ours):\n%s",
                   full["unresolved"]
        if (full["ours"] != "")
            printf "OURS (a frame in mod_pibalance/mod_pistats):\n%s", full["ours"]
        if (K["ours"] + K["unresolved"] + K["other"] > 0)
            printf "other leak kinds (not failed on): %d records, %d ours, " \
                   "%d unresolved\n%s", K["ours"] + K["unresolved"] + K["other"],
                   K["ours"], K["unresolved"], kinds
        printf "sanitize (valgrind): suite exit %d; %d memcheck log(s); " \
               "errors: %d (%d ours, %d unresolved, %d not ours); " \
               "definitely lost: %d records, %d bytes in %d blocks " \
               "(+%d indirect): %d ours (%d bytes in %d blocks), " \
               "%d unresolved (%d bytes in %d blocks), " \
               "%d not ours (%d bytes in %d blocks); " \
               "suppressed: %d errors, %d bytes; reports in %s\n",
               suite, files, E["ours"] + E["unresolved"] + E["other"],
               E["ours"], E["unresolved"], E["other"],
               L["ours"] + L["unresolved"] + L["other"],
               LB["ours"] + LB["unresolved"] + LB["other"],
               LK["ours"] + LK["unresolved"] + LK["other"],
               LI["ours"] + LI["unresolved"] + LI["other"],
               L["ours"], LB["ours"], LK["ours"],
               L["unresolved"], LB["unresolved"], LK["unresolved"],
               L["other"], LB["other"], LK["other"], sup, supb, out
        exit (E["ours"] + E["unresolved"] + L["ours"] + L["unresolved"] + bad > 0)
    }' "$@"
}

log "sanitize ($mode): scratch copy in $stage"
# shellcheck source=build/readable.sh
source "$top/build/readable.sh"
# shellcheck disable=SC2086 # a list of paths
pib_copy_tree "$top" "$stage" $PIB_COPY_SKIP || exit 1
mkdir -p "$out"
chmod 1777 "$out"                    # children run as nobody
cd "$stage" || exit 1

[ -x configure ] && [ configure -nt configure.ac ] || autoconf
./configure >/dev/null || exit 1
make -s clean >/dev/null
if [ $mode = asan ]; then
    san="-fsanitize=address,undefined -fsanitize-recover=address,undefined"
    make -s all CFLAGS="-g -O1 -fno-omit-frame-pointer $san" \
        LDFLAGS="$san" || exit 1
else
    make -s all CFLAGS="-g -O1 -fno-omit-frame-pointer" || exit 1
fi

# httpd through a wrapper, so only the server gets the runtime (not the
# Perl test client).
httpd=$(apxs -q SBINDIR)/$(apxs -q TARGET)
wrap=$stage/httpd-$mode
if [ $mode = asan ]; then
    libasan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
    cat >"$wrap" <<EOW
#!/bin/sh
# detect_leaks=0: httpd frees its pools at exit only in part, by design.
export LD_PRELOAD=$libasan
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=0:log_path=$out/asan:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0:log_path=$out/ubsan
exec $httpd "\$@"
EOW
else
    # Definite leaks are listed with their stacks and counted as errors;
    # build/valgrind.supp hides those of mod_perl's Perl interpreters
    # (none with a frame of ours).  --keep-debuginfo:
    # httpd unloads the modules (ours, mod_perl) before memcheck's leak
    # check, whose stacks would otherwise show their frames as "???".
    # PIB_VALGRIND_OPTS: more memcheck options (the last of a kind wins),
    # e.g. "-v --show-leak-kinds=definite,possible".  PERL_HASH_SEED=0,
    # PERL_PERTURB_KEYS=0: mod_perl's interpreters walk their hashes in the
    # same order each run, so the stacks of their leaks (perl_clone ->
    # sv_dup ...) are the same and build/valgrind.supp keeps matching.
    cat >"$wrap" <<EOW
#!/bin/sh
case " \$* " in
    *" -X "*|*" ONE_PROCESS "*)
        export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
        exec valgrind --tool=memcheck --error-exitcode=0 \\
                  --trace-children=no --num-callers=30 --vgdb=no \\
                  --keep-debuginfo=yes \\
                  --leak-check=full --show-leak-kinds=definite \\
                  --errors-for-leak-kinds=definite \\
                  --suppressions=$stage/build/valgrind.supp \\
                  ${PIB_VALGRIND_OPTS:-} \\
                  --log-file=$out/vg.%p $httpd "\$@" ;;
esac
exec $httpd "\$@"
EOW
fi
chmod 755 "$wrap"

# The agent (t/pistats/agent.t) is linked with the runtime itself: its
# reports go with httpd's.  detect_leaks=0: LeakSanitizer stops the world
# with ptrace, which a process that dropped root (the agent's --user) may
# no longer do: it would end every such run with a fatal error, exit 1.
[ $mode = asan ] && export ASAN_OPTIONS=detect_leaks=0:halt_on_error=0:log_path=$out/asan \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=0:log_path=$out/ubsan
log "Apache::Test suite ($mode, port $port)"
perl t/TEST -clean >/dev/null 2>&1 || true
rm -f t/conf/base.conf
perl -MApache::TestMM -e 'Apache::TestMM::generate_script("t/TEST")' \
    >/dev/null 2>&1
extra=""
[ $mode = valgrind ] && extra="-one-process -startup_timeout 180"
# verbose into suite.log; printed brief, with what each failed test
# compared (build/tap-brief.pl), unless -verbose was asked for
brief="perl $top/build/tap-brief.pl"
case " $* " in *" -verbose "*) brief="cat" ;; esac
# shellcheck disable=SC2086
PIB_MPM=${PIB_MPM:-event} perl t/TEST -port "$port" -apxs "$(command -v apxs)" \
    -httpd "$wrap" $extra -verbose "$@" 2>&1 | tee "$out/suite.log" | $brief
suite=${PIPESTATUS[0]}
cp t/logs/error_log "$out/error_log" 2>/dev/null

log "reports"
if [ $mode = valgrind ]; then
    vg_summary "$out"
    exit $?
fi
ours='pis_[a-z_]*|pib_[a-z_]*|mod_pistats/|mod_pibalance/'
nrep=0; nours=0
for f in "$out"/asan.* "$out"/ubsan.*; do
    [ -e "$f" ] || continue
    n=$(grep -c -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$f")
    echo "$f: $n reports"
    nrep=$((nrep + n))
    if grep -Eq "$ours" "$f"; then
        nours=$((nours + 1))
        echo "--- $f has frames in our code:"
        grep -E -B2 -A2 "$ours" "$f" | head -40
    fi
done
# UBSan without log_path falls back to stderr: httpd's error_log.
ube=$(grep -E 'runtime error:' "$out/error_log" 2>/dev/null | grep -Ec "$ours")
nours=$((nours + ube))
echo "sanitize ($mode): suite exit $suite; $nrep reports in all," \
     "$nours touching mod_pistats/mod_pibalance; reports in $out"
[ "$nours" -eq 0 ] || exit 1
[ "$suite" -eq 0 ] || exit 1
exit 0
