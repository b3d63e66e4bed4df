// Front door implementation: the ascend-run extensions (arun/runtime/extensions.hpp).
#include "arun/runtime/extensions.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "alloc/device_allocator.hpp"
#include "arun/plugin/collective.hpp"
#include "base/install_paths.hpp"
#include "base/logging.hpp"
#include "front/stream_access.hpp"
#include "plugins/plugin_loader.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"
#include "runtime/task.hpp"
#include "sched/policy_registry.hpp"
#include "sched/scheduler.hpp"

namespace arun::rt {
namespace {

// The front door is reached only through api_call, which checked that aclInit has run.
// Runs a host function as the body of a one-block kernel.
void run_host_function(plugin::KernelContext& ctx, void* args) {
  (void)ctx;
  auto* task = static_cast<Task*>(args);
  task->host_fn(task->host_user);
}

}  // namespace

Status launch_device_task(void (*fn)(void*), void* user, aclrtStream stream) {
  Runtime& rt = detail::runtime();
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  auto* task = new Task();
  task->kind = plugin::WorkKind::Kernel;
  task->kernel = &run_host_function;
  task->args = task;
  task->block_dim = 1;
  task->host_fn = fn;
  task->host_user = user;
  task->unit_kind = plugin::UnitKind::Compute;
  task->stream = s.get();
  return rt.submit(task);
}

Status set_scheduler_override(const char* spec) {
  ARUN_RETURN_IF_ERROR(Runtime::set_scheduler_override(spec));
  if (Runtime::instance() != nullptr) {
    arun::log().info("arunSetSchedulerPolicy: the runtime is initialised; \"{}\" applies from the next aclInit",
                     spec ? spec : "");
  }
  return Status::Ok();
}

Status stream_queue_depth(aclrtStream stream, uint32_t* depth, uint32_t* capacity) {
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(detail::runtime().resolve_stream(stream, &s));
  *depth = static_cast<uint32_t>(s->depth());
  if (capacity != nullptr) *capacity = s->scheduler()->queue_depth();
  return Status::Ok();
}

const char* runtime_report() {
  static thread_local std::string out;
  out.clear();
  try {
    Runtime* rt = Runtime::instance();
    std::vector<std::string> dirs;
    bool allow_insecure = false;
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
               std::to_string(p.abi_minor) + (p.build_id.empty() ? "" : ", build " + p.build_id) + ")\n    " + p.path +
               "\n    from " + p.origin + ", " + std::to_string(p.device_count) + " device(s)\n";
      }
      dirs = c.plugin_search_paths;
      allow_insecure = c.allow_insecure_plugins;
    } else {
      out += "runtime:   not initialised\n";
    }
    dirs.push_back(builtin_plugin_dir());
    // Described from their files: listing them runs no plugin's code (plugin_elf.hpp).
    out += "\nplugin libraries found:\n";
    for (const auto& dir : dirs) {
      out += "  in " + dir + ":\n";
      auto probes = probe_plugin_dir(dir, allow_insecure);
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
  // Paths, names and messages in the report come from the config and from plugin files: their
  // control characters (a terminal escape sequence, a carriage return) are shown as \xNN, not
  // sent to the terminal. Only the report's own line breaks stay.
  std::string safe;
  safe.reserve(out.size());
  for (char c : out) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n') || u == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      safe += buf;
    } else {
      safe += c;
    }
  }
  out = std::move(safe);
  return out.c_str();
}

Status allocator_state(int32_t device, AllocatorState* out) {
  Runtime& rt = detail::runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  *out = AllocatorState{};
  out->policy = rt.allocator().name;
  rt.device(device)->with_allocator([&](DeviceAllocator* a) {
    if (a == nullptr) return;
    out->open = true;
    out->stats = a->stats();
    out->live_blocks = a->blocks().size();
    out->policy = a->policy_name();
  });
  return Status::Ok();
}

Status allocator_trim(int32_t device, uint64_t keep_bytes, uint64_t* released) {
  Runtime& rt = detail::runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  uint64_t freed = 0;
  rt.device(device)->with_allocator([&](DeviceAllocator* a) {
    if (a != nullptr) freed = a->trim(keep_bytes);
  });
  *released = freed;
  return Status::Ok();
}

Status allocator_snapshot(int32_t device, std::vector<plugin::BlockInfo>* out) {
  Runtime& rt = detail::runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  out->clear();
  rt.device(device)->with_allocator([&](DeviceAllocator* a) {
    if (a != nullptr) *out = a->snapshot();
  });
  return Status::Ok();
}

Status allocator_report(int32_t device, const char** out) {
  static thread_local std::string text;
  Runtime& rt = detail::runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  text.clear();
  rt.device(device)->with_allocator([&](DeviceAllocator* a) {
    if (a != nullptr) text = a->report();
  });
  // A device that is not open reports zeros under the policy it would get.
  if (text.empty()) text = format_memory_report(device, rt.allocator().name.c_str(), plugin::AllocatorStats{}, 0);
  *out = text.c_str();
  return Status::Ok();
}

Status collective_ops(const arunCollectiveOps** out) {
  // Process scope, never destroyed: communicators made from the table keep sockets and threads
  // running the plugin's code after aclFinalize; the first runtime's configuration chooses it.
  static std::mutex mu;
  static PluginInstance<plugin::CollectivePlugin>* loaded = nullptr;
  std::lock_guard<std::mutex> lk(mu);
  if (loaded == nullptr) {
    const RuntimeConfig& cfg = detail::runtime().config();
    const PluginEntry* entry = nullptr;
    for (const auto& e : cfg.plugins) {
      if (e.kind == plugin::PluginKind::Collective) {
        entry = &e;
        break;
      }
    }
    if (entry == nullptr) {
      return Status(Errc::rt_feature_not_support,
                    "no collective plugin is configured (a [[plugin]] entry with kind = \"collective\"; the "
                    "installed default.toml names \"gloo\")");
    }
    auto inst = std::make_unique<PluginInstance<plugin::CollectivePlugin>>();
    ARUN_RETURN_IF_ERROR(
        load_plugin_object(*entry, plugin_search(cfg), entry->options, entry->origin + ".options", inst.get()));
    const arunCollectiveOps* ops = inst->object->ops();
    // Version 1 tables (no serve_only) stay usable: callers check the version before using it.
    const bool usable =
        ops != nullptr &&
        ((ops->version == 1 && ops->struct_size >= offsetof(arunCollectiveOps, serve_only)) ||
         (ops->version == ARUN_COLLECTIVE_OPS_VERSION && ops->struct_size >= sizeof(arunCollectiveOps)));
    if (!usable) {
      return Status(Errc::file_attr_invalid, "collective plugin " + inst->library.name + " (" + inst->library.path +
                                                 ") offers no arunCollectiveOps table of version 1 to " +
                                                 std::to_string(ARUN_COLLECTIVE_OPS_VERSION));
    }
    loaded = inst.release();
  }
  *out = loaded->object->ops();
  return Status::Ok();
}

}  // namespace arun::rt
