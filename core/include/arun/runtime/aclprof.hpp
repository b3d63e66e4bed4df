// Front door: API-driven profiling (spec 2.10: aclprof*, msproftx, step info). The state behind it
// (the aclprofInit folder and options, configurations, stamps, open ranges, step infos) is owned
// by the Runtime and reset at aclFinalize. See front_door.hpp for the conventions; the caller has
// checked NULL pointers and the ranges the spec states. Configurations, stamps and step infos are
// the ACL handle values; an unknown or destroyed one is an error, never a dereference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "acl/acl_prof.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"
#include "arun/runtime/task_observer.hpp"

namespace arun::rt {

// ---- session control

// aclprofInit: creates the output folder `path`. repeat_initialize (already initialised),
// prof_already_run (a session of another source runs), invalid_file (no such folder possible).
Status prof_init(std::string_view path);
// aclprofFinalize: stops the session aclprofStart started, if any. prof_not_run (no aclprofInit).
Status prof_finalize();
// aclprofCreateConfig, the part that needs the runtime: every id of the list is a device, none
// twice, and there are no more than devices. invalid_param otherwise.
Status prof_check_devices(const uint32_t* devices, uint32_t count);
// aclprofCreateConfig: a new configuration (arguments checked). Never fails but for memory.
Status prof_create_config(const uint32_t* devices, uint32_t count, aclprofAicoreMetrics metrics, uint64_t mask,
                          aclprofConfig** out);
// aclprofDestroyConfig: invalid_param (not a live configuration). A running session keeps going.
Status prof_destroy_config(const aclprofConfig* config);
// aclprofStart: prof_not_run (no aclprofInit), invalid_param (not a live configuration or an
// unknown sink), prof_already_run, prof_modules_unsupported (the mask selects nothing collected).
Status prof_start(const aclprofConfig* config);
// aclprofStop: prof_not_run (no aclprofInit, or nothing started), invalid_profiling_config
// (`config` is not the one, nor one equal to the one, the session was started with).
Status prof_stop(const aclprofConfig* config);
// aclprofSetConfig, checked before the arguments: prof_not_run when aclprofInit has not run.
Status prof_require_init();
// aclprofSetConfig: validates and keeps the option `type` = `value`. prof_not_run (no aclprofInit),
// prof_already_run (after aclprofStart), invalid_param (bad value or type), invalid_file
// (ACL_PROF_PATH cannot be created).
Status prof_set_option(int type, std::string_view value);

// ---- msproftx (stamps are the void* handles aclprofCreateStamp returns)

// aclprofCreateStamp: prof_not_run when no session collects ACL_PROF_MSPROFTX.
Status prof_create_stamp(void** out);
// aclprofDestroyStamp: anything but a live stamp is ignored (also without a runtime).
void prof_destroy_stamp(void* stamp);
// invalid_param when `stamp` is not a live stamp.
Status prof_check_stamp(void* stamp);
// aclprofSetStampTraceMessage (msg checked by the caller): invalid_param (not a live stamp).
Status prof_set_stamp_message(void* stamp, std::string_view message);
// aclprofMark: invalid_param (not a live stamp), prof_not_run (no ACL_PROF_MSPROFTX session).
Status prof_mark(void* stamp);
// aclprofPush: the same errors; the range is kept on the calling thread's stack.
Status prof_push(void* stamp);
// aclprofPop: prof_not_run (no ACL_PROF_MSPROFTX session), invalid_param (nothing pushed here).
Status prof_pop();
// aclprofRangeStart (stamp checked by prof_check_stamp): prof_not_run (no ACL_PROF_MSPROFTX
// session), invalid_param (the stamp went meanwhile).
Status prof_range_start(void* stamp, uint32_t* range_id);
// aclprofRangeStop: invalid_param (not an open range). Records nothing once the session ended.
Status prof_range_stop(uint32_t range_id);

// ---- step info

// aclprofCreateStepInfo. Never fails but for memory.
Status prof_create_step_info(aclprofStepInfo** out);
// aclprofDestroyStepInfo: anything but a live step info is ignored (also without a runtime).
void prof_destroy_step_info(aclprofStepInfo* step);
// aclprofGetStepTimestamp (`tag` checked: ACL_STEP_START or ACL_STEP_END): invalid_param (not a
// live step info, or the tag was taken), prof_not_run (no session), the stream's errors.
Status prof_step_timestamp(aclprofStepInfo* step, int tag, aclrtStream stream);

// ---- model subscription (spec part 2, 4.15)
//
// aclprofModelSubscribe streams one fixed-size record per executed operator of a model to the
// pipe of the configuration; the getters decode a buffer of such records. Configurations and the
// operator strings are process-scope (a reader may decode after aclFinalize); subscriptions belong
// to the runtime and end at aclFinalize.

// aclprofCreateSubscribeConfig (`fd` non-NULL, `time_info` 0 or 1: checked by the caller). nullptr
// when out of memory.
aclprofSubscribeConfig* prof_create_subscribe_config(int8_t time_info, int metrics, void* fd);
// aclprofDestroySubscribeConfig (non-NULL): invalid_param when not a live configuration.
Status prof_destroy_subscribe_config(const aclprofSubscribeConfig* config);
// invalid_model_id unless `model` is a loaded model (checked first by both calls).
Status prof_require_loaded_model(uint32_t model);
// aclprofModelSubscribe after the model and NULL checks: invalid_param (not a live configuration,
// or one that collects nothing), prof_api_conflict (aclprofInit is in effect), prof_already_run
// (a configured session runs), prof_repeat_subscribe, invalid_profiling_config (another model of
// the device is subscribed with a different configuration).
Status prof_model_subscribe(uint32_t model, const aclprofSubscribeConfig* config);
// aclprofModelUnSubscribe after the model check: invalid_model_id (not subscribed). Waits for the
// model's operators in flight, writes their records, closes the descriptor unless another
// subscription writes to it, and stores -1 into the configuration's int.
Status prof_model_unsubscribe(uint32_t model);

// Size of one record (aclprofGetOpDescSize).
size_t prof_op_record_size();
// aclprofGetOpNum and the getters: invalid_param unless `len` is a non-zero multiple of the record
// size and every record of `buf` (non-NULL) verifies.
Status prof_op_count(const void* buf, size_t len, uint32_t* count);
// The fields of record `index` (invalid_param: invalid buffer, index beyond it).
struct OpRecordView {
  uint32_t model_id = 0;
  uint32_t flag = 0;
  uint32_t thread_id = 0;
  uint64_t op_index = 0;
  uint64_t start_us = 0, end_us = 0, duration_us = 0;
};
Status prof_op_record(const void* buf, size_t len, uint32_t index, OpRecordView* out);
// strlen + 1 of the type (`name` false) or name of record `index`. invalid_param also when the
// string was fetched already.
Status prof_op_string_length(const void* buf, size_t len, uint32_t index, bool name, size_t* out);
// Copies it into `out` (`capacity` > 0) and forgets it (see aclprofGetOpType for the rules).
Status prof_op_string(const void* buf, size_t len, uint32_t index, bool name, char* out, size_t capacity);

// ---- for the model executor
// Observes one model's operators: begin_op when a node is about to be enqueued (its tasks carry
// the returned cookie through a TaskObserverScope), end_op once it has been.
class ModelOpObserver : public TaskObserver {
 public:
  virtual uint64_t begin_op(const std::string& type, const std::string& name) = 0;
  virtual void end_op(uint64_t cookie) = 0;
};
// The subscription of `model` or nullptr (cheap when nothing is subscribed).
std::shared_ptr<ModelOpObserver> model_op_observer(uint32_t model);

}  // namespace arun::rt
