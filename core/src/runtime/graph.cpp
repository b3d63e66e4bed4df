#include "runtime/graph.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "acl/acl_rt.h"
#include "arun/runtime/memory.hpp"
#include "arun/runtime/recorder.hpp"
#include "arun/runtime/task_observer.hpp"
#include "base/logging.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/runtime.hpp"
#include "sanitizer/stream_sanitizer.hpp"
#include "sched/scheduler.hpp"

namespace arun {

using namespace graph_errc;

namespace {

thread_local CaptureMode t_capture_mode = CaptureMode::Global;
thread_local const KernelLaunchInfo* t_kernel_info = nullptr;

}  // namespace

// A copy of the launch facts whose cfg points into its own attribute list.
std::unique_ptr<KernelLaunchInfo> copy_kernel_info(const KernelLaunchInfo& in) {
  auto out = std::make_unique<KernelLaunchInfo>();
  out->function = in.function;
  out->args = in.args;
  out->args_size = in.args_size;
  out->host_args = in.host_args;
  out->blocks = in.blocks;
  out->attrs = in.attrs;
  out->cfg.attrs = out->attrs.data();
  out->cfg.numAttrs = out->attrs.size();
  return out;
}

namespace {

// Plan event indices of the per-execution records (see GraphTable::execute).
constexpr int32_t kExecStart = -3;
constexpr int32_t kExecEnd = -4;

void add_unique(std::vector<int32_t>& v, int32_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// A replay's copy of a node's template. The template keeps the argument block (free_user_args
// stays null here), so every replay reads the arguments captured once.
Task* clone_task(const Task& t, Stream* stream) {
  auto* c = new Task();
  static_cast<plugin::Work&>(*c) = static_cast<const plugin::Work&>(t);
  if (t.args == static_cast<const void*>(&t)) c->args = c;  // kernel trampolines find their task through args
  c->on_complete = nullptr;
  c->cancel = nullptr;
  c->task_kind = t.task_kind;
  c->unit_kind = t.unit_kind;
  c->stream = stream;
  c->host_fn = t.host_fn;
  c->host_user = t.host_user;
  c->user_kernel = t.user_kernel;
  c->user_args = t.user_args;
  c->user_args_bytes = t.user_args_bytes;
  c->overflow_sink = t.overflow_sink;
  c->host_queue = t.host_queue;
  c->host_blocking = t.host_blocking;
  c->notify = t.notify;
  c->value_addr = t.value_addr;
  c->value = t.value;
  c->value_flag = t.value_flag;
  c->wait_timeout_ns = t.wait_timeout_ns;
  c->prof_name = t.prof_name;
  return c;
}

Scheduler* lane_scheduler(const Graph& g) {
  return g.context()->slot()->scheduler();
}

Task* marker(TaskKind kind, Stream* stream, const std::shared_ptr<Event>& event) {
  auto* t = new Task();
  t->task_kind = kind;
  t->stream = stream;
  t->event = event;
  if (kind == TaskKind::EventRecord) t->record = std::make_shared<EventRecord>();
  return t;
}

}  // namespace

void set_pending_kernel_info(const KernelLaunchInfo* info) {
  t_kernel_info = info;
}

const KernelLaunchInfo* pending_kernel_info() {
  return t_kernel_info;
}

bool Graph::planned(const GraphNode& n) const {
  if (n.removed) return false;
  // A built instance starts the streams bound with ACL_MODEL_STREAM_FLAG_HEAD; the others run only
  // when activated (aclrtActiveStream, aclrtSwitchStream), as the tails after switches do.
  return !built_ || (has_control_ ? !n.dynamic : lanes_[n.lane].bind_flag == ACL_MODEL_STREAM_FLAG_HEAD);
}

CaptureMode exchange_thread_capture_mode(CaptureMode mode) {
  CaptureMode old = t_capture_mode;
  t_capture_mode = mode;
  return old;
}

Graph::~Graph() = default;

Status GraphTable::begin(Stream& stream, std::shared_ptr<Stream> owner, CaptureMode mode, void** handle) {
  std::lock_guard lock(mu_);
  if (stream.capture_graph) {
    return Status(kStreamCaptured, "stream " + std::to_string(stream.id()) + " is already being captured");
  }
  if (stream.is_default()) {
    return Status(Errc::rt_feature_not_support, "the default stream cannot be captured");
  }
  if (stream.bound_graph) {
    return Status(kStreamModel, "stream " + std::to_string(stream.id()) +
                                    " is bound to a model runtime instance (aclmdlRIBindStream)");
  }
  constexpr uint32_t kNoCapture = ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
  if ((stream.flags() & kNoCapture) != 0) {
    return Status(Errc::rt_internal_error, "stream " + std::to_string(stream.id()) +
                                               " was created with flags that do not support capture (persistent, "
                                               "AI CPU or device-use-only)");
  }
  auto g = std::make_shared<Graph>(stream.context(), next_id_.fetch_add(1) + 1);
  g->mode_ = mode;
  g->begin_thread_ = std::this_thread::get_id();
  g->lanes_.push_back({std::move(owner), {Graph::kStart}});
  *handle = graphs_.add(g);
  active_.push_back(g);
  active_count_.fetch_add(1, std::memory_order_acq_rel);
  stream.capture_graph = g;
  stream.capturing.store(true, std::memory_order_release);
  return Status::Ok();
}

void GraphTable::close_capture_locked(Graph& g) {
  for (size_t l = 0; l < g.lanes_.size(); ++l) {
    Stream& s = *g.lanes_[l].stream;
    // A sub-graph filled from a stream that captures its parent hands the stream back to the parent.
    if (l == 0 && g.outer_) {
      s.capture_graph = std::move(g.outer_);
      continue;
    }
    s.capturing.store(false, std::memory_order_release);
    s.capture_graph.reset();
  }
  auto it = std::find_if(active_.begin(), active_.end(), [&](const auto& a) { return a.get() == &g; });
  if (it != active_.end()) {
    active_.erase(it);
    active_count_.fetch_sub(1, std::memory_order_acq_rel);
  }
  g.records_.clear();
}

void GraphTable::invalidate_locked(Graph& g, const std::string& why) {
  if (g.invalidated_ || g.built_) return;  // a build refuses the one call and goes on
  g.invalidated_ = true;
  g.invalid_reason_ = why;
  log().warn("capture of model runtime instance {} invalidated: {}", g.id(), why);
}

Status GraphTable::end(Stream& stream, void** handle) {
  std::shared_ptr<Graph> g;
  {
    std::lock_guard lock(mu_);
    g = stream.capture_graph;
    if (!g) return Status(kStreamNotCaptured, "stream " + std::to_string(stream.id()) + " is not being captured");
    if (g->lanes_[0].stream.get() != &stream) {
      return Status(kCaptureUnmatched, "stream " + std::to_string(stream.id()) +
                                           " joined the capture but did not begin it; end it on stream " +
                                           std::to_string(g->lanes_[0].stream->id()));
    }
    if (g->mode_ != CaptureMode::Relaxed && g->begin_thread_ != std::this_thread::get_id()) {
      return Status(kCaptureWrongThread, "the capture must be ended by the thread that began it (mode is not RELAXED)");
    }
    if (handle == nullptr && !g->subgraph()) return Status(Errc::rt_param_invalid, "modelRI is NULL");
    for (auto& lane : g->lanes_) {
      if (lane.open_group) {
        return Status(kTaskGroupStatus, "a task group is still open on stream " + std::to_string(lane.stream->id()) +
                                            " (aclmdlRICaptureTaskGrpEnd first)");
      }
    }
    for (auto& a : active_) {
      if (a->parent_ == g.get()) {
        return Status(kSubGraphCapturing,
                      "a sub-graph of model runtime instance " + std::to_string(g->id()) + " is still being captured");
      }
    }
    close_capture_locked(*g);
    if (g->invalidated_) {
      // A failed capture's partial instance goes (our choice); a sub-graph stays, empty, with its parent.
      if (!g->subgraph()) graphs_.remove(g->handle());
      return Status(kCaptureInvalidated, "the capture was invalidated: " + g->invalid_reason_);
    }
    // Every node must be an ancestor of the origin's frontier: otherwise a forked stream never joined back.
    std::vector<char> reached(g->nodes_.size(), 0);
    std::vector<int32_t> todo(g->lanes_[0].frontier);
    while (!todo.empty()) {
      int32_t n = todo.back();
      todo.pop_back();
      if (n < 0 || reached[static_cast<size_t>(n)]) continue;
      reached[static_cast<size_t>(n)] = 1;
      for (int32_t d : g->nodes_[static_cast<size_t>(n)].deps) todo.push_back(d);
    }
    for (size_t i = 0; i < g->nodes_.size(); ++i) {
      if (!reached[i]) {
        const auto& lane = g->lanes_[g->nodes_[i].lane];
        if (!g->subgraph()) graphs_.remove(g->handle());
        return Status(kStreamUnjoined, "stream " + std::to_string(lane.stream->id()) +
                                           " forked from the capture but was not joined back into stream " +
                                           std::to_string(stream.id()) + " before aclmdlRICaptureEnd");
      }
    }
  }
  finish_plan(*g);
  g->filled_ = true;
  g->capturing_.store(false, std::memory_order_release);  // executable from here on
  if (handle != nullptr) *handle = g->handle();
  return Status::Ok();
}

void GraphTable::finish_plan(Graph& g) {
  const size_t n = g.nodes_.size();
  auto lane_of = [&](int32_t i) { return g.nodes_[static_cast<size_t>(i)].lane; };
  bool need_start = false;
  auto mark = [&](int32_t d, uint32_t lane) {
    if (d == Graph::kStart) {
      if (lane != 0) need_start = true;
    } else if (lane_of(d) != lane && g.nodes_[static_cast<size_t>(d)].edge_event < 0) {
      g.nodes_[static_cast<size_t>(d)].edge_event = static_cast<int32_t>(g.edge_events_.size());
      g.edge_events_.push_back(std::make_shared<Event>(g.context(), Event::kCreatedPlain));
    }
  };
  auto live = [&](int32_t d) { return d < 0 || g.planned(g.nodes_[static_cast<size_t>(d)]); };
  for (size_t i = 0; i < n; ++i) {
    if (!g.planned(g.nodes_[i])) continue;
    for (int32_t d : g.nodes_[i].deps)
      if (live(d)) mark(d, g.nodes_[i].lane);
  }
  for (int32_t d : g.lanes_[0].frontier)
    if (live(d)) mark(d, 0);
  const int32_t start_event = need_start ? static_cast<int32_t>(g.edge_events_.size()) : -2;
  if (need_start) g.edge_events_.push_back(std::make_shared<Event>(g.context(), Event::kCreatedPlain));
  g.done_event_ = std::make_shared<Event>(g.context(), Event::kCreatedPlain);

  auto& plan = g.plan_;
  plan.push_back({Graph::StepOp::Wait, 0, kExecStart});
  plan.push_back({Graph::StepOp::Wait, 0, -1});
  // Condition words with ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT get their value before anything runs.
  for (size_t c = 0; c < g.conds_.size(); ++c)
    if (g.conds_[c]->assign_default) plan.push_back({Graph::StepOp::CondInit, 0, static_cast<int32_t>(c)});
  if (need_start) plan.push_back({Graph::StepOp::Record, 0, start_event});
  std::vector<int32_t> waited;
  for (size_t i = 0; i < n; ++i) {
    const GraphNode& node = g.nodes_[i];
    if (!g.planned(node)) continue;
    waited.clear();
    for (int32_t d : node.deps) {
      if (!live(d)) continue;
      int32_t ev = d == Graph::kStart ? (node.lane != 0 ? start_event : -2)
                                      : (lane_of(d) != node.lane ? g.nodes_[static_cast<size_t>(d)].edge_event : -2);
      if (ev < 0 || std::find(waited.begin(), waited.end(), ev) != waited.end()) continue;
      waited.push_back(ev);
      plan.push_back({Graph::StepOp::Wait, node.lane, ev});
    }
    plan.push_back({Graph::StepOp::Node, node.lane, static_cast<int32_t>(i)});
    if (node.edge_event >= 0) plan.push_back({Graph::StepOp::Record, node.lane, node.edge_event});
  }
  for (int32_t d : g.lanes_[0].frontier) {
    if (d >= 0 && live(d) && lane_of(d) != 0)
      plan.push_back({Graph::StepOp::Wait, 0, g.nodes_[static_cast<size_t>(d)].edge_event});
  }
  // The streams and tails started by control nodes end before the execution does.
  if (g.has_control_) plan.push_back({Graph::StepOp::Join, 0, 0});
  plan.push_back({Graph::StepOp::Record, 0, -1});
  plan.push_back({Graph::StepOp::Record, 0, kExecEnd});
  g.start_event_ = std::make_shared<Event>(g.context(), Event::kCreatedPlain);
  g.end_event_ = std::make_shared<Event>(g.context(), Event::kCreatedPlain);

  // Every lane runs on a stream of its own, so concurrent lanes overlap.
  g.exec_lanes_.resize(g.lanes_.size());
  DeviceSlot* slot = g.context()->slot();
  for (size_t l = 0; l < g.lanes_.size(); ++l) {
    auto s = std::make_shared<Stream>(g.context(), slot->scheduler(), slot->next_stream_id(),
                                      g.lanes_[l].stream->priority(), 0, false);
    slot->scheduler()->add_stream(s);
    g.exec_lanes_[l] = std::move(s);
  }
  if (g.has_control_) {
    g.dyn_lanes_.resize(g.lanes_.size());
    for (size_t l = 0; l < g.lanes_.size(); ++l) {
      auto s = std::make_shared<Stream>(g.context(), slot->scheduler(), slot->next_stream_id(),
                                        g.lanes_[l].stream->priority(), 0, false);
      slot->scheduler()->add_stream(s);
      g.dyn_lanes_[l] = std::move(s);
    }
    g.segment_event_ = std::make_shared<Event>(g.context(), Event::kCreatedPlain);
    if (!g.join_worker_) g.join_worker_ = std::make_unique<HostWorker>();
    g.lane_started_.assign(g.lanes_.size(), 0);
    for (size_t l = 0; l < g.lanes_.size(); ++l)
      g.lane_started_[l] = g.lanes_[l].bind_flag == ACL_MODEL_STREAM_FLAG_HEAD ? 1 : 0;
  }
  build_replay(g);
}

void GraphTable::build_replay(Graph& g) {
  g.replay_.reset();
  // Conditional nodes run sub-graphs synchronously and built instances have abort/end-record
  // bookkeeping: both stay on the launcher path, as does everything under the stream sanitizer
  // (whose submission hooks must not run under the scheduler lock).
  if (g.built_ || g.subgraph() || !g.conds_.empty() || san::on() || g.exec_lanes_.empty()) return;
  for (const auto& n : g.nodes_)
    if (n.cond) return;
  auto r = std::make_shared<Replay>();
  r->graph_id = g.id();
  r->lanes.resize(g.exec_lanes_.size());
  for (size_t l = 0; l < g.exec_lanes_.size(); ++l) r->lanes[l].stream = g.exec_lanes_[l].get();
  // One reusable record per private edge event.
  std::vector<std::shared_ptr<EventRecord>> edge(g.edge_events_.size());
  for (auto& e : edge) {
    e = std::make_shared<EventRecord>();
    r->records.push_back(e);
  }
  for (const Graph::Step& step : g.plan_) {
    Stream* lane = g.exec_lanes_[step.lane].get();
    std::unique_ptr<Task> t;
    if (step.op == Graph::StepOp::Node) {
      const GraphNode& node = g.nodes_[static_cast<size_t>(step.index)];
      if (node.disabled) continue;
      t.reset(clone_task(*node.task, lane));
      ++r->nodes;
      if (t->task_kind == TaskKind::Work) ++r->work_nodes;
    } else if (step.op == Graph::StepOp::Record || step.op == Graph::StepOp::Wait) {
      // The start, done and end events order executions on the launcher path; here the launch
      // marker starts every lane and holds its stream until all lanes ran out.
      if (step.index < 0) continue;
      t = std::make_unique<Task>();
      t->task_kind = step.op == Graph::StepOp::Record ? TaskKind::EventRecord : TaskKind::EventWait;
      t->stream = lane;
      t->record = edge[static_cast<size_t>(step.index)];  // a wait keeps its preset record
    } else {
      return;  // CondInit: not expected without conditions
    }
    t->pooled = true;
    r->lanes[step.lane].tasks.push_back(t.get());
    r->owned.push_back(std::move(t));
  }
  g.replay_ = std::move(r);
}

void GraphTable::wait_replay_idle(Graph& g) {
  if (!g.replay_) return;
  for (int spins = 0; !g.replay_->idle(); ++spins) {
    if (spins < 100) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));  // destroy / update: rare
    }
  }
}

