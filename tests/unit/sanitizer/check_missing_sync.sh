#!/bin/sh
# missing_sync under the stream sanitizer: the program still shows the pitfall and verifies its fix,
# and the sanitizer reports exactly one race, the host read of the pinned buffer in flight.
out=$("$1" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "FAIL: missing_sync exited with $rc"; exit 1; }
n=$(printf '%s\n' "$out" | grep -cE 'stream sanitizer: .* on (host|device) memory')
races=$(printf '%s\n' "$out" | grep -c 'stream sanitizer: host access of in-flight pinned memory')
printf '%s\n' "$out" | grep -q 'pitfall shown, fix verified' || { echo "FAIL: no verified fix"; exit 1; }
printf '%s\n' "$out" | grep -q 'read by host load' || { echo "FAIL: the report does not name the host read"; exit 1; }
[ "$races" -eq 1 ] && [ "$n" -eq 1 ] || { echo "FAIL: expected exactly one race report (got $races of $n)"; exit 1; }
echo "PASS"
