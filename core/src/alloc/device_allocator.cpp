#include "alloc/device_allocator.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "alloc/direct_policy.hpp"
#include "runtime/stream.hpp"
#include "runtime/virtual_memory.hpp"

namespace arun {

std::string human_bytes(uint64_t b) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
  return buf;
}

DeviceAllocator::DeviceAllocator(int32_t device_id, plugin::Device* device)
    : device_id_(device_id),
      device_(device),
      policy_(std::make_unique<DirectPolicy>(static_cast<plugin::ChunkSource*>(this),
                                             static_cast<plugin::StreamOrder*>(this))) {}

DeviceAllocator::~DeviceAllocator() {
  if (trace_) trace_->flush();
  policy_.reset();  // first: it gives its chunks back through release(), which updates chunks_
}

Status DeviceAllocator::create(int32_t device_id, plugin::Device* device, const AllocatorChoice& choice,
                               std::shared_ptr<DeviceAllocator>* out, VirtualMemory* vmm,
                               plugin::PhysicalMemorySource* physical) {
  auto a = std::make_shared<DeviceAllocator>(device_id, device);
  a->vmm_ = vmm;  // before the policy starts: it may ask for virtual_ranges() at once
  a->physical_ = physical;
  if (choice.plugin) {
    char error[256] = {0};
    plugin::AllocatorPolicy* p = nullptr;
    try {
      p = choice.plugin->create(static_cast<plugin::ChunkSource*>(a.get()), static_cast<plugin::StreamOrder*>(a.get()),
                                error, sizeof error - 1);  // the last byte stays NUL
    } catch (...) {
      p = nullptr;
    }
    if (p == nullptr) {
      return Status(Errc::rt_dev_setup_error, "allocator policy \"" + choice.name + "\" could not start on device " +
                                                  std::to_string(device_id) + ": " +
                                                  (error[0] != 0 ? error : "the plugin gave no reason"));
    }
    a->policy_.reset(p);
    a->plugin_ = choice.plugin;
  }
  a->trace_ = choice.trace;
  *out = std::move(a);
  return Status::Ok();
}

Status DeviceAllocator::acquire(uint64_t bytes, plugin::PageKind page, plugin::Chunk* out) {
  // Every allocation on this device goes through here under mu_, so the drop in the device's free
  // memory is this chunk's footprint (its rounding and padding included).
  const uint64_t free_before = device_->memory_usage().free;
  plugin::DevAddr addr = 0;
  ARUN_RETURN_IF_ERROR(device_->allocate(bytes, page, &addr));
  const uint64_t free_after = device_->memory_usage().free;
  plugin::DevAddr base = addr;
  uint64_t size = bytes;
  if (!device_->find_allocation(addr, &base, &size)) size = bytes;
  const uint64_t footprint = free_before > free_after ? free_before - free_after : size;
  *out = {addr, size, std::max(footprint, size)};
  chunks_[addr].size = size;
  return Status::Ok();
}

void DeviceAllocator::release(const plugin::Chunk& chunk) {
  chunks_.erase(chunk.base);
  (void)device_->release(chunk.base);
}

plugin::VirtualRanges* DeviceAllocator::virtual_ranges() {
  return vmm_ != nullptr && physical_ != nullptr ? this : nullptr;
}

uint64_t DeviceAllocator::granularity() const {
  return uint64_t{2} << 20;  // the device's huge page, as aclrtMemGetAllocationGranularity's recommendation
}

Status DeviceAllocator::reserve(uint64_t bytes, plugin::DevAddr* base) {
  if (bytes == 0 || bytes % granularity() != 0) {
    return Status(Errc::rt_param_invalid, "an allocator range of " + std::to_string(bytes) +
                                              " bytes is not a non-zero multiple of " + std::to_string(granularity()));
  }
  ARUN_RETURN_IF_ERROR(vmm_->reserve_pool(bytes, granularity(), device_id_, base));
  chunks_[*base].size = bytes;  // every address of the range is the allocator's, mapped or not
  return Status::Ok();
}

Status DeviceAllocator::map(plugin::DevAddr addr, uint64_t bytes, uint64_t* footprint) {
  // As in acquire(): the drop in the device's free memory is what the mapping occupies.
  const uint64_t free_before = device_->memory_usage().free;
  int fd = -1;
  uint64_t id = 0;
  ARUN_RETURN_IF_ERROR(physical_->create_physical(bytes, plugin::PageKind::Normal, &fd, &id));
  VirtualMemory::PhysicalOrigin origin;
  origin.device = device_id_;
  origin.source = physical_;
  origin.source_id = id;
  ARUN_RETURN_IF_ERROR(vmm_->map_pool(addr, fd, bytes, std::move(origin)));  // gives it back on failure
  const uint64_t free_after = device_->memory_usage().free;
  *footprint = std::max(bytes, free_before > free_after ? free_before - free_after : 0);
  return Status::Ok();
}