Status GraphTable::capture(Task* task, bool* taken, uint32_t* task_id) {
  *taken = false;
  if (task_id != nullptr) *task_id = 0;
  std::lock_guard lock(mu_);
  Stream* s = task->stream;
  if (s->update_group) {
    *taken = true;
    return stage_update_locked(task);
  }
  std::shared_ptr<Graph> g = s->capture_graph;
  const bool building = !g && s->bound_graph;
  if (building) g = s->bound_graph;
  if (!g) {
    // A stream outside every capture that waits on an event recorded in one joins it (a fork).
    if (task->task_kind != TaskKind::EventWait || !task->event) return Status::Ok();
    for (auto& a : active_) {
      auto it = a->records_.find(task->event.get());
      if (it == a->records_.end()) continue;
      *taken = true;
      std::unique_ptr<Task> owned(task);
      if (s->is_default()) {
        invalidate_locked(*a, "the default stream waited on an event recorded in the capture");
        return Status(kCaptureImplicit, "the default stream cannot join a capture");
      }
      Runtime* rt = Runtime::instance();
      std::shared_ptr<Stream> owner = rt != nullptr ? rt->find_stream(s->handle()) : nullptr;
      if (!owner) return Status(Errc::rt_invalid_handle, "the stream was destroyed");
      a->lanes_.push_back({std::move(owner), it->second.second});
      s->capture_graph = a;
      s->capturing.store(true, std::memory_order_release);
      return Status::Ok();
    }
    return Status::Ok();
  }
  *taken = true;
  std::unique_ptr<Task> owned(task);
  Graph& G = *g;
  if (G.invalidated_) {
    return Status(kCaptureInvalidated,
                  "the capture of stream " + std::to_string(s->id()) + " was invalidated: " + G.invalid_reason_);
  }
  uint32_t li = 0;
  while (li < G.lanes_.size() && G.lanes_[li].stream.get() != s) ++li;
  auto& lane = G.lanes_[li];
  if (building && (G.build_done_ || lane.ended)) {
    return Status(kStreamModel, "stream " + std::to_string(s->id()) + " is bound to model runtime instance " +
                                    std::to_string(G.id()) +
                                    (G.build_done_ ? ", which is built: no task can be added"
                                                   : " and its task sequence was ended (aclmdlRIEndTask)"));
  }
  if (lane.open_group && !(task->task_kind == TaskKind::Work && task->kind == plugin::WorkKind::Kernel)) {
    return Status(kTaskTypeNotSupport,
                  "only kernel launches can be captured inside a task group (stream " + std::to_string(s->id()) + ")");
  }
  switch (task->task_kind) {
    case TaskKind::EventRecord:
      G.records_[task->event.get()] = {task->event, lane.frontier};
      return Status::Ok();
    case TaskKind::EventWait: {
      auto it = G.records_.find(task->event.get());
      if (it == G.records_.end()) {
        for (auto& a : active_) {
          if (a != g && a->records_.count(task->event.get()) != 0) {
            invalidate_locked(G, "a stream waited on an event recorded in another capture");
            return Status(kCaptureConflict, "the event was recorded in another capture: two captures mixed");
          }
        }
        invalidate_locked(G, "a stream waited on an event whose record was not captured");
        return Status(kCaptureDependency,
                      "the event's record was not captured in this capture (the capture cannot depend on "
                      "work outside it)");
      }
      for (int32_t d : it->second.second) add_unique(lane.frontier, d);
      return Status::Ok();
    }
    case TaskKind::EventReset:
      return Status::Ok();  // a replay uses private events: resetting the user's event means nothing there
    default:
      break;
  }
  const bool kernel = task->task_kind == TaskKind::Work && task->kind == plugin::WorkKind::Kernel;
  add_node_locked(G, li, std::move(owned));
  GraphNode& node = G.nodes_.back();
  if (task_id != nullptr) *task_id = node.seq_in_lane + 1;  // aclrtGetThreadLastTaskId (aclrtTaskUpdateAsync)
  if (kernel && t_kernel_info != nullptr) node.kernel = copy_kernel_info(*t_kernel_info);
  if (lane.open_group) {
    lane.open_group->nodes.push_back(static_cast<int32_t>(G.nodes_.size() - 1));
    node.group = lane.open_group->handle();
  }
  return Status::Ok();
}

