// Kernel binaries: loading and checking the format (arun/kernel_binary.h), and the handle table.
#include "runtime/kernel_binaries.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace arun {

namespace {

// A descriptor table is trusted no further than this: a corrupt binary is an error, not a loop
// over garbage.
constexpr size_t kMaxKernels = 65536;

Status bad(const std::string& origin, const std::string& what) {
  return Status(Errc::rt_param_invalid, "kernel binary " + origin + ": " + what);
}

// The symbol size the ELF records for `addr` (0 if unknown).
size_t symbol_size(const void* addr) {
  Dl_info info{};
  ElfW(Sym)* sym = nullptr;
  if (dladdr1(addr, &info, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) == 0 || sym == nullptr) return 0;
  return sym->st_size;
}

// The object that defines `addr`, or nullptr.
link_map* defined_by(const void* addr) {
  Dl_info info{};
  link_map* owner = nullptr;
  if (dladdr1(addr, &info, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) == 0) return nullptr;
  return owner;
}

}  // namespace

KernelBinaryImage::~KernelBinaryImage() {
  if (dl_ != nullptr) dlclose(dl_);
  if (memfd_ >= 0) close(memfd_);
}

Status KernelBinaryImage::open(const std::string& path, const std::string& origin, int memfd,
                               std::shared_ptr<KernelBinaryImage>* out) {
  std::shared_ptr<KernelBinaryImage> image(new KernelBinaryImage());
  image->memfd_ = memfd;
  image->origin_ = origin;
  // RTLD_LOCAL: two binaries may export the same kernel names; RTLD_NOW: an unresolved reference
  // fails here, not in the middle of a launch.
  image->dl_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (image->dl_ == nullptr) {
    const char* err = dlerror();
    return bad(origin, std::string("not a loadable shared object (") + (err ? err : "dlopen failed") + ")");
  }
  link_map* self = nullptr;
  if (dlinfo(image->dl_, RTLD_DI_LINKMAP, &self) != 0 || self == nullptr)
    return bad(origin, "cannot read its link map");
  const auto* header = static_cast<const arunKernelBinaryHeader*>(dlsym(image->dl_, ARUN_KERNEL_BINARY_SYMBOL));
  if (header != nullptr && defined_by(header) != self) header = nullptr;  // not one of a dependency's
  if (header == nullptr)
    return bad(origin, "no '" ARUN_KERNEL_BINARY_SYMBOL "' descriptor table (not an ascend-run kernel binary)");
  if (header->magic != ARUN_KERNEL_BINARY_MAGIC) {
    char text[96];
    std::snprintf(text, sizeof text, "bad magic 0x%08x (expected 0x%08x)", header->magic, ARUN_KERNEL_BINARY_MAGIC);
    return bad(origin, text);
  }
  if (header->abiVersion != ARUN_KERNEL_BINARY_ABI_VERSION)
    return bad(origin, "kernel ABI version " + std::to_string(header->abiVersion) +
                           " is not supported (this runtime: " + std::to_string(ARUN_KERNEL_BINARY_ABI_VERSION) + ")");
  const arunKernelDesc* const* begin = header->begin;
  const arunKernelDesc* const* end = header->end;
  if ((begin == nullptr) != (end == nullptr) || end < begin || size_t(end - begin) > kMaxKernels)
    return bad(origin, "corrupt descriptor table bounds");
  std::set<std::string> names;
  std::set<uint64_t> entries;
  for (const arunKernelDesc* const* it = begin; it != end; ++it) {
    const arunKernelDesc* d = *it;
    if (d == nullptr) return bad(origin, "a null kernel descriptor");
    KernelInfo k;
    if (d->name == nullptr || d->name[0] == '\0') return bad(origin, "a kernel descriptor has no name");
    k.name = d->name;
    const std::string where = "kernel '" + k.name + "': ";
    if (!names.insert(k.name).second) return bad(origin, where + "defined twice");
    if (!entries.insert(d->funcEntry).second)
      return bad(origin, where + "function entry " + std::to_string(d->funcEntry) + " is used twice");
    if (d->paramCount > ARUN_KERNEL_MAX_PARAMS)
      return bad(origin, where + std::to_string(d->paramCount) + " parameters (at most 128)");
    if (d->paramCount != 0 && d->paramSizes == nullptr) return bad(origin, where + "no parameter sizes");
    if (d->defaultBlockDim == 0) return bad(origin, where + "default block dim 0");
    if (d->schedMode > 1) return bad(origin, where + "schedMode " + std::to_string(d->schedMode));
    uint64_t offset = 0;
    for (uint32_t i = 0; i < d->paramCount; ++i) {
      const uint32_t size = d->paramSizes[i];
      if (size == 0 || size > 65536)
        return bad(origin, where + "parameter " + std::to_string(i) + " has size " + std::to_string(size));
      k.param_sizes.push_back(size);
      k.param_offsets.push_back(static_cast<uint32_t>(offset));
      offset += (uint64_t(size) + 7) / 8 * 8;
    }
    if (offset > 65536) return bad(origin, where + "argument block above 64 KiB");
    k.args_bytes = static_cast<uint32_t>(offset);
    k.func_entry = d->funcEntry;
    k.default_block_dim = d->defaultBlockDim;
    k.kernel_type = d->kernelType;
    k.sched_mode = d->schedMode;
    k.entry = reinterpret_cast<arunKernelFn>(dlsym(image->dl_, d->name));
    // dlsym also searches the binary's dependencies: the entry must be defined by the binary itself.
    if (k.entry != nullptr && defined_by(reinterpret_cast<const void*>(k.entry)) != self) k.entry = nullptr;
    if (k.entry == nullptr) return bad(origin, where + "its entry symbol is missing (not exported by the binary)");
    k.code_size = symbol_size(reinterpret_cast<const void*>(k.entry));
    image->kernels_.push_back(std::move(k));
  }
  image->base_ = reinterpret_cast<void*>(self->l_addr);
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) image->image_size_ = static_cast<size_t>(st.st_size);
  *out = std::move(image);
  return Status::Ok();
}

