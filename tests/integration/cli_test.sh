#!/usr/bin/env bash
# The command line's conventions: --version, every command's --help, --opt=value, errors that name the
# option and the rule (once, exit code 2), a failing runtime reported once, and `ascend-run profile`
# on an unmodified program (msprof's folders and file names).
#   cli_test.sh ASCEND_RUN PROGRAM
set -euo pipefail
cli=$1
program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect RC PATTERN ARGS...: ascend-run ARGS exits with RC and prints PATTERN (stdout or stderr).
expect() {
  local want=$1 pattern=$2 rc=0
  shift 2
  "$cli" "$@" >"$work/out" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || fail "ascend-run $* returned $rc, not $want: $(cat "$work/out")"
  grep -q -- "$pattern" "$work/out" || fail "ascend-run $*: no '$pattern' in: $(cat "$work/out")"
}

expect 0 '^ascend-run [0-9.]* (ACL interface ' --version
expect 0 '^ascend-run [0-9.]* (ACL interface ' version
expect 0 'Usage: ascend-run ' --help
for cmd in info demo replay memory profile run kernel-info version; do
  expect 0 "Usage: ascend-run $cmd " "$cmd" --help
  expect 0 "Usage: ascend-run $cmd " help "$cmd"
done

# Bad arguments: exit code 2, the command, the option and the rule, said once.
expect 2 "ascend-run: unknown command 'bogus'" bogus
expect 2 'ascend-run: A subcommand is required'
expect 2 "ascend-run run: --iterations: must be a whole number from 1 to .*, not '0'" run m.onnx --iterations=0
expect 2 "ascend-run run: --iterations: must be a whole number" run m.onnx --iterations 0
expect 2 "ascend-run demo: --batches: must be a whole number from 1 to .*, not 'x'" demo --batches=x
expect 2 "ascend-run run: --rtol: must be a finite number >= 0, not '-1'" run m.onnx --rtol=-1
expect 2 "ascend-run run: --input: must be NAME=FILE.npy, not 'nofile'" run m.onnx --input nofile
expect 2 "ascend-run info: --config: File does not exist: $work/none.toml" info --config "$work/none.toml"
expect 2 "ascend-run memory: program is required" memory
expect 2 "ascend-run profile: --sinks: has an empty sink name" profile --sinks "timeline,,summary" -- true
expect 2 "ascend-run run: The following argument was not expected: --nope" run m.onnx --nope
[ "$(grep -c 'Run .ascend-run run --help' "$work/out")" -eq 1 ] || fail "the error was not said once: $(cat "$work/out")"

# A configuration the runtime refuses: its message once (the runtime's log), then the command's line.
printf '[runtime]\nbogus = 1\n' >"$work/bad.toml"
expect 1 "ascend-run demo: the runtime cannot start (error 100008" demo --config="$work/bad.toml"
[ "$(grep -c 'runtime.bogus: unknown key' "$work/out")" -eq 1 ] || fail "the config error is not said once: $(cat "$work/out")"

# profile: an unmodified program, its own arguments untouched, msprof's layout, the exit status kept.
(cd "$work" && "$cli" profile --output=prof -- "$program" >"$work/out" 2>&1) || fail "profile failed: $(cat "$work/out")"
grep -q "^profile written to $work/prof:" "$work/out" || fail "no file list: $(cat "$work/out")"
grep -q 'Top tasks by total device time' "$work/out" || fail "no top-operators summary: $(cat "$work/out")"
for view in op_summary op_statistic api_statistic task_time; do
  ls "$work"/prof/PROF_*/mindstudio_profiler_output/"${view}"_[0-9]*.csv >/dev/null 2>&1 ||
    fail "no PROF_*/mindstudio_profiler_output/${view}_<timestamp>.csv: $(cd "$work/prof" && find .)"
done
ls "$work"/prof/timeline-*.json >/dev/null || fail "no timeline: $(cd "$work/prof" && find .)"
grep -q "^  summary-[0-9]*.txt" "$work/out" || fail "the summary file is not listed: $(cat "$work/out")"
expect 3 "'sh' exited with 3" profile --output="$work/p2" --sinks summary -- sh -c 'exit 3'
grep -q 'no profile was written' "$work/out" || fail "a program without aclInit is not explained: $(cat "$work/out")"
expect 127 "cannot run '$work/missing'" profile --output="$work/p3" -- "$work/missing"
echo "cli test: ok"