void GraphTable::add_node_locked(Graph& g, uint32_t li, std::unique_ptr<Task> task) {
  auto& lane = g.lanes_[li];
  GraphNode node;
  node.lane = li;
  node.seq_in_lane = 0;
  for (auto it = g.nodes_.rbegin(); it != g.nodes_.rend(); ++it) {
    if (it->lane == li) {
      node.seq_in_lane = it->seq_in_lane + 1;
      break;
    }
  }
  node.deps = lane.frontier;
  node.task = std::move(task);
  lane.frontier.assign(1, static_cast<int32_t>(g.nodes_.size()));
  g.nodes_.push_back(std::move(node));
}

void GraphTable::info(const Stream& stream, int* status, void** handle) {
  std::lock_guard lock(mu_);
  const auto& g = stream.capture_graph;
  *status = !g ? 0 : (g->invalidated_ ? 2 : 1);
  *handle = g ? g->handle() : nullptr;
}

Status GraphTable::refuse_on_capturing(Stream& stream, const char* what) {
  std::lock_guard lock(mu_);
  if (!stream.capture_graph) return Status::Ok();
  invalidate_locked(*stream.capture_graph, std::string(what) + " on a capturing stream");
  return Status(kStreamCaptured, std::string(what) + ": stream " + std::to_string(stream.id()) +
                                     " is being captured (the capture is now invalidated)");
}

