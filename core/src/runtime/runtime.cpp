#include "runtime/runtime.hpp"

#include "runtime/ipc_broker.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "arun/runtime/recorder.hpp"
#include "base/install_paths.hpp"
#include "base/logging.hpp"
#include "config/config_detail.hpp"
#include "config/default_config.hpp"
#include "config/setting.hpp"
#include "plugins/host_services.hpp"
#include "prof/session.hpp"
#include "runtime/managed_memory.hpp"
#include "runtime/visible_devices.hpp"
#include "sanitizer/stream_sanitizer.hpp"
#include "sched/plugin_policy.hpp"

namespace arun {

std::atomic<Runtime*> rt::detail::g_runtime{nullptr};

namespace {

std::mutex g_init_mu;
int g_init_refs = 0;
// Runtimes aclFinalize gave up on (work still queued past [runtime] finalize_timeout_ms): kept, not
// freed, because the hung work still runs on their threads and touches their state.
std::vector<Runtime*>* g_abandoned = nullptr;

// Spec 2.7: a host function or callback must not call APIs that synchronise or tear down. Those
// that would wait for the running call itself (it never returns: a deadlock) are refused.
Status refuse_in_host_call(const char* what) {
  if (HostQueue::running() == nullptr) return Status::Ok();
  return Status(Errc::rt_feature_not_support,
                std::string(what) +
                    " is not allowed inside a host function or callback (it would wait for the call "
                    "that is running it)");
}
std::string g_init_identity;  // what the first aclInit was given, to detect a differing repeat
std::atomic<uint64_t> g_generation{0};

std::mutex g_sched_override_mu;
std::optional<std::string> g_sched_override;  // arunSetSchedulerPolicy, for the next aclInit

struct ThreadState {
  Context* context = nullptr;
  uint64_t generation = 0;
};
// Read on every launch: constinit and initial-exec make each access a plain %fs-relative load
// rather than a __tls_get_addr call (see prof::ThreadState).
constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec")));

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Status Runtime::initialize(const char* config_path) {
  std::lock_guard lock(g_init_mu);
  std::string file, how;
  choose_config_file(config_path, &file, &how);
  std::error_code ec;
  if (!file.empty() && !std::filesystem::is_regular_file(file, ec)) {
    return Status(Errc::invalid_file,
                  "config file " + file + " (from " + how + ") does not exist or is not a regular file");
  }
  std::string identity = file.empty() ? std::string("<built-in>") : read_file(file);
  if (g_init_refs > 0) {
    if (identity != g_init_identity) {
      return Status(Errc::invalid_param, "already initialised with a different configuration than " +
                                             (file.empty() ? std::string("the built-in defaults") : file));
    }
    ++g_init_refs;
    return Status(Errc::repeat_initialize,
                  "already initialised; reference count is now " + std::to_string(g_init_refs));
  }

  (void)apply_log_output_env();
  if (auto env_level = log_level_from_env()) set_log_level(*env_level);
  RuntimeConfig config;
  ARUN_RETURN_IF_ERROR(load_runtime_config(file, how, &config));
  if (config.log_level && !log_level_from_env()) set_log_level(*config.log_level);

  std::unique_ptr<Runtime> rt(new Runtime());
  rt->generation_ = ++g_generation;
  Status st = rt->setup(std::move(config));
  if (!st.ok()) {
    rt->teardown();
    set_memory_live_check(nullptr);
    set_host_mapped_check(nullptr);
    set_vmm_map_check(nullptr);
    return st;
  }
  for (const auto& notice : rt->config_.notices) log().warn("{}", notice);
  log().info("initialised from {} ({}): {} device(s)", file.empty() ? "<built-in>" : file, how, rt->device_count());
  g_init_identity = std::move(identity);
  g_init_refs = 1;
  rt::detail::g_runtime.store(rt.release(), std::memory_order_release);
  return Status::Ok();
}

Status Runtime::finalize() {
  ARUN_RETURN_IF_ERROR(refuse_in_host_call("aclFinalize"));
  std::lock_guard lock(g_init_mu);
  Runtime* rt = rt::detail::g_runtime.load();
  if (rt == nullptr || g_init_refs == 0) {
    return Status(Errc::repeat_finalize, "the runtime is not initialised (already finalised?)");
  }
  return finalize_locked(rt);
}

Status Runtime::finalize_reference(uint64_t* left) {
  std::lock_guard lock(g_init_mu);
  Runtime* rt = rt::detail::g_runtime.load();
  if (rt == nullptr || g_init_refs <= 0) {
    *left = 0;
    return Status(Errc::repeat_finalize, "the runtime is not initialised (already finalised?)");
  }
  if (g_init_refs > 1) {
    *left = static_cast<uint64_t>(--g_init_refs);
    return Status::Ok();
  }
  // The last reference: a full teardown, after which nothing is left whether or not it reports.
  *left = 0;
  return finalize_locked(rt);
}

Status Runtime::finalize_locked(Runtime* rt) {
  rt::detail::g_runtime.store(nullptr, std::memory_order_release);
  g_init_refs = 0;
  // Bounded: a host function that never returns must not hang aclFinalize. What is still busy at
  // the deadline is named, and the runtime is left to it (freeing it would pull memory from under
  // the running work).
  if (rt->config_.finalize_timeout_ms > 0) {
    const int64_t deadline = Notifier::deadline_after_ms(static_cast<int32_t>(rt->config_.finalize_timeout_ms));
    std::string busy;
    for (const auto& s : rt->streams_.snapshot()) {
      if (s->scheduler()->drain(*s, deadline)) continue;
      const int32_t device = s->context()->slot()->id();
      log().error(
          "aclFinalize: stream {} of device {} still has {} task(s) queued after {} ms "
          "([runtime] finalize_timeout_ms; a host function that never returns?)",
          s->id(), device, s->depth(), rt->config_.finalize_timeout_ms);
      busy += (busy.empty() ? "" : ", ") + std::string("stream ") + std::to_string(s->id()) + " of device " +
              std::to_string(device);
    }
    if (!busy.empty()) {
      if (g_abandoned == nullptr) g_abandoned = new std::vector<Runtime*>();
      g_abandoned->push_back(rt);
      return Status(Errc::rt_stream_sync_timeout, "aclFinalize gave up after " +
                                                      std::to_string(rt->config_.finalize_timeout_ms) +
                                                      " ms: work is still queued on " + busy +
                                                      "; the runtime's resources are left to it (not released)");
    }
  }
  LeakReport leaks;
  rt->teardown(&leaks);
  set_memory_live_check(nullptr);
  set_host_mapped_check(nullptr);
  set_vmm_map_check(nullptr);
  // After teardown, which drained every stream: the session holds all the work the program did.
  Profiler::instance().stop();
  Status st = rt->report_leaks(leaks, "aclFinalize");
  delete rt;
  return st;
}

namespace {
// ASCEND_RUN_DIRECT_SUBMIT (issue 16; Scheduler::set_direct_submit): unset, empty, "1" or "on":
// tiny copies and memsets up to Scheduler::kDirectSubmitBytes run on the submitting thread when
// their stream is idle; "0" or "off": never (every task goes to a device thread, as before); a
// byte count N (as the config's sizes are written: 65536, 64KiB, ...; at least 2): up to N bytes.
Status choose_direct_submit() {
  uint64_t bytes = Scheduler::kDirectSubmitBytes;
  const char* env = std::getenv("ASCEND_RUN_DIRECT_SUBMIT");
  const std::string text = env != nullptr ? env : "";
  if (text == "0" || text == "off") {
    bytes = 0;
  } else if (!text.empty() && text != "1" && text != "on") {
    if (text[0] == '-' || !parse_byte_size(text, &bytes) || bytes < 2) {
      return Status(Errc::invalid_param, "ASCEND_RUN_DIRECT_SUBMIT=\"" + text +
                                             "\" is not valid (valid: on, off, 1, 0, or a byte count such as 65536 "
                                             "or 64KiB)");
    }
  }
  Scheduler::set_direct_submit_default(bytes);
  return Status::Ok();
}
}  // namespace

Status Runtime::setup(RuntimeConfig config) {
  config_ = std::move(config);  // moved: TOML++ keeps source positions only in the original tables
  ARUN_RETURN_IF_ERROR(choose_scheduler());
  ARUN_RETURN_IF_ERROR(choose_allocator());
  ARUN_RETURN_IF_ERROR(choose_stream_sanitizer());
  ARUN_RETURN_IF_ERROR(choose_direct_submit());
  // Devices check every access against the blocks the program holds, not only their own
  // allocations: a policy may carve many blocks out of one chunk, and even `direct` keeps a freed
  // chunk until the work in flight that may use it is done.
  set_memory_live_check(&Runtime::memory_live);
  set_host_mapped_check(&Runtime::host_mapped);
  set_vmm_map_check(&Runtime::vmm_map);
  for (const auto& entry : config_.plugins) {
    if (entry.kind == plugin::PluginKind::Scheduler) {
      // Loaded only when it is the policy in use (below): a config may list several.
      if (scheduler_.plugin && entry.name == scheduler_.name) scheduler_entry_ = &entry;
      continue;
    }
    if (entry.kind == plugin::PluginKind::Allocator) continue;   // choose_allocator loaded the one in use
    if (entry.kind == plugin::PluginKind::Profiler) continue;    // loaded when a session starts
    if (entry.kind == plugin::PluginKind::Collective) continue;  // loaded on first use (rt::collective_ops)
    ARUN_RETURN_IF_ERROR(load_device_plugin(entry));
  }
  expose_visible_devices();
  if (scheduler_.plugin) ARUN_RETURN_IF_ERROR(load_scheduler_plugin());
  return start_configured_profiling();
}

// [runtime] stream_sanitizer, overridden by ASCEND_RUN_STREAM_SANITIZER (setting.hpp's precedence).
Status Runtime::choose_stream_sanitizer() {
  const SettingChoice from =
      choose_setting("", std::nullopt, "ASCEND_RUN_STREAM_SANITIZER", config_.stream_sanitizer != "off");
  std::string text = from.from == SettingChoice::From::Environment ? from.text : config_.stream_sanitizer;
  san::Mode mode = san::Mode::Off;
  if (!san::parse_mode(text, &mode)) {
    return Status(Errc::invalid_param, "ASCEND_RUN_STREAM_SANITIZER=\"" + text +
                                           "\" is not a stream sanitizer mode (valid: off, report, abort)");
  }
  san::enable(mode);
  return Status::Ok();
}

Status Runtime::start_configured_profiling() {
  const SettingChoice from = choose_setting("", std::nullopt, "ASCEND_RUN_PROFILING", config_.profiler_enabled);
  std::vector<std::string> sinks;
  std::string origin;
  Errc code = Errc::file_attr_invalid;
  if (from.from == SettingChoice::From::Environment) {
    // A list of sink names, separated by commas (spaces allowed around them).
    const std::string& text = from.text;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t comma = text.find(',', pos);
      if (comma == std::string::npos) comma = text.size();
      std::string name = text.substr(pos, comma - pos);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (name.empty()) {
        return Status(Errc::invalid_param, "ASCEND_RUN_PROFILING=\"" + text + "\": empty sink name in the list");
      }
      if (std::find(sinks.begin(), sinks.end(), name) == sinks.end()) sinks.push_back(name);
      pos = comma + 1;
    }
    origin = "ASCEND_RUN_PROFILING=\"" + text + "\"";
    code = Errc::invalid_param;
  } else if (from.from == SettingChoice::From::Config) {
    // Empty sinks: the default config's default_sinks (config/default_config.hpp).
    sinks = config_.profiler_sinks.empty() ? config_.profiler_default_sinks : config_.profiler_sinks;
    origin = config_.source_path + ": profiler.sinks";
    if (sinks.empty()) {
      return Status(code, origin +
                              ": empty, and no profiler.default_sinks is configured (the installed default "
                              "config sets it)");
    }
  } else {
    return Status::Ok();
  }
  // ASCEND_RUN_PROFILING_DIR moves the output, so a wrapper (`ascend-run profile`) can profile a
  // program without writing it a config.
  std::string output_dir = config_.profiler_output_dir;
  if (const char* dir = std::getenv("ASCEND_RUN_PROFILING_DIR"); dir != nullptr && dir[0] != '\0') output_dir = dir;
  return start_profiling(sinks, output_dir, prof::kAll, from.source, code, origin);
}

Status Runtime::start_profiling(const std::vector<std::string>& sinks, const std::string& output_dir,
                                uint64_t categories, const std::string& source, Errc code, const std::string& origin) {
  ProfilerSession session;
  for (const auto& name : sinks) {
    const PluginEntry* listed = nullptr;
    for (const auto& entry : config_.plugins) {
      if (entry.kind == plugin::PluginKind::Profiler && entry.name == name) listed = &entry;
    }
    PluginEntry implicit;
    if (listed == nullptr) {
      std::vector<std::string> found = installed_plugins("profiler");
      if (std::find(found.begin(), found.end(), name) == found.end()) {
        std::string valid;
        for (const auto& f : found) valid += (valid.empty() ? "" : ", ") + f;
        return Status(code, origin + ": unknown profiler sink \"" + name +
                                "\" (installed: " + (valid.empty() ? std::string("none") : valid) + ")");
      }
      implicit.kind = plugin::PluginKind::Profiler;
      implicit.name = name;
      implicit.origin = "profiler sink \"" + name + "\"";
      listed = &implicit;
    }
    PluginInstance<plugin::ProfilerSink> sink;
    ARUN_RETURN_IF_ERROR(
        load_plugin_object(*listed, plugin_search(config_), listed->options, listed->origin + ".options", &sink));
    session.sinks.push_back({name, std::move(sink.object)});
  }
  session.output_dir = output_dir;
  session.categories = categories;
  session.buffer_bytes = config_.profiler_buffer_bytes;
  if (source != "aclprofStart") {
    session.start_after_ms = config_.profiler_start_after_ms;
    session.duration_ms = config_.profiler_duration_ms;
  }
  session.source = source;
  for (const auto& slot : devices_) {
    const auto& p = slot->device()->properties();
    session.devices.push_back({slot->id(), p.soc_name, p.compute_units, p.copy_units});
  }
  return Profiler::instance().start(std::move(session));
}

Status Runtime::set_scheduler_override(const char* spec) {
  std::lock_guard lock(g_sched_override_mu);
  if (spec == nullptr || spec[0] == '\0') {
    g_sched_override.reset();
    return Status::Ok();
  }
  PolicySpec parsed;  // the syntax is checked now; the name and options at aclInit
  ARUN_RETURN_IF_ERROR(parse_policy_spec(spec, std::string("arunSetSchedulerPolicy(\"") + spec + "\")", &parsed));
  g_sched_override = spec;
  return Status::Ok();
}

Status Runtime::choose_scheduler() {
  PolicySpec spec;
  Errc code = Errc::invalid_param;
  std::optional<std::string> override_spec;
  {
    std::lock_guard lock(g_sched_override_mu);
    override_spec = g_sched_override;
  }
  const SettingChoice from =
      choose_setting("arunSetSchedulerPolicy", override_spec, "ASCEND_RUN_SCHED", !config_.source_path.empty());
  if (from.from == SettingChoice::From::Override) {
    ARUN_RETURN_IF_ERROR(parse_policy_spec(from.text, "arunSetSchedulerPolicy(\"" + from.text + "\")", &spec));
  } else if (from.from == SettingChoice::From::Environment) {
    ARUN_RETURN_IF_ERROR(parse_policy_spec(from.text, "ASCEND_RUN_SCHED=\"" + from.text + "\"", &spec));
  } else {
    spec.name = config_.scheduler_policy;
    spec.options = std::move(config_.scheduler_options);  // moved: keeps the source positions
    spec.origin = config_.source_path.empty() ? std::string("built-in defaults") : config_.source_path;
    spec.from_toml = true;
    code = Errc::file_attr_invalid;
  }
  spec.source = from.source;
  if (!is_builtin_policy(spec.name)) {
    // Not built in: a scheduler plugin of that name, listed in the config or in a plugin folder.
    bool listed = false;
    for (const auto& entry : config_.plugins) {
      listed = listed || (entry.kind == plugin::PluginKind::Scheduler && entry.name == spec.name);
    }
    std::string plugins;
    bool found = listed;
    for (const auto& name : installed_plugins("scheduler")) {
      plugins += ", " + name;
      found = found || name == spec.name;
    }
    if (!found) {
      std::string where = spec.origin + (spec.from_toml ? config_.scheduler_policy_at + ": scheduler.policy" : "");
      return Status(code, where + ": unknown scheduling policy \"" + spec.name +
                              "\" (valid: " + builtin_policy_names() + plugins + ")");
    }
  }
  ARUN_RETURN_IF_ERROR(resolve_scheduler(spec, code, &scheduler_));
  if (!scheduler_.plugin) {
    SchedulerChoice choice = scheduler_;
    policy_factory_ = [choice] { return make_builtin_policy(choice); };
  }
  log().debug("scheduler: {} from {}", scheduler_.describe(), scheduler_.source);
  return Status::Ok();
}

Status Runtime::load_scheduler_plugin() {
  PluginEntry implicit;
  const PluginEntry* entry = scheduler_entry_;
  if (entry == nullptr) {
    implicit.kind = plugin::PluginKind::Scheduler;
    implicit.name = scheduler_.name;
    implicit.origin = "scheduler policy \"" + scheduler_.name + "\"";
    entry = &implicit;
  }
  PluginInstance<plugin::SchedulerPlugin> loaded;
  ARUN_RETURN_IF_ERROR(
      load_plugin_object(*entry, plugin_search(config_), entry->options, entry->origin + ".options", &loaded));
  plugins_.push_back(describe_plugin(loaded.library, entry->origin));
  std::shared_ptr<plugin::SchedulerPlugin> sched = std::move(loaded.object);
  std::string name = scheduler_.name;
  policy_factory_ = [sched, name]() -> std::unique_ptr<SchedulerPolicy> {
    char error[256] = {0};
    plugin::SchedulingPolicy* p = nullptr;
    try {
      p = sched->create_policy({}, error, sizeof error - 1);  // the last byte stays NUL
    } catch (...) {
      p = nullptr;
    }
    if (p == nullptr) {
      log().error("scheduler plugin {}: no policy for the device: {}", name, error[0] ? error : "no reason given");
      return nullptr;
    }
    return std::make_unique<PluginPolicy>(name, sched, std::unique_ptr<plugin::SchedulingPolicy>(p));
  };
  return Status::Ok();
}

Status Runtime::load_device_plugin(const PluginEntry& entry) {
  PluginInstance<plugin::DevicePlugin> loaded;
  ARUN_RETURN_IF_ERROR(
      load_plugin_object(entry, plugin_search(config_), entry.options, entry.origin + ".options", &loaded));
  std::shared_ptr<plugin::DevicePlugin> backend = std::move(loaded.object);
  plugins_.push_back(describe_plugin(loaded.library, entry.origin, backend->device_count()));
  for (uint32_t i = 0; i < backend->device_count(); ++i)
    physical_devices_.push_back({backend, i, loaded.library.descriptor->name, loaded.library.descriptor->abi_minor});
  return Status::Ok();
}

void Runtime::expose_visible_devices() {
  const char* env = std::getenv("ASCEND_RT_VISIBLE_DEVICES");
  const auto total = static_cast<uint32_t>(physical_devices_.size());
  for (uint32_t physical : visible_devices(env, total)) {
    const PhysicalDevice& d = physical_devices_[physical];
    auto id = static_cast<int32_t>(devices_.size());
    // The factory is a forwarder: a scheduler plugin, if any, is loaded after the devices.
    devices_.push_back(std::make_unique<DeviceSlot>(
        id, d.backend->device(d.index), d.backend, d.backend_name, [this] { return policy_factory_(); },
        scheduler_.queue_depth));
    devices_.back()->set_allocator_choice(allocator_);
    devices_.back()->set_virtual_memory(&vmm_,
                                        d.abi_minor >= 6 ? d.backend->device(d.index)->physical_memory() : nullptr);
    devices_.back()->set_abi_minor(d.abi_minor);
    device_abi_minor_.push_back(d.abi_minor);
    visible_physical_ids_.push_back(physical);
  }
  if (env != nullptr && env[0] != '\0') {
    std::string ids;
    for (uint32_t p : visible_physical_ids_) ids += (ids.empty() ? "" : ",") + std::to_string(p);
    log().info("ASCEND_RT_VISIBLE_DEVICES={}: {} of {} device(s) visible; devices 0.. are [{}]",
               config_detail::quote(env), devices_.size(), total, ids);
  }
}

void Runtime::teardown(LeakReport* leaks) {
  // Graphs first: their destruction waits for pending executions, while every stream still runs.
  graphs_.release(nullptr);
  graphs_.stop_launcher();
  // Exports die with the runtime: no importer reaches this runtime's memory from here on.
  IpcBroker::instance().reset();
  models_.abandon_all();  // models still loaded die with the runtime; their handles are released below
  // Contexts first (drains and releases their streams), then devices, then plugins. Callbacks whose
  // thread still subscribes are dropped first: nobody is left to process them once we finalize.
  for (auto& s : streams_.snapshot()) host_calls_.forget(*s);
  for (auto& ctx : contexts_.snapshot()) {
    if (ctx->default_stream) host_calls_.forget(*ctx->default_stream);
  }
  for (auto& ctx : contexts_.snapshot()) {
    contexts_.remove(ctx->handle());
    if (ctx->alive() && !ctx->is_default()) {
      if (leaks != nullptr) leaks->contexts.push_back({ctx->slot()->id(), 0});
      release_context(ctx, leaks);
    }
  }
  for (auto& slot : devices_) {
    std::shared_ptr<Context> def;
    {
      std::lock_guard lock(slot->mu);
      def = std::move(slot->default_context);
      slot->set_count = 0;
    }
    if (def) {
      if (leaks != nullptr) leaks->devices_left_set.push_back(slot->id());
      release_context(def, leaks);
    }
  }
  // Every stream is drained: no work touches mapped virtual memory any more. Physical memory goes
  // back to its device (whose hold it drops) before the devices close.
  vmm_.clear();
  san::disable();                           // before pinned memory goes: no page stays protected
  Scheduler::set_direct_submit_default(0);  // schedulers made without a runtime keep the old path
  host_calls_.shutdown();
  streams_.clear();
  events_.clear();
  pinned_.release_retired(/*all=*/true);  // every stream is drained: nothing uses them any more
  pinned_.drain([leaks](void* base, uint64_t size, const void* site) {
    if (leaks != nullptr) leaks->memory.push_back({-1, reinterpret_cast<uint64_t>(base), size, site});
    std::free(base);
  });
  host_registrations_.clear();
  ManagedMemory::instance().release_all();  // every stream is drained
  devices_.clear();
  visible_physical_ids_.clear();
  physical_devices_.clear();  // the backends' last references go with the plugins below
  retired_contexts_.clear();
  plugins_.clear();
  aclprof_.reset();  // after the drain above: stopping aclprofStart's session keeps all the work
}

DeviceSlot* Runtime::device(int32_t id) const {
  if (id < 0 || id >= static_cast<int32_t>(devices_.size())) return nullptr;
  return devices_[id].get();
}

Status Runtime::check_device_id(int32_t id) const {
  if (devices_.empty() && !physical_devices_.empty()) {
    return Status(Errc::rt_no_device, "no device is available: ASCEND_RT_VISIBLE_DEVICES hides all " +
                                          std::to_string(physical_devices_.size()) + " device(s)");
  }
  if (devices_.empty()) return Status(Errc::rt_no_device, "no device is available (no device plugin is configured)");
  if (id < 0 || id >= static_cast<int32_t>(devices_.size())) {
    return Status(Errc::rt_invalid_device_id, "device id " + std::to_string(id) + " is out of range [0, " +
                                                  std::to_string(devices_.size() - 1) + "]");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- thread state

Context* Runtime::current_context() const {
  if (t_state.generation != generation_ || t_state.context == nullptr) return nullptr;
  return t_state.context->alive() ? t_state.context : nullptr;
}

Status Runtime::require_context(Context** out) const {
  *out = current_context();
  if (*out == nullptr) {
    return Status(Errc::rt_context_null,
                  "the calling thread has no current context (call aclrtSetDevice or aclrtSetCurrentContext first)");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- devices and contexts

std::shared_ptr<Stream> Runtime::make_stream(Context* context, uint32_t priority, uint32_t flags, bool is_default) {
  DeviceSlot* slot = context->slot();
  auto stream =
      std::make_shared<Stream>(context, slot->scheduler(), slot->next_stream_id(), priority, flags, is_default);
  streams_.add(stream);
  slot->scheduler()->add_stream(stream);
  slot->with_allocator([&](DeviceAllocator* a) {
    if (a != nullptr) a->stream_added(stream);
  });
  return stream;
}

Status Runtime::set_device(int32_t id) {
  ARUN_RETURN_IF_ERROR(check_device_id(id));
  DeviceSlot* slot = devices_[id].get();
  std::shared_ptr<Context> ctx;
  {
    std::lock_guard lock(slot->mu);
    if (!slot->default_context) {
      ARUN_RETURN_IF_ERROR(slot->acquire());
      auto def = std::make_shared<Context>(slot, true);
      contexts_.add(def);
      def->default_stream = make_stream(def.get(), 0, 0, true);
      slot->default_context = def;
    }
    ++slot->set_count;
    ctx = slot->default_context;
  }
  t_state = {ctx.get(), generation_};
  return Status::Ok();
}

Status Runtime::reset_device(int32_t id, bool force) {
  ARUN_RETURN_IF_ERROR(refuse_in_host_call("aclrtResetDevice"));
  ARUN_RETURN_IF_ERROR(check_device_id(id));
  DeviceSlot* slot = devices_[id].get();
  std::shared_ptr<Context> doomed;
  {
    std::lock_guard lock(slot->mu);
    if (slot->set_count == 0 || !slot->default_context) {
      return Status(Errc::rt_context_release_error, "device " + std::to_string(id) +
                                                        " is not set (aclrtSetDevice was not called, or it was "
                                                        "already reset)");
    }
    slot->set_count = force ? 0 : slot->set_count - 1;
    if (slot->set_count > 0) return Status::Ok();
    doomed = std::move(slot->default_context);
  }
  contexts_.remove(doomed->handle());
  LeakReport leaks;
  release_context(doomed, &leaks);
  if (t_state.context == doomed.get()) t_state.context = nullptr;
  return report_leaks(leaks, "aclrtResetDevice(" + std::to_string(id) + ")");
}

std::vector<std::string> Runtime::installed_plugins(const std::string& kind) const {
  // Read from the files (plugin_elf.hpp): listing the valid names runs no plugin's code.
  const PluginSearch search = plugin_search(config_);
  std::vector<std::string> names;
  for (const auto& dir : search.dirs) {
    for (const auto& probe : probe_plugin_dir(dir, search.allow_insecure)) {
      if (probe.ok && probe.kind == kind) names.push_back(probe.name);
    }
  }
  return names;
}

bool Runtime::memory_live(const plugin::Device* device, uint64_t addr, uint64_t bytes) {
  Runtime* rt = instance();
  if (rt == nullptr) return true;  // finalizing: the devices are closing, nothing new runs
  for (const auto& slot : rt->devices_) {
    if (slot->device() != device) continue;
    return slot->with_allocator([&](DeviceAllocator* a) { return a == nullptr || a->find(addr, bytes, nullptr); });
  }
  return true;
}

void* Runtime::vmm_map(const plugin::Device* device, uint64_t addr, uint64_t bytes) {
  Runtime* rt = instance();
  if (rt == nullptr) return nullptr;
  for (const auto& slot : rt->devices_) {
    if (slot->device() != device) continue;
    void* view = rt->vmm_.device_view(slot->id(), addr, bytes);
    // An allocator's growable range: like the device's own memory, only blocks the program holds.
    if (view != nullptr && rt->vmm_.pool_device(addr) >= 0 && !memory_live(device, addr, bytes)) return nullptr;
    return view;
  }
  return nullptr;
}

uint16_t Runtime::device_abi_minor(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < device_abi_minor_.size() ? device_abi_minor_[id] : 0;
}

bool Runtime::host_mapped(uint64_t addr, uint64_t bytes) {
  if (ManagedMemory::instance().contains(addr, bytes)) return true;
  Runtime* rt = instance();
  return rt != nullptr && rt->host_registrations_.find(addr, bytes, HostRegistrations::kMapped);
}

Status Runtime::report_leaks(const LeakReport& leaks, const std::string& when) const {
  if (config_.leak_report == LeakReportMode::Off || leaks.empty()) return Status::Ok();
  std::string text = leaks.format(when, config_.leak_call_sites);
  if (config_.leak_report == LeakReportMode::Warn) {
    log().warn("{}", text);
    return Status::Ok();
  }
  log().error("{}", text);
  return Status(Errc::failure, text +
                                   "\n  (everything was released; [runtime] leak_report = \"error\" makes this "
                                   "call fail)");
}

// Drains and releases a context's streams and events, then lets go of its device. Streams and
// events the program created and never destroyed go to `leaks` (when given).
void Runtime::release_context(const std::shared_ptr<Context>& context, LeakReport* leaks) {
  graphs_.release(context.get());  // their hidden streams and private events belong to the context
  std::vector<std::shared_ptr<Stream>> streams;
  std::vector<std::shared_ptr<Event>> events;
  {
    std::lock_guard lock(context->mu);
    streams.swap(context->streams);
    events.swap(context->events);
  }
  if (leaks != nullptr) {
    const int32_t device = context->slot()->id();
    for (const auto& s : streams) leaks->streams.push_back({device, s->id()});
    for (size_t i = 0; i < events.size(); ++i) leaks->events.push_back({device, 0});
  }
  if (context->default_stream) streams.push_back(context->default_stream);
  Scheduler* sched = context->slot()->scheduler();
  for (auto& s : streams) {
    sched->remove_stream(s, false);
    host_calls_.forget(*s);
    streams_.remove(s->handle());
    context->slot()->with_allocator([&](DeviceAllocator* a) {
      if (a != nullptr) a->stream_retired(s->uid());
    });
  }
  for (auto& e : events) events_.remove(e->handle());
  uint64_t overflow_addr = 0;
  {
    std::lock_guard lock(context->mu);
    std::swap(overflow_addr, context->overflow_addr);
  }
  if (overflow_addr != 0) {
    context->slot()->with_allocator([&](DeviceAllocator* a) {
      if (a != nullptr) (void)a->free(overflow_addr);
    });
  }
  context->default_stream.reset();
  context->retire();
  {
    std::lock_guard lock(retired_mu_);
    retired_contexts_.push_back(context);
  }
  context->slot()->release(leaks);
}

Status Runtime::create_context(int32_t id, void** handle) {
  ARUN_RETURN_IF_ERROR(check_device_id(id));
  DeviceSlot* slot = devices_[id].get();
  ARUN_RETURN_IF_ERROR(slot->acquire());
  auto ctx = std::make_shared<Context>(slot, false);
  *handle = contexts_.add(ctx);
  ctx->default_stream = make_stream(ctx.get(), 0, 0, true);
  t_state = {ctx.get(), generation_};
  return Status::Ok();
}

Status Runtime::destroy_context(void* handle) {
  auto ctx = contexts_.find(handle);
  if (!ctx) return Status(Errc::rt_invalid_handle, "context handle is not a live context");
  if (ctx->is_default()) {
    // CANN refuses it as 107002 (part 2, R1), not as a release error.
    return Status(Errc::rt_context_null,
                  "the default (primary) context of a device cannot be destroyed (use aclrtResetDevice)");
  }
  contexts_.remove(handle);
  release_context(ctx);
  if (t_state.context == ctx.get()) t_state.context = nullptr;
  return Status::Ok();
}

Status Runtime::set_current_context(void* handle) {
  auto ctx = contexts_.find(handle);
  if (!ctx || !ctx->alive()) return Status(Errc::rt_invalid_handle, "context handle is not a live context");
  t_state = {ctx.get(), generation_};
  return Status::Ok();
}

// ---------------------------------------------------------------- streams

Status Runtime::resolve_stream(void* handle, std::shared_ptr<Stream>* out) const {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(require_context(&ctx));
  if (handle == nullptr) {
    *out = ctx->default_stream;
    return Status::Ok();
  }
  auto s = streams_.find(handle);
  if (!s) return Status(Errc::rt_invalid_handle, "stream handle is not a live stream (destroyed, or not a stream)");
  if (s->context() != ctx) {
    return Status(Errc::rt_stream_context, "stream " + std::to_string(s->id()) +
                                               " belongs to another context than the calling thread's current one");
  }
  *out = std::move(s);
  return Status::Ok();
}

Status Runtime::create_stream(uint32_t priority, uint32_t flags, void** handle) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(require_context(&ctx));
  auto s = make_stream(ctx, priority, flags, false);
  {
    std::lock_guard lock(ctx->mu);
    ctx->streams.push_back(s);
  }
  *handle = s->handle();
  return Status::Ok();
}

Status Runtime::destroy_stream(void* handle, bool force) {
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(resolve_stream(handle, &s));
  if (s->is_default()) return Status(Errc::rt_param_invalid, "the default stream cannot be destroyed");
  Context* ctx = s->context();
  {
    std::lock_guard lock(ctx->mu);
    auto& v = ctx->streams;
    v.erase(std::remove(v.begin(), v.end(), s), v.end());
  }
  streams_.remove(handle);
  // A forced destroy does not wait for callbacks; a normal one lets them run first.
  if (force) host_calls_.forget(*s);
  s->scheduler()->remove_stream(s, force);
  if (!force) host_calls_.forget(*s);
  ctx->slot()->with_allocator([&](DeviceAllocator* a) {
    if (a != nullptr) a->stream_retired(s->uid());
  });
  return Status::Ok();
}

Status Runtime::synchronize_stream(Stream& stream, int32_t timeout_ms) {
  if (stream.capturing.load(std::memory_order_acquire)) [[unlikely]]
    ARUN_RETURN_IF_ERROR(graphs_.refuse_on_capturing(stream, "aclrtSynchronizeStream"));
  if (HostQueue::running() == &stream) ARUN_RETURN_IF_ERROR(refuse_in_host_call("synchronizing its own stream"));
  Scheduler* sched = stream.scheduler();
  uint32_t epoch = stream.abort_epoch();
  bool reached = sched->wait_for(stream, stream.submitted(), Notifier::deadline_after_ms(timeout_ms), &epoch);
  if (stream.abort_epoch() != epoch) {
    return Status(Errc::rt_stream_abort,
                  "stream " + std::to_string(stream.id()) + " was aborted while it was waited on");
  }
  if (!reached) {
    return Status(Errc::rt_stream_sync_timeout, "stream " + std::to_string(stream.id()) + " did not finish within " +
                                                    std::to_string(timeout_ms) + " ms");
  }
  if (allocator_->trace) allocator_->trace->synchronized(sched->device_id(), stream.uid());
  if (san::on()) [[unlikely]]
    san::synced_stream(stream);
  // Spec part 2, R3, in CANN's order: the stream's own state (abnormal after aclrtStreamStop, then
  // a task error), then the context's sticky stop-on-failure error.
  if (stream.abnormal()) {
    return Status(Errc::rt_internal_error,
                  "stream " + std::to_string(stream.id()) + " is abnormal: aclrtStreamStop halted its running task");
  }
  std::string why;
  if (int e = sched->take_error(stream, &why)) {
    return Status(static_cast<Errc>(e), "a task on stream " + std::to_string(stream.id()) + " failed with error " +
                                            std::to_string(e) + (why.empty() ? "" : ": " + why));
  }
  if (int e = stream.context()->sticky_error.load(std::memory_order_acquire)) {
    return Status(static_cast<Errc>(e), "a task of this context failed with error " + std::to_string(e) +
                                            " under ACL_STOP_ON_FAILURE; the error stays until the context is "
                                            "destroyed or its device reset");
  }
  return Status::Ok();
}

Status Runtime::synchronize_device(int32_t timeout_ms) {
  ARUN_RETURN_IF_ERROR(refuse_in_host_call("aclrtSynchronizeDevice"));
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(require_context(&ctx));
  ARUN_RETURN_IF_ERROR(graphs_.check_unsafe(ctx, false, "aclrtSynchronizeDevice"));
  Scheduler* sched = ctx->slot()->scheduler();
  if (!sched->wait_all(Notifier::deadline_after_ms(timeout_ms))) {
    return Status(Errc::rt_stream_sync_timeout, "device " + std::to_string(ctx->slot()->id()) +
                                                    " did not finish within " + std::to_string(timeout_ms) + " ms");
  }
  if (allocator_->trace) allocator_->trace->synchronized(ctx->slot()->id(), 0);
  if (san::on()) [[unlikely]]
    san::synced_device(sched->device_id());
  std::string why;
  if (int e = sched->take_any_error(&why)) {
    return Status(static_cast<Errc>(e), "a task on device " + std::to_string(ctx->slot()->id()) +
                                            " failed with error " + std::to_string(e) +
                                            (why.empty() ? "" : ": " + why));
  }
  return Status::Ok();
}

namespace {
constinit thread_local uint32_t t_last_task_id __attribute__((tls_model("initial-exec"))) = 0;
}

Status Runtime::submit(Task* task, uint64_t* seq) {
  Stream* stream = task->stream;
  if (graphs_.any_active()) [[unlikely]] {
    // A capturing stream records instead of running; an event wait may fork a stream into a capture.
    if (stream->capturing.load(std::memory_order_acquire) || stream->routed.load(std::memory_order_acquire) ||
        task->task_kind == TaskKind::EventWait) {
      bool taken = false;
      uint32_t node_id = 0;
      Status st = graphs_.capture(task, &taken, &node_id);
      if (taken) {
        if (seq) *seq = 0;
        if (node_id != 0) t_last_task_id = node_id;  // a recorded task's id within its model stream
        return st;
      }
    } else if (stream->is_default()) {
      Status st = graphs_.check_default_stream(*stream);
      if (!st.ok()) {
        delete task;
        return st;
      }
    }
  }
  Status st;
  uint64_t position = stream->scheduler()->submit(task, &st);
  if (st.ok() && position != 0 && !stream->is_default()) t_last_task_id = static_cast<uint32_t>(position);
  if (seq) *seq = position;
  return st;
}

uint32_t Runtime::thread_last_task_id() {
  return t_last_task_id;
}

// ---------------------------------------------------------------- events

Status Runtime::create_event(uint32_t flags, void** handle) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(require_context(&ctx));
  auto e = std::make_shared<Event>(ctx, flags);
  *handle = events_.add(e);
  std::lock_guard lock(ctx->mu);
  ctx->events.push_back(e);
  return Status::Ok();
}

Status Runtime::resolve_event(void* handle, std::shared_ptr<Event>* out) const {
  auto e = events_.find(handle);
  if (!e) return Status(Errc::rt_invalid_handle, "event handle is not a live event (destroyed, or not an event)");
  *out = std::move(e);
  return Status::Ok();
}

Status Runtime::destroy_event(void* handle) {
  auto e = events_.remove(handle);
  if (!e) return Status(Errc::rt_invalid_handle, "event handle is not a live event (destroyed, or not an event)");
  // Pending records and waits hold their own references; the event object goes when they finish.
  Context* ctx = e->context();
  std::lock_guard lock(ctx->mu);
  auto& v = ctx->events;
  v.erase(std::remove(v.begin(), v.end(), e), v.end());
  return Status::Ok();
}

namespace {
Status same_context(const Event& event, const Stream& stream) {
  if (event.context() != stream.context()) {
    return Status(Errc::rt_stream_context, "the event and the stream belong to different contexts");
  }
  return Status::Ok();
}
}  // namespace

Status Runtime::record_event(const std::shared_ptr<Event>& event, Stream& stream) {
  ARUN_RETURN_IF_ERROR(same_context(*event, stream));
  auto* task = new Task();
  task->task_kind = TaskKind::EventRecord;
  task->stream = &stream;
  task->record = std::make_shared<EventRecord>();
  task->event = event;
  if (event->ipc && !event->ipc->imported()) {
    // An exported IPC event: the record is numbered now, and the task publishes it when it is
    // destroyed (runtime/ipc_event.hpp), including when the submission is refused.
    task->ipc = event->ipc;
    task->ipc_n = event->ipc->begin_record();
  }
  return submit(task);
}

Status Runtime::wait_event(Stream& stream, const std::shared_ptr<Event>& event, int64_t timeout_ns) {
  ARUN_RETURN_IF_ERROR(same_context(*event, stream));
  auto* task = new Task();
  task->task_kind = TaskKind::EventWait;
  task->stream = &stream;
  task->event = event;
  task->wait_timeout_ns = timeout_ns;
  return submit(task);
}

Status Runtime::reset_event(const std::shared_ptr<Event>& event, Stream& stream) {
  ARUN_RETURN_IF_ERROR(same_context(*event, stream));
  auto* task = new Task();
  task->task_kind = TaskKind::EventReset;
  task->stream = &stream;
  task->event = event;
  return submit(task);
}

Status Runtime::synchronize_event(Event& event, int32_t timeout_ms) {
  ARUN_RETURN_IF_ERROR(graphs_.check_event(event));
  Scheduler* sched = event.context()->slot()->scheduler();
  auto record = sched->latest_record(event);
  if (!record) return Status::Ok();
  if (!sched->wait_record(*record, Notifier::deadline_after_ms(timeout_ms))) {
    return Status(Errc::rt_event_sync_timeout,
                  "the event's recorded work did not finish within " + std::to_string(timeout_ms) + " ms");
  }
  if (san::on()) [[unlikely]]
    san::synced_record(*record);
  return Status::Ok();
}

// ---------------------------------------------------------------- memory

DeviceSlot* Runtime::device_owning(const void* ptr) const {
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  for (const auto& slot : devices_)
    if (slot->device()->owns(addr)) return slot.get();
  // Ranges an allocator grows (expandable segments) hold ordinary blocks of their device.
  if (const int32_t id = vmm_.pool_device(addr); id >= 0) return device(id);
  return nullptr;
}

PointerInfo Runtime::classify(const void* ptr, uint64_t bytes) const {
  PointerInfo info;
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  if (DeviceSlot* slot = device_owning(ptr)) {
    info.kind = PointerInfo::Kind::Device;
    info.slot = slot;
    // The allocator's record of the program's blocks is exact (a device allocation may be a chunk
    // holding many blocks, or a freed block waiting for work in flight).
    DeviceAllocator::Block block;
    info.in_allocation = slot->with_allocator([&](DeviceAllocator* a) { return a && a->find(addr, bytes, &block); });
    if (info.in_allocation) {
      info.base = block.addr;
      info.size = block.requested;
    }
    return info;
  }
  // Reserved virtual ranges: device memory of the device whose physical memory is mapped there.
  // An unmapped or inaccessible part counts as device memory outside any allocation (never as host
  // memory, which a copy engine would dereference).
  VirtualMemory::Lookup v;
  if (vmm_.lookup(addr, bytes, &v)) {
    if (v.device < 0 && v.host && v.whole) {
      info.kind = PointerInfo::Kind::Host;  // host memory mapped with host access: plain host memory
      return info;
    }
    info.kind = PointerInfo::Kind::Device;
    info.slot = v.device >= 0 ? device(v.device) : nullptr;
    if (info.slot == nullptr && !devices_.empty()) info.slot = devices_.front().get();
    info.in_allocation = v.device >= 0 && v.whole;
    info.base = v.base;
    info.size = v.size;
    return info;
  }
  void* base = nullptr;
  uint64_t size = 0;
  if (pinned_.find(ptr, 1, &base, &size)) {
    info.kind = PointerInfo::Kind::PinnedHost;
    info.base = reinterpret_cast<uint64_t>(base);
    info.size = size;
    info.in_allocation = addr + bytes <= info.base + size;
    return info;
  }
  // aclrtHostRegisterV2(ACL_HOST_REG_PINNED): page-locked program memory, as aclrtMallocHost's.
  uintptr_t reg_base = 0;
  if (host_registrations_.find(addr, 1, HostRegistrations::kPinned, &reg_base, &size)) {
    info.kind = PointerInfo::Kind::PinnedHost;
    info.base = reg_base;
    info.size = size;
    info.in_allocation = bytes <= size - (addr - reg_base);
  }
  return info;
}

}  // namespace arun
