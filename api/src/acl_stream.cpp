// Spec 2.4: stream management.
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

constexpr uint32_t kLowestPriority = 7;

// aclrtRegStreamStateCallback hooks, process-wide, by name.
struct StreamStateHook {
  aclrtStreamStateCallback callback;
  void* args;
};
std::mutex g_hooks_mu;
std::map<std::string, StreamStateHook> g_hooks;

void notify_stream_state(aclrtStream stream, aclrtStreamState state) {
  std::map<std::string, StreamStateHook> hooks;
  {
    std::lock_guard lock(g_hooks_mu);
    hooks = g_hooks;
  }
  for (auto& [name, hook] : hooks) hook.callback(stream, state, hook.args);
}

Status create_stream(Runtime& rt, aclrtStream* stream, uint32_t priority, uint32_t flags) {
  if (stream == nullptr) return invalid_param("stream is NULL");
  if (priority > kLowestPriority) {
    // CANN clamps an out-of-range priority to the lowest one rather than failing.
    log().info("aclrtCreateStreamWithConfig: priority {} is outside [0, {}]; using {}", priority, kLowestPriority,
               kLowestPriority);
    priority = kLowestPriority;
  }
  ARUN_RETURN_IF_ERROR(rt.create_stream(priority, flags, stream));
  notify_stream_state(*stream, ACL_RT_STREAM_STATE_CREATE_POST);
  return Status::Ok();
}

Status destroy_stream(Runtime& rt, aclrtStream stream, bool force) {
  if (stream == nullptr) return invalid_param("stream is NULL");
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  if (s->is_default()) return rt_param_invalid("the default stream cannot be destroyed");
  notify_stream_state(stream, ACL_RT_STREAM_STATE_DESTROY_PRE);
  return rt.destroy_stream(stream, force);
}

Status synchronize(Runtime& rt, aclrtStream stream, int32_t timeout) {
  if (timeout < -1) return rt_param_invalid("timeout " + std::to_string(timeout) + " ms is below -1");
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  return rt.synchronize_stream(*s, timeout);
}

}  // namespace

