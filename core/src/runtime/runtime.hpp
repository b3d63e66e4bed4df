// Runtime: the process-wide state aclInit creates and aclFinalize destroys: configuration, loaded
// plugins, devices, live handles and each thread's current context. The C API layer validates
// arguments and calls into it; everything here returns Status with ACL-valued codes.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"
#include "config/config.hpp"
#include "host/host_calls.hpp"
#include "plugins/plugin_loader.hpp"
#include "prof/aclprof_state.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/event.hpp"
#include "runtime/failure_log.hpp"
#include "runtime/graph.hpp"
#include "runtime/handle_table.hpp"
#include "runtime/host_registrations.hpp"
#include "runtime/kernel_binaries.hpp"
#include "runtime/memory_registry.hpp"
#include "runtime/model_table.hpp"
#include "runtime/notify_registry.hpp"
#include "runtime/virtual_memory.hpp"
#include "sched/policy_registry.hpp"

namespace arun {

// Where a pointer lives.
struct PointerInfo {
  enum class Kind { Host, PinnedHost, Device } kind = Kind::Host;
  DeviceSlot* slot = nullptr;   // Device
  uint64_t base = 0, size = 0;  // the containing allocation (Device, PinnedHost); 0 if none
  bool in_allocation = false;
};

class Runtime {
 public:
  // aclInit / aclFinalize, reference-counted as the spec says.
  static Status initialize(const char* config_path);
  static Status finalize();
  // aclFinalizeReference: drops one aclInit reference; the last one finalises as finalize() does.
  // `*left` receives the references left (0 also when there were none: repeat_finalize).
  static Status finalize_reference(uint64_t* left);
  // The live runtime, or nullptr before aclInit / after aclFinalize.
  static Runtime* instance() { return rt::detail::g_runtime.load(std::memory_order_acquire); }

  const RuntimeConfig& config() const { return config_; }
  // The scheduling policy in use, its options and where they came from.
  const SchedulerChoice& scheduler() const { return scheduler_; }
  const AllocatorChoice& allocator() const { return *allocator_; }
  // arunSetSchedulerPolicy: a "NAME[:key=value,...]" spec (NULL or "" clears it) that the next
  // aclInit uses over ASCEND_RUN_SCHED and the config. Only the syntax is checked here.
  static Status set_scheduler_override(const char* spec);
  const std::vector<LoadedPluginInfo>& plugins() const { return plugins_; }
  uint32_t device_count() const { return static_cast<uint32_t>(devices_.size()); }
  // The physical id (see ASCEND_RT_VISIBLE_DEVICES) of visible device `id`, which must be valid.
  uint32_t physical_device_id(int32_t id) const { return visible_physical_ids_[static_cast<size_t>(id)]; }
  DeviceSlot* device(int32_t id) const;
  Status check_device_id(int32_t id) const;

  // ---- thread state ----
  Context* current_context() const;  // nullptr if none (or it was destroyed)
  Status require_context(Context** out) const;

  // ---- devices and contexts ----
  Status set_device(int32_t id);
  Status reset_device(int32_t id, bool force);
  Status create_context(int32_t id, void** handle);
  Status destroy_context(void* handle);
  Status set_current_context(void* handle);

  // ---- streams ----
  // NULL = the current context's default stream. A stream of another context is rt_stream_context.
  Status resolve_stream(void* handle, std::shared_ptr<Stream>* out) const;
  // The live stream behind `handle`, whatever its context; nullptr if destroyed or not a stream.
  std::shared_ptr<Stream> find_stream(void* handle) const { return streams_.find(handle); }
  // Every live stream, default streams included (for the report).
  std::vector<std::shared_ptr<Stream>> live_streams() const { return streams_.snapshot(); }
  Status create_stream(uint32_t priority, uint32_t flags, void** handle);
  Status destroy_stream(void* handle, bool force);
  Status synchronize_stream(Stream& stream, int32_t timeout_ms);
  Status synchronize_device(int32_t timeout_ms);

  // ---- events ----
  Status create_event(uint32_t flags, void** handle);
  Status destroy_event(void* handle);
  Status resolve_event(void* handle, std::shared_ptr<Event>* out) const;  // any context
  Status record_event(const std::shared_ptr<Event>& event, Stream& stream);
  // `timeout_ns` != 0: the wait fails with ACL_ERROR_RT_TASK_TIMEOUT after blocking that long.
  Status wait_event(Stream& stream, const std::shared_ptr<Event>& event, int64_t timeout_ns = -1);  // < 0: forever
  Status reset_event(const std::shared_ptr<Event>& event, Stream& stream);
  Status synchronize_event(Event& event, int32_t timeout_ms);

  // ---- memory ----
  PointerInfo classify(const void* ptr, uint64_t bytes) const;
  // The device whose address space holds ptr (allocated or not), or nullptr. Cheaper than classify.
  DeviceSlot* device_owning(const void* ptr) const;
  MemoryRegistry& pinned() { return pinned_; }
  HostRegistrations& host_registrations() { return host_registrations_; }  // aclrtHostRegister
  VirtualMemory& virtual_memory() { return vmm_; }  // aclrtReserveMemAddress, aclrtMapMem, ...
  // HostServices::vmm_map: `device`'s view of mapped virtual memory, or nullptr.
  static void* vmm_map(const plugin::Device* device, uint64_t addr, uint64_t bytes);
  // Plugin ABI minor of the device's plugin (calls added later are made only where it is enough).
  uint16_t device_abi_minor(int32_t id) const;

