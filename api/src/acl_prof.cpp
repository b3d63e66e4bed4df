// Spec 2.10: profiling. aclprofInit/Start/Stop/Finalize drive one profiling session whose sinks
// write into the folder aclprofInit names; the msproftx calls leave user marks and ranges in the
// running session; step info tags training iterations. The state behind them is the core's
// (arun/runtime/aclprof.hpp): these functions check their arguments and call it.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "acl/acl_prof.h"
#include "api_call.hpp"

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

// The msproftx calls are not recorded as API spans: a user range opened inside aclprofPush's own
// span and closed inside aclprofPop's would cross both, and the timeline's spans must nest.
template <class Body>
aclError api_call_unprofiled(const char* function, Body&& body) {
  return api_call_body(function, body);
}

Status check_init_path(const char* path, size_t length) {
  if (path == nullptr) return invalid_param("profilerResultPath is NULL");
  if (length == 0 || length > kMaxPathLength) {
    return invalid_param("length " + std::to_string(length) + " is outside [1, " + std::to_string(kMaxPathLength) +
                         "]");
  }
  const size_t actual = strnlen(path, length + 1);
  if (actual != length) {
    return invalid_param("length " + std::to_string(length) + " does not match the path's length " +
                         (actual > length ? std::string("(the path is longer)") : std::to_string(actual)));
  }
  return Status::Ok();
}

Status create_config(uint32_t* devices, uint32_t count, int metrics, const aclprofAicoreEvents* events, uint64_t mask,
                     aclprofConfig** out) {
  if (count == 0) return invalid_param("deviceNums is 0");
  if (devices == nullptr) return invalid_param("deviceIdList is NULL while deviceNums is " + std::to_string(count));
  ARUN_RETURN_IF_ERROR(rt::prof_check_devices(devices, count));
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
  return rt::prof_create_config(devices, count, static_cast<aclprofAicoreMetrics>(metrics), mask, out);
}

Status check_config_arg(const aclprofConfig* cfg) {
  return cfg == nullptr ? invalid_param("profilerConfig is NULL") : Status::Ok();
}

}  // namespace

namespace {

aclError op_string_length(const char* function, const void* info, size_t len, uint32_t index, bool name, size_t* out) {
  return api_call_no_runtime(function, [&] {
    if (info == nullptr) return invalid_param("opInfo is NULL");
    if (out == nullptr) return invalid_param(name ? "opNameLen is NULL" : "opTypeLen is NULL");
    return rt::prof_op_string_length(info, len, index, name, out);
  });
}

aclError op_string(const char* function, const void* info, size_t len, uint32_t index, bool name, char* out,
                   size_t capacity) {
  return api_call_no_runtime(function, [&] {
    if (info == nullptr) return invalid_param("opInfo is NULL");
    if (out == nullptr) return invalid_param(name ? "opName is NULL" : "opType is NULL");
    if (capacity == 0) return invalid_param(name ? "opNameLen is 0" : "opTypeLen is 0");
    return rt::prof_op_string(info, len, index, name, out, capacity);
  });
}

// The value getters (R5): no last error, a neutral value on failure.
bool op_record(const void* info, size_t len, uint32_t index, rt::OpRecordView* out) {
  if (info == nullptr) return false;
  try {
    return rt::prof_op_record(info, len, index, out).ok();
  } catch (...) {
    return false;
  }
}

}  // namespace

extern "C" {

aclError aclprofInit(const char* profilerResultPath, size_t length) {
  return api_call("aclprofInit", [&] {
    ARUN_RETURN_IF_ERROR(check_init_path(profilerResultPath, length));
    return rt::prof_init(std::string_view(profilerResultPath, length));
  });
}

aclError aclprofFinalize() {
  return api_call("aclprofFinalize", [&] { return rt::prof_finalize(); });
}

aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums, aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents* aicoreEvents, uint64_t dataTypeConfig) {
  aclprofConfig* out = nullptr;
  api_call("aclprofCreateConfig", [&] {
    return create_config(deviceIdList, deviceNums, raw(aicoreMetrics), aicoreEvents, dataTypeConfig, &out);
  });
  return out;
}

aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig) {
  return api_call("aclprofDestroyConfig", [&] {
    ARUN_RETURN_IF_ERROR(check_config_arg(profilerConfig));
    return rt::prof_destroy_config(profilerConfig);
  });
}

aclError aclprofStart(const aclprofConfig* profilerConfig) {
  return api_call("aclprofStart", [&] {
    ARUN_RETURN_IF_ERROR(check_config_arg(profilerConfig));
    return rt::prof_start(profilerConfig);
  });
}

aclError aclprofStop(const aclprofConfig* profilerConfig) {
  return api_call("aclprofStop", [&] {
    ARUN_RETURN_IF_ERROR(check_config_arg(profilerConfig));
    return rt::prof_stop(profilerConfig);
  });
}

