// Front door implementation: host calls on streams (arun/runtime/hooks.hpp, spec 2.7).
#include <pthread.h>

#include <string>

#include "arun/runtime/hooks.hpp"
#include "arun/runtime/recorder.hpp"
#include "front/stream_access.hpp"
#include "host/host_calls.hpp"
#include "host/host_queue.hpp"
#include "runtime/task.hpp"
#include "sched/notifier.hpp"

namespace arun::rt {

using detail::find_stream;
using detail::live_runtime;

namespace {

HostCallKind kind_of(HostCallApi api) {
  return api == HostCallApi::Report ? HostCallKind::Callback : HostCallKind::HostFunc;
}

uint64_t this_thread_id() {
  return static_cast<uint64_t>(pthread_self());
}

}  // namespace

Status launch_host_call(HostCallApi api, aclrtStream stream, void (*fn)(void*), void* user, bool blocking) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  const HostCallKind kind = kind_of(api);
  std::shared_ptr<HostQueue> queue = rt->host_calls().queue_for(kind, *s);
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
  return rt->submit(task);
}

Status subscribe_host_calls(HostCallApi api, uint64_t thread, aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return rt->host_calls().subscribe(kind_of(api), thread, *s);
}

Status unsubscribe_host_calls(HostCallApi api, uint64_t thread, aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return rt->host_calls().unsubscribe(kind_of(api), thread, *s);
}

Status process_host_call(HostCallApi api, int32_t timeout_ms) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<HostQueue> queue = rt->host_calls().queue_of_thread(kind_of(api), this_thread_id());
  if (!queue) {
    return Status(Errc::rt_thread_subscribe, api == HostCallApi::Report
                                                 ? "the calling thread is not subscribed to any stream "
                                                   "(aclrtSubscribeReport)"
                                                 : "the calling thread is not subscribed to any stream "
                                                   "(aclrtSubscribeHostFunc)");
  }
  HostCall call;
  if (!queue->take(&call, Notifier::deadline_after_ms(timeout_ms))) {
    return Status(Errc::rt_report_timeout, "no host call arrived within " + std::to_string(timeout_ms) + " ms");
  }
  HostQueue::run(call);
  return Status::Ok();
}

}  // namespace arun::rt
