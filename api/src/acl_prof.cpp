// Spec 2.10: profiling. aclprofInit/Start/Stop/Finalize drive one profiling session (profiler.hpp)
// whose sinks write into the folder aclprofInit names; the msproftx calls leave user marks and
// ranges in the running session; step info tags training iterations.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "acl/acl_prof.h"
#include "api_call.hpp"
#include "prof/session.hpp"

struct aclprofConfig {
  std::vector<uint32_t> devices;
  aclprofAicoreMetrics metrics;
  uint64_t mask;
};

struct aclprofStepInfo {
  uint64_t id;
  bool used[2];
};

using namespace arun;
using namespace arun::api;

namespace {

// Every ACL_PROF_* switch acl_prof.h defines; other bits are rejected.
constexpr uint64_t kKnownBits = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU |
                                ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE | ACL_PROF_MSPROFTX |
                                ACL_PROF_RUNTIME_API | ACL_PROF_GE_API_L0 | ACL_PROF_TASK_TIME_L0 |
                                ACL_PROF_TASK_MEMORY | ACL_PROF_GE_API_L1 | ACL_PROF_TASK_TIME_L2 | ACL_PROF_OP_ATTR |
                                ACL_PROF_TASK_TIME_L3 | ACL_PROF_API_STATS | ACL_PROF_AICORE_SHAPE;

constexpr size_t kMaxPathLength = 4096;
constexpr size_t kMaxConfigLength = 256;
constexpr uint32_t kMaxStampMessage = 128;

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

struct Stamp {
  uint32_t message = 0;  // interned text of aclprofSetStampTraceMessage
};

struct OpenRange {
  uint32_t name;
  uint32_t thread;
  uint64_t start;
  uint64_t epoch = 0;  // g_epoch when it was opened: one from before the last aclFinalize is void
};

// Counts aclFinalize calls that reset the aclprof state (see reset_prof_state): ranges pushed on a
// thread's own stack before that are dropped when the thread next pops.
std::atomic<uint64_t> g_epoch{0};

struct ProfState {
  std::mutex mu;
  bool initialized = false;
  std::string output_dir;
  std::map<int, std::string> options;  // aclprofSetConfig values
  std::set<const aclprofConfig*> configs;
  const aclprofConfig* started = nullptr;
  aclprofConfig started_copy{};
  std::set<const Stamp*> stamps;
  std::set<const aclprofStepInfo*> steps;
  std::map<uint32_t, OpenRange> ranges;
  uint32_t next_range = 0;
  uint64_t next_step = 0;
};

ProfState& state() {
  static ProfState* s = new ProfState();  // outlives static destructors (the exit handler may stop a session)
  return *s;
}

thread_local std::vector<OpenRange> t_pushed;

// The msproftx calls are not recorded as API spans: a user range opened inside aclprofPush's own
// span and closed inside aclprofPop's would cross both, and the timeline's spans must nest.
template <class Body>
aclError api_call_unprofiled(const char* function, Body&& body) {
  return api_call_body(function, body);
}

Status not_initialised() {
  return Status(Errc::prof_not_run, "aclprofInit has not been called (or aclprofFinalize was)");
}

Status prof_init(const char* path, size_t length) {
  if (path == nullptr) return invalid_param("profilerResultPath is NULL");
  if (length == 0 || length > kMaxPathLength) {
    return invalid_param("length " + std::to_string(length) + " is outside [1, " + std::to_string(kMaxPathLength) + "]");
  }
  const size_t actual = strnlen(path, length + 1);
  if (actual != length) {
    return invalid_param("length " + std::to_string(length) + " does not match the path's length " +
                         (actual > length ? std::string("(the path is longer)") : std::to_string(actual)));
  }
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (st.initialized) return Status(Errc::repeat_initialize, "aclprofInit was already called");
  if (Profiler::instance().running()) {
    return Status(Errc::prof_already_run, "profiling is already running (started by " +
                                              Profiler::instance().source() + "); API-driven profiling is not possible");
  }
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path, ec)) {
    return Status(Errc::invalid_file, std::string("cannot create or open the folder ") + path +
                                          (ec ? ": " + ec.message() : std::string()));
  }
  st.initialized = true;
  st.output_dir = path;
  st.options.clear();
  return Status::Ok();
}