aclError aclprofSetConfig(aclprofConfigType configType, const char* config, size_t configLength) {
  return api_call("aclprofSetConfig", [&] {
    ARUN_RETURN_IF_ERROR(rt::prof_require_init());
    if (config == nullptr) return invalid_param("config is NULL");
    if (configLength == 0 || configLength > kMaxConfigLength) {
      return invalid_param("configLength " + std::to_string(configLength) + " is outside [1, " +
                           std::to_string(kMaxConfigLength) + "]");
    }
    return rt::prof_set_option(raw(configType), std::string_view(config, strnlen(config, configLength)));
  });
}

void* aclprofCreateStamp() {
  void* out = nullptr;
  api_call_unprofiled("aclprofCreateStamp", [&] { return rt::prof_create_stamp(&out); });
  return out;
}

void aclprofDestroyStamp(void* stamp) {
  if (stamp == nullptr) return;
  rt::prof_destroy_stamp(stamp);  // anything but a live stamp is ignored, as the spec says
}

aclError aclprofSetStampTraceMessage(void* stamp, const char* msg, uint32_t msgLen) {
  return api_call_unprofiled("aclprofSetStampTraceMessage", [&] {
    if (stamp == nullptr) return invalid_param("stamp is NULL");
    ARUN_RETURN_IF_ERROR(rt::prof_check_stamp(stamp));
    if (msg == nullptr) return invalid_param("msg is NULL");
    if (msgLen == 0 || msgLen >= kMaxStampMessage) {
      return invalid_param("msgLen " + std::to_string(msgLen) + " is outside [1, " +
                           std::to_string(kMaxStampMessage - 1) + "]");
    }
    return rt::prof_set_stamp_message(stamp, std::string_view(msg, strnlen(msg, msgLen)));
  });
}

aclError aclprofMark(void* stamp) {
  return api_call_unprofiled("aclprofMark", [&] {
    if (stamp == nullptr) return invalid_param("stamp is NULL");
    return rt::prof_mark(stamp);
  });
}

aclError aclprofPush(void* stamp) {
  return api_call_unprofiled("aclprofPush", [&] {
    if (stamp == nullptr) return invalid_param("stamp is NULL");
    return rt::prof_push(stamp);
  });
}

aclError aclprofPop() {
  return api_call_unprofiled("aclprofPop", [&] { return rt::prof_pop(); });
}

aclError aclprofRangeStart(void* stamp, uint32_t* rangeId) {
  return api_call_unprofiled("aclprofRangeStart", [&] {
    if (stamp == nullptr) return invalid_param("stamp is NULL");
    ARUN_RETURN_IF_ERROR(rt::prof_check_stamp(stamp));
    if (rangeId == nullptr) return invalid_param("rangeId is NULL");
    return rt::prof_range_start(stamp, rangeId);
  });
}

aclError aclprofRangeStop(uint32_t rangeId) {
  return api_call_unprofiled("aclprofRangeStop", [&] { return rt::prof_range_stop(rangeId); });
}

aclprofStepInfo* aclprofCreateStepInfo() {
  aclprofStepInfo* out = nullptr;
  api_call("aclprofCreateStepInfo", [&] { return rt::prof_create_step_info(&out); });
  return out;
}

void aclprofDestroyStepInfo(aclprofStepInfo* stepinfo) {
  if (stepinfo == nullptr) return;
  rt::prof_destroy_step_info(stepinfo);  // anything but a live step info is ignored
}

aclError aclprofGetStepTimestamp(aclprofStepInfo* stepInfo, aclprofStepTag tag, aclrtStream stream) {
  return api_call("aclprofGetStepTimestamp", [&] {
    if (stepInfo == nullptr) return invalid_param("stepInfo is NULL");
    const int t = raw(tag);
    if (t != ACL_STEP_START && t != ACL_STEP_END) {
      return invalid_param("tag " + std::to_string(t) + " is not ACL_STEP_START (0) or ACL_STEP_END (1)");
    }
    return rt::prof_step_timestamp(stepInfo, t, stream);
  });
}

// The model is checked before the configuration (spec: 100011 first).
aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig* profSubscribeConfig) {
  return api_call("aclprofModelSubscribe", [&] {
    ARUN_RETURN_IF_ERROR(rt::prof_require_loaded_model(modelId));
    if (profSubscribeConfig == nullptr) return invalid_param("profSubscribeConfig is NULL");
    return rt::prof_model_subscribe(modelId, profSubscribeConfig);
  });
}

aclError aclprofModelUnSubscribe(uint32_t modelId) {
  return api_call("aclprofModelUnSubscribe", [&] { return rt::prof_model_unsubscribe(modelId); });
}

// ---- 4.15 operator-information subscription: configurations and record decoding

