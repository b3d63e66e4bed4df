// Front door implementation: profiling (arun/runtime/aclprof.hpp). The state lives in the
// Runtime's AclprofState (prof/aclprof_state.hpp); sessions are the Profiler's (prof/session.hpp).
#include "arun/runtime/aclprof.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arun/runtime/models.hpp"
#include "arun/runtime/recorder.hpp"
#include "base/logging.hpp"
#include "base/status_helpers.hpp"
#include "prof/aclprof_state.hpp"
#include "prof/session.hpp"
#include "prof/subscriptions.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {
namespace {

// Declares `rt`, the live runtime (api_call checked there is one; a racing aclFinalize may have
// ended it since), and `st`, its aclprof state.
#define ARUN_PROF_RUNTIME(rt)             \
  Runtime* rt = Runtime::instance();      \
  if (rt == nullptr) return no_runtime(); \
  AclprofState& st = rt->aclprof()

Status not_initialised() {
  return Status(Errc::prof_not_run, "aclprofInit has not been called (or aclprofFinalize was)");
}

// The categories ascend-run collects for a dataTypeConfig mask.
uint64_t categories_for(uint64_t mask) {
  if (mask & ACL_PROF_API_STATS) return prof::kApi;  // online API statistics: the other switches are ignored
  uint64_t c = 0;
  if (mask & (ACL_PROF_ACL_API | ACL_PROF_RUNTIME_API)) c |= prof::kApi;
  if (mask & (ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME_L2 | ACL_PROF_TASK_TIME_L3 |
              ACL_PROF_TRAINING_TRACE))
    c |= prof::kTasks;
  if (mask & ACL_PROF_MSPROFTX) c |= prof::kMarks;
  if (mask & ACL_PROF_TASK_MEMORY) c |= prof::kMemory;
  return c;
}

bool same_config(const aclprofConfig& a, const aclprofConfig& b) {
  return a.devices == b.devices && a.mask == b.mask && a.metrics == b.metrics;
}

bool parse_uint(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

Status check_range(const char* name, const std::string& value, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  if (!parse_uint(value, &v) || v < lo || v > hi) {
    return invalid_param(std::string(name) + " \"" + value + "\" is not an integer in [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
  }
  return Status::Ok();
}

Status marks_active() {
  if (!prof::on(prof::kMarks)) {
    return Status(Errc::prof_not_run, "no profiling session collecting ACL_PROF_MSPROFTX is running");
  }
  return Status::Ok();
}

Status not_a_stamp() {
  return invalid_param("stamp is not a live stamp from aclprofCreateStamp");
}

// The message of a live stamp (with st.mu held).
bool stamp_message_locked(AclprofState& st, void* stamp, uint32_t* message) {
  auto it = st.stamps.find(static_cast<const ProfStamp*>(stamp));
  if (it == st.stamps.end()) return false;
  *message = (*it)->message;
  return true;
}

// Checks the stamp, then that marks are collected, and gives its message and the state's epoch.
Status stamp_for_marks(void* stamp, uint32_t* message, uint64_t* epoch) {
  ARUN_PROF_RUNTIME(rt);
  {
    std::lock_guard lock(st.mu);
    if (!stamp_message_locked(st, stamp, message)) return not_a_stamp();
    *epoch = st.epoch;
  }
  return marks_active();
}

// aclprofPush's ranges: the calling thread's own stack, no lock.
thread_local std::vector<ProfOpenRange> t_pushed;

}  // namespace

// ---- session control

Status prof_init(std::string_view path_view) {
  ARUN_PROF_RUNTIME(rt);
  const std::string path(path_view);
  std::lock_guard lock(st.mu);
  if (st.initialized) return Status(Errc::repeat_initialize, "aclprofInit was already called");
  if (Profiler::instance().running()) {
    return Status(Errc::prof_already_run, "profiling is already running (started by " + Profiler::instance().source() +
                                              "); API-driven profiling is not possible");
  }
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path, ec)) {
    return Status(Errc::invalid_file,
                  "cannot create or open the folder " + path + (ec ? ": " + ec.message() : std::string()));
  }
  st.initialized = true;
  st.output_dir = path;
  st.options.clear();
  return Status::Ok();
}

