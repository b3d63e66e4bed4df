// Front door implementation: kernel binaries, functions, argument handles and launch
// (arun/runtime/kernel_binaries.hpp; spec part 2, 4.11).
#include "arun/runtime/kernel_binaries.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>

#include "arun/runtime/launch.hpp"
#include "base/status_helpers.hpp"
#include "front/graph_kernels.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/graph.hpp"
#include "runtime/kernel_binaries.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"

namespace arun::rt {

namespace {

Status dead(const char* what, const void* handle) {
  return Status(Errc::rt_invalid_handle,
                std::string(what) + " " + hex(handle) + " is not live (never loaded, or unloaded)");
}

Status current_device(Runtime* rt, int32_t* device) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  *device = ctx->slot()->id();
  return Status::Ok();
}

Status find_binary(const void* handle, std::shared_ptr<LoadedBinary>* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  *out = rt->kernel_binaries().find_binary(handle);
  return *out ? Status::Ok() : dead("binHandle", handle);
}

Status find_function(const void* handle, std::shared_ptr<KernelFunction>* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  *out = rt->kernel_binaries().find_function(handle);
  return *out ? Status::Ok() : dead("funcHandle", handle);
}

// A function handle, or the entry address of a loaded kernel (what CANN calls a __global__ symbol).
Status find_function_or_symbol(const void* func, std::shared_ptr<KernelFunction>* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  *out = rt->kernel_binaries().find_function(func);
  if (!*out) *out = rt->kernel_binaries().find_by_entry_address(func, -1);
  return *out ? Status::Ok() : dead("func", func);
}

std::string kernel_where(const KernelFunction& f) {
  return "kernel '" + f.info->name + "' of " + f.image->origin();
}

// ---- argument handles: a header and one slot record per parameter in the handle's memory
constexpr uint64_t kArgsMagic = 0x4152554E41524753ull;  // "ARUNARGS"
constexpr size_t kHiddenBytes = 64;                     // CANN's room for hidden system parameters
constexpr size_t kThreadArgsData = 64 * 1024 + kHiddenBytes + 8 * ARUN_KERNEL_MAX_PARAMS;

struct ArgsSlot {
  uint32_t offset, size;
  uint32_t placeholder;
  uint32_t data_offset, data_size;  // the placeholder's data region (data_size 0: none yet)
  uint32_t reserved;
};
struct ArgsHeader {
  uint64_t magic;
  void* function;
  unsigned char* data;
  size_t capacity;
  size_t slots_end;  // the parameter slots end here; placeholder data follows
  size_t data_end;
  uint32_t count, max_params;
  uint32_t finalized, buffers_taken;
  ArgsSlot* slots() { return reinterpret_cast<ArgsSlot*>(this + 1); }
};
static_assert(sizeof(ArgsHeader) % alignof(ArgsSlot) == 0);

size_t handle_bytes(uint32_t params) {
  return sizeof(ArgsHeader) + sizeof(ArgsSlot) * (params == 0 ? 1 : params);
}

Status args_header(aclrtArgsHandle handle, ArgsHeader** out) {
  if (reinterpret_cast<uintptr_t>(handle) % alignof(ArgsHeader) != 0) return dead("argsHandle (misaligned)", handle);
  auto* h = static_cast<ArgsHeader*>(handle);
  if (h->magic != kArgsMagic) return dead("argsHandle", handle);
  *out = h;
  return Status::Ok();
}

Status param_slot(ArgsHeader* h, aclrtParamHandle param, ArgsSlot** out) {
  const uintptr_t index = reinterpret_cast<uintptr_t>(param);
  if (index == 0 || index > h->count)
    return Status(Errc::rt_param_invalid, "paramHandle " + hex(param) + " is not a parameter of this argument handle");
  *out = &h->slots()[index - 1];
  return Status::Ok();
}

void init_header(ArgsHeader* h, const KernelFunction& f, unsigned char* data, size_t capacity) {
  std::memset(h, 0, handle_bytes(static_cast<uint32_t>(f.info->param_sizes.size())));
  h->magic = kArgsMagic;
  h->function = f.handle();
  h->data = data;
  h->capacity = capacity;
  h->max_params = static_cast<uint32_t>(f.info->param_sizes.size());
}

Status next_slot(ArgsHeader* h, size_t size, ArgsSlot** out) {
  if (h->buffers_taken != 0)
    return Status(Errc::rt_feature_not_support,
                  "no parameter can be appended after aclrtKernelArgsGetPlaceHolderBuffer was used");
  if (h->count >= h->max_params)
    return Status(Errc::rt_param_invalid,
                  "the kernel has " + std::to_string(h->max_params) + " parameters; all are appended already");
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(h->function, &f));
  const uint32_t want = f->info->param_sizes[h->count];
  if (size != want)
    return Status(Errc::rt_param_invalid, "parameter " + std::to_string(h->count) + " of " + kernel_where(*f) +
                                              " has " + std::to_string(want) + " bytes, not " + std::to_string(size));
  const size_t slot = (size + 7) / 8 * 8;
  if (h->slots_end + slot > h->capacity)
    return Status(Errc::rt_param_invalid,
                  "the argument data buffer (" + std::to_string(h->capacity) + " bytes) is full");
  ArgsSlot* s = &h->slots()[h->count];
  *s = ArgsSlot{static_cast<uint32_t>(h->slots_end), static_cast<uint32_t>(size), 0, 0, 0, 0};
  std::memset(h->data + h->slots_end, 0, slot);
  h->slots_end += slot;
  h->data_end = h->slots_end;
  ++h->count;
  *out = s;
  return Status::Ok();
}

