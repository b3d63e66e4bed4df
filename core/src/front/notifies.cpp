// Front door implementation: notifies and counting notifies (arun/runtime/notifies.hpp).
#include "arun/runtime/notifies.hpp"

#include <unistd.h>

#include <climits>
#include <cstring>
#include <string>

#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun::rt {

using detail::live_runtime;

namespace {

Status find_notify(Runtime* rt, const void* notify, std::shared_ptr<NotifyHandle>* out) {
  auto h = rt->notifies().find(notify);
  if (!h) return Status(Errc::rt_invalid_handle, "notify handle is not a live notify (destroyed, or not a notify)");
  *out = std::move(h);
  return Status::Ok();
}

Status enqueue_notify_task(aclrtNotify notify, aclrtStream stream, TaskKind kind, int64_t timeout_ns) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<NotifyHandle> h;
  ARUN_RETURN_IF_ERROR(find_notify(rt, notify, &h));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  const int32_t device = s->context()->slot()->id();
  if (device != h->state->device) {
    return Status(Errc::rt_stream_context, "the notify belongs to device " + std::to_string(h->state->device) +
                                               ", the stream to device " + std::to_string(device));
  }
  auto* task = new Task();
  task->task_kind = kind;
  task->stream = s.get();
  task->notify = h->state;
  task->wait_timeout_ns = timeout_ns;
  return rt->submit(task);
}

}  // namespace

Status create_notify(uint64_t flag, aclrtNotify* out) {
  if ((flag & ~uint64_t{ACL_NOTIFY_DEVICE_USE_ONLY}) != 0) {
    return Status(Errc::rt_param_invalid,
                  "notify flag " + std::to_string(flag) + " is not ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY");
  }
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  return rt->notifies().create(ctx->slot()->id(), flag, out);
}

Status destroy_notify(aclrtNotify notify) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->notifies().destroy(notify);
}

Status record_notify(aclrtNotify notify, aclrtStream stream) {
  return enqueue_notify_task(notify, stream, TaskKind::NotifyRecord, -1);
}

Status wait_and_reset_notify(aclrtNotify notify, aclrtStream stream, uint32_t timeout_s) {
  // 0 waits forever; UINT32_MAX asks for the runtime's default wait timeout, which is "none" here.
  const int64_t timeout_ns = timeout_s == 0 || timeout_s == UINT32_MAX ? -1 : int64_t{timeout_s} * 1'000'000'000;
  return enqueue_notify_task(notify, stream, TaskKind::NotifyWait, timeout_ns);
}

Status notify_id(aclrtNotify notify, uint32_t* id) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<NotifyHandle> h;
  ARUN_RETURN_IF_ERROR(find_notify(rt, notify, &h));
  *id = h->state->id;
  return Status::Ok();
}

Status reset_notifies(aclrtNotify* notifies, size_t num) {
  if (num == 0 || num > UINT32_MAX) {
    return Status(Errc::rt_param_invalid, "num is " + std::to_string(num) + "; it must be 1 .. 4294967295");
  }
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  for (size_t i = 0; i < num; ++i) {
    if (notifies[i] == nullptr) return Status(Errc::rt_param_invalid, "notifies[" + std::to_string(i) + "] is NULL");
    std::shared_ptr<NotifyHandle> h;
    Status found = find_notify(rt, notifies[i], &h);
    if (!found.ok()) return Status(found.code(), "notifies[" + std::to_string(i) + "]: " + found.message());
    h->state->clear();
  }
  return Status::Ok();
}

Status notify_export_key(aclrtNotify notify, char* key, size_t len, uint64_t flags) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<NotifyHandle> h;
  ARUN_RETURN_IF_ERROR(find_notify(rt, notify, &h));
  constexpr size_t kMinKeyBytes = 65;
  if (len < kMinKeyBytes) {
    return Status(Errc::rt_param_invalid, "len is " + std::to_string(len) + "; the key buffer needs at least 65 bytes");
  }
  if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT && flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
    return Status(Errc::rt_param_invalid, "export flags " + std::to_string(flags) +
                                              " are not ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT or "
                                              "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION");
  }
  std::string name;
  ARUN_RETURN_IF_ERROR(
      rt->notifies().export_key(h->state, flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, &name));
  std::memcpy(key, name.c_str(), name.size() + 1);  // at most 64 characters
  return Status::Ok();
}

Status notify_import(aclrtNotify* out, const char* key, uint64_t flags) {
  if (flags > (ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT | 0x1 | ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)) {
    return Status(Errc::rt_param_invalid, "import flags " + std::to_string(flags) + " are above 0x3");
  }
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  return rt->notifies().import(key, ctx->slot()->id(), static_cast<int32_t>(::getpid()), out);
}

Status notify_set_import_pids(aclrtNotify notify, int32_t* pids, size_t num) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<NotifyHandle> h;
  ARUN_RETURN_IF_ERROR(find_notify(rt, notify, &h));
  if (num == 0 || num > size_t{INT32_MAX}) {
    return Status(Errc::rt_param_invalid, "num is " + std::to_string(static_cast<int64_t>(num)) + "; it must be > 0");
  }
  return rt->notifies().allow_pids(*h->state, pids, num);
}

Status notify_set_import_pids_inter_server(aclrtNotify notify, aclrtServerPid* server_pids, size_t num) {
  if (notify == nullptr) return Status(Errc::rt_param_invalid, "notify is NULL");
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<NotifyHandle> h;
  ARUN_RETURN_IF_ERROR(find_notify(rt, notify, &h));
  if (server_pids == nullptr) return Status(Errc::rt_param_invalid, "serverPids is NULL");
  if (num == 0) return Status(Errc::rt_param_invalid, "num is 0");
  for (size_t i = 0; i < num; ++i) {
    if (server_pids[i].pid == nullptr) {
      return Status(Errc::rt_param_invalid, "serverPids[" + std::to_string(i) + "].pid is NULL");
    }
    if (server_pids[i].num != 1) {
      return Status(Errc::rt_param_invalid, "serverPids[" + std::to_string(i) + "].num is " +
                                                std::to_string(server_pids[i].num) + "; it must be 1");
    }
  }
  return Status(Errc::rt_feature_not_support,
                "importers on other servers need an Atlas A3 super-node; this runtime models single servers");
}

Status cnt_notify_unsupported(bool need_context) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::string soc = "this SoC";
  if (need_context) {
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
    soc = ctx->slot()->device()->properties().soc_name;
  }
  return Status(Errc::rt_feature_not_support,
                "counting notifies (aclrtCntNotify*) exist on Ascend 950 only, not on " + soc);
}

}  // namespace arun::rt