Status prof_finalize() {
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (st.started != nullptr) {
    log().info("aclprofFinalize: the session started by aclprofStart was still running; it is stopped now");
    Profiler::instance().stop();
    st.started = nullptr;
  }
  st.initialized = false;
  return Status::Ok();
}

Status create_config(Runtime& rt, uint32_t* devices, uint32_t count, int metrics, const aclprofAicoreEvents* events,
                     uint64_t mask, aclprofConfig** out) {
  if (count == 0) return invalid_param("deviceNums is 0");
  if (devices == nullptr) return invalid_param("deviceIdList is NULL while deviceNums is " + std::to_string(count));
  if (count > rt.device_count()) {
    return invalid_param("deviceNums " + std::to_string(count) + " is more than the " +
                         std::to_string(rt.device_count()) + " device(s) present");
  }
  std::vector<uint32_t> list(devices, devices + count);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] >= rt.device_count()) {
      return invalid_param("deviceIdList[" + std::to_string(i) + "] = " + std::to_string(list[i]) +
                           " is not a device id (0.." + std::to_string(rt.device_count() - 1) + ")");
    }
    if (std::find(list.begin(), list.begin() + i, list[i]) != list.begin() + i) {
      return invalid_param("deviceIdList lists device " + std::to_string(list[i]) + " twice");
    }
  }
  if (!((metrics >= ACL_AICORE_ARITHMETIC_UTILIZATION && metrics <= ACL_AICORE_MEMORY_ACCESS) ||
        metrics == ACL_AICORE_NONE)) {
    return invalid_param("aicoreMetrics " + std::to_string(metrics) + " is not an aclprofAicoreMetrics value");
  }
  if (events != nullptr) return invalid_param("aicoreEvents must be NULL");
  if (mask & ~kKnownBits) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(mask & ~kKnownBits));
    return invalid_param(std::string("dataTypeConfig has bits that are no ACL_PROF_* switch: ") + hex);
  }
  auto* cfg = new aclprofConfig{std::move(list), static_cast<aclprofAicoreMetrics>(metrics), mask};
  auto& st = state();
  std::lock_guard lock(st.mu);
  st.configs.insert(cfg);
  *out = cfg;
  return Status::Ok();
}

bool same_config(const aclprofConfig& a, const aclprofConfig& b) {
  return a.devices == b.devices && a.mask == b.mask && a.metrics == b.metrics;
}

