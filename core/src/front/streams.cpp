// Front door implementation: streams (arun/runtime/streams.hpp).
#include "arun/runtime/streams.hpp"

#include <string>

#include "front/stream_access.hpp"
#include "runtime/graph.hpp"
#include "runtime/process_hooks.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"
#include "sanitizer/stream_sanitizer.hpp"
#include "sched/scheduler.hpp"

namespace arun::rt {

using detail::find_stream;
using detail::live_runtime;

Status create_stream(uint32_t priority, uint32_t flags, aclrtStream* out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  ARUN_RETURN_IF_ERROR(rt->create_stream(priority, flags, out));
  ProcessHooks::instance().notify_stream_state(*out, ACL_RT_STREAM_STATE_CREATE_POST);
  return Status::Ok();
}

Status destroy_stream(aclrtStream stream, bool force) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  if (s->is_default()) return Status(Errc::rt_param_invalid, "the default stream cannot be destroyed");
  ProcessHooks::instance().notify_stream_state(stream, ACL_RT_STREAM_STATE_DESTROY_PRE);
  return rt->destroy_stream(stream, force);
}

Status synchronize_stream(aclrtStream stream, int32_t timeout_ms) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return rt->synchronize_stream(*s, timeout_ms);
}

Status describe_stream(aclrtStream stream, StreamInfo* out) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  *out = StreamInfo{s->priority(), s->flags(), s->id()};
  return Status::Ok();
}

Status query_stream(aclrtStream stream, aclrtStreamStatus* status) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  if (s->capturing.load(std::memory_order_acquire)) [[unlikely]]
    ARUN_RETURN_IF_ERROR(rt->graphs().refuse_on_capturing(*s, "aclrtStreamQuery"));
  *status = s->idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  if (*status == ACL_STREAM_STATUS_COMPLETE && san::on()) [[unlikely]]
    san::synced_stream(*s);  // a query that says "complete" orders like a synchronize
  return Status::Ok();
}

Status set_stream_failure_mode(aclrtStream stream, uint64_t mode) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE) {
    return Status(Errc::rt_param_invalid,
                  "failure mode " + std::to_string(mode) + " is not ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE");
  }
  if (s->failure_mode_set.exchange(true)) {
    return Status(Errc::rt_param_invalid, "the failure mode of stream " + std::to_string(s->id()) + " was already set");
  }
  s->failure_mode.store(mode);
  if (mode == ACL_STOP_ON_FAILURE) s->context()->stop_on_failure.store(true);
  return Status::Ok();
}

namespace {
Status unknown_attribute(int selector) {
  return Status(Errc::rt_param_invalid, "stream attribute " + std::to_string(selector) + " is not an aclrtStreamAttr");
}
}  // namespace

Status set_stream_attribute(aclrtStream stream, int selector, const aclrtStreamAttrValue& value) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  auto on_off = [&](uint32_t v, std::atomic<uint32_t>* into, const char* what) {
    if (v > 1) {
      return Status(Errc::rt_param_invalid, std::string(what) + " must be 0 (off) or 1 (on), not " + std::to_string(v));
    }
    into->store(v);
    return Status::Ok();
  };
  switch (selector) {
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
      return on_off(value.overflowSwitch, &s->overflow_switch, "the float overflow check switch");
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
      return on_off(value.cacheOpInfoSwitch, &s->cache_op_info_switch, "the op-info cache switch");
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
      s->user_custom_tag.store(value.userCustomTag);
      return Status::Ok();
    case ACL_STREAM_ATTR_PRIORITY:
      // The scheduler policies take a stream's priority when it joins the device (the fair
      // policy derives its weight from it), so it is fixed for the stream's lifetime.
      return Status(Errc::rt_feature_not_support,
                    "a stream's priority is fixed at creation here: create the stream with "
                    "aclrtCreateStreamWithConfig or an ACL_RT_STREAM_PRIORITY config option");
    default:
      return unknown_attribute(selector);
  }
}

Status get_stream_attribute(aclrtStream stream, int selector, aclrtStreamAttrValue* value) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  *value = aclrtStreamAttrValue{};
  switch (selector) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
      value->failureMode = s->failure_mode.load();
      return Status::Ok();
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
      value->overflowSwitch = s->overflow_switch.load();
      return Status::Ok();
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
      value->cacheOpInfoSwitch = s->cache_op_info_switch.load();
      return Status::Ok();
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
      value->userCustomTag = s->user_custom_tag.load();
      return Status::Ok();
    case ACL_STREAM_ATTR_PRIORITY:
      value->streamPriority = s->priority();
      return Status::Ok();
    default:
      return unknown_attribute(selector);
  }
}

Status abort_stream(aclrtStream stream) {
  if (stream == nullptr) return Status(Errc::rt_param_invalid, "stream is NULL (the default stream cannot be aborted)");
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  // Halts the running task where the device can (between kernel blocks), drops the queue, and
  // returns once nothing of the stream runs any more.
  s->scheduler()->abort(*s);
  return Status::Ok();
}

Status stop_stream(aclrtStream stream) {
  if (stream == nullptr) return Status(Errc::rt_param_invalid, "stream is NULL (the default stream cannot be stopped)");
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  if (s->is_default()) return Status(Errc::rt_param_invalid, "the default stream cannot be stopped");
  // Asks the running task to halt; the tasks queued behind it stay and run next.
  s->scheduler()->stop_running(*s);
  return Status::Ok();
}

// ---------------------------------------------------------------- model-stream control

namespace {

// Both streams of aclrtSwitchStream / aclrtActiveStream must be bound to a model runtime instance;
// the graph table records the control task (runtime/graph_build.cpp).
Status model_streams(aclrtStream other, aclrtStream stream, const char* other_name, bool is_switch, const void* left,
                     const void* right, uint32_t cond, uint32_t type) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)");
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  std::shared_ptr<Stream> o = rt->find_stream(other);
  if (!o) {
    return Status(Errc::rt_invalid_handle,
                  std::string(other_name) + " is not a live stream (destroyed, or not a stream)");
  }
  for (const Stream* x : {s.get(), o.get()}) {
    // Bound streams are persistent and routed to their instance (read without the graph table's lock).
    if (!x->routed.load(std::memory_order_acquire) || (x->flags() & ACL_STREAM_PERSISTENT) == 0) {
      return Status(
          static_cast<Errc>(ACL_ERROR_RT_STREAM_MODEL),
          "stream " + std::to_string(x->id()) + " is not bound to a model runtime instance (aclmdlRIBindStream)");
    }
  }
  return rt->graphs().add_control(*s, *o, is_switch, left, right, cond, type);
}

}  // namespace

Status switch_stream(const void* left, uint32_t cond, const void* right, uint32_t type, aclrtStream true_stream,
                     aclrtStream stream) {
  return model_streams(true_stream, stream, "trueStream", true, left, right, cond, type);
}

Status active_stream(aclrtStream active, aclrtStream stream) {
  return model_streams(active, stream, "activeStream", false, nullptr, nullptr, 0, 0);
}

}  // namespace arun::rt