Status prof_finalize() {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (st.started != nullptr) {
    arun::log().info("aclprofFinalize: the session started by aclprofStart was still running; it is stopped now");
    Profiler::instance().stop();
    st.started = nullptr;
  }
  st.initialized = false;
  return Status::Ok();
}

Status prof_check_devices(const uint32_t* devices, uint32_t count) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  const uint32_t present = rt->device_count();
  if (count > present) {
    return invalid_param("deviceNums " + std::to_string(count) + " is more than the " + std::to_string(present) +
                         " device(s) present");
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (devices[i] >= present) {
      return invalid_param("deviceIdList[" + std::to_string(i) + "] = " + std::to_string(devices[i]) +
                           " is not a device id (0.." + std::to_string(present - 1) + ")");
    }
    if (std::find(devices, devices + i, devices[i]) != devices + i) {
      return invalid_param("deviceIdList lists device " + std::to_string(devices[i]) + " twice");
    }
  }
  return Status::Ok();
}

Status prof_create_config(const uint32_t* devices, uint32_t count, aclprofAicoreMetrics metrics, uint64_t mask,
                          aclprofConfig** out) {
  ARUN_PROF_RUNTIME(rt);
  auto cfg = std::make_unique<aclprofConfig>(aclprofConfig{{devices, devices + count}, metrics, mask});
  std::lock_guard lock(st.mu);
  st.configs.insert(cfg.get());
  *out = cfg.release();
  return Status::Ok();
}

Status prof_destroy_config(const aclprofConfig* cfg) {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  if (st.configs.erase(cfg) == 0) return invalid_param("profilerConfig is not a live configuration (destroyed twice?)");
  if (st.started == cfg) st.started = &st.started_copy;  // the session keeps running with its copy
  delete cfg;
  return Status::Ok();
}

Status prof_start(const aclprofConfig* cfg) {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (st.started != nullptr && !Profiler::instance().running()) st.started = nullptr;  // aclFinalize stopped it
  if (st.configs.count(cfg) == 0) return invalid_param("profilerConfig is not a live configuration");
  if (st.started != nullptr || Profiler::instance().running()) {
    return Status(Errc::prof_already_run, "profiling is already running (started by " + Profiler::instance().source() +
                                              "); call aclprofStop first");
  }
  const uint64_t categories = categories_for(cfg->mask);
  if (categories == 0) {
    return Status(Errc::prof_modules_unsupported,
                  "dataTypeConfig selects nothing ascend-run collects; use ACL_PROF_ACL_API, ACL_PROF_RUNTIME_API, "
                  "ACL_PROF_TASK_TIME (or its L0/L2/L3 levels), ACL_PROF_TRAINING_TRACE, ACL_PROF_MSPROFTX or "
                  "ACL_PROF_TASK_MEMORY");
  }
  const uint64_t ignored =
      cfg->mask & (ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU | ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE |
                   ACL_PROF_GE_API_L0 | ACL_PROF_GE_API_L1 | ACL_PROF_OP_ATTR | ACL_PROF_AICORE_SHAPE);
  if (ignored != 0) {
    arun::log().info("aclprofStart: switches 0x{:x} have no data on this device model and collect nothing", ignored);
  }
  // Sinks: the config's [profiler] sinks, else those of aclprof_sinks (the default config: the
  // timeline and msprof's CSV summaries) that are installed.
  std::vector<std::string> sinks = rt->config().profiler_sinks;
  if (sinks.empty()) {
    std::vector<std::string> installed = rt->installed_sinks();
    for (const std::string& name : rt->config().profiler_aclprof_sinks) {
      if (std::find(installed.begin(), installed.end(), name) != installed.end()) sinks.push_back(name);
    }
  }
  std::string dir = st.output_dir;
  if (auto it = st.options.find(ACL_PROF_PATH); it != st.options.end()) dir = it->second;
  ARUN_RETURN_IF_ERROR(
      rt->start_profiling(sinks, dir, categories, "aclprofStart", Errc::invalid_param, "aclprofStart"));
  st.started = cfg;
  st.started_copy = *cfg;
  return Status::Ok();
}

