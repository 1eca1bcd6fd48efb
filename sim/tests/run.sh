#!/bin/sh
# run.sh - runs the unit test programs given as arguments, then the
# end-to-end test, and prints the combined closing line
# "N passed, N failed"; exits non-zero if anything failed.
cd "$(dirname "$0")/.." || exit 1
passed=0
failed=0
add_counts() {   # $1 = output of one test program, $2 = its exit status
    line=$(printf '%s\n' "$1" | grep -E '^[0-9]+ passed, [0-9]+ failed$' \
           | tail -n 1)
    if [ -z "$line" ]; then
        failed=$((failed + 1))      # crashed before reporting
        return
    fi
    set -- $line "$2"
    passed=$((passed + $1))
    failed=$((failed + $3))
    [ "$5" -ne 0 ] && [ "$3" -eq 0 ] && failed=$((failed + 1))
    return 0
}
for t in "$@"; do
    echo "== $t"
    out=$(./"$t" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed'
    printf '%s\n' "$out" | tail -n 1
    add_counts "$out" $rc
done
echo "== tests/e2e.sh"
out=$(bash tests/e2e.sh 2>&1)
rc=$?
printf '%s\n' "$out"
add_counts "$out" $rc
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