// ---- launches: the task's argument block owns a reference to the image (deferred unload). One
// heap block per launch: the header, then the argument bytes (16-byte aligned, like malloc's).
struct alignas(16) BinaryLaunch {
  std::shared_ptr<KernelBinaryImage> image;
  arunKernelFn entry = nullptr;
  const void* dev_args = nullptr;
  size_t dev_size = 0;
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(this + 1); }
};

void free_launch(void* p) {
  auto* l = static_cast<BinaryLaunch*>(p);
  l->~BinaryLaunch();
  ::operator delete(static_cast<void*>(l), std::align_val_t(alignof(BinaryLaunch)));
}
struct LaunchDeleter {
  void operator()(BinaryLaunch* l) const { free_launch(l); }
};
using LaunchPtr = std::unique_ptr<BinaryLaunch, LaunchDeleter>;

// A launch with `bytes` zeroed argument bytes, or nullptr when out of memory.
LaunchPtr new_launch(size_t bytes) {
  void* p = ::operator new(sizeof(BinaryLaunch) + bytes, std::align_val_t(alignof(BinaryLaunch)), std::nothrow);
  if (p == nullptr) return nullptr;
  auto* l = new (p) BinaryLaunch();
  std::memset(l->bytes(), 0, bytes);
  return LaunchPtr(l);
}

Status no_launch_memory() {
  return Status(Errc::rt_memory_allocation, "no memory for the argument block");
}

void run_packed(arunBlock* block, void* p) {
  auto* l = static_cast<BinaryLaunch*>(p);
  l->entry(block, l->bytes());
}
void run_device_args(arunBlock* block, void* p) {
  auto* l = static_cast<BinaryLaunch*>(p);
  void* host = block_map(block, l->dev_args, l->dev_size);  // faults the launch when not device memory
  if (host != nullptr) l->entry(block, host);
}

// What a launch tells a capture about itself (aclmdlRITaskGetParams): `args` / `size` are the
// packed bytes (host) or the caller's device block.
struct LaunchFacts {
  const aclrtLaunchKernelCfg* cfg;
  const void* args;
  size_t size;
  bool host;
};

