"""pyACL compatibility: every namespace, results against NumPy, and misuse that must not crash."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import acl

H2D, D2H, D2D = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST, acl.ACL_MEMCPY_DEVICE_TO_DEVICE
HUGE_FIRST = acl.ACL_MEM_MALLOC_HUGE_FIRST


def ok(ret):
    assert ret == 0, f"ret {ret}: {acl.get_recent_err_msg()}"


def test_namespaces_and_conventions():
    for ns, names in {
        acl: ["init", "finalize", "create_data_buffer", "get_data_buffer_addr", "get_recent_err_msg", "get_version"],
        acl.rt: ["set_device", "create_context", "create_stream", "create_event", "malloc", "memcpy", "launch_callback"],
        acl.mdl: ["load_from_file", "create_desc", "get_desc", "create_dataset", "add_dataset_buffer", "execute"],
        acl.op: ["create_attr", "set_attr_int", "execute_v2"],
        acl.util: ["ptr_to_bytes", "bytes_to_ptr", "numpy_to_ptr", "ptr_to_numpy", "start_thread", "stop_thread"],
        acl.prof: ["init", "create_config", "start", "stop", "finalize"],
    }.items():
        for name in names:
            assert callable(getattr(ns, name)), f"{ns.__name__}.{name}"
    # Outputs first, the code last; a call without outputs returns the code alone.
    count, ret = acl.rt.get_device_count()
    ok(ret)
    assert count >= 1
    device, ret = acl.rt.get_device()
    assert (device, ret) == (0, 0)
    major, minor, patch, ret = acl.get_version()
    ok(ret)
    assert major >= 1
    assert acl.rt.set_device(0) == 0


def test_stream_event_memcpy_round_trip(stream):
    a = np.random.default_rng(1).standard_normal(4096).astype(np.float32)
    n = a.nbytes
    d1, ret = acl.rt.malloc(n, HUGE_FIRST)
    ok(ret)
    d2, ret = acl.rt.malloc(n, HUGE_FIRST)
    ok(ret)
    host, ret = acl.rt.malloc_host(n)
    ok(ret)
    start, ret = acl.rt.create_event()
    ok(ret)
    end, ret = acl.rt.create_event()
    ok(ret)
    ok(acl.rt.record_event(start, stream))
    ok(acl.rt.memcpy_async(d1, n, acl.util.numpy_to_ptr(a), n, H2D, stream))
    ok(acl.rt.memset_async(d2, n, 0, n, stream))
    ok(acl.rt.memcpy_async(d2, n, d1, n, D2D, stream))
    ok(acl.rt.memcpy_async(host, n, d2, n, D2H, stream))
    ok(acl.rt.record_event(end, stream))
    ok(acl.rt.synchronize_event(end))
    status, ret = acl.rt.query_event_status(end)
    assert (status, ret) == (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    ms, ret = acl.rt.event_elapsed_time(start, end)
    ok(ret)
    assert ms >= 0.0
    view = acl.util.ptr_to_numpy(host, (4096,), acl.NPY_FLOAT32)  # no copy: pinned memory seen by NumPy
    np.testing.assert_array_equal(view, a)
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(host, n), dtype=np.float32), a)
    # A second stream ordered after the first by an event.
    other, ret = acl.rt.create_stream()
    ok(ret)
    ok(acl.rt.memset_async(d1, n, 0, n, stream))
    ok(acl.rt.record_event(end, stream))
    ok(acl.rt.stream_wait_event(other, end))
    ok(acl.rt.memcpy_async(host, n, d1, n, D2H, other))
    ok(acl.rt.synchronize_stream(other))
    assert not view.any(), "the copy on the waiting stream ran before the memset it waits for"
    ok(acl.rt.destroy_stream(other))
    for e in (start, end):
        ok(acl.rt.destroy_event(e))
    for p in (d1, d2):
        ok(acl.rt.free(p))
    ok(acl.rt.free_host(host))
    free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)  # the simulated device has HBM, no DDR
    ok(ret)
    assert 0 < free <= total


def test_context_is_per_thread():
    ctx, ret = acl.rt.create_context(0)
    ok(ret)
    current, ret = acl.rt.get_context()
    assert (current, ret) == (ctx, 0)
    ok(acl.rt.set_context(ctx))
    ok(acl.rt.destroy_context(ctx))
    ok(acl.rt.set_device(0))  # back to the device's default context


def test_bytes_to_ptr_feeds_a_copy():
    data = bytes(range(256))
    dev, ret = acl.rt.malloc(256, HUGE_FIRST)
    ok(ret)
    ok(acl.rt.memcpy(dev, 256, acl.util.bytes_to_ptr(data), 256, H2D))
    back = np.zeros(256, dtype=np.uint8)
    ok(acl.rt.memcpy(acl.util.numpy_to_ptr(back), 256, dev, 256, D2H))
    assert back.tobytes() == data
    ok(acl.rt.free(dev))


def test_single_operator_add(stream):
    rng = np.random.default_rng(2)
    x, y = (rng.standard_normal((3, 5)).astype(np.float32) for _ in range(2))
    n = x.nbytes
    descs = [acl.create_tensor_desc(acl.ACL_FLOAT, [3, 5], acl.ACL_FORMAT_ND) for _ in range(3)]
    assert acl.get_tensor_desc_size(descs[0]) == n
    devs, bufs = [], []
    for arr in (x, y, None):
        d, ret = acl.rt.malloc(n, HUGE_FIRST)
        ok(ret)
        if arr is not None:
            ok(acl.rt.memcpy(d, n, acl.util.numpy_to_ptr(arr), n, H2D))
        devs.append(d)
        bufs.append(acl.create_data_buffer(d, n))
    attr = acl.op.create_attr()
    ok(acl.op.execute_v2("Add", descs[:2], bufs[:2], descs[2:], bufs[2:], attr, stream))
    ok(acl.rt.synchronize_stream(stream))
    out = np.empty_like(x)
    ok(acl.rt.memcpy(acl.util.numpy_to_ptr(out), n, devs[2], n, D2H))
    np.testing.assert_allclose(out, x + y, rtol=1e-6)
    # Unknown operator: the C API's code, not an exception.
    assert acl.op.execute_v2("NoSuchOp", descs[:2], bufs[:2], descs[2:], bufs[2:], attr, stream) != 0
    with pytest.raises(ValueError, match="input descriptions"):
        acl.op.execute_v2("Add", descs[:1], bufs[:2], descs[2:], bufs[2:], attr, stream)
    acl.op.destroy_attr(attr)
    for d, b, t in zip(devs, bufs, descs):
        ok(acl.destroy_data_buffer(b))
        ok(acl.rt.free(d))
        acl.destroy_tensor_desc(t)


def test_model_mlp_matches_reference(models_dir):
    x = np.load(os.path.join(models_dir, "mlp_b1.in.input.npy"))
    want = np.load(os.path.join(models_dir, "mlp_b1.out.logits.npy"))
    model_id, ret = acl.mdl.load_from_file(os.path.join(models_dir, "mlp_b1.onnx"))
    ok(ret)
    desc = acl.mdl.create_desc()
    ok(acl.mdl.get_desc(desc, model_id))
    assert (acl.mdl.get_num_inputs(desc), acl.mdl.get_num_outputs(desc)) == (1, 1)
    assert acl.mdl.get_input_name_by_index(desc, 0) == "input"
    assert acl.mdl.get_input_data_type(desc, 0) == acl.ACL_FLOAT
    dims, ret = acl.mdl.get_input_dims(desc, 0)
    ok(ret)
    assert dims["dims"] == [1, 784] and dims["dimCount"] == 2 and dims["name"] == "input"
    in_size, out_size = acl.mdl.get_input_size_by_index(desc, 0), acl.mdl.get_output_size_by_index(desc, 0)
    assert (in_size, out_size) == (x.nbytes, want.astype(np.float32).nbytes)
    ins, outs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    d_in, ret = acl.rt.malloc(in_size, HUGE_FIRST)
    ok(ret)
    d_out, ret = acl.rt.malloc(out_size, HUGE_FIRST)
    ok(ret)
    ok(acl.rt.memcpy(d_in, in_size, acl.util.numpy_to_ptr(np.ascontiguousarray(x)), in_size, H2D))
    ds, ret = acl.mdl.add_dataset_buffer(ins, acl.create_data_buffer(d_in, in_size))
    assert (ds, ret) == (ins, 0)
    _, ret = acl.mdl.add_dataset_buffer(outs, acl.create_data_buffer(d_out, out_size))
    ok(ret)
    assert acl.mdl.get_dataset_num_buffers(ins) == 1
    assert acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(ins, 0)) == d_in
    assert acl.get_data_buffer_size_v2(acl.mdl.get_dataset_buffer(ins, 0)) == in_size
    ok(acl.mdl.execute(model_id, ins, outs))
    got = np.empty(want.shape, dtype=np.float32)
    ok(acl.rt.memcpy(acl.util.numpy_to_ptr(got), out_size, d_out, out_size, D2H))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
    for d in (ins, outs):
        ok(acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(d, 0)))
        ok(acl.mdl.destroy_dataset(d))
    ok(acl.rt.free(d_in))
    ok(acl.rt.free(d_out))
    ok(acl.mdl.destroy_desc(desc))
    ok(acl.mdl.unload(model_id))
    assert acl.mdl.unload(model_id) != 0  # already unloaded: the C API's code


def test_example_program_runs_the_mlp(models_dir):
    example = os.environ.get("ARUN_PYTHON_MLP_EXAMPLE")
    if not example:
        pytest.skip("ARUN_PYTHON_MLP_EXAMPLE not set")
    stem = os.path.join(models_dir, "mlp_b32")
    run = subprocess.run([sys.executable, example, stem + ".onnx", stem + ".in.input.npy", stem + ".out.logits.npy"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "python_mlp: OK" in run.stdout


def test_callbacks_run_on_the_subscribed_thread(stream):
    import threading
    seen = []
    stop = threading.Event()

    def report_loop():
        while not stop.is_set():
            acl.rt.process_report(20)

    tid, ret = acl.util.start_thread(report_loop, [])
    ok(ret)
    ok(acl.rt.subscribe_report(tid, stream))

    def callback(data):
        seen.append((data, threading.get_ident()))
        if data == "boom":
            raise RuntimeError("a callback that raises must not take the process down")

    # The exception is reported as Python reports one in a thread (sys.unraisablehook), then the
    # stream goes on.
    reported = []
    previous_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: reported.append(u.exc_type)
    try:
        ok(acl.rt.launch_callback(callback, "boom", acl.ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.launch_callback(callback, 42, acl.ACL_CALLBACK_BLOCK, stream))
        ok(acl.rt.synchronize_stream(stream))
    finally:
        sys.unraisablehook = previous_hook
    assert seen == [("boom", tid), (42, tid)]
    assert reported == [RuntimeError]
    ok(acl.rt.unsubscribe_report(tid, stream))
    stop.set()
    ok(acl.util.stop_thread(tid))
    assert acl.util.stop_thread(tid) == acl.ACL_ERROR_INVALID_PARAM  # not a thread of ours any more
    with pytest.raises(TypeError):
        acl.rt.launch_callback("not callable", None, 1, stream)


def test_profiling_session_writes_a_timeline(stream):
    out = tempfile.mkdtemp(prefix="arun-pyacl-prof-")
    ok(acl.prof.init(out))
    cfg = acl.prof.create_config([0], acl.ACL_AICORE_NONE, None, acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME)
    assert cfg != 0, acl.get_recent_err_msg()
    ok(acl.prof.start(cfg))
    d, ret = acl.rt.malloc(1024, HUGE_FIRST)
    ok(ret)
    ok(acl.rt.memset_async(d, 1024, 1, 1024, stream))
    ok(acl.rt.synchronize_stream(stream))
    ok(acl.rt.free(d))
    ok(acl.prof.stop(cfg))
    ok(acl.prof.destroy_config(cfg))
    ok(acl.prof.finalize())
    written = [f for _, _, files in os.walk(out) for f in files]
    assert any(f.startswith("timeline-") and f.endswith(".json") for f in written), written


def test_misuse_gives_codes_or_exceptions_never_a_crash(stream):
    with pytest.raises(TypeError):
        acl.rt.malloc("1024", HUGE_FIRST)
    with pytest.raises(TypeError):
        acl.rt.memcpy(None, 4, 0, 4, H2D)
    with pytest.raises(TypeError):
        acl.rt.set_device()
    dev, ret = acl.rt.malloc(64, HUGE_FIRST)
    ok(ret)
    # Host pointers that are not mapped memory: the code, not a segfault.
    assert acl.rt.memcpy(dev, 64, 16, 64, H2D) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(16, 64, dev, 64, D2H) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy_async(dev, 64, 0, 64, H2D, stream) == acl.ACL_ERROR_INVALID_PARAM
    with pytest.raises(ValueError, match="not readable host memory"):
        acl.util.ptr_to_bytes(dev, 64)  # device memory: the host cannot read it
    with pytest.raises(ValueError, match="not mapped host memory"):
        acl.util.ptr_to_numpy(16, (4,), acl.NPY_FLOAT32)
    with pytest.raises(ValueError, match="negative dimension"):
        acl.util.ptr_to_numpy(dev, (-1,), acl.NPY_FLOAT32)
    with pytest.raises(ValueError, match="C-contiguous"):
        acl.util.numpy_to_ptr(np.zeros((4, 4), dtype=np.float32)[:, 1])
    # Wrong sizes and freed objects: the runtime's codes.
    assert acl.rt.memcpy(dev, 64, dev, 128, D2D) != 0  # count > dest_max
    ok(acl.rt.free(dev))
    assert acl.rt.free(dev) != 0
    assert "not the start of a live allocation" in acl.get_recent_err_msg()
    s, ret = acl.rt.create_stream()
    ok(ret)
    ok(acl.rt.destroy_stream(s))
    assert acl.rt.synchronize_stream(s) != 0  # a destroyed stream
    e, ret = acl.rt.create_event()
    ok(ret)
    ok(acl.rt.destroy_event(e))
    assert acl.rt.record_event(e, stream) != 0
    model_id, ret = acl.mdl.load_from_file("/nonexistent/model.onnx")
    assert ret != 0 and "/nonexistent/model.onnx" in acl.get_recent_err_msg()
    malloc_ptr, ret = acl.rt.malloc(1 << 62, HUGE_FIRST)  # more than any device has
    assert ret != 0 and malloc_ptr == 0
