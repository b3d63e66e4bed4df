// Front door implementation: memory (arun/runtime/memory.hpp): device and pinned host allocation,
// copy planning and execution, fills, queries, host registration and user allocators.
#include "arun/runtime/memory.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "acl/acl_rt.h"
#include "alloc/allocator_descriptors.hpp"
#include "arun/runtime/recorder.hpp"
#include "base/logging.hpp"
#include "base/status_helpers.hpp"
#include "runtime/ipc_broker.hpp"
#include "runtime/managed_memory.hpp"
#include "runtime/runtime.hpp"
#include "sanitizer/stream_sanitizer.hpp"

namespace arun::rt {
namespace {

using plugin::DevAddr;
using plugin::PageKind;

constexpr uint64_t kMiB = 1ull << 20;

// The live runtime; the API layer checked aclInit, but a caller inside the library may not have.
#define ARUN_RUNTIME(rt)                                                                    \
  Runtime* rt##_ptr = Runtime::instance();                                                  \
  if (rt##_ptr == nullptr) [[unlikely]]                                                     \
    return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)"); \
  Runtime& rt = *rt##_ptr

const char* kind_name(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE:
      return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT:
      return "ACL_MEMCPY_DEFAULT";
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
      return "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE";
    default:
      return "?";
  }
}

bool is_device(const PointerInfo& p) {
  return p.kind == PointerInfo::Kind::Device;
}

// Page class for an aclrtMalloc policy (the low byte; band-width and access bits are ignored).
PageKind page_kind_for(uint32_t policy, size_t size) {
  switch (policy & 0xff) {
    case ACL_MEM_MALLOC_HUGE_FIRST:
    case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
      return size > kMiB ? PageKind::Huge : PageKind::Normal;
    case ACL_MEM_MALLOC_HUGE_ONLY:
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
      return PageKind::Huge;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
      return PageKind::Normal;
    case ACL_MEM_MALLOC_HUGE1G_ONLY:
    case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
      return PageKind::Huge1G;
    default:
      return size >= 2 * kMiB ? PageKind::Huge : PageKind::Normal;
  }
}

// ---- profiling: allocation records with the allocator's totals (only while a session collects memory)
void emit_memory_record(plugin::RecordKind kind, DeviceSlot* slot, DevAddr addr, uint64_t bytes) {
  plugin::Record r = prof::make_record(kind);
  r.device = slot->id();
  r.t0 = r.t1 = prof::now_ns();
  r.value0 = addr;
  r.value1 = bytes;
  slot->with_allocator([&](DeviceAllocator* a) {
    if (a == nullptr) return;
    plugin::AllocatorStats st = a->stats();
    r.value2 = st.allocated.current;
    r.value3 = st.reserved.current;
  });
  prof::emit(r);
}

// `site` is the return address of the API call the program made (for the leak report); `stream`
// the stream the block is for (arunMallocAsync; 0 = none).
// `padded`: the size gets CANN's 32-byte tail pad on top of the rounding to 32 (aclrtMalloc); the
// *Align32 / *WithCfg variants only round.
Status malloc_on(Runtime& rt, void** devPtr, size_t size, uint32_t policy, const void* site, plugin::StreamId stream,
                 bool padded = true) {
  if (devPtr == nullptr) return invalid_param("devPtr is NULL");
  if (size == 0) return invalid_param("size is 0");
  // CANN rounds up to 32 bytes (and pads by 32 more): reject sizes where that overflows.
  if (size > SIZE_MAX - (padded ? 64 : 31)) {
    return invalid_param("size " + std::to_string(size) +
                         (padded ? " overflows when padded" : " overflows when rounded up to 32"));
  }
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  DevAddr addr = 0;
  // The allocator's out-of-memory message explains the failure (device, allocator, what to try).
  ARUN_RETURN_IF_ERROR(ctx->slot()->allocator()->allocate(size, page_kind_for(policy, size), site, &addr, stream));
  *devPtr = reinterpret_cast<void*>(addr);
  if (prof::on(prof::kMemory)) [[unlikely]]
    emit_memory_record(plugin::RecordKind::MemAlloc, ctx->slot(), addr, size);
  return Status::Ok();
}

// Frees a device block; `stream` as DeviceAllocator::free.
Status free_on(Runtime& rt, void* devPtr, plugin::StreamId stream, const Stream* san_stream = nullptr) {
  if (devPtr == nullptr) return invalid_param("devPtr is NULL");
  // The allocator knows its blocks: it rejects anything but the start of one (207002).
  DeviceSlot* slot = rt.device_owning(devPtr);
  if (slot == nullptr) return Status(Errc::rt_memory_free, "pointer is not device memory allocated by aclrtMalloc");
  uint64_t freed = 0;
  Status st = slot->with_allocator([&](DeviceAllocator* allocator) {
    if (allocator == nullptr) return Status(Errc::rt_memory_free, "the device of this pointer is not open");
    if (prof::on(prof::kMemory)) [[unlikely]] {
      DeviceAllocator::Block block;
      if (allocator->find(reinterpret_cast<DevAddr>(devPtr), 1, &block)) freed = block.requested;
    }
    if (san::on()) [[unlikely]] {
      // Checked before the block goes: work still using it is a report, not a fault later.
      DeviceAllocator::Block block;
      if (allocator->find(reinterpret_cast<DevAddr>(devPtr), 1, &block) &&
          block.addr == reinterpret_cast<DevAddr>(devPtr))
        san::freed(san_stream != nullptr ? "arunFreeAsync" : "aclrtFree", slot->device(), block.addr, block.size,
                   san_stream);
    }
    return allocator->free(reinterpret_cast<DevAddr>(devPtr), stream);
  });
  if (st.ok() && freed != 0)
    emit_memory_record(plugin::RecordKind::MemFree, slot, reinterpret_cast<DevAddr>(devPtr), freed);
  // A block exported by IPC key stops being exported when it is freed; importers still mapping it
  // (CANN requires them to close first) cannot be told, so the exporter is warned.
  if (st.ok()) {
    if (const uint64_t imports = IpcBroker::instance().withdraw_freed(reinterpret_cast<DevAddr>(devPtr))) {
      arun::log().warn(
          "aclrtFree of IPC-exported memory {} that other processes imported {} time(s): their mappings "
          "now alias memory this process may reuse (importers must aclrtIpcMemClose before the free)",
          devPtr, imports);
    }
  }
  return st;
}

// A validated copy: what the device executes, and on which device.
struct CopyPlan {
  plugin::Work work;
  DeviceSlot* exec = nullptr;  // device whose copy engine runs it; nullptr = host-to-host
  bool pageable_host = false;  // a host side is not ACL-allocated (async copies then complete on return)
};

Status check_device_side(const PointerInfo& p, const void* ptr, uint64_t extent, const char* which) {
  if (!p.in_allocation) {
    return param_invalid(std::string(which) + " range [" + std::to_string(reinterpret_cast<uintptr_t>(ptr)) + ", +" +
                         std::to_string(extent) + ") is not inside one live allocation of device " +
                         std::to_string(p.slot->id()));
  }
  return Status::Ok();
}

Status check_peer(DeviceSlot* exec, DeviceSlot* other) {
  if (exec == other) return Status::Ok();
  if (!exec->has_peer(other->id())) {
    return Status(Errc::rt_feature_not_support, "copy between device " + std::to_string(exec->id()) + " and device " +
                                                    std::to_string(other->id()) +
                                                    " needs aclrtDeviceEnablePeerAccess first");
  }
  return Status::Ok();
}

// Validates kind against the pointers and fills the plan. `dst_extent` / `src_extent` are the byte
// ranges touched on each side (they differ from count for 2-D copies).
Status plan_copy(Runtime& rt, void* dst, const void* src, uint64_t dst_extent, uint64_t src_extent, int k,
                 CopyPlan* plan) {
  if (k == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || k == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE || k < 0 ||
      k > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
    return invalid_param("copy kind " + std::to_string(k) + " is not accepted");
  }
  auto kind = static_cast<aclrtMemcpyKind>(k);
  PointerInfo d = rt.classify(dst, dst_extent);
  PointerInfo s = rt.classify(src, src_extent);
  if (kind == ACL_MEMCPY_DEFAULT) {
    kind = is_device(d) ? (is_device(s) ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE)
                        : (is_device(s) ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST);
  }
  bool want_dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE ||
                         kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  bool want_src_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (is_device(d) != want_dst_device) {
    return param_invalid(std::string(kind_name(kind)) + " needs " + (want_dst_device ? "device" : "host") +
                         " memory as dst, but dst is " + (is_device(d) ? "device" : "host") + " memory");
  }
  if (is_device(s) != want_src_device) {
    return param_invalid(std::string(kind_name(kind)) + " needs " + (want_src_device ? "device" : "host") +
                         " memory as src, but src is " + (is_device(s) ? "device" : "host") + " memory");
  }
  if (is_device(d)) ARUN_RETURN_IF_ERROR(check_device_side(d, dst, dst_extent, "dst"));
  if (is_device(s)) ARUN_RETURN_IF_ERROR(check_device_side(s, src, src_extent, "src"));
  plan->work.dst = {reinterpret_cast<uint64_t>(dst), is_device(d) ? d.slot->device() : nullptr};
  plan->work.src = {reinterpret_cast<uint64_t>(src), is_device(s) ? s.slot->device() : nullptr};
  plan->exec = is_device(s) ? s.slot : is_device(d) ? d.slot : nullptr;
  if (is_device(d) && is_device(s)) ARUN_RETURN_IF_ERROR(check_peer(s.slot, d.slot));
  plan->pageable_host = (!is_device(d) && d.kind != PointerInfo::Kind::PinnedHost) ||
                        (!is_device(s) && s.kind != PointerInfo::Kind::PinnedHost);
  return Status::Ok();
}

// A synchronous copy or memset, run on the calling thread: a Task record with no stream and the
// host unit, timed on the record clock.
void emit_sync_work_record(const CopyPlan& plan, uint64_t start, uint64_t end, int status) {
  plugin::Record r = prof::make_record(plugin::RecordKind::Task);
  const plugin::Work& w = plan.work;
  const bool is_memset = w.kind == plugin::WorkKind::Memset;
  r.subkind = static_cast<uint16_t>(is_memset                            ? plugin::TaskType::Memset
                                    : w.kind == plugin::WorkKind::Copy2D ? plugin::TaskType::Copy2D
                                                                         : plugin::TaskType::Copy);
  r.name = prof::intern_static(is_memset ? "memset" : w.kind == plugin::WorkKind::Copy2D ? "memcpy2d" : "memcpy");
  r.device = plan.exec->id();
  r.unit = plugin::kHostUnit;
  r.correlation = prof::current_correlation();
  r.t0 = r.t1 = r.t2 = start;
  r.t3 = end;
  r.value0 = w.kind == plugin::WorkKind::Copy2D ? w.width * w.height : w.bytes;
  const bool from_device = w.src.device != nullptr, to_device = w.dst.device != nullptr;
  r.value2 = static_cast<uint64_t>(
      from_device ? (to_device ? plugin::CopyDirection::DeviceToDevice : plugin::CopyDirection::DeviceToHost)
                  : (to_device ? plugin::CopyDirection::HostToDevice : plugin::CopyDirection::HostToHost));
  r.value3 = static_cast<uint64_t>(static_cast<uint32_t>(status)) << 32;
  prof::emit(r);
}

Status run_now(const CopyPlan& plan) {
  // Under an open capture, a synchronous copy or memset is an unsafe call (spec part 2, 4.12).
  if (Runtime* rt = Runtime::instance(); rt != nullptr && rt->graphs().any_active()) [[unlikely]]
    ARUN_RETURN_IF_ERROR(rt->graphs().check_unsafe(rt->current_context(), false, "a synchronous copy or memset"));
  plugin::Work work = plan.work;
  std::optional<san::RuntimeAccessScope> san_scope;
  if (san::on()) [[unlikely]] {
    // The calling thread reads and writes these ranges now: a race with queued work is reported.
    const bool d2 = work.kind == plugin::WorkKind::Copy2D;
    const uint64_t dext = d2 ? (work.height == 0 ? 0 : work.dpitch * (work.height - 1) + work.width) : work.bytes;
    const uint64_t sext = d2 ? (work.height == 0 ? 0 : work.spitch * (work.height - 1) + work.width) : work.bytes;
    san::HostRange ranges[2] = {{work.dst.device, work.dst.addr, dext, true},
                                {work.src.device, work.src.addr, sext, false}};
    const bool fill = work.kind == plugin::WorkKind::Memset;
    san::host_access(fill ? "synchronous memset" : "synchronous copy", ranges, fill ? 1 : 2);
    san_scope.emplace();
  }
  const bool profiled = prof::on(prof::kTasks);
  const uint64_t start = profiled ? prof::now_ns() : 0;
  plugin::WorkResult r = plan.exec->device()->execute_now(&work);
  if (profiled) [[unlikely]]
    emit_sync_work_record(plan, start, prof::now_ns(), r.status);
  // A synchronous write into device memory may make an aclrtValueWait hold (sched/device_waits.cpp).
  if (work.dst.device != nullptr) {
    if (Scheduler* sched = plan.exec->scheduler()) sched->poke_device_waits();
  }
  if (r.status != 0) return Status(static_cast<Errc>(r.status), "the device reported a fault while copying");
  return Status::Ok();
}

// Enqueues plan.work on `stream`; with pageable host memory, waits for it (the spec's rule).
Status enqueue(Runtime& rt, aclrtStream stream, CopyPlan& plan, plugin::UnitKind unit) {
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  DeviceSlot* own = s->context()->slot();
  if (plan.exec != nullptr && plan.exec != own) {
    // The stream's device must be one side of the copy (a peer may be the other).
    bool touches_own = (plan.work.dst.device == own->device()) || (plan.work.src.device == own->device());
    if (!touches_own) {
      return param_invalid("the memory belongs to device " + std::to_string(plan.exec->id()) +
                           " but the stream belongs to device " + std::to_string(own->id()));
    }
    DeviceSlot* other = plan.exec;
    ARUN_RETURN_IF_ERROR(check_peer(own, other));
  }
  if (plan.pageable_host && rt.graphs().any_active()) [[unlikely]]
    ARUN_RETURN_IF_ERROR(rt.graphs().check_unsafe(s->context(), true, "an async copy of pageable host memory"));
  auto* task = new Task();
  static_cast<plugin::Work&>(*task) = plan.work;
  task->unit_kind = unit;
  task->stream = s.get();
  uint64_t seq = 0;
  ARUN_RETURN_IF_ERROR(rt.submit(task, &seq));
  if (plan.pageable_host && seq != 0) {
    s->scheduler()->wait_for(*s, seq, -1);
  }
  return Status::Ok();
}

Status plan_copy_2d(Runtime& rt, const Copy2D& c, int k, CopyPlan* plan) {
  // The extent of each side is (height - 1) * pitch + width; a huge pitch must not wrap the sum
  // (a wrapped extent would pass the range check and leave the fault to the device).
  uint64_t dst_extent = 0, src_extent = 0;
  const uint64_t rows = uint64_t(c.height) - 1;
  if (__builtin_mul_overflow(rows, uint64_t(c.dpitch), &dst_extent) ||
      __builtin_add_overflow(dst_extent, uint64_t(c.width), &dst_extent)) {
    return invalid_param("dpitch " + std::to_string(c.dpitch) + " x height " + std::to_string(c.height) +
                         " overflows the address space");
  }
  if (__builtin_mul_overflow(rows, uint64_t(c.spitch), &src_extent) ||
      __builtin_add_overflow(src_extent, uint64_t(c.width), &src_extent)) {
    return invalid_param("spitch " + std::to_string(c.spitch) + " x height " + std::to_string(c.height) +
                         " overflows the address space");
  }
  ARUN_RETURN_IF_ERROR(plan_copy(rt, c.dst, c.src, dst_extent, src_extent, k, plan));
  if (plan->exec == nullptr) return invalid_param("2-D copies need device memory on at least one side");
  plan->work.kind = plugin::WorkKind::Copy2D;
  plan->work.width = c.width;
  plan->work.height = c.height;
  plan->work.dpitch = c.dpitch;
  plan->work.spitch = c.spitch;
  return Status::Ok();
}

// Memset targets device memory or ACL-allocated host memory.
Status plan_memset(Runtime& rt, void* devPtr, int32_t value, size_t count, CopyPlan* plan) {
  PointerInfo p = rt.classify(devPtr, count);
  if (is_device(p)) {
    ARUN_RETURN_IF_ERROR(check_device_side(p, devPtr, count, "devPtr"));
    plan->exec = p.slot;
  } else if (p.kind != PointerInfo::Kind::PinnedHost || !p.in_allocation) {
    return param_invalid("devPtr is neither device memory nor host memory from aclrtMallocHost");
  }
  plan->work.kind = plugin::WorkKind::Memset;
  plan->work.dst = {reinterpret_cast<uint64_t>(devPtr), is_device(p) ? p.slot->device() : nullptr};
  plan->work.bytes = count;
  plan->work.value = value;
  return Status::Ok();
}

template <class Fn>
UserAllocator::Fn erase(Fn fn) {
  return reinterpret_cast<UserAllocator::Fn>(fn);
}
template <class Fn>
Fn restore(UserAllocator::Fn fn) {
  return reinterpret_cast<Fn>(fn);
}

template <class Fn>
Status set_desc_field(aclrtAllocatorDesc desc, Fn value, Fn AllocatorDescriptor::*field) {
  return AllocatorDescriptors::instance().with(desc, [&](AllocatorDescriptor& d) {
    d.*field = value;
    return Status::Ok();
  });
}

}  // namespace

