// acl.prof: a profiling session (aclprofInit / CreateConfig / Start / Stop / Finalize).
#include <string>
#include <vector>

#include "pyacl.hpp"

namespace pyacl {

void bind_prof(py::module_& m) {
  m.def("init", [](const std::string& path) { return aclprofInit(path.c_str(), path.size()); });
  m.def("finalize", [] { return without_gil([] { return aclprofFinalize(); }); });
  // pyACL: create_config(device_list, aicore_metrics, aicore_events, data_type_config); the events
  // argument is 0 (None), as on CANN.
  m.def(
      "create_config",
      [](std::vector<uint32_t> devices, int metrics, py::object /*aicore_events*/, uint64_t data_types) {
        return to_int(aclprofCreateConfig(devices.empty() ? nullptr : devices.data(),
                                          static_cast<uint32_t>(devices.size()),
                                          static_cast<aclprofAicoreMetrics>(metrics), nullptr, data_types));
      },
      py::arg("device_list"), py::arg("aicore_metrics"), py::arg("aicore_events") = py::none(),
      py::arg("data_type_config"));
  m.def("destroy_config", [](uintptr_t cfg) { return aclprofDestroyConfig(from_int<aclprofConfig>(cfg)); });
  m.def("start", [](uintptr_t cfg) { return aclprofStart(from_int<aclprofConfig>(cfg)); });
  m.def("stop", [](uintptr_t cfg) { return without_gil([&] { return aclprofStop(from_int<aclprofConfig>(cfg)); }); });
}

}  // namespace pyacl
