#!/bin/sh
# Starts NRANKS processes of hccl_multiprocess on this host (loopback) and waits for all of them;
# fails when any rank fails. The root info travels through a file.
#   run.sh PROGRAM NRANKS
set -u
prog=$1
n=$2
file=$(mktemp -u "${TMPDIR:-/tmp}/hccl_root_info.XXXXXX")
pids=""
r=0
while [ "$r" -lt "$n" ]; do
  "$prog" "$r" "$n" "$file" &
  pids="$pids $!"
  r=$((r + 1))
done
status=0
for p in $pids; do
  wait "$p" || status=1
done
rm -f "$file"
exit $status
