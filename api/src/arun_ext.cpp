// ascend-run extensions (arun/arun_ext.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "api_call.hpp"
#include "arun/arun_ext.h"
#include "arun/collective.h"

using namespace arun;
using namespace arun::api;

extern "C" aclError arunLaunchDeviceTask(arunDeviceTaskFn fn, void* userData, aclrtStream stream) {
  return api_call("arunLaunchDeviceTask", [&] {
    if (fn == nullptr) return invalid_param("fn is NULL");
    return rt::launch_device_task(fn, userData, stream);
  });
}

extern "C" aclError arunSetSchedulerPolicy(const char* spec) {
  return api_call_no_runtime("arunSetSchedulerPolicy", [&] { return rt::set_scheduler_override(spec); });
}

extern "C" aclError arunStreamGetQueueDepth(aclrtStream stream, uint32_t* depth, uint32_t* capacity) {
  return api_call("arunStreamGetQueueDepth", [&] {
    if (depth == nullptr) return invalid_param("depth is NULL");
    return rt::stream_queue_depth(stream, depth, capacity);
  });
}

extern "C" aclError arunStreamSanitizerReportCount(uint32_t* count) {
  return api_call_no_runtime("arunStreamSanitizerReportCount", [&] {
    if (count == nullptr) return invalid_param("count is NULL");
    *count = rt::sanitizer_report_count();
    return Status::Ok();
  });
}

extern "C" aclError arunStreamSanitizerGetReport(uint32_t index, char* buf, size_t bufLen, uint64_t* occurrences) {
  return api_call_no_runtime("arunStreamSanitizerGetReport", [&] {
    if (buf == nullptr || bufLen == 0) return invalid_param("buf is NULL or bufLen is 0");
    std::string text;
    if (!rt::sanitizer_report(index, &text, occurrences)) {
      return invalid_param("index " + std::to_string(index) + " is not below the report count " +
                           std::to_string(rt::sanitizer_report_count()));
    }
    const size_t n = std::min(text.size(), bufLen - 1);
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
    return Status::Ok();
  });
}

extern "C" const char* arunRuntimeReport(void) {
  return rt::runtime_report();
}

extern "C" aclError arunGetMemStats(int32_t deviceId, arunMemStats* stats) {
  return api_call("arunGetMemStats", [&] {
    if (stats == nullptr) return invalid_param("stats is NULL");
    rt::AllocatorState a;
    ARUN_RETURN_IF_ERROR(rt::allocator_state(deviceId, &a));
    *stats = arunMemStats{};
    if (a.open) {
      const plugin::AllocatorStats& s = a.stats;
      auto gauge = [](const plugin::Gauge& g) { return arunMemGauge{g.current, g.peak, g.total}; };
      stats->requested = gauge(s.requested);
      stats->allocated = gauge(s.allocated);
      stats->active = gauge(s.active);
      stats->reserved = gauge(s.reserved);
      stats->cachedFree = s.cached_free;
      stats->largestFree = s.largest_free;
      stats->allocations = s.allocations;
      stats->frees = s.frees;
      stats->liveBlocks = a.live_blocks;
      stats->chunkAcquires = s.chunk_acquires;
      stats->chunkReleases = s.chunk_releases;
      stats->cacheHits = s.cache_hits;
      stats->ooms = s.ooms;
      stats->pendingFrees = s.pending_frees;
      stats->fragmentation = s.fragmentation();
    }
    std::snprintf(stats->policy, sizeof stats->policy, "%s", a.policy.c_str());
    return Status::Ok();
  });
}

extern "C" aclError arunMemTrim(int32_t deviceId, size_t keepBytes, size_t* released) {
  return api_call("arunMemTrim", [&] {
    uint64_t freed = 0;
    ARUN_RETURN_IF_ERROR(rt::allocator_trim(deviceId, keepBytes, &freed));
    if (released != nullptr) *released = static_cast<size_t>(freed);
    return Status::Ok();
  });
}

static_assert(ARUN_MEM_BLOCK_LIVE == int(plugin::BlockInfo::State::Live) &&
              ARUN_MEM_BLOCK_FREE == int(plugin::BlockInfo::State::Free) &&
              ARUN_MEM_BLOCK_PENDING == int(plugin::BlockInfo::State::Pending));

extern "C" aclError arunMemSnapshot(int32_t deviceId, arunMemBlock* blocks, size_t capacity, size_t* count) {
  return api_call("arunMemSnapshot", [&] {
    if (count == nullptr) return invalid_param("count is NULL");
    if (blocks == nullptr && capacity > 0)
      return invalid_param("blocks is NULL but capacity is " + std::to_string(capacity));
    std::vector<plugin::BlockInfo> all;
    ARUN_RETURN_IF_ERROR(rt::allocator_snapshot(deviceId, &all));
    for (size_t i = 0; i < all.size() && i < capacity; ++i) {
      const plugin::BlockInfo& b = all[i];
      blocks[i] = arunMemBlock{b.addr, b.size, b.chunk, b.stream, static_cast<arunMemBlockState>(b.state)};
    }
    *count = all.size();
    return Status::Ok();
  });
}

extern "C" const char* arunMemReport(int32_t deviceId) {
  const char* out = nullptr;
  aclError rc = api_call("arunMemReport", [&] { return rt::allocator_report(deviceId, &out); });
  return rc == ACL_SUCCESS ? out : nullptr;
}

extern "C" aclError arunGetCollectiveOps(const arunCollectiveOps** ops) {
  return api_call("arunGetCollectiveOps", [&] {
    if (ops == nullptr) return invalid_param("ops is NULL");
    return rt::collective_ops(ops);
  });
}
