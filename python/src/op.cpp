// acl.op and the tensor descriptions at top level (acl.create_tensor_desc ...): single operators
// through aclopExecuteV2, with attributes.
#include <string>
#include <vector>

#include "pyacl.hpp"

namespace pyacl {
namespace {

template <class T>
std::vector<T*> handles(const std::vector<uintptr_t>& ints) {
  std::vector<T*> out;
  out.reserve(ints.size());
  for (uintptr_t v : ints) out.push_back(from_int<T>(v));
  return out;
}

}  // namespace

void bind_op(py::module_& acl, py::module_& m) {
  acl.def("create_tensor_desc", [](int dtype, const std::vector<int64_t>& dims, int format) {
    return to_int(aclCreateTensorDesc(static_cast<aclDataType>(dtype), static_cast<int>(dims.size()),
                                      dims.empty() ? nullptr : dims.data(), static_cast<aclFormat>(format)));
  });
  acl.def("destroy_tensor_desc", [](uintptr_t desc) { aclDestroyTensorDesc(from_int<aclTensorDesc>(desc)); });
  acl.def("get_tensor_desc_size", [](uintptr_t desc) { return aclGetTensorDescSize(from_int<aclTensorDesc>(desc)); });

  m.def("create_attr", [] { return to_int(aclopCreateAttr()); });
  m.def("destroy_attr", [](uintptr_t attr) { aclopDestroyAttr(from_int<aclopAttr>(attr)); });
  m.def("set_attr_int", [](uintptr_t attr, const std::string& name, int64_t v) {
    return aclopSetAttrInt(from_int<aclopAttr>(attr), name.c_str(), v);
  });
  m.def("set_attr_float", [](uintptr_t attr, const std::string& name, float v) {
    return aclopSetAttrFloat(from_int<aclopAttr>(attr), name.c_str(), v);
  });
  m.def("set_attr_bool", [](uintptr_t attr, const std::string& name, bool v) {
    return aclopSetAttrBool(from_int<aclopAttr>(attr), name.c_str(), v ? 1 : 0);
  });
  m.def("set_attr_string", [](uintptr_t attr, const std::string& name, const std::string& v) {
    return aclopSetAttrString(from_int<aclopAttr>(attr), name.c_str(), v.c_str());
  });
  m.def("set_attr_list_int", [](uintptr_t attr, const std::string& name, const std::vector<int64_t>& v) {
    return aclopSetAttrListInt(from_int<aclopAttr>(attr), name.c_str(), static_cast<int>(v.size()), v.data());
  });

  // acl.op.execute_v2(op_type, input_desc, inputs, output_desc, outputs, attr, stream): lists of
  // handles of equal lengths, as the C call takes arrays.
  m.def("execute_v2",
        [](const std::string& op_type, const std::vector<uintptr_t>& input_desc, const std::vector<uintptr_t>& inputs,
           const std::vector<uintptr_t>& output_desc, const std::vector<uintptr_t>& outputs, uintptr_t attr,
           uintptr_t stream) -> aclError {
          if (input_desc.size() != inputs.size() || output_desc.size() != outputs.size()) {
            throw py::value_error("acl.op.execute_v2: " + std::to_string(input_desc.size()) +
                                  " input descriptions for " + std::to_string(inputs.size()) + " input buffers, " +
                                  std::to_string(output_desc.size()) + " output descriptions for " +
                                  std::to_string(outputs.size()) + " output buffers");
          }
          auto in_desc = handles<aclTensorDesc>(input_desc);
          auto in_buf = handles<aclDataBuffer>(inputs);
          auto out_desc = handles<aclTensorDesc>(output_desc);
          auto out_buf = handles<aclDataBuffer>(outputs);
          return aclopExecuteV2(op_type.c_str(), static_cast<int>(in_desc.size()), in_desc.data(), in_buf.data(),
                                static_cast<int>(out_desc.size()), out_desc.data(), out_buf.data(),
                                from_int<aclopAttr>(attr), from_int<void>(stream));
        });
}

}  // namespace pyacl
