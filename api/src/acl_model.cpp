// Model loading, description and execution (spec 2.13) for ONNX models: ids of loaded models, the
// aclmdlDesc accessors, and the dataset checks of aclmdlExecute / aclmdlExecuteAsync. The work is
// done by model::LoadedModel (model/src/executor.cpp) on top of the graph importer and planner;
// the runtime owns the loaded models (arun/runtime/models.hpp).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl_descriptors.hpp"
#include "api_call.hpp"
#include "arun/model/executor.hpp"

using namespace arun;
using namespace arun::api;
using arun::model::LoadedModel;

// What aclmdlGetDesc copies out of a loaded model; independent of it afterwards.
struct aclmdlDesc {
  struct IO {
    std::string name;
    std::string dims_name;  // the name aclmdlGet*Dims reports (an alias if it does not fit)
    aclDataType dtype = ACL_DT_UNDEFINED;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> dims;
    size_t bytes = 0;
  };
  std::vector<IO> inputs, outputs;
};

namespace {

Status model_code(aclError code, const std::string& what) {
  return Status(static_cast<Errc>(code), what);
}

Status read_file(const char* path, std::string* out) {
  if (path == nullptr) return invalid_param("modelPath is NULL");
  return model::read_model_file(path, model::import_limits(), out);
}

Status load(const void* image, size_t size, uint32_t* modelId, const LoadedModel::Memory& mem,
            const std::string& name = {}) {
  if (modelId == nullptr) return invalid_param("modelId is NULL");
  return LoadedModel::load(image, size, mem, modelId, name);
}

// A model file's stem ("mlp" for "/models/mlp.onnx"): the model's name in profiling records, as
// msprof names an offline model after its file.
std::string file_stem(const char* path) {
  std::string p(path);
  const size_t slash = p.find_last_of('/');
  if (slash != std::string::npos) p.erase(0, slash + 1);
  const size_t dot = p.find_last_of('.');
  if (dot != std::string::npos && dot > 0) p.erase(dot);
  return p;
}

Status load_file(const char* path, uint32_t* modelId, const LoadedModel::Memory& mem) {
  if (modelId == nullptr) return invalid_param("modelId is NULL");
  std::string image;
  ARUN_RETURN_IF_ERROR(read_file(path, &image));
  Status st = load(image.data(), image.size(), modelId, mem, file_stem(path));
  if (!st.ok()) return Status(st.code(), std::string(path) + ": " + st.message());
  return st;
}

Status load_mem(const void* model, size_t size, uint32_t* modelId, const LoadedModel::Memory& mem) {
  if (model == nullptr) return invalid_param("model is NULL");
  if (size == 0) return invalid_param("modelSize is 0");
  return load(model, size, modelId, mem);
}

// The dataset side of an execution: one buffer per graph input / output, each large enough.
Status check_side(const LoadedModel& m, const aclmdlDataset* set, bool outputs, bool allow_alloc,
                  std::vector<void*>* ptrs, std::vector<int>* to_alloc) {
  const char* side = outputs ? "output" : "input";
  const aclError mismatch = outputs ? ACL_ERROR_MODEL_OUTPUT_NOT_MATCH : ACL_ERROR_MODEL_INPUT_NOT_MATCH;
  if (set == nullptr) return invalid_param(std::string(side) + " dataset is NULL");
  const std::vector<int>& io = outputs ? m.graph().outputs : m.graph().inputs;
  if (set->buffers.size() != io.size()) {
    return model_code(mismatch, std::string("the model has ") + std::to_string(io.size()) + " " + side +
                                    (io.size() == 1 ? "" : "s") + ", the " + side + " dataset holds " +
                                    std::to_string(set->buffers.size()) + " buffers");
  }
  ptrs->resize(io.size());
  for (size_t i = 0; i < io.size(); ++i) {
    const model::TensorInfo& t = m.graph().tensors[io[i]];
    const aclDataBuffer* b = set->buffers[i];
    const std::string at = std::string(side) + " " + std::to_string(i) + " ('" + t.name + "')";
    if (t.bytes == 0 && b->data == nullptr) {  // an empty tensor (a dimension 0) needs no memory
      (*ptrs)[i] = nullptr;
      continue;
    }
    if (b->data == nullptr && b->size == 0 && allow_alloc) {
      to_alloc->push_back(static_cast<int>(i));
      continue;
    }
    if (b->data == nullptr) {
      return model_code(mismatch,
                        at + ": the data buffer has no device address" +
                            (outputs && !allow_alloc ? std::string(" (runtime-allocated outputs are not supported by "
                                                                   "aclmdlExecuteAsync)")
                                                     : std::string()));
    }
    if (i < set->descs.size() && set->descs[i] != nullptr) {
      const aclTensorDesc& d = *set->descs[i];
      if (d.dtype != t.dtype || d.dims != t.shape) {
        return model_code(mismatch, at + ": the dataset's tensor description says " + ops::shape_text(d.dims) + " " +
                                        ops::dtype_name(d.dtype) + ", the model's tensor is " +
                                        ops::shape_text(t.shape) + " " + ops::dtype_name(t.dtype) +
                                        " (shapes are static)");
      }
    }
    if (b->size < t.bytes) {
      return model_code(mismatch, at + ": the buffer has " + std::to_string(b->size) + " bytes, the model needs " +
                                      std::to_string(t.bytes) + " (" + ops::shape_text(t.shape) + " " +
                                      ops::dtype_name(t.dtype) + ")");
    }
    (*ptrs)[i] = b->data;
  }
  return Status::Ok();
}

Status execute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream, bool sync) {
  std::shared_ptr<LoadedModel> m;
  ARUN_RETURN_IF_ERROR(LoadedModel::find(modelId, &m));
  std::vector<void*> in, out;
  std::vector<int> to_alloc;
  ARUN_RETURN_IF_ERROR(check_side(*m, input, false, false, &in, &to_alloc));
  ARUN_RETURN_IF_ERROR(check_side(*m, output, true, sync, &out, &to_alloc));
  ARUN_RETURN_IF_ERROR(m->execute(in, out, to_alloc, stream, sync));
  for (int i : to_alloc) {
    aclDataBuffer* b = output->buffers[i];
    b->data = out[i];
    b->size = m->graph().tensors[m->graph().outputs[i]].bytes;
  }
  return Status::Ok();
}

