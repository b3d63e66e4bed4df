// ascend-run extension: device kernels in C++ (not part of CANN).
//
// A kernel is any function or callable whose first parameter is arun::Block and whose further
// parameters are the launch arguments:
//
//   void scale(arun::Block b, float* data, size_t n, float factor) {
//     auto v = b.map(data, n);                  // checked host view of device memory
//     for (size_t i : b.range(n)) v[i] *= factor;  // this block's share of [0, n)
//   }
//   arun::launch(stream, 8, scale, devPtr, n, 2.0f);  // 8 blocks, one task in stream order
//
// Arguments are copied when the kernel is launched (like CUDA's kernel parameters) and every block
// receives the same copies as const values, so blocks running in parallel share nothing mutable
// but device memory. A block reports a fault with trap() / fail(), or by touching memory outside
// its views; the launch then fails and the next synchronize of its stream returns the code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "acl/acl_base.h"
#include "acl/error_codes/rt_error_codes.h"
#include "arun/kernel.h"

namespace arun {

// Thrown by Block's checks to end the current block; the launch has already been failed with
// code(). The launch wrapper catches it, so a kernel only sees it if it catches everything.
class KernelFault : public std::exception {
 public:
  explicit KernelFault(aclError code) : code_(code) {}
  aclError code() const noexcept { return code_; }
  const char* what() const noexcept override { return "ascend-run kernel fault"; }

 private:
  aclError code_;
};

// A host view of `size()` elements of device memory, valid for the block that mapped it. Indexing
// is bounds-checked: an index outside the view faults the launch instead of touching other memory.
template <class T>
class DeviceSpan {
 public:
  DeviceSpan(T* data, size_t size, arunBlock* block) : data_(data), size_(size), block_(block) {}

  T& operator[](size_t i) const {
    if (i >= size_) out_of_range(i);
    return data_[i];
  }
  size_t size() const { return size_; }
  // Unchecked access for inner loops that have checked their bounds once.
  T* data() const { return data_; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }

 private:
  [[noreturn]] void out_of_range(size_t) const {
    arunBlockFault(block_, ACL_ERROR_RT_AICORE_EXCEPTION, "AI Core exception: index outside the mapped device view");
    throw KernelFault(ACL_ERROR_RT_AICORE_EXCEPTION);
  }

  T* data_;
  size_t size_;
  arunBlock* block_;
};

// Half-open index range [first, last) with the iterator a range-for needs.
struct IndexRange {
  struct iterator {
    size_t i;
    size_t operator*() const { return i; }
    iterator& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const iterator& o) const { return i != o.i; }
  };
  size_t first = 0;
  size_t last = 0;
  iterator begin() const { return {first}; }
  iterator end() const { return {last}; }
  size_t size() const { return last - first; }
};

// What one block sees: which block it is, and checked access to device memory.
class Block {
 public:
  explicit Block(arunBlock* native) : native_(native) {}

  uint32_t index() const { return arunBlockIdx(native_); }
  uint32_t count() const { return arunBlockDim(native_); }

  // This block's contiguous share of [0, n): blocks get ceil(n / count) elements each, in order,
  // the last ones fewer or none.
  IndexRange range(size_t n) const {
    const size_t blocks = count();
    const size_t chunk = (n + blocks - 1) / blocks;
    const size_t first = std::min(n, chunk * index());
    return {first, std::min(n, first + chunk)};
  }

