// acl.mdl: load a model, describe its inputs and outputs, build datasets, execute.
#include <string>

#include "pyacl.hpp"

namespace pyacl {
namespace {

// pyACL's dims: {"name": str, "dimCount": int, "dims": [int, ...]}.
py::dict dims_dict(const aclmdlIODims& d) {
  py::dict out;
  out["name"] = std::string(d.name);
  out["dimCount"] = d.dimCount;
  py::list dims;
  for (size_t i = 0; i < d.dimCount && i < ACL_MAX_DIM_CNT; ++i) dims.append(d.dims[i]);
  out["dims"] = dims;
  return out;
}

std::string text_or_empty(const char* s) {
  return s != nullptr ? std::string(s) : std::string();
}

}  // namespace

void bind_mdl(py::module_& m) {
  m.def("load_from_file", [](const std::string& path) {
    uint32_t id = 0;
    const aclError ret = without_gil([&] { return aclmdlLoadFromFile(path.c_str(), &id); });
    return py::make_tuple(id, ret);
  });
  m.def("load_from_mem", [](py::bytes model) {
    std::string data = model;  // the runtime copies what it keeps; this copy only outlives the call
    uint32_t id = 0;
    const aclError ret = without_gil([&] { return aclmdlLoadFromMem(data.data(), data.size(), &id); });
    return py::make_tuple(id, ret);
  });
  m.def("unload", [](uint32_t id) { return without_gil([&] { return aclmdlUnload(id); }); });

  m.def("create_desc", [] { return to_int(aclmdlCreateDesc()); });
  m.def("destroy_desc", [](uintptr_t desc) { return aclmdlDestroyDesc(from_int<aclmdlDesc>(desc)); });
  m.def("get_desc", [](uintptr_t desc, uint32_t id) { return aclmdlGetDesc(from_int<aclmdlDesc>(desc), id); });
  m.def("get_num_inputs", [](uintptr_t desc) { return aclmdlGetNumInputs(from_int<aclmdlDesc>(desc)); });
  m.def("get_num_outputs", [](uintptr_t desc) { return aclmdlGetNumOutputs(from_int<aclmdlDesc>(desc)); });
  m.def("get_input_size_by_index",
        [](uintptr_t desc, size_t i) { return aclmdlGetInputSizeByIndex(from_int<aclmdlDesc>(desc), i); });
  m.def("get_output_size_by_index",
        [](uintptr_t desc, size_t i) { return aclmdlGetOutputSizeByIndex(from_int<aclmdlDesc>(desc), i); });
  m.def("get_input_dims", [](uintptr_t desc, size_t i) {
    aclmdlIODims dims{};
    const aclError ret = aclmdlGetInputDims(from_int<aclmdlDesc>(desc), i, &dims);
    return py::make_tuple(dims_dict(dims), ret);
  });
  m.def("get_output_dims", [](uintptr_t desc, size_t i) {
    aclmdlIODims dims{};
    const aclError ret = aclmdlGetOutputDims(from_int<aclmdlDesc>(desc), i, &dims);
    return py::make_tuple(dims_dict(dims), ret);
  });
  m.def("get_input_name_by_index", [](uintptr_t desc, size_t i) {
    return text_or_empty(aclmdlGetInputNameByIndex(from_int<aclmdlDesc>(desc), i));
  });
  m.def("get_output_name_by_index", [](uintptr_t desc, size_t i) {
    return text_or_empty(aclmdlGetOutputNameByIndex(from_int<aclmdlDesc>(desc), i));
  });
  m.def("get_input_data_type",
        [](uintptr_t desc, size_t i) { return int(aclmdlGetInputDataType(from_int<aclmdlDesc>(desc), i)); });
  m.def("get_output_data_type",
        [](uintptr_t desc, size_t i) { return int(aclmdlGetOutputDataType(from_int<aclmdlDesc>(desc), i)); });
  m.def("get_input_format",
        [](uintptr_t desc, size_t i) { return int(aclmdlGetInputFormat(from_int<aclmdlDesc>(desc), i)); });
  m.def("get_output_format",
        [](uintptr_t desc, size_t i) { return int(aclmdlGetOutputFormat(from_int<aclmdlDesc>(desc), i)); });

  m.def("create_dataset", [] { return to_int(aclmdlCreateDataset()); });
  m.def("destroy_dataset", [](uintptr_t ds) { return aclmdlDestroyDataset(from_int<aclmdlDataset>(ds)); });
  // pyACL returns the dataset with the code: `_, ret = acl.mdl.add_dataset_buffer(ds, buf)`.
  m.def("add_dataset_buffer", [](uintptr_t ds, uintptr_t buf) {
    const aclError ret = aclmdlAddDatasetBuffer(from_int<aclmdlDataset>(ds), from_int<aclDataBuffer>(buf));
    return py::make_tuple(ds, ret);
  });
  m.def("get_dataset_num_buffers",
        [](uintptr_t ds) { return aclmdlGetDatasetNumBuffers(from_int<aclmdlDataset>(ds)); });
  m.def("get_dataset_buffer",
        [](uintptr_t ds, size_t i) { return to_int(aclmdlGetDatasetBuffer(from_int<aclmdlDataset>(ds), i)); });

  m.def("execute", [](uint32_t id, uintptr_t input, uintptr_t output) {
    return without_gil(
        [&] { return aclmdlExecute(id, from_int<aclmdlDataset>(input), from_int<aclmdlDataset>(output)); });
  });
  m.def("execute_async", [](uint32_t id, uintptr_t input, uintptr_t output, uintptr_t stream) {
    return aclmdlExecuteAsync(id, from_int<aclmdlDataset>(input), from_int<aclmdlDataset>(output),
                              from_int<void>(stream));
  });
}

}  // namespace pyacl
