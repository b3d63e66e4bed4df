// Front door implementation: captured task graphs (arun/runtime/graphs.hpp). The capture and
// replay machinery is runtime/graph.*; this file resolves handles and applies the spec's checks.
#include "arun/runtime/graphs.hpp"

#include "arun/runtime/memory.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "base/logging.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
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

// Instances of another context than the caller's current one: ACL_ERROR_RT_MODEL_CONTEXT.
Status same_context(Runtime* rt, const Graph& g) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  if (g.context() != ctx) {
    return Status(kModelContext, "model runtime instance " + std::to_string(g.id()) +
                                     " belongs to another context than the calling thread's current one");
  }
  return Status::Ok();
}

Status graph_and_stream(aclmdlRI graph, aclrtStream stream, Runtime** rt, std::shared_ptr<Graph>* g,
                        std::shared_ptr<Stream>* s) {
  ARUN_RETURN_IF_ERROR(find_graph(rt, graph, g));
  ARUN_RETURN_IF_ERROR((*rt)->resolve_stream(stream, s));
  return same_context(*rt, **g);
}

// The graph table's `fn(table, stream)` for a stream handle (NULL: the current context's default).
template <class Fn>
Status on_stream(aclrtStream stream, Fn&& fn) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return fn(rt->graphs(), *s);
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
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.end(s, out); });
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
  if (g->subgraph()) {
    return Status(Errc::rt_feature_not_support, "model runtime instance " + std::to_string(g->id()) +
                                                    " is a sub-graph: it runs only inside its parent");
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
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  ARUN_RETURN_IF_ERROR(same_context(rt, *g));
  return rt->graphs().execute_sync(*g, timeout_ms);
}

Status graph_abort(aclmdlRI graph) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  return rt->graphs().abort(*g);
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

// ---------------------------------------------------------------- explicit build, sub-graphs

Status capture_to_subgraph_begin(aclrtStream stream, aclmdlRI sub, uint32_t mode) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(graph_and_stream(sub, stream, &rt, &g, &s));
  Stream& ref = *s;
  return rt->graphs().begin_sub(ref, std::move(s), *g, static_cast<CaptureMode>(mode));
}

Status graph_build_begin(aclmdlRI* out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  return rt->graphs().build_begin(ctx, out);
}

Status graph_bind_stream(aclmdlRI graph, aclrtStream stream, uint32_t flag) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(graph_and_stream(graph, stream, &rt, &g, &s));
  return rt->graphs().bind(*g, s, flag);
}

Status graph_end_task(aclmdlRI graph, aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(graph_and_stream(graph, stream, &rt, &g, &s));
  return rt->graphs().end_task(*g, *s);
}

Status graph_build_end(aclmdlRI graph) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  ARUN_RETURN_IF_ERROR(same_context(rt, *g));
  return rt->graphs().build_end(*g);
}

Status graph_unbind_stream(aclmdlRI graph, aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(graph_and_stream(graph, stream, &rt, &g, &s));
  return rt->graphs().unbind(*g, *s);
}

Status persistent_task_clean(aclrtStream stream) {
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.persistent_clean(s); });
}

// ---------------------------------------------------------------- task groups and update

Status task_group_begin(aclrtStream stream) {
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.group_begin(s); });
}

Status task_group_end(aclrtStream stream, aclrtTaskGrp* out) {
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.group_end(s, out); });
}

Status task_update_begin(aclrtStream stream, aclrtTaskGrp group) {
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.update_begin(s, group); });
}

Status task_update_end(aclrtStream stream) {
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.update_end(s); });
}

// ---------------------------------------------------------------- per-task inspection and update

Status graph_update(aclmdlRI graph) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  return rt->graphs().update(*g);
}

Status graph_get_streams(aclmdlRI graph, aclrtStream* streams, uint32_t* count) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  ARUN_RETURN_IF_ERROR(same_context(rt, *g));
  return rt->graphs().get_streams(*g, streams, count);
}

Status graph_tasks_by_stream(aclrtStream stream, aclmdlRITask* tasks, uint32_t* count) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().tasks_by_stream(stream, tasks, count);
}

Status graph_task_type(aclmdlRITask task, aclmdlRITaskType* type) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  uint32_t t = 0;
  ARUN_RETURN_IF_ERROR(rt->graphs().task_type(task, &t));
  *type = static_cast<aclmdlRITaskType>(t);
  return Status::Ok();
}

Status graph_task_seq(aclmdlRITask task, uint32_t* id) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().task_seq(task, id);
}

Status graph_task_get_params(aclmdlRITask task, aclmdlRITaskParams* params) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().task_get_params(task, params);
}

Status graph_task_set_params(aclmdlRITask task, const aclmdlRITaskParams* params) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().task_set_params(task, params);
}

Status graph_task_disable(aclmdlRITask task) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().task_disable(task);
}

Status graph_kernel_task_attribute(aclmdlRITask task, int32_t attr, aclrtLaunchKernelAttrValue* value) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().kernel_attribute(task, attr, value);
}

// ---------------------------------------------------------------- conditions

Status cond_handle_create(aclmdlRI graph, uint32_t default_value, uint32_t flag, aclmdlRICondHandle* out) {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> g;
  ARUN_RETURN_IF_ERROR(find_graph(&rt, graph, &g));
  ARUN_RETURN_IF_ERROR(same_context(rt, *g));
  if (g->built()) {
    return Status(Errc::rt_feature_not_support,
                  "model runtime instance " + std::to_string(g->id()) + " was built: conditions need a captured one");
  }
  void* word = nullptr;
  ARUN_RETURN_IF_ERROR(device_malloc(&word, sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
  // A user-managed word starts at 0 (our choice); an assigned one gets its value at each execution.
  // Written directly: a synchronous memset is an unsafe call while the capture is open.
  if (void* w = g->context()->slot()->device()->map(reinterpret_cast<uint64_t>(word), sizeof(uint64_t)))
    std::memset(w, 0, sizeof(uint64_t));
  Status st = rt->graphs().cond_create(*g, default_value, flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT,
                                       static_cast<uint64_t*>(word), out);
  if (!st.ok()) (void)device_free(word);
  return st;
}

Status cond_handle_ptr(aclmdlRICondHandle handle, uint64_t** ptr) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->graphs().cond_ptr(handle, ptr);
}

Status add_cond_task(aclmdlRICondHandle handle, uint32_t type, uint32_t size, aclmdlRI* branches, aclrtStream stream) {
  return on_stream(stream, [&](GraphTable& t, Stream& s) { return t.add_cond(s, handle, type, size, branches); });
}

}  // namespace arun::rt