// ---------------------------------------------------------------- device memory

Status device_malloc(void** out, size_t size, uint32_t policy, const void* site) {
  ARUN_RUNTIME(rt);
  return malloc_on(rt, out, size, policy, site, 0);
}

Status device_free(void* ptr) {
  ARUN_RUNTIME(rt);
  if (ManagedMemory::instance().free(ptr)) return Status::Ok();  // aclrtMemAllocManaged memory
  return free_on(rt, ptr, 0);
}

Status device_malloc_align32(void** out, size_t size, uint32_t policy, const void* site) {
  ARUN_RUNTIME(rt);
  return malloc_on(rt, out, size, policy, site, 0, false);
}

Status device_malloc_with_cfg(void** out, size_t size, uint32_t policy, const aclrtMallocConfig* cfg,
                              const void* site) {
  ARUN_RUNTIME(rt);
  bool device_asserted = false;
  uint32_t asserted_device = 0;
  if (cfg != nullptr) {
    if (cfg->attrs == nullptr) return param_invalid("cfg->attrs is NULL (pass cfg = NULL for no attributes)");
    for (size_t i = 0; i < cfg->numAttrs; ++i) {
      const aclrtMallocAttribute& a = cfg->attrs[i];
      uint32_t id = 0;
      std::memcpy(&id, &a.attr, sizeof id);
      switch (id) {
        case ACL_RT_MEM_ATTR_RSV:
        case ACL_RT_MEM_ATTR_MODULE_ID:  // accounting only: nothing here keeps per-module totals
          break;
        case ACL_RT_MEM_ATTR_DEVICE_ID:
          device_asserted = true;
          asserted_device = a.value.deviceId;
          break;
        case ACL_RT_MEM_ATTR_VA_FLAG:
          return param_invalid("cfg->attrs[" + std::to_string(i) + "]: ACL_RT_MEM_ATTR_VA_FLAG is not accepted here");
        default:
          return param_invalid("cfg->attrs[" + std::to_string(i) + "]: unknown attribute " + std::to_string(id));
      }
    }
  }
  // One page policy (low byte), at most one bandwidth type, optionally user-space read-only.
  constexpr uint32_t kBandwidth = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH;
  const uint32_t known = 0xffu | kBandwidth | ACL_MEM_ACCESS_USER_SPACE_READONLY;
  if ((policy & ~known) != 0 || (policy & 0xffu) > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P ||
      (policy & kBandwidth) == kBandwidth) {
    return param_invalid("policy " + std::to_string(policy) + " is not a valid combination");
  }
  if (device_asserted) {
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    if (static_cast<int64_t>(asserted_device) != ctx->slot()->id()) {
      return param_invalid("ACL_RT_MEM_ATTR_DEVICE_ID " + std::to_string(asserted_device) +
                           " is not the current device " + std::to_string(ctx->slot()->id()));
    }
  }
  return malloc_on(rt, out, size, policy, site, 0, false);
}