Status KernelBinaryImage::open_memory(const void* data, size_t size, std::shared_ptr<KernelBinaryImage>* out) {
  char origin[64];
  std::snprintf(origin, sizeof origin, "<memory %p, %zu bytes>", data, size);
  int fd = memfd_create("arun-kernel-binary", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Status(Errc::rt_internal_error, std::string("memfd_create: ") + std::strerror(errno));
  const auto* p = static_cast<const unsigned char*>(data);
  size_t left = size;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return Status(Errc::rt_internal_error,
                    std::string("writing the kernel binary to a memfd: ") + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // Sealed: what dlopen maps is exactly the bytes copied here, whatever the caller does next.
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    const int err = errno;
    close(fd);
    return Status(Errc::rt_internal_error, std::string("sealing the kernel binary memfd: ") + std::strerror(err));
  }
  return open("/proc/self/fd/" + std::to_string(fd), origin, fd, out);
}

void* KernelBinaryTable::add(std::shared_ptr<KernelBinaryImage> image, int32_t device) {
  auto binary = std::make_shared<LoadedBinary>();
  binary->image = image;
  binary->device = device;
  // Function handles first, so a binary handle is never visible without them.
  std::vector<void*> functions;
  for (const KernelInfo& k : image->kernels()) {
    auto f = std::make_shared<KernelFunction>();
    f->image = image;
    f->info = &k;
    f->device = device;
    functions.push_back(functions_.add(f));
  }
  binary->functions = functions;
  void* handle = binaries_.add(binary);
  for (void* f : functions) functions_.find(f)->binary.store(handle, std::memory_order_release);
  return handle;
}

std::shared_ptr<KernelFunction> KernelBinaryTable::find_by_entry_address(const void* symbol, int32_t device) const {
  for (const auto& f : functions_.snapshot())
    if ((device < 0 || f->device == device) && reinterpret_cast<const void*>(f->info->entry) == symbol) return f;
  return nullptr;
}

bool KernelBinaryTable::remove(const void* handle) {
  auto binary = binaries_.remove(handle);
  if (binary == nullptr) return false;
  for (void* f : binary->functions) functions_.remove(f);
  return true;
}

}  // namespace arun