Status prof_stop(const aclprofConfig* cfg) {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (st.started != nullptr && !Profiler::instance().running()) st.started = nullptr;  // aclFinalize stopped it
  if (st.started == nullptr) return Status(Errc::prof_not_run, "no session was started with aclprofStart");
  const bool live = st.configs.count(cfg) != 0;
  if (!live || (cfg != st.started && !same_config(*cfg, st.started_copy))) {
    return Status(Errc::invalid_profiling_config,
                  "profilerConfig differs from the configuration the running session was started with");
  }
  Profiler::instance().stop();
  st.started = nullptr;
  return Status::Ok();
}

Status prof_require_init() {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  return st.initialized ? Status::Ok() : not_initialised();
}

Status prof_set_option(int type, std::string_view value_view) {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (st.started != nullptr) {
    return Status(Errc::prof_already_run, "options must be set before aclprofStart");
  }
  std::string value(value_view);
  switch (type) {
    case ACL_PROF_STORAGE_LIMIT: {
      std::string digits = value;
      if (digits.size() > 2 && digits.compare(digits.size() - 2, 2, "MB") == 0) digits.resize(digits.size() - 2);
      ARUN_RETURN_IF_ERROR(check_range("ACL_PROF_STORAGE_LIMIT (MB)", digits, 200, 4294967295ull));
      break;
    }
    case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
    case ACL_PROF_SYS_IO_FREQ:
    case ACL_PROF_SYS_INTERCONNECTION_FREQ:
    case ACL_PROF_DVPP_FREQ:
    case ACL_PROF_LOW_POWER_FREQ:
    case ACL_PROF_SYS_CPU_FREQ:
      ARUN_RETURN_IF_ERROR(check_range("frequency (Hz)", value, 1, 100));
      break;
    case ACL_PROF_HOST_SYS_USAGE_FREQ:
      ARUN_RETURN_IF_ERROR(check_range("frequency (Hz)", value, 1, 50));
      break;
    case ACL_PROF_LLC_MODE:
      if (value != "read" && value != "write") return invalid_param("ACL_PROF_LLC_MODE must be read or write");
      break;
    case ACL_PROF_HOST_SYS:
    case ACL_PROF_HOST_SYS_USAGE:
      if (value != "cpu" && value != "mem" && value != "cpu,mem" && value != "mem,cpu") {
        return invalid_param("\"" + value + "\" is not cpu, mem or cpu,mem");
      }
      break;
    case ACL_PROF_NTS_METRICS:
      if (value != "PipeUtilization") return invalid_param("ACL_PROF_NTS_METRICS accepts only PipeUtilization");
      break;
    case ACL_PROF_SYS_MEM_SERVICEFLOW:
    case ACL_PROF_OPTYPE:
      break;
    case ACL_PROF_PATH: {
      std::error_code ec;
      std::filesystem::create_directories(value, ec);
      if (ec || !std::filesystem::is_directory(value, ec)) {
        return Status(Errc::invalid_file, "cannot create or open the folder " + value);
      }
      break;
    }
    default:
      return invalid_param("configType " + std::to_string(type) + " is not an aclprofConfigType option (1, 3..16)");
  }
  st.options[type] = value;
  return Status::Ok();
}

// ---- msproftx

Status prof_create_stamp(void** out) {
  ARUN_PROF_RUNTIME(rt);
  ARUN_RETURN_IF_ERROR(marks_active());
  auto s = std::make_unique<ProfStamp>();
  std::lock_guard lock(st.mu);
  st.stamps.insert(s.get());
  *out = s.release();
  return Status::Ok();
}

void prof_destroy_stamp(void* stamp) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return;  // aclFinalize freed every stamp
  AclprofState& st = rt->aclprof();
  std::lock_guard lock(st.mu);
  auto* s = static_cast<ProfStamp*>(stamp);
  if (st.stamps.erase(s) != 0) delete s;  // anything else is ignored, as the spec says
}

Status prof_check_stamp(void* stamp) {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  if (st.stamps.count(static_cast<const ProfStamp*>(stamp)) == 0) return not_a_stamp();
  return Status::Ok();
}

Status prof_set_stamp_message(void* stamp, std::string_view message) {
  ARUN_PROF_RUNTIME(rt);
  const uint32_t id = prof::intern(message);
  std::lock_guard lock(st.mu);
  if (st.stamps.count(static_cast<const ProfStamp*>(stamp)) == 0) return not_a_stamp();
  static_cast<ProfStamp*>(stamp)->message = id;
  return Status::Ok();
}