  // Enqueues a task (built by the caller with stream set) on its stream's device. Takes ownership
  // of the task even when it fails (a stream stopped by ACL_STOP_ON_FAILURE refuses new work).
  Status submit(Task* task, uint64_t* seq = nullptr);
  // Id of the last task the calling thread submitted to a stream it created (aclrtGetThreadLastTaskId).
  static uint32_t thread_last_task_id();

  // ---- profiling ----
  // Loads the named profiler sinks (libarun_profiler_<name>.so, options from a [[plugin]] entry of
  // kind "profiler" with that name) and starts a session collecting `categories` (prof::k* bits)
  // into `output_dir`. An unknown sink is `code` with `origin` and the list of installed ones.
  Status start_profiling(const std::vector<std::string>& sinks, const std::string& output_dir, uint64_t categories,
                         const std::string& source, Errc code, const std::string& origin);
  // Names of the profiler sinks found in the plugin folders.
  std::vector<std::string> installed_sinks() const { return installed_plugins("profiler"); }
  // What aclprofInit .. aclprofFinalize set up (front/aclprof.cpp); reset by teardown.
  AclprofState& aclprof() { return aclprof_; }

  // ---- host calls (spec 2.7) ----
  HostCalls& host_calls() { return host_calls_; }

  // ---- task failures (spec 2.8): each device's latest, for aclrtGetErrorVerbose
  FailureLog& failures() { return failures_; }
  // ---- loaded models (arun/runtime/models.hpp); abandoned and dropped by teardown ----
  ModelTable& models() { return models_; }
  // ---- notifies (spec part 2, 4.5; core/src/front/notifies.cpp) ----
  NotifyRegistry& notifies() { return notifies_; }
  // ---- kernel binaries (spec part 2, 4.11; core/src/front/kernel_binaries.cpp) ----
  KernelBinaryTable& kernel_binaries() { return kernel_binaries_; }
  // ---- captured task graphs (spec part 2, 4.12; runtime/graph.hpp, core/src/front/graphs.cpp) ----
  GraphTable& graphs() { return graphs_; }

 private:
  // The teardown half of finalize(); g_init_mu is held and `rt` is the live instance.
  static Status finalize_locked(Runtime* rt);
  Runtime() = default;
  Status setup(RuntimeConfig config);
  void teardown(LeakReport* leaks = nullptr);
  Status report_leaks(const LeakReport& leaks, const std::string& when) const;
  Status load_device_plugin(const PluginEntry& entry);
  // Creates a DeviceSlot for each device ASCEND_RT_VISIBLE_DEVICES leaves visible (all by default).
  void expose_visible_devices();
  Status choose_scheduler();
  Status choose_allocator();  // allocator_selection.cpp
  // Names of the loadable plugins of `kind` in the search paths and the built-in plugin folder.
  std::vector<std::string> installed_plugins(const std::string& kind) const;
  // HostServices::memory_live: is the range inside a block the program holds?
  static bool memory_live(const plugin::Device* device, uint64_t addr, uint64_t bytes);
  // HostServices::host_mapped: a mapped host registration or managed memory?
  static bool host_mapped(uint64_t addr, uint64_t bytes);
  Status load_scheduler_plugin();
  Status start_configured_profiling();
  Status choose_stream_sanitizer();  // [profiler] enabled or ASCEND_RUN_PROFILING
  void release_context(const std::shared_ptr<Context>& context, LeakReport* leaks = nullptr);
  std::shared_ptr<Stream> make_stream(Context* context, uint32_t priority, uint32_t flags, bool is_default);

  RuntimeConfig config_;
  SchedulerChoice scheduler_;
  std::shared_ptr<const AllocatorChoice> allocator_;  // every device's allocator policy
  PolicyFactory policy_factory_;
  const PluginEntry* scheduler_entry_ = nullptr;  // the [[plugin]] entry of a plugin policy, if listed
  std::vector<LoadedPluginInfo> plugins_;
  // Every device the device plugins provide, in plugin order (the physical ids), and the ones
  // visible to the program: devices_[i] is physical device visible_physical_ids_[i].
  struct PhysicalDevice {
    std::shared_ptr<plugin::DevicePlugin> backend;
    uint32_t index;
    std::string backend_name;
    uint16_t abi_minor = 0;
  };
  std::vector<PhysicalDevice> physical_devices_;
  std::vector<uint32_t> visible_physical_ids_;
  std::vector<std::unique_ptr<DeviceSlot>> devices_;
  HandleTable<Context> contexts_{HandleKind::Context};
  HandleTable<Stream> streams_{HandleKind::Stream};
  HandleTable<Event> events_{HandleKind::Event};
  MemoryRegistry pinned_;
  HostRegistrations host_registrations_;
  VirtualMemory vmm_;
  std::vector<uint16_t> device_abi_minor_;  // per runtime device id
  HostCalls host_calls_;
  AclprofState aclprof_;
  FailureLog failures_;  // forgotten with the runtime at aclFinalize
  ModelTable models_;
  NotifyRegistry notifies_;
  KernelBinaryTable kernel_binaries_;
  GraphTable graphs_;
  uint64_t generation_ = 0;  // distinguishes this runtime from earlier ones in thread state
  // Contexts stay allocated until finalize so a thread whose current context was destroyed sees
  // a retired object, never freed memory.
  std::mutex retired_mu_;
  std::vector<std::shared_ptr<Context>> retired_contexts_;
};

}  // namespace arun