void fill_io(const model::Graph& g, const std::vector<int>& io, bool outputs, std::vector<aclmdlDesc::IO>* out) {
  out->clear();
  for (size_t i = 0; i < io.size(); ++i) {
    const model::TensorInfo& t = g.tensors[io[i]];
    aclmdlDesc::IO d;
    d.name = t.name;
    d.dims_name = t.name.size() < ACL_MAX_TENSOR_NAME_LEN
                      ? t.name
                      : std::string(outputs ? "acl_output_" : "acl_input_") + std::to_string(i);
    d.dtype = t.dtype;
    d.format = ACL_FORMAT_ND;
    d.dims = t.shape;
    d.bytes = t.bytes;
    out->push_back(std::move(d));
  }
}

const aclmdlDesc::IO* io_at(const aclmdlDesc* desc, size_t index, bool outputs) {
  if (desc == nullptr) return nullptr;
  const auto& v = outputs ? desc->outputs : desc->inputs;
  return index < v.size() ? &v[index] : nullptr;
}

Status get_dims(const aclmdlDesc* desc, size_t index, aclmdlIODims* dims, bool outputs) {
  if (desc == nullptr) return invalid_param("modelDesc is NULL");
  if (dims == nullptr) return invalid_param("dims is NULL");
  const aclmdlDesc::IO* io = io_at(desc, index, outputs);
  if (io == nullptr) {
    return invalid_param(std::string(outputs ? "output" : "input") + " index " + std::to_string(index) +
                         " is out of range (the model has " +
                         std::to_string(outputs ? desc->outputs.size() : desc->inputs.size()) + ")");
  }
  if (io->dims.size() > ACL_MAX_DIM_CNT) return invalid_param("the tensor has more than ACL_MAX_DIM_CNT dimensions");
  std::memset(dims->name, 0, sizeof dims->name);
  std::memcpy(dims->name, io->dims_name.data(), std::min(io->dims_name.size(), sizeof dims->name - 1));
  dims->dimCount = io->dims.size();
  std::copy(io->dims.begin(), io->dims.end(), dims->dims);
  return Status::Ok();
}

LoadedModel::Memory caller_memory(void* workPtr, size_t workSize, void* weightPtr, size_t weightSize) {
  LoadedModel::Memory mem;
  mem.work = workPtr;
  mem.work_size = workPtr != nullptr ? workSize : 0;
  mem.weight = weightPtr;
  mem.weight_size = weightPtr != nullptr ? weightSize : 0;
  return mem;
}

}  // namespace

