// Spec part 2, 4.11 (second half): argument handles (aclrtKernelArgs*) and the launch functions.
// Argument checks in the spec's order; handles, packing and launch live behind the front door
// (arun/runtime/kernel_binaries.hpp).
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t* memSize) {
  return api_call("aclrtKernelArgsGetHandleMemSize", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (memSize == nullptr) return invalid_param("memSize is NULL");
    return rt::kernel_args_handle_mem_size(funcHandle, memSize);
  });
}

aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize, size_t* actualArgsSize) {
  return api_call("aclrtKernelArgsGetMemSize", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (actualArgsSize == nullptr) return invalid_param("actualArgsSize is NULL");
    return rt::kernel_args_mem_size(funcHandle, userArgsSize, actualArgsSize);
  });
}

aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle* argsHandle) {
  return api_call("aclrtKernelArgsInit", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    return rt::kernel_args_init(funcHandle, argsHandle);
  });
}

aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, void* userHostMem,
                                      size_t actualArgsSize) {
  return api_call("aclrtKernelArgsInitByUserMem", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    if (userHostMem == nullptr) return invalid_param("userHostMem is NULL");
    if (actualArgsSize == 0) return invalid_param("actualArgsSize is 0");
    return rt::kernel_args_init_by_user_mem(funcHandle, argsHandle, userHostMem, actualArgsSize);
  });
}

aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void* param, size_t paramSize,
                               aclrtParamHandle* paramHandle) {
  return api_call("aclrtKernelArgsAppend", [&] {
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    if (param == nullptr) return invalid_param("param is NULL");
    if (paramSize == 0) return invalid_param("paramSize is 0");
    if (paramHandle == nullptr) return invalid_param("paramHandle is NULL");
    return rt::kernel_args_append(argsHandle, param, paramSize, paramHandle);
  });
}

aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle* paramHandle) {
  return api_call("aclrtKernelArgsAppendPlaceHolder", [&] {
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    if (paramHandle == nullptr) return invalid_param("paramHandle is NULL");
    return rt::kernel_args_append_placeholder(argsHandle, paramHandle);
  });
}

aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, size_t dataSize,
                                             void** bufferAddr) {
  return api_call("aclrtKernelArgsGetPlaceHolderBuffer", [&] {
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    if (paramHandle == nullptr) return invalid_param("paramHandle is NULL");
    if (dataSize == 0) return invalid_param("dataSize is 0");
    if (bufferAddr == nullptr) return invalid_param("bufferAddr is NULL");
    return rt::kernel_args_placeholder_buffer(argsHandle, paramHandle, dataSize, bufferAddr);
  });
}

aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void* param,
                                   size_t paramSize) {
  return api_call("aclrtKernelArgsParaUpdate", [&] {
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    if (paramHandle == nullptr) return invalid_param("paramHandle is NULL");
    if (param == nullptr) return invalid_param("param is NULL");
    if (paramSize == 0) return invalid_param("paramSize is 0");
    return rt::kernel_args_para_update(argsHandle, paramHandle, param, paramSize);
  });
}

aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle) {
  return api_call("aclrtKernelArgsFinalize", [&] {
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    return rt::kernel_args_finalize(argsHandle);
  });
}

aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData, size_t argsSize,
                           aclrtStream stream) {
  return api_call("aclrtLaunchKernel", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (argsData == nullptr) return invalid_param("argsData is NULL");
    if (numBlocks == 0) return rt_param_invalid("numBlocks is 0");
    if (argsSize == 0) return rt_param_invalid("argsSize is 0");
    return rt::launch_device_args(funcHandle, numBlocks, argsData, argsSize, nullptr, stream);
  });
}

aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                     aclrtLaunchKernelCfg* cfg, aclrtArgsHandle argsHandle, void* reserve) {
  return api_call("aclrtLaunchKernelWithConfig", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (argsHandle == nullptr) return invalid_param("argsHandle is NULL");
    if (numBlocks == 0) return invalid_param("numBlocks is 0");
    if (reserve != nullptr) return invalid_param("reserve must be NULL");
    return rt::launch_with_args_handle(funcHandle, numBlocks, stream, cfg, argsHandle);
  });
}

aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData, size_t argsSize,
                             aclrtLaunchKernelCfg* cfg, aclrtStream stream) {
  return api_call("aclrtLaunchKernelV2", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (argsData == nullptr) return invalid_param("argsData is NULL");
    if (numBlocks == 0) return rt_param_invalid("numBlocks is 0");
    if (argsSize == 0) return rt_param_invalid("argsSize is 0");
    return rt::launch_device_args(funcHandle, numBlocks, argsData, argsSize, cfg, stream);
  });
}

aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                       aclrtLaunchKernelCfg* cfg, void* hostArgs, size_t argsSize,
                                       aclrtPlaceHolderInfo* placeHolderArray, size_t placeHolderNum) {
  return api_call("aclrtLaunchKernelWithHostArgs", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (hostArgs == nullptr) return invalid_param("hostArgs is NULL");
    if (argsSize == 0) return rt_param_invalid("argsSize is 0");
    if (numBlocks == 0) return rt_param_invalid("numBlocks is 0");
    if (placeHolderNum != 0 && placeHolderArray == nullptr)
      return rt_param_invalid("placeHolderArray is NULL with placeHolderNum " + std::to_string(placeHolderNum));
    return rt::launch_host_args(funcHandle, numBlocks, stream, cfg, hostArgs, argsSize, placeHolderArray,
                                placeHolderNum);
  });
}

aclError aclrtLaunchKernelWithArgsArray(void* func, uint32_t numBlocks, aclrtStream stream, aclrtLaunchKernelCfg* cfg,
                                        void** args) {
  return api_call("aclrtLaunchKernelWithArgsArray", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    if (numBlocks == 0) return invalid_param("numBlocks is 0");
    return rt::launch_args_array(func, numBlocks, stream, cfg, args);
  });
}

aclError aclrtLaunchSIMTKernelWithArgsArray(void* func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize,
                                            aclrtStream stream, aclrtLaunchKernelCfg* cfg, void** args) {
  (void)dynUbufSize;
  (void)stream;
  (void)args;
  return api_call("aclrtLaunchSIMTKernelWithArgsArray", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    if (gridDim.x == 0 || gridDim.y == 0 || gridDim.z == 0 || blockDim.x == 0 || blockDim.y == 0 || blockDim.z == 0)
      return rt_param_invalid("a grid or block dimension is 0");
    return rt::launch_simt(func, cfg);
  });
}

aclError aclrtLaunchSIMTKernelWithHostArgs(void* func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize,
                                           aclrtStream stream, aclrtLaunchKernelCfg* cfg, void* hostArgs,
                                           size_t argsSize, aclrtPlaceHolderInfo* placeHolderArray,
                                           size_t placeHolderNum) {
  (void)dynUbufSize;
  (void)stream;
  return api_call("aclrtLaunchSIMTKernelWithHostArgs", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    if (hostArgs == nullptr) return invalid_param("hostArgs is NULL");
    if (argsSize == 0) return invalid_param("argsSize is 0");
    for (size_t i = 0; placeHolderArray != nullptr && i < placeHolderNum; ++i)
      if (placeHolderArray[i].addrOffset >= argsSize || placeHolderArray[i].dataOffset >= argsSize)
        return rt_param_invalid("placeholder " + std::to_string(i) + " lies outside the argument block");
    if (gridDim.x == 0 || gridDim.y == 0 || gridDim.z == 0 || blockDim.x == 0 || blockDim.y == 0 || blockDim.z == 0)
      return rt_param_invalid("a grid or block dimension is 0");
    return rt::launch_simt(func, cfg);
  });
}

}  // extern "C"
