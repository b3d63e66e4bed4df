#!/usr/bin/env bash
# `ascend-run memory` and `ascend-run replay` end to end: a program run with the allocator report
# and a trace, the trace replayed under two policies, and the errors of bad input.
#   cli_memory_test.sh ASCEND_RUN PROGRAM
set -euo pipefail
cli=$1
program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" memory --trace "$work/app.trace" "$program" >"$work/out" 2>"$work/err" || fail "the program failed: $(cat "$work/err")"
grep -q 'memory, allocator' "$work/err" || fail "no allocator report on stderr: $(cat "$work/err")"
grep -q 'peak reserved / peak requested' "$work/err" || fail "report without the overhead line"
allocs=$(awk '$2 == "a"' "$work/app.trace" | wc -l)
frees=$(awk '$2 == "f"' "$work/app.trace" | wc -l)
[ "$allocs" -ge 1 ] || fail "the trace holds no allocation"
[ "$allocs" -eq "$frees" ] || fail "$allocs allocations but $frees frees traced"

"$cli" replay "$work/app.trace" --policy direct --policy caching >"$work/replay" 2>"$work/replay.err" ||
  fail "replay failed: $(cat "$work/replay.err")"
grep -q "$allocs allocations" "$work/replay" || fail "replay read a different trace: $(cat "$work/replay")"
for policy in direct caching; do
  grep -Eq "^$policy +[0-9]+ " "$work/replay" || fail "no row for $policy: $(cat "$work/replay")"
done

printf '# trace\n10 a 0 0 100 0 1\n20 q 0 0\n' >"$work/bad.trace"
if "$cli" replay "$work/bad.trace" >"$work/out" 2>"$work/err"; then fail "a malformed trace was accepted"; fi
grep -q "bad.trace:3: unknown operation 'q'" "$work/err" || fail "unexpected message: $(cat "$work/err")"
printf '10 f 0 0 7\n' >"$work/bad.trace"
if "$cli" replay "$work/bad.trace" >"$work/out" 2>"$work/err"; then fail "a free of an unknown block was accepted"; fi
grep -q "bad.trace:1: block id not allocated before" "$work/err" || fail "unexpected message: $(cat "$work/err")"
set +e
"$cli" memory >/dev/null 2>"$work/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "ascend-run memory without a program returned $rc"
echo "cli memory test: ok ($allocs allocations traced and replayed)"