Status prof_start(Runtime& rt, const aclprofConfig* cfg) {
  if (cfg == nullptr) return invalid_param("profilerConfig is NULL");
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (st.started != nullptr && !Profiler::instance().running()) st.started = nullptr;  // aclFinalize stopped it
  if (st.configs.count(cfg) == 0) return invalid_param("profilerConfig is not a live configuration");
  if (st.started != nullptr || Profiler::instance().running()) {
    return Status(Errc::prof_already_run, "profiling is already running (started by " +
                                              Profiler::instance().source() + "); call aclprofStop first");
  }
  const uint64_t categories = categories_for(cfg->mask);
  if (categories == 0) {
    return Status(Errc::prof_modules_unsupported,
                  "dataTypeConfig selects nothing ascend-run collects; use ACL_PROF_ACL_API, ACL_PROF_RUNTIME_API, "
                  "ACL_PROF_TASK_TIME (or its L0/L2/L3 levels), ACL_PROF_TRAINING_TRACE, ACL_PROF_MSPROFTX or "
                  "ACL_PROF_TASK_MEMORY");
  }
  const uint64_t ignored = cfg->mask & (ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU | ACL_PROF_L2CACHE |
                                        ACL_PROF_HCCL_TRACE | ACL_PROF_GE_API_L0 | ACL_PROF_GE_API_L1 |
                                        ACL_PROF_OP_ATTR | ACL_PROF_AICORE_SHAPE);
  if (ignored != 0) {
    log().info("aclprofStart: switches 0x{:x} have no data on this device model and collect nothing", ignored);
  }
  // Sinks: the config's [profiler] sinks, else the timeline and msprof's CSV summaries.
  std::vector<std::string> sinks = rt.config().profiler_sinks;
  if (sinks.empty()) {
    std::vector<std::string> installed = rt.installed_sinks();
    for (const char* name : {"timeline", "msprof_csv"}) {
      if (std::find(installed.begin(), installed.end(), name) != installed.end()) sinks.push_back(name);
    }
  }
  std::string dir = st.output_dir;
  if (auto it = st.options.find(ACL_PROF_PATH); it != st.options.end()) dir = it->second;
  ARUN_RETURN_IF_ERROR(
      rt.start_profiling(sinks, dir, categories, "aclprofStart", Errc::invalid_param, "aclprofStart"));
  st.started = cfg;
  st.started_copy = *cfg;
  return Status::Ok();
}

Status prof_stop(const aclprofConfig* cfg) {
  if (cfg == nullptr) return invalid_param("profilerConfig is NULL");
  auto& st = state();
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

Status destroy_config(const aclprofConfig* cfg) {
  if (cfg == nullptr) return invalid_param("profilerConfig is NULL");
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (st.configs.erase(cfg) == 0) return invalid_param("profilerConfig is not a live configuration (destroyed twice?)");
  if (st.started == cfg) st.started = &st.started_copy;  // the session keeps running with its copy
  delete cfg;
  return Status::Ok();
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

Status set_config(int type, const char* config, size_t length) {
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (!st.initialized) return not_initialised();
  if (config == nullptr) return invalid_param("config is NULL");
  if (length == 0 || length > kMaxConfigLength) {
    return invalid_param("configLength " + std::to_string(length) + " is outside [1, " +
                         std::to_string(kMaxConfigLength) + "]");
  }
  if (st.started != nullptr) {
    return Status(Errc::prof_already_run, "options must be set before aclprofStart");
  }
  std::string value(config, strnlen(config, length));
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
    case ACL_PROF_HOST_SYS_USAGE_FREQ: ARUN_RETURN_IF_ERROR(check_range("frequency (Hz)", value, 1, 50)); break;
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
    case ACL_PROF_OPTYPE: break;
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

Status marks_active() {
  if (!prof::on(prof::kMarks)) {
    return Status(Errc::prof_not_run, "no profiling session collecting ACL_PROF_MSPROFTX is running");
  }
  return Status::Ok();
}

Status check_stamp(void* stamp) {
  if (stamp == nullptr) return invalid_param("stamp is NULL");
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (st.stamps.count(static_cast<const Stamp*>(stamp)) == 0) {
    return invalid_param("stamp is not a live stamp from aclprofCreateStamp");
  }
  return Status::Ok();
}

uint32_t stamp_message(void* stamp) {
  auto& st = state();
  std::lock_guard lock(st.mu);
  return static_cast<Stamp*>(stamp)->message;
}

}  // namespace

void arun::api::reset_prof_state() {
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (st.started != nullptr) Profiler::instance().stop();  // Runtime::finalize stopped it already
  st.started = nullptr;
  st.initialized = false;
  st.output_dir.clear();
  st.options.clear();
  for (const aclprofConfig* c : st.configs) delete c;
  st.configs.clear();
  for (const Stamp* s : st.stamps) delete s;
  st.stamps.clear();
  for (const aclprofStepInfo* s : st.steps) delete s;
  st.steps.clear();
  st.ranges.clear();
  g_epoch.fetch_add(1);
}

extern "C" {

aclError aclprofInit(const char *profilerResultPath, size_t length) {
  return api_call("aclprofInit", [&](Runtime&) { return prof_init(profilerResultPath, length); });
}

aclError aclprofFinalize() {
  return api_call("aclprofFinalize", [&](Runtime&) { return prof_finalize(); });
}

aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums, aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig) {
  aclprofConfig* out = nullptr;
  api_call("aclprofCreateConfig", [&](Runtime& rt) {
    return create_config(rt, deviceIdList, deviceNums, raw(aicoreMetrics), aicoreEvents, dataTypeConfig, &out);
  });
  return out;
}

aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig) {
  return api_call("aclprofDestroyConfig", [&](Runtime&) { return destroy_config(profilerConfig); });
}

aclError aclprofStart(const aclprofConfig *profilerConfig) {
  return api_call("aclprofStart", [&](Runtime& rt) { return prof_start(rt, profilerConfig); });
}

aclError aclprofStop(const aclprofConfig *profilerConfig) {
  return api_call("aclprofStop", [&](Runtime&) { return prof_stop(profilerConfig); });
}

aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength) {
  return api_call("aclprofSetConfig", [&](Runtime&) { return set_config(raw(configType), config, configLength); });
}

