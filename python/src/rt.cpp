// acl.rt: devices, contexts, streams, events, memory and copies, callbacks.
#include <string>

#include "pyacl.hpp"

namespace pyacl {
namespace {

// A Python callable and its argument, carried through aclrtLaunchCallback's void*.
struct PyCallback {
  py::object fn;
  py::object data;
};

void run_py_callback(void* user) {
  py::gil_scoped_acquire gil;
  auto* cb = static_cast<PyCallback*>(user);
  try {
    cb->fn(cb->data);
  } catch (py::error_already_set& e) {
    // The callback runs on the report thread, outside any Python frame of the caller: report it as
    // Python reports an exception in a thread, and go on.
    e.discard_as_unraisable("acl.rt.launch_callback callback");
  }
  delete cb;
}

// The host side of a copy must be mapped memory of this process; the device side is checked by
// the runtime. Returns ACL_ERROR_INVALID_PARAM when it is not.
aclError check_host_sides(uintptr_t dst, size_t dest_max, uintptr_t src, size_t count, int kind) {
  const bool src_host = kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_HOST_TO_DEVICE;
  const bool dst_host = kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_HOST;
  if (count > dest_max) return ACL_SUCCESS;  // the runtime reports it with its own message
  if (src_host && !host_range_mapped(src, count)) return ACL_ERROR_INVALID_PARAM;
  if (dst_host && !host_range_mapped(dst, count)) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

}  // namespace

void bind_rt(py::module_& m) {
  // Devices.
  m.def("set_device", [](int32_t id) { return without_gil([&] { return aclrtSetDevice(id); }); });
  m.def("reset_device", [](int32_t id) { return without_gil([&] { return aclrtResetDevice(id); }); });
  m.def("get_device", [] {
    int32_t id = -1;
    const aclError ret = aclrtGetDevice(&id);
    return py::make_tuple(id, ret);
  });
  m.def("get_device_count", [] {
    uint32_t count = 0;
    const aclError ret = aclrtGetDeviceCount(&count);
    return py::make_tuple(count, ret);
  });
  m.def("get_run_mode", [] {
    aclrtRunMode mode = ACL_HOST;
    const aclError ret = aclrtGetRunMode(&mode);
    return py::make_tuple(int(mode), ret);
  });
  m.def("synchronize_device", [] { return without_gil([] { return aclrtSynchronizeDevice(); }); });
  m.def("get_mem_info", [](int attr) {
    size_t free_bytes = 0, total = 0;
    const aclError ret = aclrtGetMemInfo(static_cast<aclrtMemAttr>(attr), &free_bytes, &total);
    return py::make_tuple(free_bytes, total, ret);
  });

  // Contexts.
  m.def("create_context", [](int32_t device) {
    aclrtContext ctx = nullptr;
    const aclError ret = without_gil([&] { return aclrtCreateContext(&ctx, device); });
    return py::make_tuple(to_int(ctx), ret);
  });
  m.def("destroy_context",
        [](uintptr_t ctx) { return without_gil([&] { return aclrtDestroyContext(from_int<void>(ctx)); }); });
  m.def("set_context", [](uintptr_t ctx) { return aclrtSetCurrentContext(from_int<void>(ctx)); });
  m.def("get_context", [] {
    aclrtContext ctx = nullptr;
    const aclError ret = aclrtGetCurrentContext(&ctx);
    return py::make_tuple(to_int(ctx), ret);
  });

  // Streams (0 is the default stream).
  m.def("create_stream", [] {
    aclrtStream s = nullptr;
    const aclError ret = aclrtCreateStream(&s);
    return py::make_tuple(to_int(s), ret);
  });
  m.def("destroy_stream",
        [](uintptr_t s) { return without_gil([&] { return aclrtDestroyStream(from_int<void>(s)); }); });
  m.def("synchronize_stream",
        [](uintptr_t s) { return without_gil([&] { return aclrtSynchronizeStream(from_int<void>(s)); }); });
  m.def("stream_wait_event",
        [](uintptr_t s, uintptr_t e) { return aclrtStreamWaitEvent(from_int<void>(s), from_int<void>(e)); });

  // Events.
  m.def("create_event", [] {
    aclrtEvent e = nullptr;
    const aclError ret = aclrtCreateEvent(&e);
    return py::make_tuple(to_int(e), ret);
  });
  m.def("destroy_event", [](uintptr_t e) { return aclrtDestroyEvent(from_int<void>(e)); });
  m.def("record_event",
        [](uintptr_t e, uintptr_t s) { return aclrtRecordEvent(from_int<void>(e), from_int<void>(s)); });
  m.def("reset_event", [](uintptr_t e, uintptr_t s) { return aclrtResetEvent(from_int<void>(e), from_int<void>(s)); });
  m.def("synchronize_event",
        [](uintptr_t e) { return without_gil([&] { return aclrtSynchronizeEvent(from_int<void>(e)); }); });
  m.def("query_event_status", [](uintptr_t e) {
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    const aclError ret = aclrtQueryEventStatus(from_int<void>(e), &status);
    return py::make_tuple(int(status), ret);
  });
  m.def("event_elapsed_time", [](uintptr_t start, uintptr_t end) {
    float ms = 0;
    const aclError ret = aclrtEventElapsedTime(&ms, from_int<void>(start), from_int<void>(end));
    return py::make_tuple(ms, ret);
  });

  // Memory.
  m.def("malloc", [](size_t size, int policy) {
    void* p = nullptr;
    const aclError ret = without_gil([&] { return aclrtMalloc(&p, size, static_cast<aclrtMemMallocPolicy>(policy)); });
    return py::make_tuple(to_int(p), ret);
  });
  m.def("free", [](uintptr_t p) { return without_gil([&] { return aclrtFree(from_int<void>(p)); }); });
  m.def("malloc_host", [](size_t size) {
    void* p = nullptr;
    const aclError ret = without_gil([&] { return aclrtMallocHost(&p, size); });
    return py::make_tuple(to_int(p), ret);
  });
  m.def("free_host", [](uintptr_t p) { return without_gil([&] { return aclrtFreeHost(from_int<void>(p)); }); });
  m.def("memcpy", [](uintptr_t dst, size_t dest_max, uintptr_t src, size_t count, int kind) {
    if (aclError bad = check_host_sides(dst, dest_max, src, count, kind); bad != ACL_SUCCESS) return bad;
    return without_gil([&] {
      return aclrtMemcpy(from_int<void>(dst), dest_max, from_int<void>(src), count, static_cast<aclrtMemcpyKind>(kind));
    });
  });
  m.def("memcpy_async", [](uintptr_t dst, size_t dest_max, uintptr_t src, size_t count, int kind, uintptr_t stream) {
    if (aclError bad = check_host_sides(dst, dest_max, src, count, kind); bad != ACL_SUCCESS) return bad;
    return aclrtMemcpyAsync(from_int<void>(dst), dest_max, from_int<void>(src), count,
                            static_cast<aclrtMemcpyKind>(kind), from_int<void>(stream));
  });
  m.def("memset", [](uintptr_t dev, size_t max, int32_t value, size_t count) {
    return without_gil([&] { return aclrtMemset(from_int<void>(dev), max, value, count); });
  });
  m.def("memset_async", [](uintptr_t dev, size_t max, int32_t value, size_t count, uintptr_t stream) {
    return aclrtMemsetAsync(from_int<void>(dev), max, value, count, from_int<void>(stream));
  });

  // Callbacks: launch_callback queues a Python callable on a stream; a thread subscribed with
  // subscribe_report (acl.util.start_thread's id) runs it inside process_report.
  m.def("launch_callback", [](py::function fn, py::object data, int block, uintptr_t stream) {
    auto* cb = new PyCallback{std::move(fn), std::move(data)};
    const aclError ret =
        aclrtLaunchCallback(&run_py_callback, cb, static_cast<aclrtCallbackBlockType>(block), from_int<void>(stream));
    if (ret != ACL_SUCCESS) delete cb;
    return ret;
  });
  m.def("subscribe_report",
        [](uint64_t thread_id, uintptr_t stream) { return aclrtSubscribeReport(thread_id, from_int<void>(stream)); });
  m.def("unsubscribe_report", [](uint64_t thread_id, uintptr_t stream) {
    return without_gil([&] { return aclrtUnSubscribeReport(thread_id, from_int<void>(stream)); });
  });
  m.def("process_report",
        [](int32_t timeout_ms) { return without_gil([&] { return aclrtProcessReport(timeout_ms); }); });
}

}  // namespace pyacl