Status GraphTable::check_event(const Event& event) {
  if (!any_active()) return Status::Ok();
  std::lock_guard lock(mu_);
  for (auto& a : active_) {
    if (a->records_.count(&event) != 0) {
      return Status(kEventCaptured, "the event's record is part of an open capture (model runtime instance " +
                                        std::to_string(a->id()) + ")");
    }
  }
  return Status::Ok();
}

Status GraphTable::check_unsafe(const Context* context, bool async_copy, const char* what) {
  if (!any_active() || context == nullptr) return Status::Ok();
  std::lock_guard lock(mu_);
  // C: the most restrictive mode of the context's captures; T: of those this thread began.
  uint32_t c = 3, t = 3;
  const auto self = std::this_thread::get_id();
  for (auto& a : active_) {
    if (a->context() != context) continue;
    c = std::min(c, static_cast<uint32_t>(a->mode_));
    if (a->begin_thread_ == self) t = std::min(t, static_cast<uint32_t>(a->mode_));
  }
  if (c == 3) return Status::Ok();
  const CaptureMode x = t_capture_mode;
  bool forbidden = false;
  if (x == CaptureMode::Global) {
    forbidden = c == 0 || t == 1;
  } else if (x == CaptureMode::ThreadLocal) {
    forbidden = t <= 1;
  }
  if (!forbidden) return Status::Ok();
  return Status(async_copy ? kCaptureBlockAsync : kCaptureModeNotSupport,
                std::string(what) + " is not allowed while a capture is open in this context (capture mode)");
}