void *aclprofCreateStamp() {
  Stamp* out = nullptr;
  api_call_unprofiled("aclprofCreateStamp", [&](Runtime&) {
    ARUN_RETURN_IF_ERROR(marks_active());
    auto* s = new Stamp();
    auto& st = state();
    std::lock_guard lock(st.mu);
    st.stamps.insert(s);
    out = s;
    return Status::Ok();
  });
  return out;
}

void aclprofDestroyStamp(void *stamp) {
  if (stamp == nullptr) return;
  auto& st = state();
  std::lock_guard lock(st.mu);
  auto* s = static_cast<Stamp*>(stamp);
  if (st.stamps.erase(s) != 0) delete s;  // anything else is ignored, as the spec says
}

aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen) {
  return api_call_unprofiled("aclprofSetStampTraceMessage", [&](Runtime&) {
    ARUN_RETURN_IF_ERROR(check_stamp(stamp));
    if (msg == nullptr) return invalid_param("msg is NULL");
    if (msgLen == 0 || msgLen >= kMaxStampMessage) {
      return invalid_param("msgLen " + std::to_string(msgLen) + " is outside [1, " +
                           std::to_string(kMaxStampMessage - 1) + "]");
    }
    uint32_t id = prof::intern(std::string_view(msg, strnlen(msg, msgLen)));
    auto& st = state();
    std::lock_guard lock(st.mu);
    static_cast<Stamp*>(stamp)->message = id;
    return Status::Ok();
  });
}

aclError aclprofMark(void *stamp) {
  return api_call_unprofiled("aclprofMark", [&](Runtime&) {
    ARUN_RETURN_IF_ERROR(check_stamp(stamp));
    ARUN_RETURN_IF_ERROR(marks_active());
    plugin::Record r = prof::make_record(plugin::RecordKind::Mark);
    r.name = stamp_message(stamp);
    r.t0 = r.t1 = prof::now_ns();
    prof::emit(r);
    return Status::Ok();
  });
}

aclError aclprofPush(void *stamp) {
  return api_call_unprofiled("aclprofPush", [&](Runtime&) {
    ARUN_RETURN_IF_ERROR(check_stamp(stamp));
    ARUN_RETURN_IF_ERROR(marks_active());
    t_pushed.push_back({stamp_message(stamp), prof::thread_id(), prof::now_ns(), g_epoch.load()});
    return Status::Ok();
  });
}