  // A checked view of n elements of device memory starting at `device` (a pointer from aclrtMalloc,
  // possibly offset). Faults the launch with ACL_ERROR_RT_AICORE_EXCEPTION and ends the block if
  // the range is not inside one live allocation.
  template <class T>
  DeviceSpan<T> map(T* device, size_t n) const {
    if (n > SIZE_MAX / sizeof(T)) fail(ACL_ERROR_RT_AICORE_EXCEPTION, "AI Core exception: view size overflows");
    void* host;
    if constexpr (std::is_const_v<T>) {
      host = const_cast<void*>(arunBlockMapRead(native_, device, n * sizeof(T)));  // a read-only view
    } else {
      host = arunBlockMap(native_, device, n * sizeof(T));
    }
    if (host == nullptr) throw KernelFault(ACL_ERROR_RT_AICORE_EXCEPTION);
    return DeviceSpan<T>(static_cast<T*>(host), n, native_);
  }
  template <class T>
  T& at(T* device) const {
    return map(device, 1)[0];
  }

  // Ends the block and fails the launch with a trap (ACL_ERROR_RT_AICORE_TRAP_EXCEPTION).
  [[noreturn]] void trap(const char* message) const { fail(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, message); }
  // Ends the block and fails the launch with `code`.
  [[noreturn]] void fail(aclError code, const char* message) const {
    arunBlockFault(native_, code, message);
    throw KernelFault(code == ACL_SUCCESS ? ACL_ERROR_RT_AICORE_EXCEPTION : code);
  }

  // Overflow detection (arunBlockReportOverflow): report_overflow() records an overflow for this
  // launch; check_finite(v) does so when v is Inf or NaN and says whether v was finite.
  void report_overflow() const { arunBlockReportOverflow(native_); }
  template <class T>
  bool check_finite(T v) const {
    static_assert(std::is_floating_point_v<T>, "check_finite takes a floating-point value");
    if (std::isfinite(v)) return true;
    report_overflow();
    return false;
  }
  // True once aclrtStreamStop / aclrtStreamAbort asked the launch to halt. The device stops
  // between blocks itself; a long block polls this and returns early (what it wrote stays).
  bool cancelled() const { return arunBlockCancelled(native_) != 0; }

  // Stream-order sanitizer: ordering through a flag in memory (arunSyncRelease / arunSyncAcquire).
  void sync_release(const void* object, uint64_t value) const { arunSyncRelease(native_, object, value); }
  void sync_acquire(const void* object, uint64_t value) const { arunSyncAcquire(native_, object, value); }

  arunBlock* native() const { return native_; }

 private:
  arunBlock* native_;
};

namespace detail {

template <class F, class... Args>
struct KernelPack {
  F fn;
  std::tuple<Args...> args;

  static void run(arunBlock* native, void* p) {
    const auto& pack = *static_cast<const KernelPack*>(p);
    try {
      std::apply([&](const Args&... a) { std::invoke(pack.fn, Block(native), a...); }, pack.args);
    } catch (const KernelFault&) {
      // already reported by the check that threw
    } catch (const std::exception& e) {
      arunBlockFault(native, ACL_ERROR_RT_AICORE_EXCEPTION, e.what());
    } catch (...) {
      arunBlockFault(native, ACL_ERROR_RT_AICORE_EXCEPTION, "AI Core exception: kernel threw a non-standard exception");
    }
  }
  static void destroy(void* p) { delete static_cast<KernelPack*>(p); }
};

}  // namespace detail

// Launches `kernel` with `blockDim` blocks on `stream` (nullptr = the current context's default
// stream); the arguments are copied now. Returns the C API's code (see arunLaunchKernel).
template <class F, class... Args>
aclError launch(aclrtStream stream, uint32_t blockDim, F&& kernel, Args&&... args) {
  using Pack = detail::KernelPack<std::decay_t<F>, std::decay_t<Args>...>;
  static_assert(std::is_invocable_v<const std::decay_t<F>&, Block, const std::decay_t<Args>&...>,
                "an ascend-run kernel is called as kernel(arun::Block, args...) with const arguments");
  Pack* pack =
      new (std::nothrow) Pack{std::forward<F>(kernel), std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
  if (pack == nullptr) return ACL_ERROR_BAD_ALLOC;
  return arunLaunchKernel(stream, blockDim, &Pack::run, pack, &Pack::destroy);
}

}  // namespace arun