Status device_malloc_for_task_scheduler(void** out, size_t size, uint32_t policy, const aclrtMallocConfig* cfg,
                                        const void* site) {
  // The simulated device's task scheduler addresses all of device memory: every block qualifies.
  return device_malloc_with_cfg(out, size, policy, cfg, site);
}

Status device_free_with_sync(void* ptr) {
  ARUN_RUNTIME(rt);
  if (ptr == nullptr) return invalid_param("devPtr is NULL");
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  if (rt.device_owning(ptr) == nullptr) {
    return param_invalid("pointer is not device memory allocated by this runtime");
  }
  // A failed synchronisation leaves the block allocated, so the caller may retry.
  ARUN_RETURN_IF_ERROR(rt.synchronize_device(-1));
  return free_on(rt, ptr, 0);
}

Status device_malloc_async(void** out, size_t size, uint32_t policy, const void* site, aclrtStream stream) {
  ARUN_RUNTIME(rt);
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  return malloc_on(rt, out, size, policy, site, s->uid());
}

Status device_free_async(void* ptr, aclrtStream stream) {
  ARUN_RUNTIME(rt);
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  return free_on(rt, ptr, s->uid(), s.get());
}

Status record_stream_use(void* ptr, aclrtStream stream) {
  ARUN_RUNTIME(rt);
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  PointerInfo p = rt.classify(ptr, 1);
  if (!is_device(p)) return invalid_param("pointer is not device memory allocated by aclrtMalloc");
  return p.slot->with_allocator([&](DeviceAllocator* allocator) {
    if (allocator == nullptr) return Status(Errc::rt_memory_free, "the device of this pointer is not open");
    if (san::on()) [[unlikely]] {
      DeviceAllocator::Block block;
      if (allocator->find(reinterpret_cast<DevAddr>(ptr), 1, &block))
        san::record_stream(p.slot->device(), block.addr, s.get());
    }
    return allocator->record_use(reinterpret_cast<DevAddr>(ptr), s->uid());
  });
}

