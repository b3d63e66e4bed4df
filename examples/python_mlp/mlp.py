#!/usr/bin/env python3
"""Runs an ONNX model from Python through pyACL's API, as CANN's Python samples do, and checks it.

    PYTHONPATH=<prefix>/python/site-packages python3 mlp.py MODEL.onnx INPUT.npy [REFERENCE.npy]

The model is loaded with acl.mdl.load_from_file; the input goes to device memory with
acl.rt.memcpy; acl.mdl.execute runs it; the output comes back with acl.rt.memcpy into pinned host
memory, viewed as a NumPy array without a copy (acl.util.ptr_to_numpy). Every call's ret is
checked, and the message of a failure is acl.get_recent_err_msg(), as in C.
"""
import sys

import numpy as np

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
NPY_FLOAT32 = 11


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")


def main(model_path, input_path, reference_path=None):
    x = np.ascontiguousarray(np.load(input_path), dtype=np.float32)
    check(acl.init(""), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "acl.rt.create_context")

    model_id, ret = acl.mdl.load_from_file(model_path)
    check(ret, "acl.mdl.load_from_file")
    desc = acl.mdl.create_desc()
    check(acl.mdl.get_desc(desc, model_id), "acl.mdl.get_desc")
    in_size = acl.mdl.get_input_size_by_index(desc, 0)
    out_size = acl.mdl.get_output_size_by_index(desc, 0)
    out_dims, ret = acl.mdl.get_output_dims(desc, 0)
    check(ret, "acl.mdl.get_output_dims")
    if x.nbytes != in_size:
        raise SystemExit(f"the input holds {x.nbytes} bytes, the model takes {in_size}")

    # Device buffers wrapped in data buffers, one dataset per side.
    in_dev, ret = acl.rt.malloc(in_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    out_dev, ret = acl.rt.malloc(out_size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    check(acl.rt.memcpy(in_dev, in_size, acl.util.numpy_to_ptr(x), x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
          "acl.rt.memcpy H2D")
    datasets = []
    for ptr, size in ((in_dev, in_size), (out_dev, out_size)):
        ds = acl.mdl.create_dataset()
        _, ret = acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(ptr, size))
        check(ret, "acl.mdl.add_dataset_buffer")
        datasets.append(ds)
    check(acl.mdl.execute(model_id, datasets[0], datasets[1]), "acl.mdl.execute")

    host, ret = acl.rt.malloc_host(out_size)
    check(ret, "acl.rt.malloc_host")
    check(acl.rt.memcpy(host, out_size, out_dev, out_size, ACL_MEMCPY_DEVICE_TO_HOST), "acl.rt.memcpy D2H")
    y = acl.util.ptr_to_numpy(host, tuple(out_dims["dims"]), NPY_FLOAT32).copy()
    print(f"{acl.mdl.get_output_name_by_index(desc, 0)} {y.shape}: {np.array2string(y.ravel()[:4], precision=4)} ...")

    status = 0
    if reference_path is not None:
        want = np.load(reference_path)
        err = float(np.max(np.abs(y - want)))
        ok = np.allclose(y, want, rtol=1e-3, atol=1e-4)
        print(f"vs {reference_path}: max |error| {err:.2e}: {'match' if ok else 'MISMATCH'}")
        status = 0 if ok else 1

    for ds in datasets:
        for i in range(acl.mdl.get_dataset_num_buffers(ds)):
            check(acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)), "acl.destroy_data_buffer")
        check(acl.mdl.destroy_dataset(ds), "acl.mdl.destroy_dataset")
    for ptr in (in_dev, out_dev):
        check(acl.rt.free(ptr), "acl.rt.free")
    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.mdl.destroy_desc(desc), "acl.mdl.destroy_desc")
    check(acl.mdl.unload(model_id), "acl.mdl.unload")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    if status == 0:
        print("python_mlp: OK")
    return status


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    sys.exit(main(*sys.argv[1:]))
