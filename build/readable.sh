# build/readable.sh -- sourced (bash) by the scripts that run an httpd
# shellcheck shell=bash
# whose children must read this tree: can they, and a copy they can read.
#
# As root, httpd (the suite's, the demo's, the cross smoke test's under
# qemu) drops its children to an unprivileged user, `nobody` (or
# APACHE_TEST_USER, as Apache::Test does).  A checkout under a private
# directory -- /root is mode 700 on Debian, `mktemp -d` makes 700 -- is
# then out of their reach: they cannot read the suite's files (t/), the
# demo's document root, or the ARM sysroot a qemu child loads libgcc_s
# from.  The scripts either work from a world-readable copy
# (pib_copy_tree) or put what the children read somewhere readable;
# they say so when they do (pib_private_msg).
#
# Costs: pib_private runs one `runuser` (a few ms); a copy of a built
# tree is ~1 s.  Not root: the children run as the caller, who can read
# the tree, so nothing is ever private.

# The user httpd's children run as when started by root.
pib_child_user() {
    printf '%s\n' "${APACHE_TEST_USER:-nobody}"
}

# pib_private PATH: true (0) when this shell is root and the children's
# user cannot read PATH (a file, or a directory it must also enter).
pib_private() {
    local path=$1 user
    [ "$(id -u)" = 0 ] || return 1
    user=$(pib_child_user)
    if [ -d "$path" ]; then
        ! runuser -u "$user" -- test -r "$path" -a -x "$path" 2>/dev/null
    else
        ! runuser -u "$user" -- test -r "$path" 2>/dev/null
    fi
}

# pib_private_msg WHAT PATH: why a copy or another place is used, e.g.
# "the tree /root/x is not readable by nobody (the user httpd's children
# run as)" (no newline).
pib_private_msg() {
    printf "%s %s is not readable by %s (the user httpd's children run as)" \
        "$1" "$2" "$(pib_child_user)"
}

# pib_copy_tree SRC DEST [EXCLUDE...]: DEST emptied, then a copy of the
# tree SRC without .git and the EXCLUDEs (paths relative to SRC, e.g.
# t/logs), every file readable and every directory enterable by all (the
# caller picks a DEST whose parents are: /var/tmp, or a directory it
# made 755).  Times are kept (tar), so make finds a built copy up to
# date.  Fails when the copy fails.
pib_copy_tree() {
    local src=$1 dest=$2 x
    local -a ex=(--exclude=./.git)
    shift 2
    for x in "$@"; do
        ex+=("--exclude=./$x")
    done
    rm -rf "$dest" && mkdir -p "$dest" || return 1
    (cd "$src" && tar "${ex[@]}" -cf - .) | (cd "$dest" && tar -xf -) \
        || return 1
    chmod -R a+rX "$dest"
}

# Build output and run data a test copy leaves out (the suite's own
# scratch files, the cross and package caches, fuzzer builds, benchmark
# data): what build/suite-pass.sh and the other copies skip (tar
# patterns).  And Apache::Test's saved configuration, which names the
# tree it was made in: `t/TEST -clean` in a copy that has it cleans the
# original.
# shellcheck disable=SC2034 # used by the scripts that source this file
PIB_COPY_SKIP="t/tmp t/logs build/cross build/deb fuzz/bin fuzz/obj
  bench/results .demo t/conf/apache_test_config.*"