aclError aclprofPop() {
  return api_call_unprofiled("aclprofPop", [&](Runtime&) {
    ARUN_RETURN_IF_ERROR(marks_active());
    const uint64_t epoch = g_epoch.load();
    std::erase_if(t_pushed, [&](const OpenRange& o) { return o.epoch != epoch; });
    if (t_pushed.empty()) return invalid_param("nothing was pushed with aclprofPush on this thread");
    OpenRange open = t_pushed.back();
    t_pushed.pop_back();
    plugin::Record r = prof::make_record(plugin::RecordKind::Range);
    r.subkind = 0;
    r.name = open.name;
    r.t0 = open.start;
    r.t1 = prof::now_ns();
    prof::emit(r);
    return Status::Ok();
  });
}

aclError aclprofRangeStart(void *stamp, uint32_t *rangeId) {
  return api_call_unprofiled("aclprofRangeStart", [&](Runtime&) {
    ARUN_RETURN_IF_ERROR(check_stamp(stamp));
    if (rangeId == nullptr) return invalid_param("rangeId is NULL");
    ARUN_RETURN_IF_ERROR(marks_active());
    const uint32_t name = stamp_message(stamp);
    auto& st = state();
    std::lock_guard lock(st.mu);
    uint32_t id = ++st.next_range;
    if (id == 0) id = ++st.next_range;  // 0 is never handed out
    st.ranges[id] = {name, prof::thread_id(), prof::now_ns()};
    *rangeId = id;
    return Status::Ok();
  });
}

aclError aclprofRangeStop(uint32_t rangeId) {
  return api_call_unprofiled("aclprofRangeStop", [&](Runtime&) {
    OpenRange open{};
    {
      auto& st = state();
      std::lock_guard lock(st.mu);
      auto it = st.ranges.find(rangeId);
      if (it == st.ranges.end()) {
        return invalid_param("rangeId " + std::to_string(rangeId) + " is not an open range from aclprofRangeStart");
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
    r.value0 = rangeId;
    prof::emit(r);
    return Status::Ok();
  });
}

aclprofStepInfo *aclprofCreateStepInfo() {
  aclprofStepInfo* out = nullptr;
  api_call("aclprofCreateStepInfo", [&](Runtime&) {
    auto& st = state();
    std::lock_guard lock(st.mu);
    out = new aclprofStepInfo{++st.next_step, {false, false}};
    st.steps.insert(out);
    return Status::Ok();
  });
  return out;
}

void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo) {
  if (stepinfo == nullptr) return;
  auto& st = state();
  std::lock_guard lock(st.mu);
  if (st.steps.erase(stepinfo) != 0) delete stepinfo;
}

aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream) {
  return api_call("aclprofGetStepTimestamp", [&](Runtime& rt) {
    if (stepInfo == nullptr) return invalid_param("stepInfo is NULL");
    const int t = raw(tag);
    if (t != ACL_STEP_START && t != ACL_STEP_END) {
      return invalid_param("tag " + std::to_string(t) + " is not ACL_STEP_START (0) or ACL_STEP_END (1)");
    }
    uint64_t id = 0;
    {
      auto& st = state();
      std::lock_guard lock(st.mu);
      if (st.steps.count(stepInfo) == 0) return invalid_param("stepInfo is not a live object from aclprofCreateStepInfo");
      if (stepInfo->used[t]) {
        return invalid_param(std::string(t == ACL_STEP_START ? "ACL_STEP_START" : "ACL_STEP_END") +
                             " was already taken on this stepInfo");
      }
      id = stepInfo->id;
    }
    if (!prof::on(prof::kMarks | prof::kTasks)) {
      return Status(Errc::prof_not_run, "no profiling session is running");
    }
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    plugin::Record r = prof::make_record(plugin::RecordKind::Step);
    r.subkind = static_cast<uint16_t>(t);
    r.device = s->context()->slot()->id();
    r.stream = s->id();
    r.t0 = r.t1 = prof::now_ns();
    r.value0 = id;
    prof::emit(r);
    auto& st = state();
    std::lock_guard lock(st.mu);
    if (st.steps.count(stepInfo) != 0) stepInfo->used[t] = true;
    return Status::Ok();
  });
}

}  // extern "C"