Status submit(const KernelFunction& f, uint32_t blocks, aclrtStream stream, LaunchPtr l, arunKernelFn trampoline,
              const LaunchFacts& facts) {
  l->image = f.image;
  l->entry = f.info->entry;
  LaunchAttrs attrs;
  attrs.op_name = f.info->name.c_str();
  attrs.args_bytes = f.info->args_bytes;
  Runtime* rt = Runtime::instance();
  if (rt == nullptr || !rt->graphs().any_active()) [[likely]]
    return launch_kernel(stream, blocks, trampoline, l.release(), &free_launch, attrs);
  // A capture, a build or a task-group update may take the task: it keeps these facts.
  KernelLaunchInfo info;
  info.function = f.handle();
  info.args = facts.args != nullptr ? facts.args : l->bytes();
  info.args_size = facts.size;
  info.host_args = facts.host ? 1 : 0;
  info.blocks = blocks;
  if (facts.cfg != nullptr) info.attrs.assign(facts.cfg->attrs, facts.cfg->attrs + facts.cfg->numAttrs);
  set_pending_kernel_info(&info);
  Status st = launch_kernel(stream, blocks, trampoline, l.release(), &free_launch, attrs);
  set_pending_kernel_info(nullptr);
  return st;
}

Status too_small(const KernelFunction& f, size_t size) {
  return Status(Errc::rt_param_invalid, "argsSize " + std::to_string(size) + " is below the " +
                                            std::to_string(f.info->args_bytes) + "-byte argument block of " +
                                            kernel_where(f));
}

}  // namespace

Status inspect_kernel_binary(const char* path, std::vector<KernelSummary>* out) {
  std::shared_ptr<KernelBinaryImage> image;
  ARUN_RETURN_IF_ERROR(KernelBinaryImage::open(path, path, -1, &image));
  out->clear();
  for (const KernelInfo& k : image->kernels()) {
    KernelSummary s;
    s.name = k.name;
    s.func_entry = k.func_entry;
    s.default_block_dim = k.default_block_dim;
    s.kernel_type = k.kernel_type;
    s.sched_mode = k.sched_mode;
    s.args_bytes = k.args_bytes;
    s.param_sizes = k.param_sizes;
    s.param_offsets = k.param_offsets;
    s.code_size = k.code_size;
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

Status binary_load_file(const char* path, aclrtBinHandle* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  int32_t device = 0;
  ARUN_RETURN_IF_ERROR(current_device(rt, &device));
  // Only the file named: a path without a slash would make dlopen search the library path.
  if (path[0] != '/')
    return Status(Errc::rt_param_invalid, std::string("binPath '") + path + "' is not an absolute path");
  if (access(path, R_OK) != 0)
    return Status(Errc::rt_param_invalid, std::string("binPath '") + path + "' is not a readable file");
  std::shared_ptr<KernelBinaryImage> image;
  ARUN_RETURN_IF_ERROR(KernelBinaryImage::open(path, path, -1, &image));
  *out = rt->kernel_binaries().add(std::move(image), device);
  return Status::Ok();
}

Status binary_load_data(const void* data, size_t length, aclrtBinHandle* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  int32_t device = 0;
  ARUN_RETURN_IF_ERROR(current_device(rt, &device));
  std::shared_ptr<KernelBinaryImage> image;
  ARUN_RETURN_IF_ERROR(KernelBinaryImage::open_memory(data, length, &image));
  *out = rt->kernel_binaries().add(std::move(image), device);
  return Status::Ok();
}

Status binary_unload(aclrtBinHandle binary) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  return rt->kernel_binaries().remove(binary) ? Status::Ok() : dead("binHandle", binary);
}

Status binary_get_function(aclrtBinHandle binary, const char* name, aclrtFuncHandle* out) {
  std::shared_ptr<LoadedBinary> b;
  ARUN_RETURN_IF_ERROR(find_binary(binary, &b));
  int32_t device = 0;
  ARUN_RETURN_IF_ERROR(current_device(Runtime::instance(), &device));
  const auto& kernels = b->image->kernels();
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].name == name) {
      *out = b->functions[i];
      return Status::Ok();
    }
  }
  return Status(Errc::rt_param_invalid, std::string("kernel '") + name + "' is not in " + b->image->origin());
}

Status binary_get_function_by_entry(aclrtBinHandle binary, uint64_t entry, aclrtFuncHandle* out) {
  std::shared_ptr<LoadedBinary> b;
  ARUN_RETURN_IF_ERROR(find_binary(binary, &b));
  const auto& kernels = b->image->kernels();
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].func_entry == entry) {
      *out = b->functions[i];
      return Status::Ok();
    }
  }
  return Status(Errc::rt_param_invalid,
                "no kernel with function entry " + std::to_string(entry) + " in " + b->image->origin());
}