// ---------------------------------------------------------------- pinned host memory

Status host_malloc(void** out, size_t size, const void* site) {
  ARUN_RUNTIME(rt);
  void* p = nullptr;
  // Page-aligned (beyond the 64 bytes promised) so the block can also be registered with the device.
  // While the stream sanitizer is on, whole pages, so that it can protect them (in flight copies).
  if (posix_memalign(&p, 4096, san::pinned_size(size)) != 0 || p == nullptr) {
    return Status(Errc::rt_memory_allocation, "cannot allocate " + std::to_string(size) + " bytes of host memory");
  }
  // Pinned memory is resident: fault it in now rather than during the first copy.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  (void)madvise(p, (size + 4095) & ~size_t(4095), MADV_POPULATE_WRITE);
  rt.pinned().add(p, size, site);
  rt.pinned().release_retired();  // blocks freed while work used them, whose work has completed since
  *out = p;
  return Status::Ok();
}

Status host_free(void* ptr) {
  ARUN_RUNTIME(rt);
  if (san::on()) [[unlikely]] {
    uint64_t size = 0;
    void* base = nullptr;
    if (rt.pinned().find(ptr, 1, &base, &size) && base == ptr)
      san::freed("aclrtFreeHost", nullptr, reinterpret_cast<uint64_t>(ptr), size, nullptr);
  }
  if (!rt.pinned().remove(ptr)) {
    return Status(Errc::rt_memory_free, "pointer was not returned by aclrtMallocHost (or was already freed)");
  }
  // Stream-ordered, as aclrtFree: async copies queued before this free may still read or write the
  // block, so it is released only once every stream that had work in flight has completed what it
  // had been given (checked at each aclrtMallocHost/aclrtFreeHost, and at aclFinalize).
  std::vector<MemoryRegistry::StreamPosition> in_flight;
  for (const std::shared_ptr<Stream>& s : rt.live_streams()) {
    if (!s->idle()) in_flight.push_back({s, s->submitted()});
  }
  rt.pinned().retire(ptr, std::move(in_flight));
  return Status::Ok();
}