Status prof_mark(void* stamp) {
  uint32_t message = 0;
  uint64_t epoch = 0;
  ARUN_RETURN_IF_ERROR(stamp_for_marks(stamp, &message, &epoch));
  plugin::Record r = prof::make_record(plugin::RecordKind::Mark);
  r.name = message;
  r.t0 = r.t1 = prof::now_ns();
  prof::emit(r);
  return Status::Ok();
}

Status prof_push(void* stamp) {
  uint32_t message = 0;
  uint64_t epoch = 0;
  ARUN_RETURN_IF_ERROR(stamp_for_marks(stamp, &message, &epoch));
  t_pushed.push_back({message, prof::thread_id(), prof::now_ns(), epoch});
  return Status::Ok();
}

Status prof_pop() {
  ARUN_PROF_RUNTIME(rt);
  ARUN_RETURN_IF_ERROR(marks_active());
  uint64_t epoch = 0;
  {
    std::lock_guard lock(st.mu);
    epoch = st.epoch;
  }
  std::erase_if(t_pushed, [&](const ProfOpenRange& o) { return o.epoch != epoch; });
  if (t_pushed.empty()) return invalid_param("nothing was pushed with aclprofPush on this thread");
  ProfOpenRange open = t_pushed.back();
  t_pushed.pop_back();
  plugin::Record r = prof::make_record(plugin::RecordKind::Range);
  r.subkind = 0;
  r.name = open.name;
  r.t0 = open.start;
  r.t1 = prof::now_ns();
  prof::emit(r);
  return Status::Ok();
}

Status prof_range_start(void* stamp, uint32_t* range_id) {
  ARUN_PROF_RUNTIME(rt);
  ARUN_RETURN_IF_ERROR(marks_active());
  std::lock_guard lock(st.mu);
  uint32_t name = 0;
  if (!stamp_message_locked(st, stamp, &name)) return not_a_stamp();
  uint32_t id = ++st.next_range;
  if (id == 0) id = ++st.next_range;  // 0 is never handed out
  st.ranges[id] = {name, prof::thread_id(), prof::now_ns()};
  *range_id = id;
  return Status::Ok();
}

Status prof_range_stop(uint32_t range_id) {
  ARUN_PROF_RUNTIME(rt);
  ProfOpenRange open{};
  {
    std::lock_guard lock(st.mu);
    auto it = st.ranges.find(range_id);
    if (it == st.ranges.end()) {
      return invalid_param("rangeId " + std::to_string(range_id) + " is not an open range from aclprofRangeStart");
    }
    open = it->second;
    st.ranges.erase(it);
  }
  if (!prof::on(prof::kMarks)) return Status::Ok();  // the session ended: the range is closed, not recorded
  plugin::Record r = prof::make_record(plugin::RecordKind::Range);
  r.subkind = 1;
  r.name = open.name;
  r.thread = open.thread;
  r.t0 = open.start;
  r.t1 = prof::now_ns();
  r.value0 = range_id;
  prof::emit(r);
  return Status::Ok();
}

// ---- step info

Status prof_create_step_info(aclprofStepInfo** out) {
  ARUN_PROF_RUNTIME(rt);
  std::lock_guard lock(st.mu);
  auto step = std::make_unique<aclprofStepInfo>(aclprofStepInfo{++st.next_step, {false, false}});
  st.steps.insert(step.get());
  *out = step.release();
  return Status::Ok();
}

void prof_destroy_step_info(aclprofStepInfo* step) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return;  // aclFinalize freed every step info
  AclprofState& st = rt->aclprof();
  std::lock_guard lock(st.mu);
  if (st.steps.erase(step) != 0) delete step;
}

Status prof_step_timestamp(aclprofStepInfo* step, int tag, aclrtStream stream) {
  ARUN_PROF_RUNTIME(rt);
  uint64_t id = 0;
  {
    std::lock_guard lock(st.mu);
    if (st.steps.count(step) == 0) return invalid_param("stepInfo is not a live object from aclprofCreateStepInfo");
    if (step->used[tag]) {
      return invalid_param(std::string(tag == ACL_STEP_START ? "ACL_STEP_START" : "ACL_STEP_END") +
                           " was already taken on this stepInfo");
    }
    id = step->id;
  }
  if (!prof::on(prof::kMarks | prof::kTasks)) return Status(Errc::prof_not_run, "no profiling session is running");
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  plugin::Record r = prof::make_record(plugin::RecordKind::Step);
  r.subkind = static_cast<uint16_t>(tag);
  r.device = s->context()->slot()->id();
  r.stream = s->id();
  r.t0 = r.t1 = prof::now_ns();
  r.value0 = id;
  prof::emit(r);
  std::lock_guard lock(st.mu);
  if (st.steps.count(step) != 0) step->used[tag] = true;
  return Status::Ok();
}