Status GraphTable::check_default_stream(const Stream& stream) {
  std::lock_guard lock(mu_);
  for (auto& a : active_) {
    if (a->context() == stream.context() && a->mode_ != CaptureMode::Relaxed) {
      return Status(kCaptureImplicit, "the default stream was used while model runtime instance " +
                                          std::to_string(a->id()) +
                                          " is being captured in this context (implicit dependency)");
    }
  }
  return Status::Ok();
}

// One execution on the launcher path: owned by its start call's task.
struct GraphTable::Start {
  GraphTable* table = nullptr;
  Launch launch;
  bool ran = false;
  // Carried from the launching call to the thread that submits the nodes: the API call's
  // correlation (0: not profiled) and task observer (aclprofModelSubscribe), and the execution's
  // profiling record, which the wait for the end record writes.
  uint64_t correlation = 0;
  std::shared_ptr<rt::TaskObserver> observer;
  uint64_t observer_cookie = 0;
  std::shared_ptr<GraphLaunchProf> prof;
};

namespace {
// The profiler's name of an instance (only while a session collects tasks: interning takes a lock).
uint32_t prof_graph_name(Graph& g) {
  std::lock_guard lock(g.mu);
  return prof::intern(g.name.empty() ? "modelRI " + std::to_string(g.id()) : g.name);
}
}  // namespace

Status GraphTable::execute(Graph& g, const std::shared_ptr<Stream>& stream, std::shared_ptr<EventRecord>* end_out) {
  if (g.capturing()) {
    return Status(kModelCaptured, "model runtime instance " + std::to_string(g.id()) + " is still being captured");
  }
  if (end_out == nullptr) {
    // The fast path (sched/replay.hpp): one marker; the scheduler feeds the prebuilt tasks.
    // exec_mu (shared) keeps an update from swapping the instances while this one is issued.
    std::shared_lock exec(g.exec_mu);
    if (g.replay_) {
      const std::shared_ptr<Replay>& replay = g.replay_;
      // Counted before the check, which destroy makes in the opposite order: either this call
      // sees `closed` or destroy sees the count and waits for the execution (no lock needed).
      replay->issued.fetch_add(1, std::memory_order_seq_cst);
      if (replay->closed.load(std::memory_order_seq_cst)) {
        replay->ended.fetch_add(1, std::memory_order_seq_cst);
        return Status(Errc::rt_invalid_handle, "modelRI was destroyed");
      }
      Task* t = replay->spare_marker.exchange(nullptr, std::memory_order_acquire);
      if (t == nullptr) {
        t = new Task();
        t->task_kind = TaskKind::GraphLaunch;
        t->pooled = true;  // the scheduler recycles it into spare_marker (a refused one is deleted)
      }
      t->stream = stream.get();
      t->replay = replay;
      if (prof::on(prof::kTasks)) [[unlikely]]
        t->prof_name = prof_graph_name(g);
      uint64_t cookie = 0;
      if (rt::TaskObserver* observer = rt::current_task_observer(&cookie); observer && replay->work_nodes != 0)
          [[unlikely]] {
        // One report per node, as if each were submitted here (~Task settles them if it never runs).
        for (uint32_t i = 0; i < replay->work_nodes; ++i) observer->task_submitted(cookie);
        t->observer = observer->shared_from_this();
        t->observer_cookie = cookie;
        t->observer_count = replay->work_nodes;
      }
      Status refused;
      if (stream->scheduler()->submit(t, &refused) == 0) {
        replay->ended.fetch_add(1, std::memory_order_acq_rel);  // never enqueued
        return refused;
      }
      return Status::Ok();
    }
  }
  std::shared_ptr<Graph> self = graphs_.find(g.handle());
  {
    // Counted before anything is submitted, so a concurrent destroy waits for this execution.
    std::lock_guard lock(launch_mu_);
    if (!self || g.destroying_) return Status(Errc::rt_invalid_handle, "modelRI was destroyed");
    ++g.pending_;
    if (!start_worker_) start_worker_ = std::make_unique<HostWorker>();
  }
  // The start call clones and submits the graph when it reaches the stream's head; the wait for
  // the end record keeps later work on the stream behind the graph.
  auto* start = new Start();
  start->table = this;
  start->launch = {std::move(self), std::make_shared<EventRecord>(), std::make_shared<EventRecord>()};
  std::shared_ptr<EventRecord> end_record = start->launch.end;
  auto* call = new Task();
  call->task_kind = TaskKind::HostCall;
  call->stream = stream.get();
  call->host_fn = &GraphTable::run_start;
  call->host_user = start;
  call->host_blocking = true;
  if (prof::on(prof::kTasks)) [[unlikely]] {
    start->correlation = prof::current_correlation();
    start->prof = std::make_shared<GraphLaunchProf>();
    start->prof->name = prof_graph_name(g);
    start->prof->graph_id = g.id();
    call->graph_prof = start->prof;  // not a task record of its own: the launch record stands for it
  }
  uint64_t cookie = 0;
  if (rt::TaskObserver* observer = rt::current_task_observer(&cookie)) [[unlikely]] {
    // The start call counts as one task of the observed operation until the nodes it submits
    // (observed on the start thread) are counted: ~Task reports it, after run_start returned.
    start->observer = observer->shared_from_this();
    start->observer_cookie = cookie;
    observer->task_submitted(cookie);
    call->observer = start->observer;
    call->observer_cookie = cookie;
  }
  {
    std::lock_guard lock(launch_mu_);
    call->host_queue = start_worker_->queue();
  }
  // Owned by the task from here on: free_start runs when it is destroyed (ran, dropped or refused).
  call->user_args = start;
  call->free_user_args = &GraphTable::free_start;
  Task* end = marker(TaskKind::EventWait, stream.get(), g.end_event_);
  end->record = end_record;
  end->graph_prof = start->prof;
  ARUN_RETURN_IF_ERROR(stream->scheduler()->submit_batch({call, end}));
  if (end_out != nullptr) *end_out = std::move(end_record);
  return Status::Ok();
}