Status host_malloc_with_cfg(void** out, uint64_t size, const aclrtMallocConfig* cfg, const void* site) {
  ARUN_RUNTIME(rt);
  (void)rt;
  if (cfg != nullptr) {
    if (cfg->attrs == nullptr) return param_invalid("cfg->attrs is NULL (pass cfg = NULL for no attributes)");
    for (size_t i = 0; i < cfg->numAttrs; ++i) {
      uint32_t id = 0;
      std::memcpy(&id, &cfg->attrs[i].attr, sizeof id);
      switch (id) {
        case ACL_RT_MEM_ATTR_RSV:
        case ACL_RT_MEM_ATTR_MODULE_ID:  // accounting only
        case ACL_RT_MEM_ATTR_DEVICE_ID:  // host memory belongs to no device: accepted and ignored
          break;
        case ACL_RT_MEM_ATTR_VA_FLAG:
          return param_invalid("cfg->attrs[" + std::to_string(i) + "]: ACL_RT_MEM_ATTR_VA_FLAG is not accepted here");
        default:
          return param_invalid("cfg->attrs[" + std::to_string(i) + "]: unknown attribute " + std::to_string(id));
      }
    }
  }
  if (size > SIZE_MAX - 4095) {
    return Status(Errc::rt_memory_allocation, "cannot allocate " + std::to_string(size) + " bytes of host memory");
  }
  return host_malloc(out, static_cast<size_t>(size), site);
}