// ---------------------------------------------------------------- model subscription

namespace {
// Subscriptions alive in any runtime: lets model_op_observer skip the lock when there are none.
std::atomic<int> g_subscribed{0};
}  // namespace

aclprofSubscribeConfig* prof_create_subscribe_config(int8_t time_info, int metrics, void* fd) {
  return prof::SubscribeConfigs::instance().create(time_info, metrics, static_cast<int*>(fd));
}

Status prof_destroy_subscribe_config(const aclprofSubscribeConfig* config) {
  if (!prof::SubscribeConfigs::instance().destroy(config)) {
    return invalid_param("profSubscribeConfig is not a live configuration from aclprofCreateSubscribeConfig");
  }
  return Status::Ok();
}

Status prof_require_loaded_model(uint32_t model) {
  std::shared_ptr<ModelObject> loaded;
  if (!find_model(model, &loaded).ok()) {
    return Status(static_cast<Errc>(ACL_ERROR_INVALID_MODEL_ID),
                  "model id " + std::to_string(model) + " is not a loaded model");
  }
  return Status::Ok();
}

Status prof_model_subscribe(uint32_t model, const aclprofSubscribeConfig* config) {
  std::shared_ptr<ModelObject> loaded;
  if (!find_model(model, &loaded).ok()) {
    return Status(static_cast<Errc>(ACL_ERROR_INVALID_MODEL_ID),
                  "model id " + std::to_string(model) + " is not a loaded model");
  }
  if (config == nullptr) return invalid_param("profSubscribeConfig is NULL");
  aclprofSubscribeConfig c{};
  if (!prof::SubscribeConfigs::instance().get(config, &c)) {
    return invalid_param("profSubscribeConfig is not a live configuration from aclprofCreateSubscribeConfig");
  }
  if (c.time_info == 0 && c.metrics == ACL_AICORE_NONE) {
    return invalid_param("the configuration collects nothing (timeInfoSwitch 0 and ACL_AICORE_NONE)");
  }
  ARUN_PROF_RUNTIME(rt);
  (void)rt;
  std::lock_guard lock(st.mu);
  if (st.initialized) {
    return Status(static_cast<Errc>(ACL_ERROR_PROF_API_CONFLICT),
                  "aclprofInit is in effect: model subscription and API-driven profiling exclude each other");
  }
  if (Profiler::instance().running()) {
    return Status(Errc::prof_already_run, "profiling is already running (started by " + Profiler::instance().source() +
                                              "); model subscription is not possible");
  }
  if (st.subscriptions.count(model) != 0) {
    return Status(static_cast<Errc>(ACL_ERROR_PROF_REPEAT_SUBSCRIBE),
                  "model " + std::to_string(model) + " is already subscribed");
  }
  const int32_t device = loaded->device();
  const int fd = c.fd != nullptr ? *c.fd : -1;
  for (const auto& [other, s] : st.subscriptions) {
    if (s->device() != device) continue;
    const aclprofSubscribeConfig& o = s->config();
    if (o.time_info != c.time_info || o.metrics != c.metrics || s->fd_value() != fd) {
      return Status(Errc::invalid_profiling_config,
                    "model " + std::to_string(other) + " on device " + std::to_string(device) +
                        " is subscribed with another configuration; every subscription of a device must use the same");
    }
  }
  if (fd < 0) return Status(static_cast<Errc>(ACL_ERROR_PROFILING_FAILURE), "the configuration's fd is negative");
  st.subscriptions.emplace(model, std::make_shared<prof::ModelSubscription>(model, device, c));
  g_subscribed.fetch_add(1, std::memory_order_release);
  return Status::Ok();
}