Status binary_dev_address(aclrtBinHandle binary, void** addr, size_t* size) {
  std::shared_ptr<LoadedBinary> b;
  ARUN_RETURN_IF_ERROR(find_binary(binary, &b));
  // The simulated NPU runs the code where it was mapped: the image's load address and file size.
  *addr = b->image->base();
  *size = b->image->image_size();
  return Status::Ok();
}

Status binary_global(aclrtBinHandle binary, const char* name, void** addr, size_t* size) {
  std::shared_ptr<LoadedBinary> b;
  ARUN_RETURN_IF_ERROR(find_binary(binary, &b));
  dlerror();
  void* p = dlsym(b->image->dl(), name);
  if (p == nullptr)
    return Status(static_cast<Errc>(ACL_ERROR_RT_SYMBOL_NOT_FOUND),
                  std::string("no global '") + name + "' in " + b->image->origin());
  if (addr != nullptr) *addr = p;
  if (size != nullptr) {
    Dl_info info{};
    ElfW(Sym)* sym = nullptr;
    *size = dladdr1(p, &info, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) != 0 && sym != nullptr ? sym->st_size : 0;
  }
  return Status::Ok();
}

Status binary_register_cpu_func(aclrtBinHandle binary) {
  std::shared_ptr<LoadedBinary> b;
  ARUN_RETURN_IF_ERROR(find_binary(binary, &b));
  return Status(Errc::rt_param_invalid,
                b->image->origin() + " is not an AI CPU binary (loaded with CPU_KERNEL_MODE 2)");
}

Status function_by_symbol(const void* symbol, aclrtFuncHandle* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  int32_t device = 0;
  ARUN_RETURN_IF_ERROR(current_device(rt, &device));
  auto f = rt->kernel_binaries().find_by_entry_address(symbol, device);
  if (!f)
    return Status(static_cast<Errc>(ACL_ERROR_RT_INVALID_DEVICE_FUNCTION),
                  "symbol " + hex(symbol) + " is not the entry of a kernel loaded on device " + std::to_string(device));
  *out = f->handle();
  return Status::Ok();
}

Status function_addr(aclrtFuncHandle function, void** aic, void** aiv) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  const bool vector = f->info->kernel_type == ACL_KERNEL_TYPE_VECTOR;
  void* entry = reinterpret_cast<void*>(f->info->entry);
  *aic = vector ? nullptr : entry;
  *aiv = vector || f->info->kernel_type == ACL_KERNEL_TYPE_MIX ? entry : nullptr;
  return Status::Ok();
}

Status function_size(aclrtFuncHandle function, size_t* aic, size_t* aiv) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  const bool vector = f->info->kernel_type == ACL_KERNEL_TYPE_VECTOR;
  *aic = vector ? 0 : f->info->code_size;
  *aiv = vector || f->info->kernel_type == ACL_KERNEL_TYPE_MIX ? f->info->code_size : 0;
  return Status::Ok();
}

Status function_name(aclrtFuncHandle function, uint32_t max_len, char* name) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  if (max_len < f->info->name.size() + 1)
    return Status(Errc::rt_param_invalid,
                  "maxLen " + std::to_string(max_len) + " cannot hold the name '" + f->info->name + "' and its NUL");
  std::memcpy(name, f->info->name.c_str(), f->info->name.size() + 1);
  return Status::Ok();
}

Status function_binary(aclrtFuncHandle function, aclrtBinHandle* out) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  *out = f->binary.load(std::memory_order_acquire);
  return Status::Ok();
}

Status function_param_count(const void* func, size_t* count) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function_or_symbol(func, &f));
  *count = f->info->param_sizes.size();
  return Status::Ok();
}

Status function_param_info(const void* func, size_t index, size_t* offset, size_t* size) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function_or_symbol(func, &f));
  if (index >= f->info->param_sizes.size())
    return Status(Errc::rt_param_invalid, "paramIndex " + std::to_string(index) + " is not below the " +
                                              std::to_string(f->info->param_sizes.size()) + " parameters of " +
                                              kernel_where(*f));
  if (offset != nullptr) *offset = f->info->param_offsets[index];
  if (size != nullptr) *size = f->info->param_sizes[index];
  return Status::Ok();
}

