#!/usr/bin/env bash
# Instructions per call of the hot API calls (bench/launch_cost.cpp) under callgrind, for one build
# or two side by side (the ratio is the second over the first). Counts are deterministic up to the
# few lock and wait paths valgrind's thread interleaving can change, so the fewest of `repeats` runs
# is reported.
#   tools/launch_cost_callgrind.sh [repeats] BUILD_DIR [BUILD_DIR2]
set -euo pipefail
repeats=3
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then repeats=$1; shift; fi
[[ $# -ge 1 ]] || { echo "usage: $0 [repeats] BUILD_DIR [BUILD_DIR2]" >&2; exit 2; }
calls=500
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for b in "$@"; do
  tag=$(basename "$(cd "$b" && pwd)")-$RANDOM
  for r in $(seq "$repeats"); do
    (cd "$work" && valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/$tag.$r.%p" \
       "$b/bin/arun_launch_cost" "$calls" >/dev/null 2>"$work/log") || { cat "$work/log" >&2; exit 1; }
  done
  # Each dump names its case in a "desc: Trigger: Client Request: <case>" line; keep the fewest.
  for f in "$work/$tag".*; do
    awk '/^desc: Trigger: Client Request:/ {c=$NF} /^(summary|totals):/ && c != "" {print c, $2; c=""}' "$f"
  done | sort -k1,1 -k2,2n | awk '!seen[$1]++' >"$work/$tag.min"
  echo "$tag" >>"$work/order"
done
mapfile -t tags <"$work/order"
printf '%-22s' case
for b in "$@"; do printf '%18s' "$(basename "$b")"; done
[[ ${#tags[@]} -eq 2 ]] && printf '%10s' ratio
printf '   (instructions per call, fewest of %d runs, %d calls)\n' "$repeats" "$calls"
while read -r name _; do
  printf '%-22s' "$name"
  vals=()
  for t in "${tags[@]}"; do
    v=$(awk -v c="$name" '$1 == c {print $2}' "$work/$t.min")
    vals+=("$v")
    awk -v v="$v" -v n="$calls" 'BEGIN {printf "%18.1f", v / n}'
  done
  [[ ${#tags[@]} -eq 2 ]] && awk -v a="${vals[0]}" -v b="${vals[1]}" 'BEGIN {printf "%10.3f", b / a}'
  printf '\n'
done <"$work/${tags[0]}.min"