void DeviceAllocator::unmap(plugin::DevAddr addr) {
  (void)vmm_->unmap_pool(addr);
}

void DeviceAllocator::release_range(plugin::DevAddr base) {
  chunks_.erase(base);
  vmm_->release_pool(base);  // quietly nothing when the runtime's teardown cleared it already
}

DeviceAllocator::ChunkBlocks* DeviceAllocator::chunk_of(plugin::DevAddr addr) {
  auto it = chunks_.upper_bound(addr);
  if (it == chunks_.begin()) return nullptr;
  --it;
  return addr - it->first < it->second.size ? &it->second : nullptr;
}

const DeviceAllocator::ChunkBlocks* DeviceAllocator::chunk_of(plugin::DevAddr addr) const {
  return const_cast<DeviceAllocator*>(this)->chunk_of(addr);
}

plugin::MemoryUsage DeviceAllocator::device_usage() const {
  return device_->memory_usage();
}

void DeviceAllocator::stream_added(const std::shared_ptr<Stream>& stream) {
  std::lock_guard lock(mu_);
  for (auto it = streams_.begin(); it != streams_.end();) it = it->second.expired() ? streams_.erase(it) : ++it;
  streams_[stream->uid()] = stream;
}

void DeviceAllocator::stream_retired(uint64_t uid) {
  // The entry stays while the stream object lives: a force-destroyed stream may still be running
  // its last task, and reached() must keep answering from its counters until that is done.
  std::lock_guard lock(mu_);
  policy_->stream_retired(uid);
  if (trace_) trace_->stream_retired(device_id_, uid);
}

uint64_t DeviceAllocator::mark(plugin::StreamId stream) {
  if (stream != 0) {
    auto it = streams_.find(stream);
    auto s = it == streams_.end() ? nullptr : it->second.lock();
    return s ? s->submitted() : 0;
  }
  DeviceMark m;
  for (const auto& [uid, weak] : streams_) {
    if (auto s = weak.lock(); s && !s->idle()) m.positions.emplace_back(weak, s->submitted());
  }
  if (m.positions.empty()) return 0;  // nothing in flight: reached already
  const uint64_t id = next_device_mark_++;
  device_marks_.emplace(id, std::move(m));
  return id;
}

bool DeviceAllocator::reached(plugin::StreamId stream, uint64_t mark) {
  if (mark == 0) return true;
  if (stream != 0) {
    auto it = streams_.find(stream);
    auto s = it == streams_.end() ? nullptr : it->second.lock();
    // A retired stream has completed (or dropped) everything it was given.
    return !s || s->completed() >= mark;
  }
  auto it = device_marks_.find(mark);
  if (it == device_marks_.end()) return true;
  auto& positions = it->second.positions;
  while (!positions.empty()) {
    auto s = positions.back().first.lock();
    if (s && s->completed() < positions.back().second) return false;
    positions.pop_back();
  }
  device_marks_.erase(it);
  return true;
}

Status DeviceAllocator::allocate(uint64_t bytes, plugin::PageKind page, const void* site, plugin::DevAddr* out,
                                 plugin::StreamId stream) {
  std::lock_guard lock(mu_);
  // A request beyond the whole device never reaches the policy: no policy then has to round a size
  // near 2^64 without overflowing (the caching plugin's rounding wrapped to a tiny block).
  if (bytes > device_->properties().memory_bytes) {
    return Status(Errc::rt_memory_allocation, oom_message(bytes, Status(Errc::rt_memory_allocation, "")));
  }
  plugin::AllocRequest request;
  request.bytes = bytes;
  request.alignment = 64;  // CANN's base alignment for aclrtMalloc
  request.page = page;
  request.stream = stream;
  plugin::Allocation a;
  Status st = policy_->allocate(request, &a);
  if (!st.ok()) {
    return Status(st.code() == Errc::ok ? Errc::rt_memory_allocation : st.code(), oom_message(bytes, st));
  }
  if (a.size < bytes) {  // a policy's bug must not become an out-of-bounds block
    policy_->deallocate(a.addr, stream);
    return Status(Errc::internal_error, "the allocator policy returned a block of " + std::to_string(a.size) +
                                            " bytes for a request of " + std::to_string(bytes));
  }
  const uint64_t trace_id = trace_ ? trace_->allocated(device_id_, stream, bytes, uint32_t(page)) : 0;
  blocks_[a.addr] = Block{a.addr, bytes, a.size, site, stream, trace_id};
  // Policies take all their memory through acquire(), so every block lies in a known chunk.
  if (ChunkBlocks* c = chunk_of(a.addr)) {
    c->starts.insert(a.addr);
  }
  requested_.add(bytes);
  *out = a.addr;
  return Status::Ok();
}

