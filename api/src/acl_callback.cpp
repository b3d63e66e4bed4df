// Spec 2.7: host callbacks (aclrtLaunchCallback + aclrtSubscribeReport / aclrtProcessReport) and
// host functions (aclrtLaunchHostFunc + aclrtSubscribeHostFunc / aclrtProcessHostFunc).
#include <pthread.h>

#include "api_call.hpp"
#include "sched/notifier.hpp"

using namespace arun;
using namespace arun::api;

namespace {

uint64_t this_thread_id() {
  return static_cast<uint64_t>(pthread_self());
}

Status launch(Runtime& rt, HostCallKind kind, aclrtStream stream, void (*fn)(void*), void* user, bool blocking) {
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  std::shared_ptr<HostQueue> queue = rt.host_calls().queue_for(kind, *s);
  if (!queue) {
    return Status(Errc::rt_stream_no_cb_reg,
                  "stream " + std::to_string(s->id()) + " has no report thread: call aclrtSubscribeReport first");
  }
  auto* task = new Task();
  task->task_kind = TaskKind::HostCall;
  task->stream = s.get();
  task->host_fn = fn;
  task->host_user = user;
  task->host_queue = std::move(queue);
  task->host_blocking = blocking;
  if (prof::on(prof::kTasks)) [[unlikely]] {
    task->prof_name = prof::intern_static(kind == HostCallKind::Callback ? "callback" : "host_func");
  }
  return rt.submit(task);
}

Status subscribe(Runtime& rt, HostCallKind kind, uint64_t thread, aclrtStream stream, bool subscribe) {
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  return subscribe ? rt.host_calls().subscribe(kind, thread, *s) : rt.host_calls().unsubscribe(kind, thread, *s);
}

// aclrtProcessReport / aclrtProcessHostFunc: runs one call of the calling thread's streams.
Status process(Runtime& rt, HostCallKind kind, int32_t timeout) {
  if (timeout == 0 || timeout < -1) {
    return invalid_param("timeout " + std::to_string(timeout) + " ms is invalid (use -1 to wait forever, or > 0)");
  }
  std::shared_ptr<HostQueue> queue = rt.host_calls().queue_of_thread(kind, this_thread_id());
  if (!queue) {
    return Status(Errc::rt_thread_subscribe, kind == HostCallKind::Callback
                                                 ? "the calling thread is not subscribed to any stream "
                                                   "(aclrtSubscribeReport)"
                                                 : "the calling thread is not subscribed to any stream "
                                                   "(aclrtSubscribeHostFunc)");
  }
  HostCall call;
  if (!queue->take(&call, Notifier::deadline_after_ms(timeout))) {
    return Status(Errc::rt_report_timeout, "no host call arrived within " + std::to_string(timeout) + " ms");
  }
  HostQueue::run(call);
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream stream) {
  return api_call("aclrtLaunchCallback", [&](Runtime& rt) {
    if (fn == nullptr) return invalid_param("fn is NULL");
    auto type = raw(blockType);
    if (type != ACL_CALLBACK_NO_BLOCK && type != ACL_CALLBACK_BLOCK) {
      return invalid_param("blockType " + std::to_string(type) + " is not ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK");
    }
    return launch(rt, HostCallKind::Callback, stream, fn, userData, type == ACL_CALLBACK_BLOCK);
  });
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return api_call("aclrtSubscribeReport",
                  [&](Runtime& rt) { return subscribe(rt, HostCallKind::Callback, threadId, stream, true); });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return api_call("aclrtUnSubscribeReport",
                  [&](Runtime& rt) { return subscribe(rt, HostCallKind::Callback, threadId, stream, false); });
}

aclError aclrtProcessReport(int32_t timeout) {
  return api_call("aclrtProcessReport", [&](Runtime& rt) { return process(rt, HostCallKind::Callback, timeout); });
}

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  return api_call("aclrtLaunchHostFunc", [&](Runtime& rt) {
    if (fn == nullptr) return rt_param_invalid("fn is NULL");
    return launch(rt, HostCallKind::HostFunc, stream, fn, args, true);
  });
}

aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
  return api_call("aclrtSubscribeHostFunc", [&](Runtime& rt) {
    if (exeStream == nullptr) return invalid_param("exeStream is NULL");
    return subscribe(rt, HostCallKind::HostFunc, hostFuncThreadId, exeStream, true);
  });
}

aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
  return api_call("aclrtUnSubscribeHostFunc", [&](Runtime& rt) {
    if (exeStream == nullptr) return invalid_param("exeStream is NULL");
    return subscribe(rt, HostCallKind::HostFunc, hostFuncThreadId, exeStream, false);
  });
}

aclError aclrtProcessHostFunc(int32_t timeout) {
  return api_call("aclrtProcessHostFunc", [&](Runtime& rt) { return process(rt, HostCallKind::HostFunc, timeout); });
}

}  // extern "C"