void GraphTable::run_start(void* p) {
  auto& start = *static_cast<Start*>(p);
  start.ran = true;
  GraphTable& table = *start.table;
  Graph& g = *start.launch.graph;
  start.launch.start->done.store(true);  // the call is at the stream's head: the work before it is done
  {
    // The nodes link to the launching call and report to its observer, as if submitted there.
    const uint64_t saved_correlation = prof::current_correlation();
    prof::set_current_correlation(start.correlation);
    rt::TaskObserverScope observe(start.observer.get(), start.observer_cookie);
    if (start.prof) {
      // Written before the nodes are submitted: the end wait reads it under the scheduler lock.
      start.prof->start_ticks = prof::ticks();
      start.prof->start_device_ns = lane_scheduler(g)->device()->now_ns();
    }
    table.submit_launch(start.launch, start.prof.get());
    prof::set_current_correlation(saved_correlation);
  }
  std::lock_guard lock(table.launch_mu_);
  --g.pending_;
  table.drained_cv_.notify_all();
}

void GraphTable::free_start(void* p) {
  std::unique_ptr<Start> start(static_cast<Start*>(p));
  if (start->ran) return;
  // Dropped before it started (an abort of the replay stream, a refused submission): nothing of
  // the execution runs. Its end record completes so that aclmdlRIExecute returns.
  Graph& g = *start->launch.graph;
  GraphTable& table = *start->table;
  if (!g.exec_lanes_.empty()) {
    Task* t = marker(TaskKind::EventRecord, g.exec_lanes_[0].get(), g.end_event_);
    t->record = start->launch.end;
    (void)lane_scheduler(g)->submit(t);
  }
  std::lock_guard lock(table.launch_mu_);
  --g.pending_;
  table.drained_cv_.notify_all();
}

void GraphTable::sweep_retired_locked(Graph& g) {
  auto over = [](const Graph::Retired& r) {
    return std::all_of(r.ends.begin(), r.ends.end(), [](const auto& e) { return e->done.load(); });
  };
  g.retired_.erase(std::remove_if(g.retired_.begin(), g.retired_.end(), over), g.retired_.end());
}

void GraphTable::submit_launch(Launch& launch, GraphLaunchProf* prof) {
  Graph& g = *launch.graph;
  std::shared_lock exec(g.exec_mu);
  {
    std::lock_guard lock(launch_mu_);
    if (g.built_) {
      // aclmdlRIAbort (exec_mu exclusive) completes the end records of the executions it drops.
      auto& ends = g.inflight_ends_;
      ends.erase(std::remove_if(ends.begin(), ends.end(), [](const auto& r) { return r->done.load(); }), ends.end());
      ends.push_back(launch.end);
    }
    sweep_retired_locked(g);
  }
  std::vector<Task*> tasks;
  tasks.reserve(g.plan_.size());
  std::unique_lock tmpl(g.tmpl_mu);  // a task update swaps templates under it
  for (const Graph::Step& step : g.plan_) {
    Stream* lane = g.exec_lanes_[step.lane].get();
    if (step.op == Graph::StepOp::Node) {
      const GraphNode& node = g.nodes_[static_cast<size_t>(step.index)];
      if (!node.disabled) tasks.push_back(clone_task(*node.task, lane));  // its edge records stay
      continue;
    }
    if (step.op == Graph::StepOp::Join) {
      auto* t = new Task();
      t->task_kind = TaskKind::HostCall;
      t->stream = lane;
      t->host_fn = &GraphTable::run_join;
      t->host_user = &g;
      t->host_queue = g.join_worker_->queue();
      t->host_blocking = true;
      tasks.push_back(t);
      continue;
    }
    if (step.op == Graph::StepOp::CondInit) {
      const GraphCond& c = *g.conds_[static_cast<size_t>(step.index)];
      auto* t = new Task();
      t->task_kind = TaskKind::ValueWrite;
      t->stream = lane;
      t->value_addr = reinterpret_cast<uint64_t>(c.word);
      t->value = c.default_value;
      tasks.push_back(t);
      continue;
    }
    const bool record = step.op == Graph::StepOp::Record;
    const std::shared_ptr<Event>& ev = step.index == -1           ? g.done_event_
                                       : step.index == kExecStart ? g.start_event_
                                       : step.index == kExecEnd   ? g.end_event_
                                                                  : g.edge_events_[static_cast<size_t>(step.index)];
    Task* t = marker(record ? TaskKind::EventRecord : TaskKind::EventWait, lane, ev);
    if (step.index == kExecStart) t->record = launch.start;  // this execution's start, not the latest
    if (step.index == kExecEnd) t->record = launch.end;      // what the replay stream waits for
    tasks.push_back(t);
  }
  tmpl.unlock();
  if (prof != nullptr) {
    std::vector<const Stream*> lanes;
    for (const Task* t : tasks) {
      if (t->task_kind == TaskKind::EventRecord || t->task_kind == TaskKind::EventWait) continue;
      ++prof->nodes;
      if (std::find(lanes.begin(), lanes.end(), t->stream) == lanes.end()) lanes.push_back(t->stream);
    }
    prof->lanes = static_cast<uint32_t>(lanes.size());
  }
  Status st = lane_scheduler(g)->submit_batch(tasks);
  if (!st.ok()) log().warn("execution of model runtime instance {}: {}", g.id(), st.message());
}