namespace {
Status not_a_block(plugin::DevAddr addr, int32_t device) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64 " is not the start of a live allocation of device %d", addr, device);
  return Status(Errc::rt_memory_free, buf);
}
}  // namespace

Status DeviceAllocator::free(plugin::DevAddr addr, plugin::StreamId stream) {
  std::lock_guard lock(mu_);
  auto it = blocks_.find(addr);
  if (it == blocks_.end()) return not_a_block(addr, device_id_);
  requested_.sub(it->second.requested);
  if (trace_) trace_->freed(device_id_, stream, it->second.trace_id);
  prune_retiring();
  if (stream != 0) {
    // Work on the free's stream, and on every stream when others used the block, may still touch it.
    const plugin::StreamId order = it->second.used_elsewhere ? 0 : stream;
    const uint64_t m = mark(order);
    if (!reached(order, m)) retiring_order_.push_back(retiring_.emplace(addr, Retiring{it->second, order, m}));
  }
  blocks_.erase(it);
  // Before the policy runs: it may give the chunk back to the device.
  if (ChunkBlocks* c = chunk_of(addr)) {
    c->starts.erase(addr);
  }
  policy_->deallocate(addr, stream);
  return Status::Ok();
}

void DeviceAllocator::prune_retiring() {
  // Marks of one stream are reached in order; across streams the oldest may lag, which only keeps
  // a few entries a little longer.
  while (!retiring_order_.empty()) {
    auto it = retiring_order_.front();
    if (!reached(it->second.stream, it->second.mark)) break;
    retiring_.erase(it);
    retiring_order_.pop_front();
  }
}

Status DeviceAllocator::record_use(plugin::DevAddr addr, plugin::StreamId stream) {
  std::lock_guard lock(mu_);
  auto it = blocks_.find(addr);
  if (it == blocks_.end()) return not_a_block(addr, device_id_);
  if (trace_) trace_->used(device_id_, stream, it->second.trace_id);
  if (stream != it->second.stream) it->second.used_elsewhere = true;
  policy_->record_use(addr, stream);
  return Status::Ok();
}

bool DeviceAllocator::find(plugin::DevAddr addr, uint64_t bytes, Block* out) const {
  // Against what the program asked for, not the policy's rounding: as on the device, the bytes
  // past the request are not the program's.
  auto contains = [&](const Block& b) {
    return addr >= b.addr && addr - b.addr <= b.requested && bytes <= b.requested - (addr - b.addr);
  };
  std::lock_guard lock(mu_);
  if (const ChunkBlocks* c = chunk_of(addr)) {
    auto at = c->starts.upper_bound(addr);
    if (at != c->starts.begin()) {
      auto it = blocks_.find(*std::prev(at));
      if (it != blocks_.end() && contains(it->second)) {
        if (out != nullptr) *out = it->second;
        return true;
      }
    }
  }
  // Freed in stream order, and work queued before the free may still be using it. Only the nearest
  // few are looked at: retiring blocks are few, and seldom nested.
  auto r = retiring_.upper_bound(addr);
  for (int looked = 0; r != retiring_.begin() && looked < 8; ++looked) {
    --r;
    if (contains(r->second.block)) {
      if (out != nullptr) *out = r->second.block;
      return true;
    }
  }
  return false;
}

uint64_t DeviceAllocator::trim(uint64_t keep_bytes) {
  std::lock_guard lock(mu_);
  prune_retiring();
  return policy_->trim(keep_bytes);
}

std::vector<plugin::BlockInfo> DeviceAllocator::snapshot() const {
  std::lock_guard lock(mu_);
  std::vector<plugin::BlockInfo> out;
  policy_->visit(
      [](void* context, const plugin::BlockInfo& b) {
        static_cast<std::vector<plugin::BlockInfo>*>(context)->push_back(b);
      },
      &out);
  return out;
}

plugin::AllocatorStats DeviceAllocator::stats() const {
  std::lock_guard lock(mu_);
  plugin::AllocatorStats s = policy_->stats();
  s.requested = requested_;  // the core knows what the program asked for exactly
  return s;
}

