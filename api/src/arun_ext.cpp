// ascend-run extensions (arun/arun_ext.h).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "api_call.hpp"
#include "arun/arun_ext.h"
#include "base/install_paths.hpp"
#include "plugins/plugin_loader.hpp"

using namespace arun;
using namespace arun::api;

namespace {

// Runs a host function as the body of a one-block kernel.
void run_host_function(plugin::KernelContext& ctx, void* args) {
  auto* task = static_cast<Task*>(args);
  task->host_fn(task->host_user);
}

}  // namespace

extern "C" aclError arunLaunchDeviceTask(arunDeviceTaskFn fn, void *userData, aclrtStream stream) {
  return api_call("arunLaunchDeviceTask", [&](Runtime& rt) {
    if (fn == nullptr) return invalid_param("fn is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    auto* task = new Task();
    task->kind = plugin::WorkKind::Kernel;
    task->kernel = &run_host_function;
    task->args = task;
    task->block_dim = 1;
    task->host_fn = fn;
    task->host_user = userData;
    task->unit_kind = plugin::UnitKind::Compute;
    task->stream = s.get();
    return rt.submit(task);
  });
}

extern "C" aclError arunSetSchedulerPolicy(const char *spec) {
  return api_call_no_runtime("arunSetSchedulerPolicy", [&] {
    ARUN_RETURN_IF_ERROR(Runtime::set_scheduler_override(spec));
    if (Runtime::instance() != nullptr) {
      log().info("arunSetSchedulerPolicy: the runtime is initialised; \"{}\" applies from the next aclInit",
                 spec ? spec : "");
    }
    return Status::Ok();
  });
}

extern "C" aclError arunStreamGetQueueDepth(aclrtStream stream, uint32_t *depth, uint32_t *capacity) {
  return api_call("arunStreamGetQueueDepth", [&](Runtime& rt) {
    if (depth == nullptr) return invalid_param("depth is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    *depth = static_cast<uint32_t>(s->depth());
    if (capacity != nullptr) *capacity = s->scheduler()->queue_depth();
    return Status::Ok();
  });
}


extern "C" const char *arunRuntimeReport(void) {
  static thread_local std::string out;
  out.clear();
  try {
    Runtime* rt = Runtime::instance();
    std::vector<std::string> dirs;
    if (rt != nullptr) {
      const auto& c = rt->config();
      out += "config:    " + (c.source_path.empty() ? std::string("<none>") : c.source_path) + " (" + c.source_kind +
             (c.from_acl_json ? ", CANN acl.json; plugins from the installed default" : "") + ")\n";
      out += std::string("log level: ") + log_level_name(log_level()) + "\n";
      out += "scheduler: " + rt->scheduler().describe() + ", from " + rt->scheduler().source +
             "\n           built in: " + builtin_policy_names() + "; plugins: see below\n";
      out += "allocator: " + rt->allocator().name + " (" + rt->allocator().options + "), from " +
             rt->allocator().source + "\n";
      out += std::string("profiler:  ") + (c.profiler_enabled ? "enabled" : "disabled") + "\n";
      out += "\nplugins loaded:\n";
      for (const auto& p : rt->plugins()) {
        out += "  " + p.kind + " " + p.name + " " + p.version + " (ABI " + std::to_string(p.abi_major) + "." +
               std::to_string(p.abi_minor) + (p.build_id.empty() ? "" : ", build " + p.build_id) + ")\n    " +
               p.path + "\n    from " + p.origin + ", " + std::to_string(p.device_count) + " device(s)\n";
      }
      dirs = c.plugin_search_paths;
    } else {
      out += "runtime:   not initialised\n";
    }
    dirs.push_back(builtin_plugin_dir());
    out += "\nplugin libraries found:\n";
    for (const auto& dir : dirs) {
      out += "  in " + dir + ":\n";
      auto probes = probe_plugin_dir(dir);
      if (probes.empty()) out += "    (none)\n";
      for (const auto& p : probes) {
        if (p.ok) {
          out += "    " + p.kind + " " + p.name + " " + p.version + " ABI " + std::to_string(p.abi_major) + "." +
                 std::to_string(p.abi_minor) + "  " + p.path + "\n";
        } else {
          out += "    rejected " + p.path + ": " + p.reason + "\n";
        }
      }
    }
    if (rt != nullptr) {
      out += "\ndevices:\n";
      if (rt->device_count() == 0) out += "  (none)\n";
      for (uint32_t i = 0; i < rt->device_count(); ++i) {
        DeviceSlot* slot = rt->device(static_cast<int32_t>(i));
        const auto& p = slot->device()->properties();
        auto usage = slot->device()->memory_usage();
        out += "  " + std::to_string(i) + ": " + p.soc_name + " (" + slot->backend() + ")  memory " +
               human_bytes(p.memory_bytes) + " (" + human_bytes(usage.free) + " free)  AI cores " +
               std::to_string(p.compute_units) + "  vector cores " + std::to_string(p.vector_units) +
               "  copy engines " + std::to_string(p.copy_units) + "  L2 " + human_bytes(p.l2_bytes) + "\n";
      }
    }
    if (rt != nullptr) {
      // Queue depth of every stream with work pending: what a backlog looks like right now.
      auto streams = rt->live_streams();
      std::sort(streams.begin(), streams.end(), [](const auto& a, const auto& b) { return a->id() < b->id(); });
      out += "\nstreams: " + std::to_string(streams.size()) + " live";
      std::string pending;
      for (const auto& st : streams) {
        if (st->depth() == 0) continue;
        int32_t dev = st->context() != nullptr ? st->context()->slot()->id() : -1;
        pending += "  device " + std::to_string(dev) + " stream " + std::to_string(st->id()) + " (priority " +
                   std::to_string(st->priority()) + "): " + std::to_string(st->depth()) + " of " +
                   std::to_string(st->scheduler()->queue_depth()) + " queued\n";
      }
      out += pending.empty() ? ", none with tasks pending\n" : ", with tasks pending:\n" + pending;
    }
  } catch (...) {
    out += "(report incomplete: internal error)\n";
  }
  return out.c_str();
}

namespace {

Status fill_mem_stats(Runtime& rt, int32_t deviceId, arunMemStats* out) {
  if (out == nullptr) return invalid_param("stats is NULL");
  ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
  *out = arunMemStats{};
  DeviceSlot* slot = rt.device(deviceId);
  std::string policy = rt.allocator().name;
  slot->with_allocator([&](DeviceAllocator* a) {
    if (a == nullptr) return;
    const plugin::AllocatorStats s = a->stats();
    auto gauge = [](const plugin::Gauge& g) { return arunMemGauge{g.current, g.peak, g.total}; };
    out->requested = gauge(s.requested);
    out->allocated = gauge(s.allocated);
    out->active = gauge(s.active);
    out->reserved = gauge(s.reserved);
    out->cachedFree = s.cached_free;
    out->largestFree = s.largest_free;
    out->allocations = s.allocations;
    out->frees = s.frees;
    out->liveBlocks = a->blocks().size();
    out->chunkAcquires = s.chunk_acquires;
    out->chunkReleases = s.chunk_releases;
    out->cacheHits = s.cache_hits;
    out->ooms = s.ooms;
    out->pendingFrees = s.pending_frees;
    out->fragmentation = s.fragmentation();
    policy = a->policy_name();
  });
  std::snprintf(out->policy, sizeof out->policy, "%s", policy.c_str());
  return Status::Ok();
}

}  // namespace

extern "C" aclError arunGetMemStats(int32_t deviceId, arunMemStats *stats) {
  return api_call("arunGetMemStats", [&](Runtime& rt) { return fill_mem_stats(rt, deviceId, stats); });
}

extern "C" aclError arunMemTrim(int32_t deviceId, size_t keepBytes, size_t *released) {
  return api_call("arunMemTrim", [&](Runtime& rt) {
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    uint64_t freed = 0;
    rt.device(deviceId)->with_allocator([&](DeviceAllocator* a) {
      if (a != nullptr) freed = a->trim(keepBytes);
    });
    if (released != nullptr) *released = static_cast<size_t>(freed);
    return Status::Ok();
  });
}

static_assert(ARUN_MEM_BLOCK_LIVE == int(plugin::BlockInfo::State::Live) &&
              ARUN_MEM_BLOCK_FREE == int(plugin::BlockInfo::State::Free) &&
              ARUN_MEM_BLOCK_PENDING == int(plugin::BlockInfo::State::Pending));

extern "C" aclError arunMemSnapshot(int32_t deviceId, arunMemBlock *blocks, size_t capacity, size_t *count) {
  return api_call("arunMemSnapshot", [&](Runtime& rt) {
    if (count == nullptr) return invalid_param("count is NULL");
    if (blocks == nullptr && capacity > 0) return invalid_param("blocks is NULL but capacity is " + std::to_string(capacity));
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    std::vector<plugin::BlockInfo> all;
    rt.device(deviceId)->with_allocator([&](DeviceAllocator* a) {
      if (a != nullptr) all = a->snapshot();
    });
    for (size_t i = 0; i < all.size() && i < capacity; ++i) {
      const plugin::BlockInfo& b = all[i];
      blocks[i] = arunMemBlock{b.addr, b.size, b.chunk, b.stream, static_cast<arunMemBlockState>(b.state)};
    }
    *count = all.size();
    return Status::Ok();
  });
}

extern "C" const char *arunMemReport(int32_t deviceId) {
  static thread_local std::string out;
  aclError rc = api_call("arunMemReport", [&](Runtime& rt) {
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    out.clear();
    rt.device(deviceId)->with_allocator([&](DeviceAllocator* a) {
      if (a != nullptr) out = a->report();
    });
    // A device that is not open reports zeros under the policy it would get.
    if (out.empty()) out = format_memory_report(deviceId, rt.allocator().name.c_str(), plugin::AllocatorStats{}, 0);
    return Status::Ok();
  });
  return rc == ACL_SUCCESS ? out.c_str() : nullptr;
}
