// Operator attributes and single-operator execution (spec 2.12): aclopExecuteV2 turns the
// descriptions and buffers into an ops::OpCall and runs it from the op registry (ops/), whose
// kernels go to the stream's device as AI-core launches.
#include <string>

#include "acl/acl_op_compiler.h"
#include "acl_descriptors.hpp"
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

Status set_attr(aclopAttr* attr, const char* name, ops::AttrValue value) {
  if (attr == nullptr) return invalid_param("attr is NULL");
  if (name == nullptr) return invalid_param("attrName is NULL");
  attr->attrs.set(name, std::move(value));
  return Status::Ok();
}

// One side (inputs or outputs) of a call: checks the arrays and converts each pair.
Status collect(const char* side, int count, const aclTensorDesc* const descs[], const aclDataBuffer* const bufs[],
               std::vector<ops::Tensor>* out) {
  if (count < 0) return invalid_param(std::string("num") + side + " is negative");
  if (count > 0 && descs == nullptr) return invalid_param(std::string(side) + " description array is NULL");
  if (count > 0 && bufs == nullptr) return invalid_param(std::string(side) + " buffer array is NULL");
  out->reserve(count);
  for (int i = 0; i < count; ++i) {
    const std::string at = std::string(side) + "[" + std::to_string(i) + "]";
    if (descs[i] == nullptr) return invalid_param(at + " description is NULL");
    if (bufs[i] == nullptr) return invalid_param(at + " data buffer is NULL");
    const aclTensorDesc& d = *descs[i];
    ops::Tensor t;
    t.dtype = d.dtype;
    t.format = d.format;
    t.data = bufs[i]->data;
    t.bytes = bufs[i]->size;
    if (d.dtype == ACL_DT_UNDEFINED) {
      // An omitted optional operand (ACL_DT_UNDEFINED, no dims, an empty buffer).
      out->push_back(std::move(t));
      continue;
    }
    if (d.unknown_rank) return Status(Errc::op_input_not_match, at + ": unknown rank is not supported");
    for (int64_t dim : d.dims) {
      if (dim < 0) {
        return Status(std::string(side) == "inputs" ? Errc::op_input_not_match : Errc::op_output_not_match,
                      at + ": dynamic dimension " + std::to_string(dim) + " in " + ops::shape_text(d.dims) +
                          " (only static shapes are supported)");
      }
    }
    if (aclDataTypeSize(d.dtype) == 0 || std::string(ops::dtype_name(d.dtype)) == "unsupported dtype") {
      return Status(Errc::unsupported_data_type, at + ": data type " + std::to_string(api::raw(d.dtype)) +
                                                     " is not supported by the operator library");
    }
    // Element and byte counts must fit: every kernel indexes with them.
    int64_t elements = 1, bytes = 0;
    for (int64_t dim : d.dims) {
      if (__builtin_mul_overflow(elements, dim, &elements)) elements = -1;
      if (elements < 0) break;
    }
    if (elements < 0 || __builtin_mul_overflow(elements, static_cast<int64_t>(aclDataTypeSize(d.dtype)), &bytes)) {
      return Status(std::string(side) == "inputs" ? Errc::op_input_not_match : Errc::op_output_not_match,
                    at + ": shape " + ops::shape_text(d.dims) + " is too large to address");
    }
    t.shape = d.dims;
    if (t.data == nullptr && t.count() > 0) return invalid_param(at + " data buffer has no address");
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

Status execute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
               const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
               const aclDataBuffer* const outputs[], const aclopAttr* attr, aclrtStream stream) {
  if (opType == nullptr) return invalid_param("opType is NULL");
  ops::OpCall call;
  call.op = opType;
  ARUN_RETURN_IF_ERROR(collect("inputs", numInputs, inputDesc, inputs, &call.inputs));
  ARUN_RETURN_IF_ERROR(collect("outputs", numOutputs, outputDesc, outputs, &call.outputs));
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (!call.outputs[i].present())
      return Status(Errc::op_output_not_match, "outputs[" + std::to_string(i) + "] has no data type");
  }
  // The stream decides the device, hence how many AI cores a launch can use.
  rt::LaunchTarget target;
  ARUN_RETURN_IF_ERROR(rt::launch_target(stream, &target));
  call.cores = target.cores;
  call.host_cpus = target.host_cpus;
  call.attrs = attr != nullptr ? &attr->attrs : nullptr;
  call.stream = stream;
  return ops::execute(call);
}

}  // namespace

extern "C" {

aclopAttr* aclopCreateAttr() {
  return new (std::nothrow) aclopAttr();
}

void aclopDestroyAttr(const aclopAttr* attr) {
  delete attr;
}

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
  return api_call_no_runtime("aclopSetAttrBool", [&] { return set_attr(attr, attrName, attrValue != 0); });
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
  return api_call_no_runtime("aclopSetAttrInt", [&] { return set_attr(attr, attrName, attrValue); });
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
  return api_call_no_runtime("aclopSetAttrFloat", [&] { return set_attr(attr, attrName, attrValue); });
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
  return api_call_no_runtime("aclopSetAttrString", [&] {
    if (attrValue == nullptr) return invalid_param("attrValue is NULL");
    return set_attr(attr, attrName, std::string(attrValue));
  });
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues, const int64_t* values) {
  return api_call_no_runtime("aclopSetAttrListInt", [&] {
    if (numValues < 0) return invalid_param("numValues is negative");
    if (numValues > 0 && values == nullptr) return invalid_param("values is NULL");
    std::vector<int64_t> list(values, values + numValues);
    return set_attr(attr, attrName, std::move(list));
  });
}

aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream) {
  return api_call("aclopExecuteV2", [&] {
    return execute(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream);
  });
}

aclError aclopExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                      const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                      aclDataBuffer* const outputs[], const aclopAttr* attr, aclrtStream stream) {
  return api_call("aclopExecute", [&] {
    return execute(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream);
  });
}

// Our kernels are built in: "compiling" is the same lookup aclopExecuteV2 does, so this validates
// the compile arguments and runs the op.
aclError aclopCompileAndExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                                const aclopAttr* attr, aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream) {
  return api_call("aclopCompileAndExecute", [&] {
    const auto engine = api::raw(engineType);
    if (engine != ACL_ENGINE_SYS && engine != ACL_ENGINE_AICORE && engine != ACL_ENGINE_VECTOR) {
      return invalid_param("engineType " + std::to_string(engine) + " is not an aclopEngineType");
    }
    const auto flag = api::raw(compileFlag);
    if (flag != ACL_COMPILE_SYS && flag != ACL_COMPILE_UNREGISTERED) {
      return invalid_param("compileFlag " + std::to_string(flag) + " is not an aclopCompileType");
    }
    if (opPath != nullptr) return invalid_param("opPath is reserved and must be NULL");
    return execute(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream);
  });
}

}  // extern "C"
