#!/usr/bin/env python3
"""Runs the same Google Benchmark binaries from two build trees side by side and prints ratios.

    bench/compare_builds.py BEFORE_BUILD AFTER_BUILD [--rounds N] [--bench NAME[:FILTER]]...

Each round runs every benchmark binary from BEFORE then from AFTER (alternating, so drift on a
shared machine hits both alike), each with --benchmark_repetitions and aggregates only. A figure is
the median over rounds of each run's median; the ratio is after / before of the time per iteration
(lower is better for the new build). Runs with no ratio in [0.95, 1.05] are the ones to look at.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(binary, flt, reps, env):
    # --benchmark_out, not stdout: some binaries print their own tables and peers' output there.
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [binary, f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=true",
               f"--benchmark_out={out.name}", "--benchmark_out_format=json"]
        if flt:
            cmd.append(f"--benchmark_filter={flt}")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        doc = json.load(open(out.name))
    medians = {}
    for b in doc["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"]] = (b["real_time"], b["time_unit"])
    return medians


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--partial", help="rewrite this file with the figures so far after each binary")
    ap.add_argument("--bench", action="append",
                    help="binary in bin/ with an optional :filter (default: arun_bench, arun_sched_bench, "
                         "arun_op_bench, arun_model_bench)")
    args = ap.parse_args()
    benches = args.bench or ["arun_bench", "arun_sched_bench:arun", "arun_op_bench", "arun_model_bench"]
    results = {}  # (bench, name) -> {"before": [..], "after": [..]}
    for r in range(args.rounds):
        for spec in benches:
            binary, _, flt = spec.partition(":")
            for side, root in (("before", args.before), ("after", args.after)):
                env = dict(os.environ)
                env.setdefault("ASCEND_RUN_CONFIG", os.path.join(root, "share/ascend-run/configs/default.toml"))
                env.setdefault("ARUN_MODELS_DIR", os.path.join(args.before, "tests/models/generated"))
                path = os.path.join(root, "bin", binary)
                print(f"round {r + 1}/{args.rounds}: {side} {binary}", file=sys.stderr, flush=True)
                for name, (t, unit) in run(path, flt, args.repetitions, env).items():
                    results.setdefault((binary, name), {"before": [], "after": [], "unit": unit})[side].append(t)
            if args.partial:  # the figures so far, for long runs
                with open(args.partial, "w") as f:
                    sys.stdout, saved = f, sys.stdout
                    report(results)
                    sys.stdout = saved
    report(results)


def report(results):
    print(f"{'benchmark':<78} {'before':>12} {'after':>12} {'after/before':>12}")
    for (binary, name), v in results.items():
        if not v["before"] or not v["after"]:
            continue
        b, a = statistics.median(v["before"]), statistics.median(v["after"])
        ratio = a / b if b > 0 else float("nan")
        print(f"{binary + ' ' + name:<78} {b:>10.1f}{v['unit']:>2} {a:>10.1f}{v['unit']:>2} {ratio:>12.3f}")


if __name__ == "__main__":
    main()