void GraphTable::submit_segment(Graph& g, int32_t segment) {
  const Graph::Segment& seg = g.segments_[static_cast<size_t>(segment)];
  Stream* lane = g.dyn_lanes_[seg.lane].get();
  std::vector<Task*> tasks;
  {
    std::lock_guard tmpl(g.tmpl_mu);
    for (int32_t i : seg.nodes) tasks.push_back(clone_task(*g.nodes_[static_cast<size_t>(i)].task, lane));
  }
  Task* end = marker(TaskKind::EventRecord, lane, g.segment_event_);
  tasks.push_back(end);
  {
    std::lock_guard lock(g.dyn_mu_);  // before the submission: the Join step must see it
    g.segment_ends_.push_back(end->record);
  }
  Status st = lane_scheduler(g)->submit_batch(tasks);
  if (!st.ok()) log().warn("model runtime instance {}: a stream it activated: {}", g.id(), st.message());
}

void GraphTable::run_join(void* p) {
  Graph& g = *static_cast<Graph*>(p);
  Scheduler* sched = lane_scheduler(g);
  // A segment that runs may start others (its control node returns before it ends), so the part
  // is over once every segment submitted so far has ended.
  for (;;) {
    std::vector<std::shared_ptr<EventRecord>> open;
    {
      std::lock_guard lock(g.dyn_mu_);
      for (auto& e : g.segment_ends_)
        if (!e->done.load()) open.push_back(e);
      if (open.empty()) {
        if (san::on()) [[unlikely]] {
          for (auto& e : g.segment_ends_) san::synced_record(*e);  // lane 0 goes on after the segments
        }
        g.segment_ends_.clear();
        for (size_t l = 0; l < g.lanes_.size(); ++l)
          g.lane_started_[l] = g.lanes_[l].bind_flag == ACL_MODEL_STREAM_FLAG_HEAD ? 1 : 0;
        return;
      }
    }
    for (auto& e : open) sched->wait_record(*e, -1);
  }
}

void GraphTable::stop_launcher() {
  std::unique_ptr<HostWorker> worker;
  {
    std::lock_guard lock(launch_mu_);
    worker = std::move(start_worker_);
  }
  worker.reset();  // runs what is queued, then joins
}

Status GraphTable::destroy(void* handle) {
  std::shared_ptr<Graph> g = graphs_.find(handle);
  if (!g) return Status(Errc::rt_invalid_handle, "modelRI is not a live model runtime instance");
  if (g->subgraph()) {
    return Status(Errc::rt_feature_not_support, "model runtime instance " + std::to_string(g->id()) +
                                                    " is a sub-graph of a conditional task: it goes with its parent");
  }
  return destroy_graph(g);
}

Status GraphTable::destroy_graph(const std::shared_ptr<Graph>& g) {
  if (g->capturing() && !g->built_ && !g->subgraph()) {
    return Status(kModelCaptured, "model runtime instance " + std::to_string(g->id()) + " is still being captured");
  }
  if (!graphs_.remove(g->handle())) return Status(Errc::rt_invalid_handle, "modelRI was destroyed meanwhile");
  std::vector<std::pair<void (*)(void*), void*>> callbacks;
  {
    std::lock_guard lock(g->mu);
    callbacks = g->destroy_callbacks;
  }
  for (auto& [fn, user] : callbacks) fn(user);
  {
    // Executions issued and not started yet start first (their done record included).
    std::unique_lock lock(launch_mu_);
    g->destroying_ = true;
    drained_cv_.wait(lock, [&] { return g->pending_ == 0; });
  }
  {
    std::unique_lock exec(g->exec_mu);
    Scheduler* sched = g->context()->slot()->scheduler();
    if (g->done_event_) {
      if (auto record = sched->latest_record(*g->done_event_)) {
        sched->wait_record(*record, -1);
        if (san::on()) [[unlikely]]
          san::synced_record(*record);  // aclmdlRIDestroy returns after the executions: ordered
      }
    }
    if (g->replay_) g->replay_->closed.store(true, std::memory_order_seq_cst);
    wait_replay_idle(*g);
    for (auto& lane : g->exec_lanes_) sched->remove_stream(lane, false);
    for (auto& lane : g->dyn_lanes_) sched->remove_stream(lane, false);
    if (g->exec_stream_) sched->remove_stream(g->exec_stream_, false);
  }
  std::vector<std::shared_ptr<Graph>> children;
  {
    std::lock_guard lock(mu_);
    unbind_all_locked(*g);
    // A sub-graph still being filled stops capturing with its parent.
    for (auto& c : g->children_) {
      auto it = std::find(active_.begin(), active_.end(), c);
      if (it != active_.end()) close_capture_locked(*c);
    }
    children = g->children_;
    forget_parts(*g);
  }
  for (auto& c : children) (void)destroy_graph(c);
  for (auto& c : g->conds_) {
    if (c->word != nullptr) (void)rt::device_free(c->word);
    c->word = nullptr;
  }
  g->cond_worker_.reset();  // runs nothing more: every execution is done
  g->join_worker_.reset();
  return Status::Ok();
}