Status host_free_with_sync(void* ptr) {
  ARUN_RUNTIME(rt);
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  // A failed synchronisation leaves the block allocated, so the caller may retry.
  ARUN_RETURN_IF_ERROR(rt.synchronize_device(-1));
  void* base = nullptr;
  if (!rt.pinned().find(ptr, 1, &base) || base != ptr) {
    return param_invalid("pointer was not returned by aclrtMallocHost / aclrtMallocHostWithCfg");
  }
  return host_free(ptr);
}

// ---------------------------------------------------------------- copies and fills

Status memcpy_sync(void* dst, size_t dest_max, const void* src, size_t count, int kind) {
  if (count == 0) return Status::Ok();
  if (dst == nullptr || src == nullptr) return invalid_param("dst or src is NULL");
  if (count > dest_max) {
    return param_invalid("count " + std::to_string(count) + " exceeds destMax " + std::to_string(dest_max));
  }
  ARUN_RUNTIME(rt);
  CopyPlan plan;
  ARUN_RETURN_IF_ERROR(plan_copy(rt, dst, src, count, count, kind, &plan));
  if (plan.exec == nullptr) {
    std::memmove(dst, src, count);
    return Status::Ok();
  }
  plan.work.kind = plugin::WorkKind::Copy;
  plan.work.bytes = count;
  return run_now(plan);
}