Status function_dyn_ubuf(const void* func, size_t* size) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function_or_symbol(func, &f));
  *size = 0;  // no kernel of this format is a SIMT kernel
  return Status::Ok();
}

Status function_attribute(aclrtFuncHandle function, int32_t attr, int64_t* value) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  switch (attr) {
    case ACL_FUNC_ATTR_KERNEL_TYPE:
      *value = f->info->kernel_type;
      return Status::Ok();
    case ACL_FUNC_ATTR_KERNEL_RATIO:
      if (f->info->kernel_type == ACL_KERNEL_TYPE_AICPU)
        return Status(Errc::rt_param_invalid, "KERNEL_RATIO of an AI CPU kernel");
      // A MIX kernel runs one cube and two vector parts per block ([1] = cube, [0] = vector).
      *value = f->info->kernel_type == ACL_KERNEL_TYPE_MIX ? ((int64_t{1} << 16) | 2) : 0;
      return Status::Ok();
    case ACL_FUNC_ATTR_KERNEL_SCHED_MODE:
      *value = f->info->sched_mode;
      return Status::Ok();
    default:
      return Status(Errc::rt_param_invalid, "attrType " + std::to_string(attr) + " is outside 1..3");
  }
}

Status kernel_args_handle_mem_size(aclrtFuncHandle function, size_t* out) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  *out = handle_bytes(static_cast<uint32_t>(f->info->param_sizes.size()));
  return Status::Ok();
}

Status kernel_args_mem_size(aclrtFuncHandle function, size_t user_args_size, size_t* out) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  const size_t extra = kHiddenBytes + 8 * f->info->param_sizes.size();
  if (user_args_size > SIZE_MAX - extra) return Status(Errc::rt_param_invalid, "userArgsSize overflows");
  *out = user_args_size + extra;
  return Status::Ok();
}

Status kernel_args_init(aclrtFuncHandle function, aclrtArgsHandle* out) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  // One per thread, reused by every Init of the thread (spec): 128 slots and 64 KiB of data.
  struct ThreadArgs {
    alignas(ArgsHeader) unsigned char handle[sizeof(ArgsHeader) + sizeof(ArgsSlot) * ARUN_KERNEL_MAX_PARAMS];
    alignas(16) unsigned char data[kThreadArgsData];
  };
  thread_local std::unique_ptr<ThreadArgs> mine;
  if (!mine) mine.reset(new (std::nothrow) ThreadArgs);
  if (!mine) return Status(Errc::rt_memory_allocation, "no memory for the thread's argument handle");
  auto* h = reinterpret_cast<ArgsHeader*>(mine->handle);
  init_header(h, *f, mine->data, sizeof mine->data);
  *out = h;
  return Status::Ok();
}

Status kernel_args_init_by_user_mem(aclrtFuncHandle function, aclrtArgsHandle args, void* user_host_mem,
                                    size_t actual_args_size) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  if (reinterpret_cast<uintptr_t>(args) % alignof(ArgsHeader) != 0)
    return Status(Errc::rt_param_invalid, "argsHandle memory is not 8-byte aligned");
  init_header(static_cast<ArgsHeader*>(args), *f, static_cast<unsigned char*>(user_host_mem), actual_args_size);
  return Status::Ok();
}

Status kernel_args_append(aclrtArgsHandle args, const void* param, size_t size, aclrtParamHandle* out) {
  ArgsHeader* h = nullptr;
  ARUN_RETURN_IF_ERROR(args_header(args, &h));
  ArgsSlot* s = nullptr;
  ARUN_RETURN_IF_ERROR(next_slot(h, size, &s));
  std::memcpy(h->data + s->offset, param, size);
  *out = reinterpret_cast<aclrtParamHandle>(uintptr_t(h->count));
  return Status::Ok();
}

Status kernel_args_append_placeholder(aclrtArgsHandle args, aclrtParamHandle* out) {
  ArgsHeader* h = nullptr;
  ARUN_RETURN_IF_ERROR(args_header(args, &h));
  ArgsSlot* s = nullptr;
  ARUN_RETURN_IF_ERROR(next_slot(h, sizeof(void*), &s));
  s->placeholder = 1;
  *out = reinterpret_cast<aclrtParamHandle>(uintptr_t(h->count));
  return Status::Ok();
}