std::vector<DeviceAllocator::Block> DeviceAllocator::blocks() const {
  std::lock_guard lock(mu_);
  std::vector<Block> out;
  out.reserve(blocks_.size());
  for (const auto& [addr, b] : blocks_) out.push_back(b);
  std::sort(out.begin(), out.end(), [](const Block& a, const Block& b) { return a.addr < b.addr; });
  return out;
}

const char* DeviceAllocator::policy_name() const {
  return policy_->name();
}

std::string DeviceAllocator::policy_options() const {
  std::lock_guard lock(mu_);
  return policy_->describe();
}

std::string DeviceAllocator::report() const {
  std::lock_guard lock(mu_);
  plugin::AllocatorStats s = policy_->stats();
  s.requested = requested_;
  return format_memory_report(device_id_, policy_->name(), s, blocks_.size());
}

std::string format_memory_report(int32_t device, const char* policy, const plugin::AllocatorStats& s,
                                 uint64_t live_blocks) {
  char line[200];
  std::string out = "device " + std::to_string(device) + " memory, allocator \"" + policy + "\"\n";
  std::snprintf(line, sizeof line, "  %-10s %12s %12s %12s\n", "", "current", "peak", "total");
  out += line;
  const std::pair<const char*, const plugin::Gauge*> rows[] = {
      {"requested", &s.requested}, {"allocated", &s.allocated}, {"active", &s.active}, {"reserved", &s.reserved}};
  for (const auto& [name, g] : rows) {
    std::snprintf(line, sizeof line, "  %-10s %12s %12s %12s\n", name, human_bytes(g->current).c_str(),
                  human_bytes(g->peak).c_str(), human_bytes(g->total).c_str());
    out += line;
  }
  std::snprintf(
      line, sizeof line,
      "  blocks: %" PRIu64 " live, %" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64 " pending; chunks: %" PRIu64
      " acquired, %" PRIu64 " released; cache hits %" PRIu64 "; OOMs %" PRIu64 "\n",
      live_blocks, s.allocations, s.frees, s.pending_frees, s.chunk_acquires, s.chunk_releases, s.cache_hits, s.ooms);
  out += line;
  const double overhead = s.requested.peak == 0 ? 0.0 : double(s.reserved.peak) / double(s.requested.peak);
  std::snprintf(line, sizeof line,
                "  cached free %s, largest free block %s, fragmentation %.0f%%; peak reserved / peak requested %.2f\n",
                human_bytes(s.cached_free).c_str(), human_bytes(s.largest_free).c_str(), s.fragmentation() * 100,
                overhead);
  out += line;
  return out;
}

std::string DeviceAllocator::oom_message(uint64_t bytes, const Status& why) const {
  const plugin::MemoryUsage dev = device_->memory_usage();
  plugin::AllocatorStats s = policy_->stats();
  s.requested = requested_;
  std::string m = "device " + std::to_string(device_id_) + ": out of memory allocating " + human_bytes(bytes) + " (" +
                  std::to_string(bytes) + " bytes)";
  if (!why.message().empty()) m += ": " + why.message();
  m += ". Device: " + human_bytes(dev.total) + " total, " + human_bytes(dev.free) + " free, largest free range " +
       human_bytes(dev.largest_free) + ". Allocator \"" + policy_->name() + "\" (" + policy_->describe() +
       "): reserved " + human_bytes(s.reserved.current) + ", allocated " + human_bytes(s.allocated.current) + " in " +
       std::to_string(blocks_.size()) + " blocks, requested " + human_bytes(s.requested.current) + ", cached free " +
       human_bytes(s.cached_free) + ", largest cached block " + human_bytes(s.largest_free);
  char frag[64];
  std::snprintf(frag, sizeof frag, ", fragmentation %.0f%%", s.fragmentation() * 100);
  m += frag;
  m += ". ";
  // What to try, from what the numbers say.
  if (bytes > dev.total) {
    m += "The request is larger than the whole device.";
  } else if (dev.free >= bytes && dev.largest_free < bytes) {
    m += "Enough memory is free but no range is contiguous: free long-lived blocks first or allocate large "
         "buffers early.";
  } else if (s.cached_free >= bytes) {
    m += "The allocator caches enough free memory: trim it (arunMemTrim, a lower release threshold) "
         "or enable splitting.";
  } else {
    m += "Free device memory (aclrtFree) before allocating, or use smaller batches.";
  }
  return m;
}

}  // namespace arun
