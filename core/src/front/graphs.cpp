// Front door implementation: captured task graphs (arun/runtime/graphs.hpp). The capture and
// replay machinery is runtime/graph.*; this file resolves handles and applies the spec's checks.
#include "arun/runtime/graphs.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "base/logging.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/graph.hpp"

namespace arun::rt {

using detail::find_stream;
using detail::live_runtime;
using namespace graph_errc;

namespace {

Status find_graph(Runtime** rt, aclmdlRI handle, std::shared_ptr<Graph>* out) {
  ARUN_RETURN_IF_ERROR(live_runtime(rt));
  *out = (*rt)->graphs().find(handle);
  if (!*out) return Status(Errc::rt_invalid_handle, "modelRI is not a live model runtime instance (destroyed?)");
  return Status::Ok();
}

}  // namespace

Status capture_begin(aclrtStream stream, uint32_t mode) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  void* handle = nullptr;
  Stream& ref = *s;
  return rt->graphs().begin(ref, std::move(s), static_cast<CaptureMode>(mode), &handle);
}

Status capture_end(aclrtStream stream, aclmdlRI* out) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return rt->graphs().end(*s, out);
}

Status capture_get_info(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* out) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  int st = 0;
  void* handle = nullptr;
  rt->graphs().info(*s, &st, &handle);
  if (status != nullptr) *status = static_cast<aclmdlRICaptureStatus>(st);
  if (out != nullptr) *out = handle;
  return Status::Ok();
}

Status capture_exchange_mode(uint32_t* mode) {
  *mode = static_cast<uint32_t>(exchange_thread_capture_mode(static_cast<CaptureMode>(*mode)));
  return Status::Ok();
}

Status graph_execute_async(aclmdlRI graph, aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  if (s->capturing.load(std::memory_order_acquire)) {
    return Status(kStreamCaptured, "stream " + std::to_string(s->id()) + " is being captured");
  }
  constexpr uint32_t kNotForExecution = ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
  if ((s->flags() & kNotForExecution) != 0) {
    return Status(Errc::rt_param_invalid, "stream " + std::to_string(s->id()) +
                                              " is persistent, AI CPU or device-use-only: it cannot execute an "
                                              "instance");
  }
  if (g->context() != s->context()) {
    return Status(kModelContext,
                  "model runtime instance " + std::to_string(g->id()) + " belongs to another context than the stream");
  }
  return rt->graphs().execute(*g, s);
}

Status graph_execute(aclmdlRI graph, int32_t timeout_ms) {
  (void)timeout_ms;
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  return Status(Errc::rt_param_invalid, "model runtime instance " + std::to_string(g->id()) +
                                            " was captured: aclmdlRIExecute runs built instances only; use "
                                            "aclmdlRIExecuteAsync and synchronize the stream");
}

Status graph_abort(aclmdlRI graph) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  return Status(Errc::rt_feature_not_support,
                "model runtime instance " + std::to_string(g->id()) + " was captured: aclmdlRIAbort is for built ones");
}

Status graph_destroy(aclmdlRI graph) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().destroy(graph);
}

Status graph_set_name(aclmdlRI graph, const char* name) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  std::lock_guard lock(g->mu);
  g->name = name;
  return Status::Ok();
}

Status graph_get_name(aclmdlRI graph, uint32_t max_len, char* name) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  std::lock_guard lock(g->mu);
  if (g->name.size() + 1 > max_len) {
    return Status(Errc::rt_internal_error, "the name needs " + std::to_string(g->name.size() + 1) +
                                               " bytes but maxLen is " + std::to_string(max_len));
  }
  std::memcpy(name, g->name.c_str(), g->name.size() + 1);
  return Status::Ok();
}

Status graph_get_id(aclmdlRI graph, uint32_t* id) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  *id = g->id();
  return Status::Ok();
}

Status graph_debug_print(aclmdlRI graph) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  arun::log().info("{}", rt->graphs().describe(*g));
  return Status::Ok();
}

Status graph_debug_json_print(aclmdlRI graph, const char* path, uint32_t flags) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  const std::string json = rt->graphs().to_json(*g, flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE);
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return Status(kFileOpen, std::string("cannot open '") + path + "' for writing");
  const bool ok = std::fwrite(json.data(), 1, json.size(), f) == json.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) return Status(kFileOpen, std::string("cannot write '") + path + "'");
  return Status::Ok();
}

Status graph_register_destroy_callback(aclmdlRI graph, aclrtCallback fn, void* user) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  std::lock_guard lock(g->mu);
  for (auto& cb : g->destroy_callbacks) {
    if (cb.first == fn) {
      cb.second = user;  // the same function again replaces its user data (our choice)
      return Status::Ok();
    }
  }
  g->destroy_callbacks.emplace_back(fn, user);
  return Status::Ok();
}

Status graph_unregister_destroy_callback(aclmdlRI graph, aclrtCallback fn) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  std::lock_guard lock(g->mu);
  auto& v = g->destroy_callbacks;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->first == fn) {
      v.erase(it);
      break;
    }
  }
  return Status::Ok();
}

}  // namespace arun::rt