void GraphTable::unbind_all_locked(Graph& g) {
  for (auto& lane : g.lanes_) {
    if (!lane.bound) continue;
    lane.bound = false;
    lane.stream->bound_graph.reset();
    lane.stream->routed.store(false, std::memory_order_release);
    routed_count_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void GraphTable::forget_parts(Graph& g) {
  for (auto& n : g.nodes_)
    if (n.task_handle != nullptr) task_refs_.remove(n.task_handle);
  for (auto& l : g.lanes_)
    if (l.handle != nullptr) lane_refs_.remove(l.handle);
  for (auto& t : g.groups_) groups_.remove(t->handle());
  for (auto& c : g.conds_) conds_.remove(c->handle());
}

void GraphTable::release(const Context* context) {
  for (auto& g : graphs_.snapshot()) {
    if (context != nullptr && g->context() != context) continue;
    if (g->capturing()) {
      std::lock_guard lock(mu_);
      close_capture_locked(*g);
      g->capturing_.store(false, std::memory_order_release);
    }
    (void)destroy(g->handle());
  }
  if (context == nullptr) {
    std::lock_guard lock(mu_);
    for (auto& a : active_) {
      for (auto& lane : a->lanes_) {
        lane.stream->capturing.store(false, std::memory_order_release);
        lane.stream->capture_graph.reset();
      }
    }
    active_.clear();
    active_count_.store(0, std::memory_order_release);
  }
}

}  // namespace arun

namespace arun {

namespace {

// The node's kind as DebugPrint / DebugJsonPrint name it, and its aclmdlRITaskType.
std::pair<const char*, int> node_kind(const Task& t) {
  switch (t.task_kind) {
    case TaskKind::HostCall:
      return {"host_func", 0};
    case TaskKind::ValueWrite:
      return {"value_write", 5};
    case TaskKind::ValueWait:
      return {"value_wait", 6};
    case TaskKind::NotifyRecord:
      return {"notify_record", 0};
    case TaskKind::NotifyWait:
      return {"notify_wait", 0};
    default:
      break;
  }
  switch (t.kind) {
    case plugin::WorkKind::Kernel:
      return {"kernel", 1};
    case plugin::WorkKind::Memset:
      return {"memset", 0};
    case plugin::WorkKind::Copy2D:
      return {"memcpy2d", 0};
    default:
      return {"memcpy", 0};
  }
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::string GraphTable::to_json(Graph& g, bool verbose) {
  std::lock_guard lock(mu_);  // nodes may still grow while capturing
  std::string name;
  {
    std::lock_guard name_lock(g.mu);
    name = g.name;
  }
  const auto id = std::to_string(g.id());
  std::string out = "{\"traceEvents\":[\n";
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + id +
         ",\"args\":{\"name\":" + json_string("modelRI " + id + (name.empty() ? "" : " " + name)) + "}}";
  for (size_t l = 0; l < g.lanes_.size(); ++l) {
    out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + id + ",\"tid\":" + std::to_string(l) +
           ",\"args\":{\"name\":\"stream " + std::to_string(g.lanes_[l].stream->id()) + "\"}}";
  }
  // A node's time slot is its depth in the graph, so the trace viewer draws the dependency levels.
  std::vector<uint32_t> level(g.nodes_.size(), 0);
  for (size_t i = 0; i < g.nodes_.size(); ++i) {
    const GraphNode& n = g.nodes_[i];
    for (int32_t d : n.deps)
      if (d >= 0) level[i] = std::max(level[i], level[static_cast<size_t>(d)] + 1);
    auto [kind, type] = node_kind(*n.task);
    out += ",\n{\"name\":\"" + std::string(kind) + "\",\"ph\":\"X\",\"pid\":" + id +
           ",\"tid\":" + std::to_string(n.lane) + ",\"ts\":" + std::to_string(level[i] * 10) +
           ",\"dur\":8,\"args\":{\"task_id\":" + std::to_string(i) + ",\"seq_id\":" + std::to_string(n.seq_in_lane) +
           ",\"type\":" + std::to_string(type) + ",\"deps\":[";
    bool first = true;
    for (int32_t d : n.deps) {
      if (d < 0) continue;
      out += (first ? "" : ",") + std::to_string(d);
      first = false;
    }
    out += "]";
    if (n.task->kind == plugin::WorkKind::Kernel && n.task->task_kind == TaskKind::Work) {
      out += ",\"block_dim\":" + std::to_string(n.task->block_dim);
      // Verbose: the argument block's size and bytes (size 0: a C++ kernel, whose packed
      // arguments have no declared size, so only the size is written).
      if (verbose) out += ",\"args_size\":" + std::to_string(n.task->user_args_bytes);
      if (verbose && n.task->user_args != nullptr && n.task->user_args_bytes != 0) {
        static const char* hex = "0123456789abcdef";
        std::string bytes;
        const auto* p = static_cast<const unsigned char*>(n.task->user_args);
        for (uint32_t b = 0; b < n.task->user_args_bytes; ++b) {
          bytes += hex[p[b] >> 4];
          bytes += hex[p[b] & 15];
        }
        out += ",\"args\":\"" + bytes + "\"";
      }
    } else if (n.task->task_kind == TaskKind::Work) {
      out += ",\"bytes\":" +
             std::to_string(n.task->kind == plugin::WorkKind::Copy2D ? n.task->width * n.task->height : n.task->bytes);
    }
    out += "}}";
  }
  out += "\n],\n\"modelRI\":{\"id\":" + id + ",\"name\":" + json_string(name) +
         ",\"device\":" + std::to_string(g.context()->slot()->id()) + ",\"streams\":[";
  for (size_t l = 0; l < g.lanes_.size(); ++l) out += (l ? "," : "") + std::to_string(g.lanes_[l].stream->id());
  out += "],\"tasks\":" + std::to_string(g.nodes_.size()) + ",\"capturing\":" + (g.capturing() ? "true" : "false") +
         "}}\n";
  return out;
}

std::string GraphTable::describe(Graph& g) {
  std::lock_guard lock(mu_);
  std::string out = "modelRI " + std::to_string(g.id()) + " on device " + std::to_string(g.context()->slot()->id()) +
                    ": " + std::to_string(g.lanes_.size()) + " stream(s), " + std::to_string(g.nodes_.size()) +
                    " task(s)";
  for (size_t i = 0; i < g.nodes_.size(); ++i) {
    const GraphNode& n = g.nodes_[i];
    out += "\n  task " + std::to_string(i) + " stream " + std::to_string(g.lanes_[n.lane].stream->id()) + " seq " +
           std::to_string(n.seq_in_lane) + " " + node_kind(*n.task).first + " after [";
    bool first = true;
    for (int32_t d : n.deps) {
      out += (first ? "" : ",") + (d < 0 ? std::string("start") : std::to_string(d));
      first = false;
    }
    out += "]";
  }
  return out;
}

}  // namespace arun
