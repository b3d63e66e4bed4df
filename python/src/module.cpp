// The `acl` module: top-level calls (init, finalize, data buffers, versions), the constants pyACL
// programs use, and the acl.rt / acl.mdl / acl.op / acl.util / acl.prof namespaces.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pyacl.hpp"

namespace pyacl {

bool host_range_mapped(uintptr_t ptr, size_t size) {
  if (ptr == 0) return false;
  if (size == 0) return true;
  if (ptr + size < ptr) return false;  // wraps around the address space
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t at = ptr & ~(page - 1);
  const uintptr_t end = ptr + size;
  // mincore fails with ENOMEM on any unmapped page; in slices, so a huge size costs no huge vector.
  constexpr uintptr_t kPagesPerCall = 4096;
  std::vector<unsigned char> residency(kPagesPerCall);
  while (at < end) {
    const uintptr_t pages = std::min<uintptr_t>(kPagesPerCall, (end - at + page - 1) / page);
    if (mincore(reinterpret_cast<void*>(at), pages * page, residency.data()) != 0) return false;
    at += pages * page;
  }
  return true;
}

}  // namespace pyacl

namespace {
using namespace pyacl;

void bind_top_level(py::module_& m) {
  m.def(
      "init",
      [](const std::string& config_path) {
        // pyACL passes "" for no configuration file.
        return without_gil([&] { return aclInit(config_path.empty() ? nullptr : config_path.c_str()); });
      },
      py::arg("config_path") = "");
  m.def("finalize", [] { return without_gil([] { return aclFinalize(); }); });
  m.def("get_recent_err_msg", [] {
    const char* msg = aclGetRecentErrMsg();
    return std::string(msg != nullptr ? msg : "");
  });
  m.def("get_version", [] {
    int32_t major = 0, minor = 0, patch = 0;
    // pyACL's get_version is the C API's aclrtGetVersion, deprecated there, not here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const aclError ret = aclrtGetVersion(&major, &minor, &patch);
#pragma GCC diagnostic pop
    return py::make_tuple(major, minor, patch, ret);
  });
  m.def("get_soc_name", [] {
    const char* name = aclrtGetSocName();
    return std::string(name != nullptr ? name : "");
  });

  // Data buffers: a (device) address and a size that datasets and operators take.
  m.def("create_data_buffer",
        [](uintptr_t data, size_t size) { return to_int(aclCreateDataBuffer(from_int<void>(data), size)); });
  m.def("destroy_data_buffer", [](uintptr_t buffer) { return aclDestroyDataBuffer(from_int<aclDataBuffer>(buffer)); });
  m.def("update_data_buffer", [](uintptr_t buffer, uintptr_t data, size_t size) {
    return aclUpdateDataBuffer(from_int<aclDataBuffer>(buffer), from_int<void>(data), size);
  });
  m.def("get_data_buffer_addr",
        [](uintptr_t buffer) { return to_int(aclGetDataBufferAddr(from_int<aclDataBuffer>(buffer))); });
  m.def("get_data_buffer_size_v2",
        [](uintptr_t buffer) { return aclGetDataBufferSizeV2(from_int<aclDataBuffer>(buffer)); });
  // pyACL keeps the old name; it answers the full size, as _v2 does.
  m.def("get_data_buffer_size",
        [](uintptr_t buffer) { return aclGetDataBufferSizeV2(from_int<aclDataBuffer>(buffer)); });
}

// The values CANN's headers define, under the names pyACL programs use for them.
void bind_constants(py::module_& m) {
  m.attr("ACL_SUCCESS") = int(ACL_SUCCESS);
  m.attr("ACL_ERROR_NONE") = int(ACL_SUCCESS);
  m.attr("ACL_ERROR_INVALID_PARAM") = int(ACL_ERROR_INVALID_PARAM);
  m.attr("ACL_MEM_MALLOC_HUGE_FIRST") = int(ACL_MEM_MALLOC_HUGE_FIRST);
  m.attr("ACL_MEM_MALLOC_HUGE_ONLY") = int(ACL_MEM_MALLOC_HUGE_ONLY);
  m.attr("ACL_MEM_MALLOC_NORMAL_ONLY") = int(ACL_MEM_MALLOC_NORMAL_ONLY);
  m.attr("ACL_MEMCPY_HOST_TO_HOST") = int(ACL_MEMCPY_HOST_TO_HOST);
  m.attr("ACL_MEMCPY_HOST_TO_DEVICE") = int(ACL_MEMCPY_HOST_TO_DEVICE);
  m.attr("ACL_MEMCPY_DEVICE_TO_HOST") = int(ACL_MEMCPY_DEVICE_TO_HOST);
  m.attr("ACL_MEMCPY_DEVICE_TO_DEVICE") = int(ACL_MEMCPY_DEVICE_TO_DEVICE);
  m.attr("ACL_CALLBACK_NO_BLOCK") = int(ACL_CALLBACK_NO_BLOCK);
  m.attr("ACL_CALLBACK_BLOCK") = int(ACL_CALLBACK_BLOCK);
  m.attr("ACL_DDR_MEM") = int(ACL_DDR_MEM);
  m.attr("ACL_HBM_MEM") = int(ACL_HBM_MEM);
  m.attr("ACL_DEVICE") = int(ACL_DEVICE);
  m.attr("ACL_HOST") = int(ACL_HOST);
  m.attr("ACL_EVENT_RECORDED_STATUS_NOT_READY") = int(ACL_EVENT_RECORDED_STATUS_NOT_READY);
  m.attr("ACL_EVENT_RECORDED_STATUS_COMPLETE") = int(ACL_EVENT_RECORDED_STATUS_COMPLETE);
  m.attr("ACL_FLOAT") = int(ACL_FLOAT);
  m.attr("ACL_FLOAT16") = int(ACL_FLOAT16);
  m.attr("ACL_INT8") = int(ACL_INT8);
  m.attr("ACL_INT32") = int(ACL_INT32);
  m.attr("ACL_UINT8") = int(ACL_UINT8);
  m.attr("ACL_INT64") = int(ACL_INT64);
  m.attr("ACL_BOOL") = int(ACL_BOOL);
  m.attr("ACL_FORMAT_ND") = int(ACL_FORMAT_ND);
  m.attr("ACL_FORMAT_NCHW") = int(ACL_FORMAT_NCHW);
  m.attr("ACL_FORMAT_NHWC") = int(ACL_FORMAT_NHWC);
  m.attr("ACL_PROF_ACL_API") = ACL_PROF_ACL_API;
  m.attr("ACL_PROF_TASK_TIME") = ACL_PROF_TASK_TIME;
  m.attr("ACL_AICORE_NONE") = int(ACL_AICORE_NONE);
  m.attr("ACL_AICORE_PIPE_UTILIZATION") = int(ACL_AICORE_PIPE_UTILIZATION);
  // NumPy's type numbers, as pyACL's acl.util.ptr_to_numpy documents them.
  m.attr("NPY_BOOL") = 0;
  m.attr("NPY_INT8") = 1;
  m.attr("NPY_UINT8") = 2;
  m.attr("NPY_INT16") = 3;
  m.attr("NPY_UINT16") = 4;
  m.attr("NPY_INT32") = 5;
  m.attr("NPY_UINT32") = 6;
  m.attr("NPY_INT64") = 7;
  m.attr("NPY_UINT64") = 8;
  m.attr("NPY_FLOAT32") = 11;
  m.attr("NPY_DOUBLE") = 12;
  m.attr("NPY_FLOAT16") = 23;
}

}  // namespace

PYBIND11_MODULE(acl, m) {
  m.doc() = "ascend-run's pyACL-compatible Python API (import acl)";
  bind_top_level(m);
  bind_constants(m);
  py::module_ rt = m.def_submodule("rt", "runtime: devices, contexts, streams, events, memory");
  py::module_ mdl = m.def_submodule("mdl", "models: load, describe, datasets, execute");
  py::module_ op = m.def_submodule("op", "single operators");
  py::module_ util = m.def_submodule("util", "pointers, bytes and NumPy arrays; threads for callbacks");
  py::module_ prof = m.def_submodule("prof", "profiling sessions");
  bind_rt(rt);
  bind_mdl(mdl);
  bind_op(m, op);
  bind_util(util);
  bind_prof(prof);
}