extern "C" {

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  return api_call("aclmdlLoadFromFile", [&] { return load_file(modelPath, modelId, {}); });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize, uint32_t* modelId) {
  return api_call("aclmdlLoadFromMem", [&] { return load_mem(model, modelSize, modelId, {}); });
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId, void* workPtr, size_t workSize,
                                   void* weightPtr, size_t weightSize) {
  return api_call("aclmdlLoadFromFileWithMem", [&] {
    return load_file(modelPath, modelId, caller_memory(workPtr, workSize, weightPtr, weightSize));
  });
}

aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize, uint32_t* modelId, void* workPtr,
                                  size_t workSize, void* weightPtr, size_t weightSize) {
  return api_call("aclmdlLoadFromMemWithMem", [&] {
    return load_mem(model, modelSize, modelId, caller_memory(workPtr, workSize, weightPtr, weightSize));
  });
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize) {
  return api_call("aclmdlQuerySize", [&] {
    if (fileName == nullptr) return invalid_param("fileName is NULL");
    if (workSize == nullptr) return invalid_param("workSize is NULL");
    if (weightSize == nullptr) return invalid_param("weightSize is NULL");
    std::string image;
    ARUN_RETURN_IF_ERROR(read_file(fileName, &image));
    model::Graph g;
    Status st = model::import_onnx(image.data(), image.size(), &g);
    if (!st.ok()) return Status(st.code(), std::string(fileName) + ": " + st.message());
    // The same plan a load makes (the stream count changes the workspace).
    const model::Plan p = model::make_plan(g, model::max_streams());
    *workSize = p.work_size;
    *weightSize = p.weight_size;
    return Status::Ok();
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  return api_call("aclmdlUnload", [&] { return LoadedModel::unload(modelId); });
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  return api_call("aclmdlExecute", [&] { return execute(modelId, input, output, nullptr, true); });
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream) {
  return api_call("aclmdlExecuteAsync", [&] { return execute(modelId, input, output, stream, false); });
}

aclmdlDesc* aclmdlCreateDesc() {
  return new (std::nothrow) aclmdlDesc();
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  return api_call_no_runtime("aclmdlDestroyDesc", [&] {
    if (modelDesc == nullptr) return invalid_param("modelDesc is NULL");
    delete modelDesc;
    return Status::Ok();
  });
}

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  return api_call("aclmdlGetDesc", [&] {
    if (modelDesc == nullptr) return invalid_param("modelDesc is NULL");
    std::shared_ptr<LoadedModel> m;
    ARUN_RETURN_IF_ERROR(LoadedModel::find(modelId, &m));
    fill_io(m->graph(), m->graph().inputs, false, &modelDesc->inputs);
    fill_io(m->graph(), m->graph().outputs, true, &modelDesc->outputs);
    return Status::Ok();
  });
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  return modelDesc == nullptr ? 0 : modelDesc->inputs.size();
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  return modelDesc == nullptr ? 0 : modelDesc->outputs.size();
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, false);
  return io == nullptr ? 0 : io->bytes;
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, true);
  return io == nullptr ? 0 : io->bytes;
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return api_call_no_runtime("aclmdlGetInputDims", [&] { return get_dims(modelDesc, index, dims, false); });
}

// Without AIPP the layout after preprocessing is the input's own.
aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return api_call_no_runtime("aclmdlGetInputDimsV2", [&] { return get_dims(modelDesc, index, dims, false); });
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return api_call_no_runtime("aclmdlGetOutputDims", [&] { return get_dims(modelDesc, index, dims, true); });
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, false);
  return io == nullptr ? "" : io->name.c_str();
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, true);
  return io == nullptr ? "" : io->name.c_str();
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, false);
  return io == nullptr ? ACL_FORMAT_UNDEFINED : io->format;
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, true);
  return io == nullptr ? ACL_FORMAT_UNDEFINED : io->format;
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, false);
  return io == nullptr ? ACL_DT_UNDEFINED : io->dtype;
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  const aclmdlDesc::IO* io = io_at(modelDesc, index, true);
  return io == nullptr ? ACL_DT_UNDEFINED : io->dtype;
}

}  // extern "C"
