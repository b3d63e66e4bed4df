// Front door: IPC events (spec part 2, 4.14; aclrtIpcGetEventHandle / aclrtIpcOpenEventHandle) and
// the parts of the event calls that differ for them. Design: runtime/ipc_event.hpp.
#include "front/ipc_events.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "arun/runtime/ipc.hpp"
#include "arun/runtime/streams.hpp"
#include "base/status_helpers.hpp"
#include "front/stream_access.hpp"
#include "runtime/ipc_broker.hpp"
#include "runtime/ipc_event.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun::rt {

namespace {

// An event handle is this prefix and the broker key that names the page, NUL-terminated.
constexpr char kHandlePrefix[] = "arun-ev:";
constexpr size_t kPrefixLen = sizeof kHandlePrefix - 1;

// The spec bars IPC events from capturing streams (a captured record kernel would be replayed).
Status refuse_capture(aclrtStream stream) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  if (s->capturing.load(std::memory_order_acquire)) {
    return param_invalid("IPC events cannot be recorded or waited for on a capturing stream");
  }
  return Status::Ok();
}

}  // namespace

namespace detail {

bool ipc_imported(const Event& e) {
  return e.ipc && e.ipc->imported();
}

Status ipc_event_created(Runtime* rt, aclrtEvent handle) {
  std::shared_ptr<IpcEventShare> share;
  Status st = IpcEventShare::create(&share);
  std::shared_ptr<Event> e;
  if (st.ok()) st = rt->resolve_event(handle, &e);
  if (!st.ok()) {
    (void)rt->destroy_event(handle);
    return st;
  }
  e->ipc = std::move(share);
  return Status::Ok();
}

Status ipc_record(const std::shared_ptr<Event>& e, aclrtStream stream, bool before) {
  if (!e->ipc || !before) return Status::Ok();  // Runtime::record_event numbers and publishes the record
  if (e->ipc->imported()) {
    return param_invalid("an event opened with aclrtIpcOpenEventHandle is recorded by its exporting process only");
  }
  return refuse_capture(stream);
}

Status ipc_stream_wait(const std::shared_ptr<Event>& e, aclrtStream stream, int64_t timeout_ns) {
  ARUN_RETURN_IF_ERROR(refuse_capture(stream));
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  // A scheduler marker, not a kernel: it blocks the stream, not an AI core (sched/ipc_watcher.hpp).
  // The record current now is the one waited for, as for a local event.
  auto* task = new Task();
  task->task_kind = TaskKind::IpcWait;
  task->stream = s.get();
  task->ipc = e->ipc;
  task->ipc_n = e->ipc->recorded();
  task->wait_timeout_ns = timeout_ns;
  return rt->submit(task);
}

Status ipc_synchronize(const Event& e, int32_t timeout_ms) {
  const int64_t deadline = timeout_ms < 0 ? -1 : steady_ns() + int64_t{timeout_ms} * 1'000'000;
  switch (e.ipc->wait(e.ipc->recorded(), deadline, {})) {
    case IpcEventShare::WaitResult::Timeout:
      return Status(Errc::rt_event_sync_timeout,
                    "the IPC event's recorded work did not finish within " + std::to_string(timeout_ms) + " ms");
    case IpcEventShare::WaitResult::ExporterGone:
      return param_invalid("the process that exported the IPC event exited before its record completed");
    default:
      return Status::Ok();
  }
}

void ipc_event_destroyed(Event& e) {
  if (!e.ipc || e.ipc->imported()) return;
  std::string key;
  {
    std::lock_guard lock(e.ipc->mu);
    key.swap(e.ipc->key);
  }
  if (!key.empty()) IpcBroker::instance().withdraw_key(key);
  e.ipc->close();
}

}  // namespace detail

Status ipc_get_event_handle(aclrtEvent event, aclrtIpcEventHandle* handle) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(detail::find_event(rt, event, &e));
  if (!e->ipc || e->ipc->imported()) {
    return param_invalid("the event was not created by aclrtCreateEventExWithFlag with ACL_EVENT_IPC");
  }
  std::lock_guard lock(e->ipc->mu);
  if (e->ipc->key.empty()) {
    // Any process may open it: the handle's random part is the secret (CANN has no event allow-list).
    std::weak_ptr<IpcEventShare> weak = e->ipc;
    auto share_now = [weak](IpcBroker::Grant* g) {
      auto s = weak.lock();
      if (!s) return param_invalid("the IPC event was destroyed");
      g->fd = ::dup(s->fd());
      if (g->fd < 0) return Status(Errc::rt_internal_error, "dup of the IPC event page failed");
      s->note_granted();
      g->offset = 0;
      g->size = IpcEventShare::kPageBytes;
      return Status::Ok();
    };
    ARUN_RETURN_IF_ERROR(IpcBroker::instance().export_key(share_now, false, &e->ipc->key));
  }
  std::memset(handle->reserved, 0, sizeof handle->reserved);
  std::snprintf(handle->reserved, sizeof handle->reserved, "%s%s", kHandlePrefix, e->ipc->key.c_str());
  return Status::Ok();
}

Status ipc_open_event_handle(const aclrtIpcEventHandle& handle, aclrtEvent* event) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  const size_t len = strnlen(handle.reserved, sizeof handle.reserved);
  if (len == sizeof handle.reserved || len <= kPrefixLen ||
      std::memcmp(handle.reserved, kHandlePrefix, kPrefixLen) != 0) {
    return param_invalid("the handle is not one aclrtIpcGetEventHandle wrote");
  }
  const std::string key(handle.reserved + kPrefixLen, len - kPrefixLen);
  const pid_t exporter = IpcBroker::key_pid(key);
  if (exporter == 0) return param_invalid("the handle is not one aclrtIpcGetEventHandle wrote");
  IpcBroker::Grant g;
  Status st = IpcBroker::import_key(key, &g);
  if (!st.ok()) return param_invalid(st.message());
  std::shared_ptr<IpcEventShare> share;
  st = IpcEventShare::open(g.fd, g.size, exporter, &share);
  ::close(g.fd);
  ARUN_RETURN_IF_ERROR(st);
  // An opened event waits and is waited for like an aclrtCreateEventExWithFlag event.
  ARUN_RETURN_IF_ERROR(create_event_ex(ACL_EVENT_SYNC, event));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(rt->resolve_event(*event, &e));
  e->ipc = std::move(share);
  return Status::Ok();
}

}  // namespace arun::rt