Status kernel_args_placeholder_buffer(aclrtArgsHandle args, aclrtParamHandle param, size_t size, void** out) {
  ArgsHeader* h = nullptr;
  ARUN_RETURN_IF_ERROR(args_header(args, &h));
  ArgsSlot* s = nullptr;
  ARUN_RETURN_IF_ERROR(param_slot(h, param, &s));
  if (s->placeholder == 0) return Status(Errc::rt_param_invalid, "paramHandle " + hex(param) + " is not a placeholder");
  h->buffers_taken = 1;
  if (s->data_size >= size) {  // the same region again (refilled between launches)
    *out = h->data + s->data_offset;
    return Status::Ok();
  }
  const size_t start = (h->data_end + 7) / 8 * 8;
  if (size > h->capacity || start > h->capacity - size)
    return Status(Errc::rt_param_invalid, "the argument data buffer has no room for " + std::to_string(size) +
                                              " more bytes of placeholder data");
  s->data_offset = static_cast<uint32_t>(start);
  s->data_size = static_cast<uint32_t>(size);
  h->data_end = start + size;
  *out = h->data + start;
  return Status::Ok();
}

Status kernel_args_para_update(aclrtArgsHandle args, aclrtParamHandle param, const void* value, size_t size) {
  ArgsHeader* h = nullptr;
  ARUN_RETURN_IF_ERROR(args_header(args, &h));
  ArgsSlot* s = nullptr;
  ARUN_RETURN_IF_ERROR(param_slot(h, param, &s));
  if (s->placeholder != 0) return Status(Errc::rt_param_invalid, "a placeholder slot cannot be updated");
  if (size != s->size)
    return Status(Errc::rt_param_invalid, "paramSize " + std::to_string(size) + " differs from the " +
                                              std::to_string(s->size) + " bytes appended");
  std::memcpy(h->data + s->offset, value, size);
  return Status::Ok();
}

Status kernel_args_finalize(aclrtArgsHandle args) {
  ArgsHeader* h = nullptr;
  ARUN_RETURN_IF_ERROR(args_header(args, &h));
  std::shared_ptr<KernelFunction> f;
  if (!find_function(h->function, &f).ok())
    return Status(Errc::rt_param_invalid, "the argument handle's function is no longer loaded");
  if (h->count != h->max_params)
    return Status(Errc::rt_param_invalid, std::to_string(h->count) + " of the " + std::to_string(h->max_params) +
                                              " parameters of " + kernel_where(*f) + " are appended");
  h->finalized = 1;
  return Status::Ok();
}

Status check_launch_cfg(const aclrtLaunchKernelCfg* cfg) {
  if (cfg == nullptr) return Status::Ok();
  if (cfg->attrs == nullptr) return Status(Errc::rt_param_invalid, "cfg->attrs is NULL");
  // Messages are built only on failure: a valid cfg costs no allocation per launch.
  auto fail = [](size_t i, const std::string& what) {
    return Status(Errc::rt_param_invalid, "cfg->attrs[" + std::to_string(i) + "]: " + what);
  };
  bool timeout = false, timeout_us = false;
  for (size_t i = 0; i < cfg->numAttrs; ++i) {
    const aclrtLaunchKernelAttr& a = cfg->attrs[i];
    int32_t id = 0;
    std::memcpy(&id, &a.id, sizeof id);  // any int a C caller passed
    uint8_t flag = 0;
    const char* flag_name = nullptr;
    switch (id) {
      case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
        flag = a.value.schemMode, flag_name = "schemMode";
        break;
      case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
      case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE:
      case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET:
        break;
      case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH:
        flag = a.value.isBlockTaskPrefetch, flag_name = "isBlockTaskPrefetch";
        break;
      case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
        flag = a.value.isDataDump, flag_name = "isDataDump";
        break;
      case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
        timeout = true;
        break;
      case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
        timeout_us = true;
        break;
      case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING:
        flag = a.value.enableProfiling, flag_name = "enableProfiling";
        break;
      default:
        return fail(i, "id " + std::to_string(id) + " is outside 1..9");
    }
    if (flag > 1) return fail(i, std::string(flag_name) + " must be 0 or 1");
  }
  if (timeout && timeout_us) return Status(Errc::rt_param_invalid, "cfg sets both TIMEOUT and TIMEOUT_US");
  return Status::Ok();
}

