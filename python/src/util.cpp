// acl.util: between ACL's integer pointers and Python's bytes and NumPy arrays, and the threads
// that process callbacks.
#include <pybind11/numpy.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pyacl.hpp"

namespace pyacl {
namespace {

// Threads made by start_thread, by the id subscribe_report takes (pthread_self, which is what
// Python's threading.get_ident returns), so that stop_thread can join them.
std::mutex g_threads_mu;
std::map<uint64_t, py::object>* g_threads =
    new std::map<uint64_t, py::object>();  // never destroyed: outlives the interpreter

size_t checked_element_count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw py::value_error("acl.util.ptr_to_numpy: negative dimension " + std::to_string(d));
    if (d != 0 && n > SIZE_MAX / static_cast<size_t>(d))
      throw py::value_error("acl.util.ptr_to_numpy: shape overflows");
    n *= static_cast<size_t>(d);
  }
  return n;
}

}  // namespace

void bind_util(py::module_& m) {
  // A copy of [ptr, ptr + size) into a new bytes object. process_vm_readv reads our own memory
  // and fails with EFAULT where it is not readable, so a wrong pointer raises instead of crashing.
  m.def("ptr_to_bytes", [](uintptr_t ptr, size_t size) {
    if (size > static_cast<size_t>(PY_SSIZE_T_MAX)) throw py::value_error("acl.util.ptr_to_bytes: size too large");
    py::bytes out(nullptr, 0);
    PyObject* raw = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
    if (raw == nullptr) throw py::error_already_set();
    out = py::reinterpret_steal<py::bytes>(raw);
    char* dst = PyBytes_AS_STRING(raw);
    size_t done = 0;
    while (done < size) {
      iovec local{dst + done, size - done};
      iovec remote{reinterpret_cast<void*>(ptr + done), size - done};
      const ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
      if (n <= 0) {
        throw py::value_error("acl.util.ptr_to_bytes: [" + std::to_string(ptr) + ", +" + std::to_string(size) +
                              ") is not readable host memory (" + std::strerror(n < 0 ? errno : EFAULT) +
                              "); device memory must be copied to the host first (acl.rt.memcpy)");
      }
      done += static_cast<size_t>(n);
    }
    return out;
  });
  // The address of a bytes object's data; valid while the object lives (the caller keeps it).
  m.def("bytes_to_ptr", [](py::bytes data) { return to_int(PyBytes_AS_STRING(data.ptr())); });
  // The address of a NumPy array's data (it must be C-contiguous, as pyACL requires).
  m.def("numpy_to_ptr", [](py::array array) {
    if (!(array.flags() & py::array::c_style)) {
      throw py::value_error("acl.util.numpy_to_ptr: the array is not C-contiguous (use numpy.ascontiguousarray)");
    }
    return to_int(array.data());
  });
  // A NumPy array viewing [ptr, ...) without a copy; `npy_type` is a NumPy type number (acl.NPY_*).
  // The memory must outlive the array, as with pyACL.
  m.def("ptr_to_numpy", [](uintptr_t ptr, std::vector<int64_t> shape, int npy_type) {
    py::dtype dtype(npy_type);
    const size_t bytes = checked_element_count(shape) * static_cast<size_t>(dtype.itemsize());
    if (!host_range_mapped(ptr, bytes)) {
      throw py::value_error("acl.util.ptr_to_numpy: [" + std::to_string(ptr) + ", +" + std::to_string(bytes) +
                            ") is not mapped host memory");
    }
    // A base object keeps NumPy from copying; the view does not own the memory.
    return py::array(dtype, shape, {}, from_int<void>(ptr), py::none());
  });

  // start_thread(func, args) -> (thread_id, ret): a Python thread running func(*args), whose id
  // subscribe_report takes; stop_thread(thread_id) waits for it to return.
  m.def("start_thread", [](py::function fn, py::list args) {
    py::object threading = py::module_::import("threading");
    py::object thread = threading.attr("Thread")(py::arg("target") = fn, py::arg("args") = py::tuple(args));
    thread.attr("daemon") = true;
    thread.attr("start")();
    const uint64_t id = thread.attr("ident").cast<uint64_t>();
    std::lock_guard lock(g_threads_mu);
    (*g_threads)[id] = thread;
    return py::make_tuple(id, int(ACL_SUCCESS));
  });
  m.def("stop_thread", [](uint64_t id) {
    py::object thread;
    {
      std::lock_guard lock(g_threads_mu);
      auto it = g_threads->find(id);
      if (it == g_threads->end()) return int(ACL_ERROR_INVALID_PARAM);
      thread = it->second;
      g_threads->erase(it);
    }
    thread.attr("join")();
    return int(ACL_SUCCESS);
  });
}

}  // namespace pyacl
