#!/usr/bin/env python3
"""ONNX's own operator test cases (onnx.backend.test.case.node, shipped with python3-onnx) for the
ops named with --ops, run through `ascend-run run --compare` against ONNX's expected outputs.

The cases are built by ONNX's generators (each node's model, inputs and expected outputs), so the
check is independent of the library's own references. A model stamped with an opset below the
importer's 7 is restamped to 7 when its ops did not change meaning since (those named with
--restamp-ok). Exit 1 when a case fails or when no case was found."""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

# ONNX 1.12's generators still use NumPy's removed scalar aliases (np.float ...); collecting every
# case imports them all.
for _name, _type in (("float", float), ("int", int), ("bool", bool), ("object", object), ("complex", complex),
                     ("str", str)):
    setattr(np, _name, _type)

import onnx  # noqa: E402
from onnx.backend.test.case import node as onnx_node  # noqa: E402


def run_case(job):
    name, cmd = job
    return name, subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ascend-run", required=True)
    ap.add_argument("--ops", required=True, help="comma-separated op types; a case runs when all its nodes are in it")
    ap.add_argument("--restamp-ok", default="", help="ops whose meaning at opset 7 is their opset-1..6 meaning")
    ap.add_argument("--skip", default="", help="comma-separated case names not to run")
    ap.add_argument("--skip-matching", default="", help="a regular expression: cases whose name it finds are not run")
    args = ap.parse_args()
    ops = set(args.ops.split(","))
    restamp_ok = set(filter(None, args.restamp_ok.split(",")))
    skip = set(filter(None, args.skip.split(",")))
    skip_re = re.compile(args.skip_matching) if args.skip_matching else None
    jobs = []
    with tempfile.TemporaryDirectory(prefix="onnx_node_cases_") as work:
        for case in onnx_node.collect_testcases(None):
            types = {n.op_type for n in case.model.graph.node}
            if not types <= ops or case.name in skip or (skip_re and skip_re.search(case.name)):
                continue
            model = case.model
            for o in model.opset_import:
                if o.domain in ("", "ai.onnx") and o.version < 7:
                    if not types <= restamp_ok:
                        break
                    o.version = 7
            else:
                d = os.path.join(work, "%d_%s" % (len(jobs), case.name))  # a name can repeat
                os.makedirs(d)
                onnx.save(model, os.path.join(d, "model.onnx"))
                inputs, outputs = case.data_sets[0]
                cmd = [args.ascend_run, "run", os.path.join(d, "model.onnx"), "--iterations", "1", "--quiet",
                       "--output-dir", os.path.join(d, "out")]
                for kind, infos, arrays in (("--input", model.graph.input, inputs),
                                            ("--compare", model.graph.output, outputs)):
                    for info, array in zip(infos, arrays):
                        path = os.path.join(d, kind[2:] + "_" + info.name + ".npy")
                        np.save(path, np.array(array, order="C"))  # C order (ascontiguousarray would make a 0-d array 1-d)
                        cmd += [kind, info.name + "=" + path]
                jobs.append((case.name, cmd))
                continue
            print("skip %s (opset below 7)" % case.name)
        # The models are tiny: the cost is each ascend-run's start, so they run a few at a time.
        failed = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
            for name, r in pool.map(run_case, jobs):
                if r.returncode != 0:
                    failed.append(name)
                    print("FAIL %s (exit %d)\n%s" % (name, r.returncode, r.stdout[-2000:]))
                else:
                    print("ok   %s" % name)
    print("%d of %d ONNX node cases passed" % (len(jobs) - len(failed), len(jobs)))
    return 1 if failed or not jobs else 0


if __name__ == "__main__":
    sys.exit(main())
