// Kernel binaries (spec part 2, 4.11; format: arun/kernel_binary.h, docs/kernel-binaries.md): the
// parser and the runtime's table of loaded binaries and their function handles.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arun/core/status.hpp"
#include "arun/kernel_binary.h"
#include "runtime/handle_table.hpp"

namespace arun {

// One kernel as the loader checked it.
struct KernelInfo {
  std::string name;
  uint64_t func_entry = 0;
  uint32_t default_block_dim = 1;
  uint32_t kernel_type = 0;
  uint32_t sched_mode = 0;
  std::vector<uint32_t> param_sizes;
  std::vector<uint32_t> param_offsets;  // 8-byte slots in declaration order
  uint32_t args_bytes = 0;              // the sum of the slots
  arunKernelFn entry = nullptr;
  size_t code_size = 0;  // the entry symbol's st_size (0 if the ELF does not say)
};

// An opened binary. Shared by its LoadedBinary and every launch still queued, so the code stays
// mapped until the last launch is done (aclrtBinaryUnLoad defers, spec 4.11).
class KernelBinaryImage {
 public:
  ~KernelBinaryImage();
  // Opens `path` (what dlopen sees) and checks the format; `origin` names it in messages (the
  // program's path, or "<memory ...>"). `memfd` (or -1) is closed with the image.
  static Status open(const std::string& path, const std::string& origin, int memfd,
                     std::shared_ptr<KernelBinaryImage>* out);
  // The same from `size` bytes of memory, through a sealed memfd (never a file on disk).
  static Status open_memory(const void* data, size_t size, std::shared_ptr<KernelBinaryImage>* out);

  const std::string& origin() const { return origin_; }
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  void* dl() const { return dl_; }
  void* base() const { return base_; }
  size_t image_size() const { return image_size_; }

 private:
  KernelBinaryImage() = default;
  void* dl_ = nullptr;
  int memfd_ = -1;
  std::string origin_;
  std::vector<KernelInfo> kernels_;
  void* base_ = nullptr;
  size_t image_size_ = 0;
};

struct KernelFunction;

struct LoadedBinary {
  std::shared_ptr<KernelBinaryImage> image;
  int32_t device = 0;
  std::vector<void*> functions;  // one handle per kernel, image->kernels() order
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }

 private:
  void* handle_ = nullptr;
};

struct KernelFunction {
  std::shared_ptr<KernelBinaryImage> image;
  const KernelInfo* info = nullptr;
  // The aclrtBinHandle: set right after the binary's handle exists, which is after this function's
  // (a concurrent aclrtGetFuncBySymbol may see the function first).
  std::atomic<void*> binary{nullptr};
  int32_t device = 0;
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }

 private:
  void* handle_ = nullptr;
};

class KernelBinaryTable {
 public:
  // Registers `image` for `device`: a binary handle and one function handle per kernel.
  void* add(std::shared_ptr<KernelBinaryImage> image, int32_t device);
  std::shared_ptr<LoadedBinary> find_binary(const void* handle) const { return binaries_.find(handle); }
  std::shared_ptr<KernelFunction> find_function(const void* handle) const { return functions_.find(handle); }
  // The function whose entry is `symbol` on `device` (< 0: any device), or nullptr.
  std::shared_ptr<KernelFunction> find_by_entry_address(const void* symbol, int32_t device) const;
  // Drops the binary and its function handles; false if `handle` is not live.
  bool remove(const void* handle);

 private:
  HandleTable<LoadedBinary> binaries_{HandleKind::Binary};
  HandleTable<KernelFunction> functions_{HandleKind::Function};
};

}  // namespace arun