Status launch_with_args_handle(aclrtFuncHandle function, uint32_t blocks, aclrtStream stream,
                               const aclrtLaunchKernelCfg* cfg, aclrtArgsHandle args) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  ARUN_RETURN_IF_ERROR(check_launch_cfg(cfg));
  ArgsHeader* h = nullptr;
  ARUN_RETURN_IF_ERROR(args_header(args, &h));
  if (h->function != function)
    return Status(Errc::rt_param_invalid, "argsHandle was initialised for another function than " + kernel_where(*f));
  if (h->finalized == 0) return Status(Errc::rt_param_invalid, "argsHandle is not finalized (aclrtKernelArgsFinalize)");
  LaunchPtr l = new_launch(h->data_end);
  if (!l) return no_launch_memory();
  std::memcpy(l->bytes(), h->data, h->data_end);
  // Placeholders get the address of their region inside this copy: it travels with the launch.
  for (uint32_t i = 0; i < h->count; ++i) {
    const ArgsSlot& s = h->slots()[i];
    if (s.placeholder == 0) continue;
    void* where = s.data_size != 0 ? l->bytes() + s.data_offset : nullptr;
    std::memcpy(l->bytes() + s.offset, &where, sizeof where);
  }
  const size_t packed = h->data_end;
  return submit(*f, blocks, stream, std::move(l), &run_packed, {cfg, nullptr, packed, true});
}

Status launch_device_args(aclrtFuncHandle function, uint32_t blocks, const void* dev_args, size_t size,
                          const aclrtLaunchKernelCfg* cfg, aclrtStream stream) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  ARUN_RETURN_IF_ERROR(check_launch_cfg(cfg));
  if (stream != nullptr) {
    // aclrtLaunchKernel on a DEVICE_USE_ONLY stream: CANN's 507000 for AI CPU kernels, and the
    // spec's choice for AI Core ones too.
    auto st = Runtime::instance()->find_stream(stream);
    if (st && (st->flags() & ACL_STREAM_DEVICE_USE_ONLY) != 0)
      return Status(Errc::rt_internal_error,
                    "a kernel cannot be launched on a stream created with "
                    "ACL_STREAM_DEVICE_USE_ONLY");
  }
  if (size < f->info->args_bytes) return too_small(*f, size);
  LaunchPtr l = new_launch(0);
  if (!l) return no_launch_memory();
  l->dev_args = dev_args;
  l->dev_size = size;
  return submit(*f, blocks, stream, std::move(l), &run_device_args, {cfg, dev_args, size, false});
}

Status launch_host_args(aclrtFuncHandle function, uint32_t blocks, aclrtStream stream, const aclrtLaunchKernelCfg* cfg,
                        const void* host_args, size_t size, const aclrtPlaceHolderInfo* placeholders,
                        size_t num_placeholders) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  ARUN_RETURN_IF_ERROR(check_launch_cfg(cfg));
  if (size < f->info->args_bytes) return too_small(*f, size);
  if (size > (size_t(1) << 30)) return Status(Errc::rt_param_invalid, "argsSize above 1 GiB");
  for (size_t i = 0; i < num_placeholders; ++i) {
    const aclrtPlaceHolderInfo& p = placeholders[i];
    if (p.addrOffset >= size || size - p.addrOffset < sizeof(void*) || p.dataOffset >= size)
      return Status(Errc::rt_param_invalid, "placeholder " + std::to_string(i) + " (addrOffset " +
                                                std::to_string(p.addrOffset) + ", dataOffset " +
                                                std::to_string(p.dataOffset) + ") lies outside the " +
                                                std::to_string(size) + "-byte argument block");
  }
  LaunchPtr l = new_launch(size);
  if (!l) return no_launch_memory();
  std::memcpy(l->bytes(), host_args, size);
  for (size_t i = 0; i < num_placeholders; ++i) {
    void* where = l->bytes() + placeholders[i].dataOffset;
    std::memcpy(l->bytes() + placeholders[i].addrOffset, &where, sizeof where);
  }
  return submit(*f, blocks, stream, std::move(l), &run_packed, {cfg, nullptr, size, true});
}

