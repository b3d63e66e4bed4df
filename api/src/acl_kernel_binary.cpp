// Spec part 2, 4.11 (first half): kernel binaries and function handles. Argument checks in the
// spec's order; the binaries, their handles and the format live behind the front door
// (arun/runtime/kernel_binaries.hpp, core/src/front/kernel_binaries.cpp).
#include <string>
#include <vector>

#include "arun/kernel_binary.h"

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

// Load options (aclrtBinaryLoadFromFile / FromData): every rule is ACL_ERROR_RT_PARAM_INVALID.
Status check_options(const aclrtBinaryLoadOptions* options, bool from_file, int32_t* cpu_mode) {
  *cpu_mode = -1;
  if (options == nullptr) return Status::Ok();
  if (options->options == nullptr) return rt_param_invalid("options->options is NULL");
  for (size_t i = 0; i < options->numOpt; ++i) {
    const aclrtBinaryLoadOption& o = options->options[i];
    const std::string which = "option " + std::to_string(i) + ": ";
    switch (raw(o.type)) {
      case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
        if (o.value.isLazyLoad > 1) return rt_param_invalid(which + "isLazyLoad must be 0 or 1");
        break;
      case ACL_RT_BINARY_LOAD_OPT_MAGIC:
        if (from_file) return rt_param_invalid(which + "MAGIC is not allowed when loading from a file");
        if (o.value.magic != ACL_RT_BINARY_MAGIC_ELF_AICORE && o.value.magic != ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE &&
            o.value.magic != ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE)
          return rt_param_invalid(which + "magic " + std::to_string(o.value.magic) + " is not an ELF core magic");
        break;
      case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
        if (from_file ? (o.value.cpuKernelMode != 0 && o.value.cpuKernelMode != 1) : o.value.cpuKernelMode != 2)
          return rt_param_invalid(which + "cpuKernelMode " + std::to_string(o.value.cpuKernelMode) +
                                  (from_file ? " must be 0 or 1" : " must be 2"));
        *cpu_mode = o.value.cpuKernelMode;
        break;
      default:
        return rt_param_invalid(which + "type " + std::to_string(raw(o.type)) + " is outside 1..3");
    }
  }
  return Status::Ok();
}

Status no_ai_cpu() {
  return Status(Errc::rt_feature_not_support,
                "AI CPU kernel binaries (CPU_KERNEL_MODE 2) are not supported by the "
                "simulated NPU");
}

}  // namespace

extern "C" {

aclError arunKernelBinaryCheck(const char* path) {
  return api_call_no_runtime("arunKernelBinaryCheck", [&] {
    if (path == nullptr) return invalid_param("path is NULL");
    std::vector<rt::KernelSummary> kernels;
    return rt::inspect_kernel_binary(path, &kernels);
  });
}

aclrtBinary aclrtCreateBinary(const void* data, size_t dataLen) {
  // R5: NULL on failure, last error untouched.
  if (data == nullptr || dataLen == 0) return nullptr;
  try {
    return rt::binary_desc_create(data, dataLen);
  } catch (...) {
    return nullptr;
  }
}

aclError aclrtDestroyBinary(aclrtBinary binary) {
  return api_call_no_runtime("aclrtDestroyBinary", [&] {
    if (binary == nullptr) return invalid_param("binary is NULL");
    return rt::binary_desc_destroy(binary);
  });
}

aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle* binHandle) {
  return api_call("aclrtBinaryLoad", [&] {
    if (binary == nullptr) return invalid_param("binary is NULL");
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    const void* data = nullptr;
    size_t length = 0;
    ARUN_RETURN_IF_ERROR(rt::binary_desc_get(binary, &data, &length));
    if (length == 0) return rt_param_invalid("the binary has zero length");
    return rt::binary_load_data(data, length, binHandle);
  });
}

aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options, aclrtBinHandle* binHandle) {
  return api_call("aclrtBinaryLoadFromFile", [&] {
    if (binPath == nullptr) return invalid_param("binPath is NULL");
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    int32_t cpu_mode = -1;
    ARUN_RETURN_IF_ERROR(check_options(options, true, &cpu_mode));
    return rt::binary_load_file(binPath, binHandle);
  });
}

aclError aclrtBinaryLoadFromData(const void* data, size_t length, const aclrtBinaryLoadOptions* options,
                                 aclrtBinHandle* binHandle) {
  return api_call("aclrtBinaryLoadFromData", [&] {
    if (data == nullptr) return invalid_param("data is NULL");
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    if (length == 0) return rt_param_invalid("length is 0");
    int32_t cpu_mode = -1;
    ARUN_RETURN_IF_ERROR(check_options(options, false, &cpu_mode));
    if (cpu_mode == 2) return no_ai_cpu();
    return rt::binary_load_data(data, length, binHandle);
  });
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName, aclrtFuncHandle* funcHandle) {
  return api_call("aclrtBinaryGetFunction", [&] {
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    if (kernelName == nullptr) return invalid_param("kernelName is NULL");
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    return rt::binary_get_function(binHandle, kernelName, funcHandle);
  });
}

aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry, aclrtFuncHandle* funcHandle) {
  return api_call("aclrtBinaryGetFunctionByEntry", [&] {
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    return rt::binary_get_function_by_entry(binHandle, funcEntry, funcHandle);
  });
}

aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle) {
  return api_call("aclrtBinaryUnLoad", [&] {
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    return rt::binary_unload(binHandle);
  });
}

aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void** binAddr, size_t* binSize) {
  return api_call("aclrtBinaryGetDevAddress", [&] {
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    if (binAddr == nullptr) return rt_param_invalid("binAddr is NULL");
    if (binSize == nullptr) return rt_param_invalid("binSize is NULL");
    return rt::binary_dev_address(binHandle, binAddr, binSize);
  });
}

aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char* name, void** dptr, size_t* size) {
  return api_call("aclrtBinaryGetGlobal", [&] {
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    if (name == nullptr) return invalid_param("name is NULL");
    if (dptr == nullptr && size == nullptr) return invalid_param("dptr and size are both NULL");
    return rt::binary_global(binHandle, name, dptr, size);
  });
}

aclError aclrtGetFuncBySymbol(const void* symbol, aclrtFuncHandle* funcHandle) {
  return api_call("aclrtGetFuncBySymbol", [&] {
    if (symbol == nullptr) return invalid_param("symbol is NULL");
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    return rt::function_by_symbol(symbol, funcHandle);
  });
}

aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void** aicAddr, void** aivAddr) {
  return api_call("aclrtGetFunctionAddr", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (aicAddr == nullptr) return invalid_param("aicAddr is NULL");
    if (aivAddr == nullptr) return invalid_param("aivAddr is NULL");
    return rt::function_addr(funcHandle, aicAddr, aivAddr);
  });
}

aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t* aicSize, size_t* aivSize) {
  return api_call("aclrtGetFunctionSize", [&] {
    // No ACL-level check: every NULL is the runtime's 107000.
    if (funcHandle == nullptr) return rt_param_invalid("funcHandle is NULL");
    if (aicSize == nullptr) return rt_param_invalid("aicSize is NULL");
    if (aivSize == nullptr) return rt_param_invalid("aivSize is NULL");
    return rt::function_size(funcHandle, aicSize, aivSize);
  });
}

aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char* name) {
  return api_call("aclrtGetFunctionName", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (name == nullptr) return invalid_param("name is NULL");
    return rt::function_name(funcHandle, maxLen, name);
  });
}

aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle, aclrtBinHandle* binHandle) {
  return api_call("aclrtFunctionGetBinary", [&] {
    if (funcHandle == nullptr) return rt_param_invalid("funcHandle is NULL");
    if (binHandle == nullptr) return rt_param_invalid("binHandle is NULL");
    return rt::function_binary(funcHandle, binHandle);
  });
}

aclError aclrtFunctionGetParamCount(const void* func, size_t* paramCount) {
  return api_call("aclrtFunctionGetParamCount", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    if (paramCount == nullptr) return invalid_param("paramCount is NULL");
    return rt::function_param_count(func, paramCount);
  });
}

aclError aclrtFunctionGetParamInfo(const void* func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return api_call("aclrtFunctionGetParamInfo", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    if (paramOffset == nullptr && paramSize == nullptr) return invalid_param("paramOffset and paramSize are both NULL");
    return rt::function_param_info(func, paramIndex, paramOffset, paramSize);
  });
}

aclError aclrtFunctionGetAvailDynUbufPerBlock(void* func, uint32_t flags, size_t* dynamicUbufSize) {
  return api_call("aclrtFunctionGetAvailDynUbufPerBlock", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    if (dynamicUbufSize == nullptr) return invalid_param("dynamicUbufSize is NULL");
    if (flags != 0) return invalid_param("flags must be 0");
    return rt::function_dyn_ubuf(func, dynamicUbufSize);
  });
}

aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char* funcName, const char* kernelName,
                              aclrtFuncHandle* funcHandle) {
  return api_call("aclrtRegisterCpuFunc", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (funcName == nullptr) return invalid_param("funcName is NULL");
    if (kernelName == nullptr) return invalid_param("kernelName is NULL");
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    return rt::binary_register_cpu_func(handle);
  });
}

aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType, int64_t* attrValue) {
  return api_call("aclrtGetFunctionAttribute", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (attrValue == nullptr) return invalid_param("attrValue is NULL");
    // The range check is the runtime's, after the handle check (R4).
    return rt::function_attribute(funcHandle, static_cast<int32_t>(raw(attrType)), attrValue);
  });
}

}  // extern "C"