extern "C" {

aclError aclrtCreateStream(aclrtStream *stream) {
  return api_call("aclrtCreateStream", [&](Runtime& rt) { return create_stream(rt, stream, 0, 0); });
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag) {
  return api_call("aclrtCreateStreamWithConfig", [&](Runtime& rt) { return create_stream(rt, stream, priority, flag); });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return api_call("aclrtDestroyStream", [&](Runtime& rt) { return destroy_stream(rt, stream, false); });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  return api_call("aclrtDestroyStreamForce", [&](Runtime& rt) { return destroy_stream(rt, stream, true); });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return api_call("aclrtSynchronizeStream", [&](Runtime& rt) { return synchronize(rt, stream, -1); });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return api_call("aclrtSynchronizeStreamWithTimeout", [&](Runtime& rt) { return synchronize(rt, stream, timeout); });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
  return api_call("aclrtStreamQuery", [&](Runtime& rt) {
    if (status == nullptr) return invalid_param("status is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    *status = s->idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return Status::Ok();
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return api_call("aclrtStreamWaitEvent", [&](Runtime& rt) {
    if (event == nullptr) return invalid_param("event is NULL");
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(rt.resolve_event(event, &e));
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    if ((e->flags() & (ACL_EVENT_SYNC | Event::kCreatedPlain)) == 0) {
      return rt_param_invalid("the event was created without ACL_EVENT_SYNC and cannot be waited on");
    }
    return rt.wait_event(*s, e);
  });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  return api_call("aclrtSetStreamFailureMode", [&](Runtime& rt) {
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE) {
      return rt_param_invalid("failure mode " + std::to_string(mode) + " is not ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE");
    }
    if (s->failure_mode_set.exchange(true)) {
      return rt_param_invalid("the failure mode of stream " + std::to_string(s->id()) + " was already set");
    }
    s->failure_mode.store(mode);
    if (mode == ACL_STOP_ON_FAILURE) s->context()->stop_on_failure.store(true);
    return Status::Ok();
  });
}

namespace {
// A C caller may pass any int as the selector; reading it as an int keeps values outside the
// enum's range defined behaviour (they are then reported as invalid).
int selector_of(const aclrtStreamAttr& attr) {
  int v = 0;
  std::memcpy(&v, &attr, sizeof v);
  return v;
}
}  // namespace

aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue *value) {
  static_assert(sizeof(aclrtStreamAttr) == sizeof(int));
  const int selector = selector_of(stmAttrType);
  if (selector == ACL_STREAM_ATTR_FAILURE_MODE && value != nullptr) {
    return aclrtSetStreamFailureMode(stream, value->failureMode);
  }
  return api_call("aclrtSetStreamAttribute", [&](Runtime& rt) {
    if (value == nullptr) return invalid_param("value is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    auto on_off = [&](uint32_t v, std::atomic<uint32_t>* into, const char* what) {
      if (v > 1) return rt_param_invalid(std::string(what) + " must be 0 (off) or 1 (on), not " + std::to_string(v));
      into->store(v);
      return Status::Ok();
    };
    switch (selector) {
      case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        return on_off(value->overflowSwitch, &s->overflow_switch, "the float overflow check switch");
      case ACL_STREAM_ATTR_CACHE_OP_INFO:
        return on_off(value->cacheOpInfoSwitch, &s->cache_op_info_switch, "the op-info cache switch");
      case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        s->user_custom_tag.store(value->userCustomTag);
        return Status::Ok();
      case ACL_STREAM_ATTR_PRIORITY:
        // The scheduler policies take a stream's priority when it joins the device (the fair
        // policy derives its weight from it), so it is fixed for the stream's lifetime.
        return Status(Errc::rt_feature_not_support,
                      "a stream's priority is fixed at creation here: create the stream with "
                      "aclrtCreateStreamWithConfig or an ACL_RT_STREAM_PRIORITY config option");
      default:
        return rt_param_invalid("stream attribute " + std::to_string(selector) + " is not an aclrtStreamAttr");
    }
  });
}

aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue *value) {
  return api_call("aclrtGetStreamAttribute", [&](Runtime& rt) {
    if (value == nullptr) return invalid_param("value is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    const int selector = selector_of(stmAttrType);
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
        return rt_param_invalid("stream attribute " + std::to_string(selector) + " is not an aclrtStreamAttr");
    }
  });
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority) {
  return api_call("aclrtStreamGetPriority", [&](Runtime& rt) {
    if (priority == nullptr) return invalid_param("priority is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    *priority = s->priority();
    return Status::Ok();
  });
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags) {
  return api_call("aclrtStreamGetFlags", [&](Runtime& rt) {
    if (flags == nullptr) return invalid_param("flags is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    *flags = s->flags();
    return Status::Ok();
  });
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId) {
  return api_call("aclrtStreamGetId", [&](Runtime& rt) {
    if (streamId == nullptr) return invalid_param("streamId is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    *streamId = s->id();
    return Status::Ok();
  });
}

aclError aclrtStreamAbort(aclrtStream stream) {
  return api_call("aclrtStreamAbort", [&](Runtime& rt) {
    if (stream == nullptr) return rt_param_invalid("stream is NULL (the default stream cannot be aborted)");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    // Halts the running task where the device can (between kernel blocks), drops the queue, and
    // returns once nothing of the stream runs any more.
    s->scheduler()->abort(*s);
    return Status::Ok();
  });
}

aclError aclrtStreamStop(aclrtStream stream) {
  return api_call("aclrtStreamStop", [&](Runtime& rt) {
    if (stream == nullptr) return rt_param_invalid("stream is NULL (the default stream cannot be stopped)");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    if (s->is_default()) return rt_param_invalid("the default stream cannot be stopped");
    // Asks the running task to halt; the tasks queued behind it stay and run next.
    s->scheduler()->stop_running(*s);
    return Status::Ok();
  });
}

aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void) {
  // Zeroed: what aclrtCreateStream gives (priority 0, no flags). No runtime needed, as in CANN.
  return new (std::nothrow) aclrtStreamConfigHandle{nullptr, 0, 0, 0};
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle) {
  return api_call_no_runtime("aclrtDestroyStreamConfigHandle", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    delete handle;
    return Status::Ok();
  });
}

aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle) {
  return api_call("aclrtCreateStreamV2", [&](Runtime& rt) {
    if (handle == nullptr) return invalid_param("handle is NULL");
    // The work area (WORK_ADDR_PTR / WORK_SIZE) is a hint for the device's task memory; the
    // simulated devices allocate their own, so it is accepted and not used.
    return create_stream(rt, stream, handle->priority, static_cast<uint32_t>(handle->flag));
  });
}

aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr, const void *attrValue,
                                 size_t valueSize) {
  return api_call_no_runtime("aclrtSetStreamConfigOpt", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (attrValue == nullptr) return invalid_param("attrValue is NULL");
    auto expect = [&](size_t size, const char* type) {
      return valueSize == size ? Status::Ok()
                               : invalid_param("valueSize " + std::to_string(valueSize) + " does not match " + type);
    };
    switch (raw(attr)) {
      case ACL_RT_STREAM_WORK_ADDR_PTR:
        ARUN_RETURN_IF_ERROR(expect(sizeof(void*), "sizeof(void*)"));
        handle->workptr = *static_cast<void* const*>(attrValue);
        return Status::Ok();
      case ACL_RT_STREAM_WORK_SIZE:
        ARUN_RETURN_IF_ERROR(expect(sizeof(size_t), "sizeof(size_t)"));
        handle->workSize = *static_cast<const size_t*>(attrValue);
        return Status::Ok();
      case ACL_RT_STREAM_FLAG:
        ARUN_RETURN_IF_ERROR(expect(sizeof(size_t), "sizeof(size_t)"));
        handle->flag = *static_cast<const size_t*>(attrValue);
        return Status::Ok();
      case ACL_RT_STREAM_PRIORITY: {
        ARUN_RETURN_IF_ERROR(expect(sizeof(uint32_t), "sizeof(uint32_t)"));
        uint32_t p = *static_cast<const uint32_t*>(attrValue);
        if (p > kLowestPriority) return invalid_param("priority " + std::to_string(p) + " is outside [0, 7]");
        handle->priority = p;
        return Status::Ok();
      }
    }
    return invalid_param("unknown stream config attribute " + std::to_string(raw(attr)));
  });
}

aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback, void *args) {
  return api_call_no_runtime("aclrtRegStreamStateCallback", [&] {
    if (regName == nullptr) return invalid_param("regName is NULL");
    std::lock_guard lock(g_hooks_mu);
    if (callback == nullptr) {
      g_hooks.erase(regName);
      return Status::Ok();
    }
    if (!g_hooks.emplace(regName, StreamStateHook{callback, args}).second) {
      return rt_param_invalid(std::string("a stream state callback named \"") + regName + "\" is already registered");
    }
    return Status::Ok();
  });
}

}  // extern "C"