Status launch_args_array(const void* func, uint32_t blocks, aclrtStream stream, const aclrtLaunchKernelCfg* cfg,
                         void* const* args) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function_or_symbol(func, &f));
  ARUN_RETURN_IF_ERROR(check_launch_cfg(cfg));
  const KernelInfo& k = *f->info;
  if (args == nullptr && !k.param_sizes.empty())
    return Status(Errc::rt_param_invalid, "args is NULL but " + kernel_where(*f) + " has parameters");
  LaunchPtr l = new_launch(k.args_bytes);
  if (!l) return no_launch_memory();
  for (size_t i = 0; i < k.param_sizes.size(); ++i) {
    if (args[i] == nullptr) return Status(Errc::rt_param_invalid, "args[" + std::to_string(i) + "] is NULL");
    std::memcpy(l->bytes() + k.param_offsets[i], args[i], k.param_sizes[i]);
  }
  return submit(*f, blocks, stream, std::move(l), &run_packed, {cfg, nullptr, k.args_bytes, true});
}

Status graph_kernel_block(void* function, const void* args, size_t size, bool host_args,
                          const aclrtLaunchKernelCfg* cfg, GraphKernelBlock* out) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function(function, &f));
  ARUN_RETURN_IF_ERROR(check_launch_cfg(cfg));
  if (size < f->info->args_bytes) return too_small(*f, size);
  if (size > (size_t(1) << 30)) return Status(Errc::rt_param_invalid, "argsSize above 1 GiB");
  LaunchPtr l = new_launch(host_args ? size : 0);
  if (!l) return no_launch_memory();
  if (host_args) {
    std::memcpy(l->bytes(), args, size);
    out->args_view = l->bytes();
  } else {
    l->dev_args = args;
    l->dev_size = size;
    out->args_view = args;
  }
  l->image = f->image;
  l->entry = f->info->entry;
  out->trampoline = host_args ? &run_packed : &run_device_args;
  out->free = &free_launch;
  out->args_bytes = f->info->args_bytes;
  out->block = l.release();
  return Status::Ok();
}

Status launch_simt(const void* func, const aclrtLaunchKernelCfg* cfg) {
  std::shared_ptr<KernelFunction> f;
  ARUN_RETURN_IF_ERROR(find_function_or_symbol(func, &f));
  ARUN_RETURN_IF_ERROR(check_launch_cfg(cfg));
  return Status(Errc::rt_feature_not_support, "SIMT launches need an Ascend 950; this SoC has no SIMT units");
}

}  // namespace arun::rt

namespace arun::rt {

namespace {
struct BinaryDescs {
  std::mutex mu;
  uint64_t next = 1;
  std::unordered_map<uint64_t, std::pair<const void*, size_t>> live;
};
BinaryDescs& descs() {
  static BinaryDescs* d = new BinaryDescs();  // leaked: usable during exit
  return *d;
}
// Tagged like HandleTable ids (kind 7), never reused.
uint64_t desc_id(uint64_t serial) {
  return (uint64_t(0xA5C) << 48) | (serial << 4) | 7u;
}
}  // namespace

void* binary_desc_create(const void* data, size_t length) {
  auto& d = descs();
  std::lock_guard lock(d.mu);
  const uint64_t id = desc_id(d.next++);
  d.live.emplace(id, std::make_pair(data, length));
  return reinterpret_cast<void*>(id);
}

Status binary_desc_destroy(void* desc) {
  auto& d = descs();
  std::lock_guard lock(d.mu);
  if (d.live.erase(reinterpret_cast<uint64_t>(desc)) == 0) return dead("binary", desc);
  return Status::Ok();
}

Status binary_desc_get(void* desc, const void** data, size_t* length) {
  auto& d = descs();
  std::lock_guard lock(d.mu);
  auto it = d.live.find(reinterpret_cast<uint64_t>(desc));
  if (it == d.live.end()) return dead("binary", desc);
  *data = it->second.first;
  *length = it->second.second;
  return Status::Ok();
}

}  // namespace arun::rt