Status prof_model_unsubscribe(uint32_t model) {
  ARUN_RETURN_IF_ERROR(prof_require_loaded_model(model));
  ARUN_PROF_RUNTIME(rt);
  (void)rt;
  std::shared_ptr<prof::ModelSubscription> s;
  bool shared_fd = false;
  {
    std::lock_guard lock(st.mu);
    auto it = st.subscriptions.find(model);
    if (it == st.subscriptions.end()) {
      return Status(static_cast<Errc>(ACL_ERROR_INVALID_MODEL_ID),
                    "model " + std::to_string(model) + " is not subscribed");
    }
    s = std::move(it->second);
    st.subscriptions.erase(it);
    for (const auto& [other, o] : st.subscriptions) shared_fd = shared_fd || o->fd_value() == s->fd_value();
  }
  g_subscribed.fetch_sub(1, std::memory_order_release);
  prof::end_subscription(*s, 30000, !shared_fd, true);
  return Status::Ok();
}

std::shared_ptr<ModelOpObserver> model_op_observer(uint32_t model) {
  if (g_subscribed.load(std::memory_order_acquire) == 0) return nullptr;
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return nullptr;
  AclprofState& st = rt->aclprof();
  std::lock_guard lock(st.mu);
  auto it = st.subscriptions.find(model);
  return it == st.subscriptions.end() ? nullptr : it->second;
}

// ---- record decoding (no runtime needed)

size_t prof_op_record_size() {
  return prof::kOpRecordSize;
}

namespace {
Status invalid_records(size_t len) {
  return invalid_param("opInfo is not a buffer of subscription records (length " + std::to_string(len) +
                       ", a non-zero multiple of " + std::to_string(prof::kOpRecordSize) +
                       " bytes whose records all verify)");
}
}  // namespace

Status prof_op_count(const void* buf, size_t len, uint32_t* count) {
  if (!prof::validate_op_records(buf, len)) return invalid_records(len);
  *count = static_cast<uint32_t>(len / prof::kOpRecordSize);
  return Status::Ok();
}

Status prof_op_record(const void* buf, size_t len, uint32_t index, OpRecordView* out) {
  if (!prof::validate_op_records(buf, len)) return invalid_records(len);
  std::optional<prof::OpRecord> r = prof::read_op_record(buf, len, index);
  if (!r) {
    return invalid_param("index " + std::to_string(index) + " is beyond the " +
                         std::to_string(len / prof::kOpRecordSize) + " record(s) of the buffer");
  }
  out->model_id = r->model_id;
  out->flag = r->flag;
  out->thread_id = r->thread_id;
  out->op_index = r->op_index;
  out->start_us = r->start_us;
  out->end_us = r->end_us;
  out->duration_us = r->duration_us;
  return Status::Ok();
}

Status prof_op_string_length(const void* buf, size_t len, uint32_t index, bool name, size_t* out) {
  OpRecordView r;
  ARUN_RETURN_IF_ERROR(prof_op_record(buf, len, index, &r));
  std::optional<std::string> s = prof::OpStrings::instance().peek(r.op_index, name);
  if (!s)
    return invalid_param(std::string("the operator ") + (name ? "name" : "type") + " of record " +
                         std::to_string(index) + " was already fetched (each is handed out once)");
  *out = s->size() + 1;
  return Status::Ok();
}

Status prof_op_string(const void* buf, size_t len, uint32_t index, bool name, char* out, size_t capacity) {
  OpRecordView r;
  ARUN_RETURN_IF_ERROR(prof_op_record(buf, len, index, &r));
  const char* what = name ? "name" : "type";
  std::optional<std::string> s = prof::OpStrings::instance().peek(r.op_index, name);
  if (!s) {
    return invalid_param(std::string("the operator ") + what + " of record " + std::to_string(index) +
                         " was already fetched (each is handed out once)");
  }
  if (capacity < s->size()) {
    return invalid_param("the buffer of " + std::to_string(capacity) + " bytes is too small for the operator " + what +
                         " (" + std::to_string(s->size() + 1) + " bytes with its terminator)");
  }
  if (!prof::OpStrings::instance().take(r.op_index, name, out, capacity)) {
    return invalid_param(std::string("the operator ") + what + " of record " + std::to_string(index) +
                         " was already fetched (each is handed out once)");
  }
  return Status::Ok();
}

}  // namespace arun::rt

#undef ARUN_PROF_RUNTIME
