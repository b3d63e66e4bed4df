// Status: the core's error type. Codes are numerically equal to the ACL codes the C API returns,
// so the API layer maps a Status to aclError with a cast; the core itself never includes acl headers.
#pragma once

#include <string>
#include <utility>

namespace arun {

enum class Errc : int {
  ok = 0,
  // caller errors reported by the ACL wrapper layer
  invalid_param = 100000,
  uninitialized = 100001,
  repeat_initialize = 100002,
  invalid_file = 100003,
  write_file = 100004,
  parse_file = 100006,
  file_missing_attr = 100007,
  file_attr_invalid = 100008,
  invalid_profiling_config = 100010,
  // single-operator execution (aclopExecuteV2)
  op_type_not_match = 100020,
  op_input_not_match = 100021,
  op_output_not_match = 100022,
  op_attr_not_match = 100023,
  op_not_found = 100024,
  unsupported_data_type = 100026,
  repeat_finalize = 100037,
  prof_already_run = 100042,
  prof_not_run = 100043,
  // runtime caller errors
  rt_param_invalid = 107000,
  rt_invalid_device_id = 107001,
  rt_context_null = 107002,
  rt_stream_context = 107003,
  rt_event_timestamp_invalid = 107006,
  rt_event_timestamp_reversal = 107007,
  rt_stream_subscribe = 107011,
  rt_thread_subscribe = 107012,
  rt_stream_no_cb_reg = 107015,
  rt_invalid_handle = 107017,
  rt_task_timeout = 107020,
  rt_device_task_abort = 107022,
  rt_stream_abort = 107023,
  // resources / unsupported
  api_not_support = 200001,
  prof_modules_unsupported = 200007,
  rt_feature_not_support = 207000,
  rt_memory_allocation = 207001,
  rt_memory_free = 207002,
  rt_no_device = 207004,
  rt_no_permission = 207006,
  rt_no_event_resource = 207007,
  rt_no_stream_resource = 207008,
  rt_no_notify_resource = 207009,
  // internal / device failures
  internal_error = 500000,
  failure = 500001,
  rt_internal_error = 507000,
  rt_event_not_complete = 507006,
  rt_context_release_error = 507007,
  rt_report_timeout = 507012,
  rt_aicore_exception = 507015,
  rt_aicore_trap_exception = 507016,
  rt_dev_setup_error = 507033,
  rt_stream_sync_timeout = 507046,
  rt_event_sync_timeout = 507047,
  rt_copy_data = 507052,
  host_memory_already_registered = 507910,
  host_memory_not_registered = 507911,
};

// A code plus a readable message. Cheap when ok (empty string, no allocation).
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == Errc::ok; }
  explicit operator bool() const { return ok(); }
  Errc code() const { return code_; }
  int value() const { return static_cast<int>(code_); }
  const std::string& message() const { return message_; }

 private:
  Errc code_ = Errc::ok;
  std::string message_;
};

#define ARUN_RETURN_IF_ERROR(expr)       \
  do {                                   \
    ::arun::Status arun_status_ = (expr); \
    if (!arun_status_.ok()) return arun_status_; \
  } while (0)

}  // namespace arun
