// Front door: kernel binaries, function handles, argument handles and launch (spec part 2, 4.11;
// the binary format: arun/kernel_binary.h). Conventions: front_door.hpp. Binary and function
// handles are never-reused ids of the runtime's KernelBinaryTable; an argument handle lives in
// caller memory (aclrtKernelArgsInitByUserMem) or in the thread's own slot (aclrtKernelArgsInit)
// and is recognised by a magic word, so a forged one is rt_invalid_handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// What `ascend-run kernel-info` prints (no aclInit needed).
struct KernelSummary {
  std::string name;
  uint64_t func_entry = 0;
  uint32_t default_block_dim = 1, kernel_type = 0, sched_mode = 0, args_bytes = 0;
  std::vector<uint32_t> param_sizes, param_offsets;
  size_t code_size = 0;
};
// Checks the binary at `path` as a load does; rt_param_invalid with the file and kernel on error.
Status inspect_kernel_binary(const char* path, std::vector<KernelSummary>* out);

// Loads (options checked by the caller); bound to the current context's device.
Status binary_load_file(const char* path, aclrtBinHandle* out);
Status binary_load_data(const void* data, size_t length, aclrtBinHandle* out);
// Drops the handles at once; launches already queued keep the code until they complete.
Status binary_unload(aclrtBinHandle binary);
Status binary_get_function(aclrtBinHandle binary, const char* name, aclrtFuncHandle* out);
Status binary_get_function_by_entry(aclrtBinHandle binary, uint64_t entry, aclrtFuncHandle* out);
Status binary_dev_address(aclrtBinHandle binary, void** addr, size_t* size);
Status binary_global(aclrtBinHandle binary, const char* name, void** addr, size_t* size);
// aclrtRegisterCpuFunc: no binary here is an AI CPU binary (rt_param_invalid after the handle check).
Status binary_register_cpu_func(aclrtBinHandle binary);

Status function_by_symbol(const void* symbol, aclrtFuncHandle* out);
Status function_addr(aclrtFuncHandle function, void** aic, void** aiv);
Status function_size(aclrtFuncHandle function, size_t* aic, size_t* aiv);
Status function_name(aclrtFuncHandle function, uint32_t max_len, char* name);
Status function_binary(aclrtFuncHandle function, aclrtBinHandle* out);
// `func`: a function handle or a kernel entry address (the "__global__ symbol" of our binaries).
Status function_param_count(const void* func, size_t* count);
Status function_param_info(const void* func, size_t index, size_t* offset, size_t* size);
Status function_dyn_ubuf(const void* func, size_t* size);
Status function_attribute(aclrtFuncHandle function, int32_t attr, int64_t* value);

Status kernel_args_handle_mem_size(aclrtFuncHandle function, size_t* out);
Status kernel_args_mem_size(aclrtFuncHandle function, size_t user_args_size, size_t* out);
Status kernel_args_init(aclrtFuncHandle function, aclrtArgsHandle* out);
Status kernel_args_init_by_user_mem(aclrtFuncHandle function, aclrtArgsHandle args, void* user_host_mem,
                                    size_t actual_args_size);
Status kernel_args_append(aclrtArgsHandle args, const void* param, size_t size, aclrtParamHandle* out);
Status kernel_args_append_placeholder(aclrtArgsHandle args, aclrtParamHandle* out);
Status kernel_args_placeholder_buffer(aclrtArgsHandle args, aclrtParamHandle param, size_t size, void** out);
Status kernel_args_para_update(aclrtArgsHandle args, aclrtParamHandle param, const void* value, size_t size);
Status kernel_args_finalize(aclrtArgsHandle args);

// Launches. The function handle is checked first (R4), then `cfg` (may be nullptr; its rules are
// rt_param_invalid, spec 4.11 "Validation"), then the arguments. A valid cfg does not change how
// the simulated NPU runs the kernel (docs/kernel-binaries.md).
Status check_launch_cfg(const aclrtLaunchKernelCfg* cfg);
Status launch_with_args_handle(aclrtFuncHandle function, uint32_t blocks, aclrtStream stream,
                               const aclrtLaunchKernelCfg* cfg, aclrtArgsHandle args);
Status launch_device_args(aclrtFuncHandle function, uint32_t blocks, const void* dev_args, size_t size,
                          const aclrtLaunchKernelCfg* cfg, aclrtStream stream);
Status launch_host_args(aclrtFuncHandle function, uint32_t blocks, aclrtStream stream, const aclrtLaunchKernelCfg* cfg,
                        const void* host_args, size_t size, const aclrtPlaceHolderInfo* placeholders,
                        size_t num_placeholders);
Status launch_args_array(const void* func, uint32_t blocks, aclrtStream stream, const aclrtLaunchKernelCfg* cfg,
                         void* const* args);
// SIMT launches: the function is checked, then rt_feature_not_support (the SoC has no SIMT units).
Status launch_simt(const void* func, const aclrtLaunchKernelCfg* cfg);

}  // namespace arun::rt

namespace arun::rt {
// aclrtCreateBinary / aclrtDestroyBinary descriptors: process scope (no aclInit needed), kept in a
// table so a forged or destroyed descriptor is rt_invalid_handle, never a dereference.
void* binary_desc_create(const void* data, size_t length);  // never nullptr (throws bad_alloc)
Status binary_desc_destroy(void* desc);
Status binary_desc_get(void* desc, const void** data, size_t* length);
}  // namespace arun::rt