Status memcpy_async(void* dst, const void* src, size_t count, int kind, aclrtStream stream) {
  ARUN_RUNTIME(rt);
  CopyPlan plan;
  ARUN_RETURN_IF_ERROR(plan_copy(rt, dst, src, count, count, kind, &plan));
  if (plan.exec == nullptr) {
    return Status(Errc::rt_feature_not_support,
                  "asynchronous host-to-host copies are not supported with a host-attached (EP) device");
  }
  plan.work.kind = plugin::WorkKind::Copy;
  plan.work.bytes = count;
  return enqueue(rt, stream, plan, plugin::UnitKind::Copy);
}

Status memcpy_2d_sync(const Copy2D& copy, int kind) {
  ARUN_RUNTIME(rt);
  CopyPlan plan;
  ARUN_RETURN_IF_ERROR(plan_copy_2d(rt, copy, kind, &plan));
  return run_now(plan);
}

Status memcpy_2d_async(const Copy2D& copy, int kind, aclrtStream stream) {
  ARUN_RUNTIME(rt);
  CopyPlan plan;
  ARUN_RETURN_IF_ERROR(plan_copy_2d(rt, copy, kind, &plan));
  return enqueue(rt, stream, plan, plugin::UnitKind::Copy);
}

Status memset_sync(void* ptr, int32_t value, size_t count) {
  ARUN_RUNTIME(rt);
  CopyPlan plan;
  ARUN_RETURN_IF_ERROR(plan_memset(rt, ptr, value, count, &plan));
  if (plan.exec == nullptr) {
    std::memset(ptr, value & 0xff, count);
    return Status::Ok();
  }
  return run_now(plan);
}

Status memset_async(void* ptr, int32_t value, size_t count, aclrtStream stream) {
  ARUN_RUNTIME(rt);
  CopyPlan plan;
  ARUN_RETURN_IF_ERROR(plan_memset(rt, ptr, value, count, &plan));
  if (plan.exec == nullptr) {
    // Pinned host memory: run in stream order on the stream's copy engine like any other fill.
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    plan.exec = s->context()->slot();
  }
  return enqueue(rt, stream, plan, plugin::UnitKind::Copy);
}

// ---------------------------------------------------------------- queries

Status mem_info(int attr, MemInfo* out) {
  ARUN_RUNTIME(rt);
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  if (attr < ACL_DDR_MEM || attr > ACL_MEM_P2P_HUGE1G) {
    return param_invalid("memory attribute " + std::to_string(attr) + " is out of range");
  }
  switch (attr) {
    case ACL_DDR_MEM:
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_HUGE:
    case ACL_DDR_MEM_P2P_NORMAL:
      // The simulated part has HBM and no device DDR: a class the hardware lacks reports 0 / 0.
      out->free = 0;
      out->total = 0;
      return Status::Ok();
    default: {
      // One HBM pool backs every page class.
      auto usage = ctx->slot()->device()->memory_usage();
      out->free = usage.free;
      out->total = usage.total;
      return Status::Ok();
    }
  }
}

