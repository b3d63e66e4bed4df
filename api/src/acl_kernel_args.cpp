// Spec part 2, 4.x: kernel argument handles in caller-provided memory (aclrtKernelArgs*). The
// function handle they take cannot be created by this runtime yet (see arun/runtime/launch.hpp),
// so after the argument checks every call reports the handle as dead (107017, rule R4).
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize, size_t* actualArgsSize) {
  return api_call("aclrtKernelArgsGetMemSize", [&] {
    if (funcHandle == nullptr) return invalid_param("funcHandle is NULL");
    if (actualArgsSize == nullptr) return invalid_param("actualArgsSize is NULL");
    return rt::kernel_args_mem_size(funcHandle, userArgsSize, actualArgsSize);
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

}  // extern "C"
