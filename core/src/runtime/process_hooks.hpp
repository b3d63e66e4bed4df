// ProcessHooks: the hooks a program registers through the C API that are not tied to one runtime:
// the stream-state callbacks (aclrtRegStreamStateCallback) and the exception callbacks
// (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister). The spec lets a program
// register them before aclInit and they stay registered across aclFinalize / aclInit, so they live in
// one process-scope object rather than in Runtime.
//
// It is also the scheduler's failure listener: a failed task is recorded in the live runtime's
// FailureLog (aclrtGetErrorVerbose) and reported to the exception callbacks.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun {

struct TaskFailure;

class ProcessHooks {
 public:
  static ProcessHooks& instance();

  // Makes on_task_failure the scheduler's failure listener (idempotent). The runtime calls it
  // before any device runs.
  static void install_failure_listener();

  // ---- stream state
  Status register_stream_state(const std::string& name, aclrtStreamStateCallback callback, void* args);
  // Calls every registered stream-state callback, with no lock held.
  void notify_stream_state(aclrtStream stream, aclrtStreamState state) const;

  // ---- exceptions
  void set_legacy_exception_callback(aclrtExceptionInfoCallback callback);
  Status add_exception_callback(aclrtExceptionInfoCallback callback);
  Status remove_exception_callback(aclrtExceptionInfoCallback callback);
  // aclrtBinarySetExceptionCallback: one hook per kernel binary (a later call replaces it), called
  // after the process-wide ones for a failed task whose TaskFailure::binary is `binary`. The binary
  // family (aclrtBinaryLoad* / aclrtBinaryUnLoad, not implemented yet) validates the handle before
  // setting and drops the hook when the binary is unloaded; until then no failure names a binary.
  void set_binary_exception_callback(const void* binary, aclrtOpExceptionCallback callback, void* user);
  void drop_binary_exception_callback(const void* binary);

 private:
  ProcessHooks() = default;
  // Runs on the thread that completed the failed task, with no runtime lock held.
  static void on_task_failure(const TaskFailure& failure);

  struct StreamStateHook {
    aclrtStreamStateCallback callback;
    void* args;
  };
  mutable std::mutex mu_;
  std::map<std::string, StreamStateHook> stream_state_;          // by name
  aclrtExceptionInfoCallback legacy_exception_ = nullptr;        // aclrtSetExceptionInfoCallback: last call wins
  std::vector<aclrtExceptionInfoCallback> exception_callbacks_;  // aclrtExceptionInfoCallbackRegister
  struct BinaryHook {
    aclrtOpExceptionCallback callback = nullptr;
    void* user = nullptr;
  };
  std::map<const void*, BinaryHook> binary_exception_;  // aclrtBinarySetExceptionCallback, by binary
};

}  // namespace arun