Status pointer_attributes(const void* ptr, PointerAttributes* out) {
  ARUN_RUNTIME(rt);
  PointerInfo p = rt.classify(ptr, 1);
  if (is_device(p)) {
    out->location = PointerAttributes::Location::Device;
    out->device = static_cast<uint32_t>(p.slot->id());
    out->page_size = p.slot->device()->properties().page_bytes;
  } else if (p.kind == PointerInfo::Kind::PinnedHost) {
    out->location = PointerAttributes::Location::Host;
    out->page_size = 4096;
  } else {
    out->location = PointerAttributes::Location::Unregistered;
    out->page_size = 4096;
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- host registration

Status host_register(void* ptr, uint64_t size, void** dev_ptr) {
  ARUN_RUNTIME(rt);
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  if (!rt.host_registrations().add(reinterpret_cast<uintptr_t>(ptr), size, HostRegistrations::kMapped)) {
    return Status(Errc::host_memory_already_registered, "the host range is already registered");
  }
  // The simulated device reaches host memory directly, so the alias is the host address itself.
  *dev_ptr = ptr;
  return Status::Ok();
}

Status host_unregister(void* ptr) {
  ARUN_RUNTIME(rt);
  if (!rt.host_registrations().remove(reinterpret_cast<uintptr_t>(ptr))) {
    return Status(Errc::host_memory_not_registered, "the host address was not registered with aclrtHostRegister");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- user allocators

aclrtAllocatorDesc create_allocator_desc() noexcept {
  return AllocatorDescriptors::instance().create();
}

Status destroy_allocator_desc(aclrtAllocatorDesc desc) {
  return AllocatorDescriptors::instance().destroy(desc);
}

Status set_allocator_object(aclrtAllocatorDesc desc, aclrtAllocator allocator) {
  return set_desc_field(desc, allocator, &AllocatorDescriptor::object);
}
Status set_allocator_alloc_func(aclrtAllocatorDesc desc, aclrtAllocatorAllocFunc func) {
  return set_desc_field(desc, func, &AllocatorDescriptor::alloc);
}
Status set_allocator_free_func(aclrtAllocatorDesc desc, aclrtAllocatorFreeFunc func) {
  return set_desc_field(desc, func, &AllocatorDescriptor::free);
}
Status set_allocator_advise_func(aclrtAllocatorDesc desc, aclrtAllocatorAllocAdviseFunc func) {
  return set_desc_field(desc, func, &AllocatorDescriptor::advise);
}
Status set_allocator_get_addr_func(aclrtAllocatorDesc desc, aclrtAllocatorGetAddrFromBlockFunc func) {
  return set_desc_field(desc, func, &AllocatorDescriptor::get_addr);
}

Status register_allocator(aclrtStream stream, aclrtAllocatorDesc desc) {
  ARUN_RUNTIME(rt);
  UserAllocator a;
  ARUN_RETURN_IF_ERROR(AllocatorDescriptors::instance().with(desc, [&](AllocatorDescriptor& d) {
    const char* missing = d.object == nullptr     ? "the allocator object (aclrtAllocatorSetObjToDesc)"
                          : d.alloc == nullptr    ? "the alloc callback (aclrtAllocatorSetAllocFuncToDesc)"
                          : d.free == nullptr     ? "the free callback (aclrtAllocatorSetFreeFuncToDesc)"
                          : d.get_addr == nullptr ? "the get-address callback "
                                                    "(aclrtAllocatorSetGetAddrFromBlockFuncToDesc)"
                                                  : nullptr;
    if (missing != nullptr) return invalid_param(std::string("the descriptor lacks ") + missing);
    a = UserAllocator{desc, d.object, erase(d.alloc), erase(d.free), erase(d.advise), erase(d.get_addr)};
    return Status::Ok();
  }));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  s->set_user_allocator(a);
  return Status::Ok();
}

Status unregister_allocator(aclrtStream stream) {
  ARUN_RUNTIME(rt);
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  s->set_user_allocator(std::nullopt);
  return Status::Ok();
}

Status stream_allocator(aclrtStream stream, StreamAllocator* out) {
  ARUN_RUNTIME(rt);
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  std::optional<UserAllocator> a = s->user_allocator();
  if (!a) return invalid_param("no allocator is registered for stream " + std::to_string(s->id()));
  out->desc = a->descriptor;
  out->object = a->object;
  out->alloc = restore<aclrtAllocatorAllocFunc>(a->alloc);
  out->free = restore<aclrtAllocatorFreeFunc>(a->free);
  out->advise = restore<aclrtAllocatorAllocAdviseFunc>(a->alloc_advise);
  out->get_addr = restore<aclrtAllocatorGetAddrFromBlockFunc>(a->get_addr);
  return Status::Ok();
}

}  // namespace arun::rt