// R5: NULL on failure, and the thread's last error is left as it was.
aclprofSubscribeConfig* aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics,
                                                     void* fd) {
  if (fd == nullptr || (timeInfoSwitch != 0 && timeInfoSwitch != 1)) return nullptr;
  try {
    return rt::prof_create_subscribe_config(timeInfoSwitch, raw(aicoreMetrics), fd);
  } catch (...) {
    return nullptr;
  }
}

aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig* profSubscribeConfig) {
  return api_call_no_runtime("aclprofDestroySubscribeConfig", [&] {
    if (profSubscribeConfig == nullptr) return invalid_param("profSubscribeConfig is NULL");
    return rt::prof_destroy_subscribe_config(profSubscribeConfig);
  });
}

aclError aclprofGetOpDescSize(size_t* opDescSize) {
  return api_call_no_runtime("aclprofGetOpDescSize", [&] {
    if (opDescSize == nullptr) return invalid_param("opDescSize is NULL");
    *opDescSize = rt::prof_op_record_size();
    return Status::Ok();
  });
}

aclError aclprofGetOpNum(const void* opInfo, size_t opInfoLen, uint32_t* opNumber) {
  return api_call_no_runtime("aclprofGetOpNum", [&] {
    if (opInfo == nullptr) return invalid_param("opInfo is NULL");
    if (opNumber == nullptr) return invalid_param("opNumber is NULL");
    return rt::prof_op_count(opInfo, opInfoLen, opNumber);
  });
}

aclError aclprofGetOpTypeLen(const void* opInfo, size_t opInfoLen, uint32_t index, size_t* opTypeLen) {
  return op_string_length("aclprofGetOpTypeLen", opInfo, opInfoLen, index, false, opTypeLen);
}

aclError aclprofGetOpType(const void* opInfo, size_t opInfoLen, uint32_t index, char* opType, size_t opTypeLen) {
  return op_string("aclprofGetOpType", opInfo, opInfoLen, index, false, opType, opTypeLen);
}

aclError aclprofGetOpNameLen(const void* opInfo, size_t opInfoLen, uint32_t index, size_t* opNameLen) {
  return op_string_length("aclprofGetOpNameLen", opInfo, opInfoLen, index, true, opNameLen);
}

aclError aclprofGetOpName(const void* opInfo, size_t opInfoLen, uint32_t index, char* opName, size_t opNameLen) {
  return op_string("aclprofGetOpName", opInfo, opInfoLen, index, true, opName, opNameLen);
}

uint64_t aclprofGetOpStart(const void* opInfo, size_t opInfoLen, uint32_t index) {
  rt::OpRecordView r;
  return op_record(opInfo, opInfoLen, index, &r) ? r.start_us : 0;
}

uint64_t aclprofGetOpEnd(const void* opInfo, size_t opInfoLen, uint32_t index) {
  rt::OpRecordView r;
  return op_record(opInfo, opInfoLen, index, &r) ? r.end_us : 0;
}

uint64_t aclprofGetOpDuration(const void* opInfo, size_t opInfoLen, uint32_t index) {
  rt::OpRecordView r;
  return op_record(opInfo, opInfoLen, index, &r) ? r.duration_us : 0;
}

size_t aclprofGetModelId(const void* opInfo, size_t opInfoLen, uint32_t index) {
  rt::OpRecordView r;
  return op_record(opInfo, opInfoLen, index, &r) ? r.model_id : static_cast<size_t>(ACL_ERROR_INVALID_PARAM);
}

aclprofSubscribeOpFlag aclprofGetOpFlag(const void* opInfo, size_t opInfoLen, uint32_t index) {
  rt::OpRecordView r;
  if (!op_record(opInfo, opInfoLen, index, &r)) return ACL_SUBSCRIBE_NONE;
  switch (r.flag) {
    case ACL_SUBSCRIBE_OP:
    case ACL_SUBSCRIBE_SUBGRAPH:
    case ACL_SUBSCRIBE_OP_THREAD:
      return static_cast<aclprofSubscribeOpFlag>(r.flag);
    default:
      return ACL_SUBSCRIBE_NONE;
  }
}

const char* aclprofGetOpAttriValue(const void* opInfo, size_t opInfoLen, uint32_t index,
                                   aclprofSubscribeOpAttri attri) {
  // One library buffer, overwritten by the next call (spec: not thread-safe).
  static char text[24];
  rt::OpRecordView r;
  if (!op_record(opInfo, opInfoLen, index, &r)) return nullptr;
  if (raw(attri) != ACL_SUBSCRIBE_ATTRI_THREADID || r.flag != ACL_SUBSCRIBE_OP_THREAD) return nullptr;
  std::snprintf(text, sizeof text, "%u", r.thread_id);
  return text;
}

}  // extern "C"
