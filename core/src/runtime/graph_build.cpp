// Model runtime instances beyond stream capture (spec part 2, 4.12): explicit build, execution and
// abort of built instances, task groups and their update, per-task inspection and update, and
// conditional nodes. The capture and replay machinery these reuse is runtime/graph.cpp.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "base/logging.hpp"
#include "front/graph_kernels.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/graph.hpp"
#include "runtime/runtime.hpp"
#include "sanitizer/stream_sanitizer.hpp"
#include "sched/scheduler.hpp"

namespace arun {

using namespace graph_errc;

namespace {

int64_t deadline_after_ms(int32_t ms) {
  if (ms < 0) return -1;
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() + int64_t(ms) * 1000000;
}

// aclmdlRITaskType of a node (cond nodes and everything but kernels and value tasks: DEFAULT).
uint32_t task_type_of(const GraphNode& n) {
  if (n.cond) return ACL_MODEL_RI_TASK_DEFAULT;
  const Task& t = *n.task;
  if (t.task_kind == TaskKind::ValueWrite) return ACL_MODEL_RI_TASK_VALUE_WRITE;
  if (t.task_kind == TaskKind::ValueWait) return ACL_MODEL_RI_TASK_VALUE_WAIT;
  if (t.task_kind == TaskKind::Work && t.kind == plugin::WorkKind::Kernel) return ACL_MODEL_RI_TASK_KERNEL;
  return ACL_MODEL_RI_TASK_DEFAULT;
}

// A copy of a template for staging new parameters (it owns no argument block yet).
std::unique_ptr<Task> copy_template(const Task& t) {
  auto c = std::make_unique<Task>();
  static_cast<plugin::Work&>(*c) = static_cast<const plugin::Work&>(t);
  if (t.args == static_cast<const void*>(&t)) c->args = c.get();
  c->on_complete = nullptr;
  c->cancel = nullptr;
  c->task_kind = t.task_kind;
  c->unit_kind = t.unit_kind;
  c->stream = t.stream;
  c->user_kernel = t.user_kernel;
  c->user_args = t.user_args;
  c->user_args_bytes = t.user_args_bytes;
  c->overflow_sink = t.overflow_sink;
  c->value_addr = t.value_addr;
  c->value = t.value;
  c->value_flag = t.value_flag;
  c->wait_timeout_ns = t.wait_timeout_ns;
  c->prof_name = t.prof_name;
  return c;
}

}  // namespace

std::unique_ptr<Task> copy_node_template(const Task& t) {
  return copy_template(t);
}

namespace {

std::string graph_name(const Graph& g) {
  return "model runtime instance " + std::to_string(g.id());
}

// The array convention of aclmdlRIGetStreams / aclmdlRIGetTasksByStream: a NULL array asks for the
// count; a short one is 107039, naming both sizes.
Status copy_out_handles(const std::vector<void*>& out, void** array, uint32_t* count, const std::string& owner,
                        const char* what) {
  const auto n = static_cast<uint32_t>(out.size());
  if (array != nullptr) {
    if (*count < n) {
      return Status(kInsufficientArray, owner + " has " + std::to_string(n) + " " + what + "(s); the array holds " +
                                            std::to_string(*count));
    }
    std::copy(out.begin(), out.end(), array);
  }
  *count = n;
  return Status::Ok();
}

// The handle of part `index` of `g` (a lane or a node), made on first use and kept in `*slot`.
void* part_handle(HandleTable<GraphPartRef>& refs, const std::shared_ptr<Graph>& g, size_t index, void** slot) {
  if (*slot == nullptr) {
    auto ref = std::make_shared<GraphPartRef>();
    ref->graph = g;
    ref->index = static_cast<int32_t>(index);
    *slot = refs.add(std::move(ref));
  }
  return *slot;
}

}  // namespace

// ---------------------------------------------------------------- shared helpers

std::unique_lock<std::shared_mutex> GraphTable::quiesce(Graph& g) {
  {
    std::unique_lock lock(launch_mu_);
    drained_cv_.wait(lock, [&] { return g.pending_ == 0; });
  }
  std::unique_lock exec(g.exec_mu);
  Scheduler* sched = g.context()->slot()->scheduler();
  if (g.done_event_) {
    if (auto record = sched->latest_record(*g.done_event_)) sched->wait_record(*record, -1);
  }
  wait_replay_idle(g);
  return exec;
}

void GraphTable::drop_plan(Graph& g) {
  Scheduler* sched = g.context()->slot()->scheduler();
  for (auto& lane : g.exec_lanes_) sched->remove_stream(lane, false);
  for (auto& lane : g.dyn_lanes_) sched->remove_stream(lane, false);
  g.dyn_lanes_.clear();
  g.segments_.clear();
  g.replay_.reset();
  g.exec_lanes_.clear();
  g.plan_.clear();
  g.edge_events_.clear();
  for (auto& n : g.nodes_) n.edge_event = -1;
}

// ---------------------------------------------------------------- explicit build

Status GraphTable::build_begin(Context* context, void** handle) {
  auto g = std::make_shared<Graph>(context, next_id_.fetch_add(1) + 1);
  g->built_ = true;
  *handle = graphs_.add(g);
  return Status::Ok();
}

Status GraphTable::bind(Graph& g, const std::shared_ptr<Stream>& stream, uint32_t flag) {
  std::lock_guard lock(mu_);
  Stream& s = *stream;
  const std::string sid = "stream " + std::to_string(s.id());
  if ((s.flags() & ACL_STREAM_PERSISTENT) == 0) {
    return Status(Errc::rt_param_invalid, sid + " was not created with ACL_STREAM_PERSISTENT");
  }
  if (s.bound_graph) return Status(kStreamModel, sid + " is already bound to a model runtime instance");
  if (!g.built_ || g.subgraph()) {
    return Status(Errc::rt_param_invalid, graph_name(g) + " was captured: only built instances bind streams");
  }
  if (g.build_done_) return Status(Errc::rt_param_invalid, graph_name(g) + " is built already (aclmdlRIBuildEnd)");
  if (s.capture_graph) return Status(kStreamCaptured, sid + " is being captured");
  if ((s.flags() & ACL_STREAM_DEVICE_USE_ONLY) != 0) {
    return Status(Errc::rt_internal_error, sid + " was created with ACL_STREAM_DEVICE_USE_ONLY");
  }
  if ((s.flags() & ACL_STREAM_FAST_LAUNCH) != 0) {
    return Status(Errc::rt_feature_not_support, sid + " was created with ACL_STREAM_FAST_LAUNCH");
  }
  if (s.failure_mode_set.load() && s.failure_mode.load() == ACL_STOP_ON_FAILURE) {
    return Status(Errc::rt_feature_not_support, sid + " is in ACL_STOP_ON_FAILURE mode");
  }
  if (s.context() != g.context()) return Status(kModelContext, graph_name(g) + " belongs to another context");
  std::shared_ptr<Graph> self = graphs_.find(g.handle());
  if (!self) return Status(Errc::rt_invalid_handle, "modelRI was destroyed");
  Graph::Lane lane;
  lane.stream = stream;
  lane.frontier = {Graph::kStart};
  lane.bind_flag = flag;
  lane.bound = true;
  g.lanes_.push_back(std::move(lane));
  s.bound_graph = std::move(self);
  s.routed.store(true, std::memory_order_release);
  routed_count_.fetch_add(1, std::memory_order_acq_rel);
  return Status::Ok();
}

Status GraphTable::end_task(Graph& g, Stream& stream) {
  std::lock_guard lock(mu_);
  for (auto& lane : g.lanes_) {
    if (lane.bound && lane.stream.get() == &stream) {
      lane.ended = true;
      return Status::Ok();
    }
  }
  return Status(kStreamModel, "stream " + std::to_string(stream.id()) + " is not bound to " + graph_name(g));
}

Status GraphTable::build_end(Graph& g) {
  std::vector<int32_t> own_frontier;
  {
    std::lock_guard lock(mu_);
    if (!g.built_ || g.subgraph()) {
      return Status(Errc::rt_param_invalid, graph_name(g) + " was captured, not built with aclmdlRIBuildBegin");
    }
    if (g.build_done_) return Status(Errc::rt_param_invalid, graph_name(g) + " is built already");
    if (g.lanes_.empty()) return Status(Errc::rt_param_invalid, graph_name(g) + " has no bound stream");
    for (auto& lane : g.lanes_) {
      if (lane.bound && !lane.ended) {
        return Status(Errc::rt_param_invalid,
                      "stream " + std::to_string(lane.stream->id()) + " has no end-of-task marker (aclmdlRIEndTask)");
      }
    }
    // The instance ends when every stream that runs has: lane 0's markers wait for all of them.
    own_frontier = g.lanes_[0].frontier;
    std::vector<int32_t> all;
    for (auto& lane : g.lanes_) {
      if (lane.bind_flag != ACL_MODEL_STREAM_FLAG_HEAD && &lane != &g.lanes_[0]) continue;
      for (int32_t d : lane.frontier)
        if (std::find(all.begin(), all.end(), d) == all.end()) all.push_back(d);
    }
    g.lanes_[0].frontier = std::move(all);
    Status st = plan_segments_locked(g, own_frontier);
    if (!st.ok()) {
      g.lanes_[0].frontier = std::move(own_frontier);
      return st;
    }
    g.records_.clear();
    g.build_done_ = true;  // from here on the bound streams take no task: the nodes are fixed
  }
  finish_plan(g);
  g.lanes_[0].frontier = std::move(own_frontier);
  if (!g.exec_stream_) {
    DeviceSlot* slot = g.context()->slot();
    g.exec_stream_ = std::make_shared<Stream>(g.context(), slot->scheduler(), slot->next_stream_id(), 0, 0, false);
    slot->scheduler()->add_stream(g.exec_stream_);
  }
  g.capturing_.store(false, std::memory_order_release);
  return Status::Ok();
}

Status GraphTable::unbind(Graph& g, Stream& stream) {
  std::lock_guard lock(mu_);
  for (auto& lane : g.lanes_) {
    if (!lane.bound || lane.stream.get() != &stream) continue;
    // The tasks recorded so far stay in the instance (our choice); the stream takes no more.
    lane.bound = false;
    lane.ended = true;
    stream.bound_graph.reset();
    stream.routed.store(false, std::memory_order_release);
    routed_count_.fetch_sub(1, std::memory_order_acq_rel);
    return Status::Ok();
  }
  return Status(kStreamModel, "stream " + std::to_string(stream.id()) + " is not bound to " + graph_name(g));
}

Status GraphTable::persistent_clean(Stream& stream) {
  std::shared_ptr<Graph> g;
  {
    std::lock_guard lock(mu_);
    const std::string sid = "stream " + std::to_string(stream.id());
    if ((stream.flags() & ACL_STREAM_PERSISTENT) == 0) {
      return Status(Errc::rt_internal_error, sid + " is not a persistent stream");
    }
    if ((stream.flags() & ACL_STREAM_CPU_SCHEDULE) != 0) {
      return Status(Errc::rt_internal_error, sid + " is an AI CPU stream");
    }
    g = stream.bound_graph;
    if (!g) return Status(Errc::rt_internal_error, sid + " is not bound to a model runtime instance");
    if (!g->build_done_) return Status(Errc::rt_internal_error, graph_name(*g) + " is not built (aclmdlRIBuildEnd)");
    // Not executable until built again; executions already queued finish first (quiesce).
    g->capturing_.store(true, std::memory_order_release);
  }
  auto exec = quiesce(*g);
  drop_plan(*g);
  std::lock_guard lock(mu_);
  for (size_t l = 0; l < g->lanes_.size(); ++l) {
    auto& lane = g->lanes_[l];
    if (lane.stream.get() != &stream || !lane.bound) continue;
    for (auto& n : g->nodes_) {
      if (n.lane != l || n.removed) continue;
      n.removed = true;
      if (n.task_handle != nullptr) task_refs_.remove(n.task_handle);
      n.task_handle = nullptr;
    }
    lane.ended = false;
    lane.frontier = {Graph::kStart};
  }
  g->build_done_ = false;
  return Status::Ok();
}

// ---------------------------------------------------------------- execution of built instances

Status GraphTable::execute_sync(Graph& g, int32_t timeout_ms) {
  if (g.subgraph()) {
    return Status(Errc::rt_feature_not_support, graph_name(g) + " is a sub-graph: it runs only inside its parent");
  }
  if (!g.built_) {
    return Status(Errc::rt_param_invalid, graph_name(g) +
                                              " was captured: aclmdlRIExecute runs built instances only; use "
                                              "aclmdlRIExecuteAsync and synchronize the stream");
  }
  if (g.capturing()) return Status(kModelCaptured, graph_name(g) + " is not built yet (aclmdlRIBuildEnd)");
  std::shared_ptr<EventRecord> end;
  ARUN_RETURN_IF_ERROR(execute(g, g.exec_stream_, &end));
  Scheduler* sched = g.context()->slot()->scheduler();
  if (!sched->wait_record(*end, deadline_after_ms(timeout_ms))) {
    return Status(kSyncTimeout, graph_name(g) + " did not finish within " + std::to_string(timeout_ms) +
                                    " ms (the execution goes on)");
  }
  if (san::on()) [[unlikely]]
    san::synced_record(*end);  // aclmdlRIExecute returns after the execution: ordered like a synchronize
  for (auto& lane : g.exec_lanes_) {
    std::string why;
    if (int e = sched->take_error(*lane, &why)) {
      return Status(static_cast<Errc>(e), "a task of " + graph_name(g) + " failed with error " + std::to_string(e) +
                                              (why.empty() ? "" : ": " + why));
    }
  }
  return Status::Ok();
}

Status GraphTable::abort(Graph& g) {
  if (g.subgraph() || !g.built_) {
    return Status(Errc::rt_feature_not_support, graph_name(g) + (g.subgraph() ? " is a sub-graph" : " was captured") +
                                                    ": aclmdlRIAbort is for built instances");
  }
  if (g.capturing()) return Status::Ok();  // not built: nothing runs
  std::unique_lock exec(g.exec_mu);        // no execution is being submitted meanwhile
  Scheduler* sched = g.context()->slot()->scheduler();
  // Activated streams first (a running Join step waits for them), then the lanes, then what a
  // control node running meanwhile may have activated.
  for (auto& lane : g.dyn_lanes_) sched->abort(*lane);
  for (auto& lane : g.exec_lanes_) sched->abort(*lane);
  for (auto& lane : g.dyn_lanes_) sched->abort(*lane);
  if (g.has_control_) {
    // A dropped Join step did not reset the execution's dynamic state: the next one starts clean.
    std::lock_guard lock(g.dyn_mu_);
    g.segment_ends_.clear();
    for (size_t l = 0; l < g.lane_started_.size(); ++l)
      g.lane_started_[l] = g.lanes_[l].bind_flag == ACL_MODEL_STREAM_FLAG_HEAD ? 1 : 0;
  }
  // The dropped tasks held the records that the replay streams and the next execution wait for:
  // record them now, so nothing waits forever.
  std::vector<Task*> markers;
  Stream* lane0 = g.exec_lanes_[0].get();
  auto record = [&](const std::shared_ptr<Event>& ev, std::shared_ptr<EventRecord> r) {
    auto* t = new Task();
    t->task_kind = TaskKind::EventRecord;
    t->stream = lane0;
    t->event = ev;
    t->record = r ? std::move(r) : std::make_shared<EventRecord>();
    markers.push_back(t);
  };
  record(g.done_event_, nullptr);
  {
    std::lock_guard lock(launch_mu_);
    for (auto& end : g.inflight_ends_)
      if (!end->done.load()) record(g.end_event_, end);
    g.inflight_ends_.clear();
  }
  return sched->submit_batch(markers);
}

// ---------------------------------------------------------------- aclrtActiveStream / aclrtSwitchStream

Status GraphTable::add_control(Stream& stream, Stream& target, bool is_switch, const void* left, const void* right,
                               uint32_t cond, uint32_t type) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> g = stream.bound_graph;
  const std::string sid = "stream " + std::to_string(stream.id());
  if (!g) return Status(kStreamModel, sid + " is not bound to a model runtime instance (aclmdlRIBindStream)");
  if (target.bound_graph != g) {
    return Status(kStreamModel, std::string(is_switch ? "trueStream" : "activeStream") + " (stream " +
                                    std::to_string(target.id()) + ") is not bound to the same model runtime instance");
  }
  uint32_t li = 0, ti = 0;
  while (li < g->lanes_.size() && !(g->lanes_[li].bound && g->lanes_[li].stream.get() == &stream)) ++li;
  while (ti < g->lanes_.size() && !(g->lanes_[ti].bound && g->lanes_[ti].stream.get() == &target)) ++ti;
  if (li == g->lanes_.size() || ti == g->lanes_.size()) {
    return Status(kStreamModel, sid + " is not bound to " + graph_name(*g));
  }
  if (g->build_done_ || g->lanes_[li].ended) {
    return Status(kStreamModel, sid + " is bound to " + graph_name(*g) +
                                    (g->build_done_ ? ", which is built: no task can be added"
                                                    : " and its task sequence was ended (aclmdlRIEndTask)"));
  }
  auto c = std::make_shared<ControlNode>();
  c->is_switch = is_switch;
  c->target = ti;
  c->left = left;
  c->right = right;
  c->cond = cond;
  c->type = type;
  c->owner = g.get();
  c->table = this;
  if (!g->cond_worker_) g->cond_worker_ = std::make_unique<HostWorker>();
  auto task = std::make_unique<Task>();
  task->task_kind = TaskKind::HostCall;
  task->stream = &stream;
  task->host_fn = &GraphTable::run_control;
  task->host_user = c.get();
  task->host_queue = g->cond_worker_->queue();
  task->host_blocking = true;
  add_node_locked(*g, li, std::move(task));
  g->nodes_.back().control = std::move(c);
  g->has_control_ = true;
  return Status::Ok();
}

Status GraphTable::plan_segments_locked(Graph& g, const std::vector<int32_t>& lane0_frontier) {
  g.segments_.clear();
  g.lane_first_segment_.assign(g.lanes_.size(), -1);
  for (uint32_t l = 0; l < g.lanes_.size(); ++l) {
    bool dynamic = g.lanes_[l].bind_flag != ACL_MODEL_STREAM_FLAG_HEAD;
    int32_t current = -1;
    ControlNode* switch_before = nullptr;  // its tail is the next segment of the lane
    for (size_t i = 0; i < g.nodes_.size(); ++i) {
      GraphNode& n = g.nodes_[i];
      if (n.lane != l || n.removed) continue;
      n.dynamic = dynamic;
      n.segment = -1;
      if (dynamic) {
        if (current < 0) {
          current = static_cast<int32_t>(g.segments_.size());
          g.segments_.push_back({l, {}});
          if (g.lane_first_segment_[l] < 0) g.lane_first_segment_[l] = current;
          if (switch_before != nullptr) switch_before->tail = current;
          switch_before = nullptr;
        }
        g.segments_[static_cast<size_t>(current)].nodes.push_back(static_cast<int32_t>(i));
        n.segment = current;
      }
      if (n.control && n.control->is_switch) {
        // What follows a switch runs only when it is false: a segment of its own.
        n.control->tail = -1;
        switch_before = n.control.get();
        dynamic = true;
        current = -1;
      }
    }
  }
  if (!g.has_control_) return Status::Ok();
  // A segment runs on a stream of its own when a control node starts it: an event dependency
  // between it and another stream has no fixed place in an execution (not modelled).
  auto refuse = [&](uint32_t lane, const GraphNode& from) {
    return Status(Errc::rt_feature_not_support,
                  "stream " + std::to_string(g.lanes_[lane].stream->id()) + " waits on an event recorded on stream " +
                      std::to_string(g.lanes_[from.lane].stream->id()) +
                      ", and one of them runs only when activated (aclrtActiveStream / aclrtSwitchStream): event "
                      "dependencies of activated streams are not supported");
  };
  for (const GraphNode& n : g.nodes_) {
    if (n.removed) continue;
    for (int32_t d : n.deps) {
      if (d < 0) continue;
      const GraphNode& from = g.nodes_[static_cast<size_t>(d)];
      if (from.lane != n.lane && (from.dynamic || n.dynamic)) return refuse(n.lane, from);
    }
  }
  // What the end of an execution waits for (the streams that start with it).
  for (uint32_t l = 0; l < g.lanes_.size(); ++l) {
    if (l != 0 && g.lanes_[l].bind_flag != ACL_MODEL_STREAM_FLAG_HEAD) continue;
    for (int32_t d : l == 0 ? lane0_frontier : g.lanes_[l].frontier) {
      if (d < 0) continue;
      const GraphNode& from = g.nodes_[static_cast<size_t>(d)];
      if (from.lane != l && from.dynamic) return refuse(l, from);
    }
  }
  return Status::Ok();
}

void GraphTable::start_lane(Graph& g, uint32_t lane) {
  {
    std::lock_guard lock(g.dyn_mu_);
    if (g.lane_started_[lane] != 0) return;  // runs once per execution (HEAD streams from the start)
    g.lane_started_[lane] = 1;
  }
  const int32_t first = g.lane_first_segment_[lane];
  if (first >= 0) submit_segment(g, first);
}

void GraphTable::run_control(void* p) {
  auto& c = *static_cast<ControlNode*>(p);
  Graph& g = *c.owner;
  if (!c.is_switch) {
    c.table->start_lane(g, c.target);
    return;
  }
  // Both values are read when the node reaches its stream's head: the work before it is done.
  plugin::Device* device = g.context()->slot()->device();
  const size_t size = c.type == ACL_RT_SWITCH_INT64 ? 8 : 4;
  auto read = [&](const void* at) -> int64_t {
    void* w = device->map(reinterpret_cast<uint64_t>(at), size);
    if (w == nullptr) {
      log().warn("aclrtSwitchStream of {}: {} bytes at {} are not device memory; read as 0", graph_name(g), size, at);
      return 0;
    }
    if (size == 8) {
      int64_t v = 0;
      std::memcpy(&v, w, 8);
      return v;
    }
    int32_t v = 0;
    std::memcpy(&v, w, 4);
    return v;
  };
  const int64_t l = read(c.left), r = read(c.right);
  bool take = false;
  switch (c.cond) {
    case ACL_RT_EQUAL:
      take = l == r;
      break;
    case ACL_RT_NOT_EQUAL:
      take = l != r;
      break;
    case ACL_RT_GREATER:
      take = l > r;
      break;
    case ACL_RT_GREATER_OR_EQUAL:
      take = l >= r;
      break;
    case ACL_RT_LESS:
      take = l < r;
      break;
    default:
      take = l <= r;
      break;
  }
  if (take) {
    c.table->start_lane(g, c.target);  // and the rest of this stream does not run
  } else if (c.tail >= 0) {
    c.table->submit_segment(g, c.tail);
  }
}

// ---------------------------------------------------------------- aclrtTaskUpdateAsync

Status GraphTable::find_bound_task(Stream& stream, uint32_t task_id, const NodeInspector& inspect,
                                   std::weak_ptr<Graph>* graph, int32_t* node) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> g = stream.bound_graph;
  const std::string sid = "stream " + std::to_string(stream.id());
  if (!g) return Status(kStreamModel, sid + " is not bound to a model runtime instance (aclmdlRIBindStream)");
  uint32_t li = 0;
  while (li < g->lanes_.size() && !(g->lanes_[li].bound && g->lanes_[li].stream.get() == &stream)) ++li;
  for (size_t i = 0; li < g->lanes_.size() && i < g->nodes_.size(); ++i) {
    const GraphNode& n = g->nodes_[i];
    if (n.lane != li || n.removed || n.seq_in_lane + 1 != task_id) continue;
    ARUN_RETURN_IF_ERROR(inspect(n));
    *graph = g;
    *node = static_cast<int32_t>(i);
    return Status::Ok();
  }
  return Status(Errc::rt_param_invalid, "taskId " + std::to_string(task_id) + " is not a task recorded on " + sid +
                                            " (ids come from aclrtGetThreadLastTaskId right after the launch)");
}

Status GraphTable::replace_template(const std::weak_ptr<Graph>& graph, int32_t index, const NodeMaker& make) {
  std::shared_ptr<Graph> g = graph.lock();  // released after the lock
  std::lock_guard lock(mu_);
  if (!g || !graphs_.find(g->handle())) {
    return Status(Errc::rt_param_invalid, "the model runtime instance of the updated task was destroyed");
  }
  GraphNode& n = g->nodes_[static_cast<size_t>(index)];
  if (n.removed) return Status(Errc::rt_param_invalid, "the updated task was removed (aclrtPersistentTaskClean)");
  std::unique_ptr<Task> task;
  std::unique_ptr<KernelLaunchInfo> kernel;
  ARUN_RETURN_IF_ERROR(make(n, &task, &kernel));
  Graph::Retired old;
  {
    // Executions that cloned the old template share its argument block: it lives until they end.
    // The swap never waits for them: this runs as a task, which an execution may be ordered after.
    std::lock_guard tmpl(g->tmpl_mu);
    old.task = std::move(n.task);
    old.kernel = std::move(n.kernel);
    n.task = std::move(task);
    n.kernel = std::move(kernel);
  }
  std::lock_guard launches(launch_mu_);
  for (const auto& e : g->inflight_ends_)
    if (!e->done.load()) old.ends.push_back(e);
  sweep_retired_locked(*g);
  g->retired_.push_back(std::move(old));
  return Status::Ok();
}

// ---------------------------------------------------------------- sub-graphs and conditions

Status GraphTable::begin_sub(Stream& stream, std::shared_ptr<Stream> owner, Graph& sub, CaptureMode mode) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> self = graphs_.find(sub.handle());
  const bool open = std::find(active_.begin(), active_.end(), self) != active_.end();
  if (!self || !sub.subgraph() || sub.filled_ || open) {
    return Status(Errc::rt_param_invalid, graph_name(sub) +
                                              " is not an unfilled sub-graph of a conditional task "
                                              "(aclmdlRIAddCondTask)");
  }
  Graph* parent = sub.parent_;
  const bool parent_open =
      std::find_if(active_.begin(), active_.end(), [&](const auto& a) { return a.get() == parent; }) != active_.end();
  if (!parent_open) {
    return Status(Errc::rt_param_invalid, "the capture of the parent of " + graph_name(sub) + " is not open");
  }
  std::shared_ptr<Graph> outer;
  if (stream.capture_graph) {
    // The stream that captures the parent may fill a branch; its capture returns to the parent.
    if (stream.capture_graph.get() != parent) {
      return Status(kStreamCaptured, "stream " + std::to_string(stream.id()) + " is being captured");
    }
    outer = stream.capture_graph;
  } else {
    if (stream.is_default()) return Status(Errc::rt_feature_not_support, "the default stream cannot be captured");
    if (stream.bound_graph) return Status(kStreamModel, "the stream is bound to a model runtime instance");
    constexpr uint32_t kNoCapture = ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    if ((stream.flags() & kNoCapture) != 0) {
      return Status(Errc::rt_internal_error, "the stream's flags do not support capture");
    }
  }
  sub.mode_ = mode;
  sub.begin_thread_ = std::this_thread::get_id();
  sub.invalidated_ = false;
  sub.nodes_.clear();  // what an invalidated earlier fill left
  sub.records_.clear();
  sub.lanes_.clear();
  sub.lanes_.push_back({std::move(owner), {Graph::kStart}});
  sub.outer_ = std::move(outer);
  active_.push_back(self);
  active_count_.fetch_add(1, std::memory_order_acq_rel);
  stream.capture_graph = std::move(self);
  stream.capturing.store(true, std::memory_order_release);
  return Status::Ok();
}

Status GraphTable::cond_create(Graph& g, uint64_t default_value, bool assign_default, uint64_t* word, void** handle) {
  std::lock_guard lock(mu_);
  if (g.built_) return Status(Errc::rt_feature_not_support, graph_name(g) + " was built, not captured");
  std::shared_ptr<Graph> self = graphs_.find(g.handle());
  if (!self || std::find(active_.begin(), active_.end(), self) == active_.end()) {
    return Status(Errc::rt_param_invalid, graph_name(g) + " is not being captured");
  }
  auto c = std::make_shared<GraphCond>();
  c->graph = self;
  c->word = word;
  c->default_value = default_value;
  c->assign_default = assign_default;
  *handle = conds_.add(c);
  g.conds_.push_back(std::move(c));
  return Status::Ok();
}

Status GraphTable::cond_ptr(void* handle, uint64_t** ptr) {
  std::shared_ptr<GraphCond> c = conds_.find(handle);
  if (!c) return Status(Errc::rt_invalid_handle, "handle is not a live condition handle");
  *ptr = c->word;
  return Status::Ok();
}

Status GraphTable::add_cond(Stream& stream, void* cond, uint32_t type, uint32_t size, void** branches) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> g = stream.capture_graph;
  if (!g) return Status(kStreamNotCaptured, "stream " + std::to_string(stream.id()) + " is not being captured");
  std::shared_ptr<GraphCond> c = conds_.find(cond);
  if (!c) return Status(Errc::rt_invalid_handle, "params.handle is not a live condition handle");
  if (c->graph.lock() != g) {
    return Status(Errc::rt_param_invalid, "params.handle belongs to another instance than the stream's capture");
  }
  if (c->used) return Status(Errc::rt_param_invalid, "params.handle drives a conditional task already");
  if (g->invalidated_) return Status(kCaptureInvalidated, "the capture was invalidated: " + g->invalid_reason_);
  uint32_t li = 0;
  while (li < g->lanes_.size() && g->lanes_[li].stream.get() != &stream) ++li;
  if (g->lanes_[li].open_group) {
    return Status(kTaskTypeNotSupport, "a conditional task cannot be part of a task group");
  }
  auto node = std::make_shared<CondNode>();
  node->type = type;
  node->cond = c;
  node->owner = g.get();
  node->table = this;
  for (uint32_t i = 0; i < size; ++i) {
    auto sub = std::make_shared<Graph>(g->context(), next_id_.fetch_add(1) + 1);
    sub->parent_ = g.get();
    sub->mode_ = g->mode_;
    branches[i] = graphs_.add(sub);
    g->children_.push_back(sub);
    node->branches.push_back(std::move(sub));
  }
  if (!g->cond_worker_) g->cond_worker_ = std::make_unique<HostWorker>();
  auto task = std::make_unique<Task>();
  task->task_kind = TaskKind::HostCall;
  task->stream = &stream;
  task->host_fn = &GraphTable::run_cond;
  task->host_user = node.get();
  task->host_queue = g->cond_worker_->queue();
  task->host_blocking = true;
  add_node_locked(*g, li, std::move(task));
  g->nodes_.back().cond = std::move(node);
  c->used = true;
  return Status::Ok();
}

void GraphTable::run_sync(Graph& g) {
  if (!g.filled_) return;  // a branch never captured into runs nothing
  std::shared_ptr<Graph> self = graphs_.find(g.handle());
  if (!self) return;
  Launch launch{std::move(self), std::make_shared<EventRecord>(), std::make_shared<EventRecord>()};
  launch.start->done.store(true);  // nothing to wait for: the conditional node is at its stream's head
  submit_launch(launch);
  g.context()->slot()->scheduler()->wait_record(*launch.end, -1);
  if (san::on()) [[unlikely]]
    san::synced_record(*launch.end);  // the branch completed before the condition node returns
}

void GraphTable::run_cond(void* p) {
  auto& node = *static_cast<CondNode*>(p);
  plugin::Device* device = node.owner->context()->slot()->device();
  // The value is read when the node reaches its stream's head: the work before it has completed.
  auto read = [&]() -> uint64_t {
    uint64_t v = 0;
    void* w = device->map(reinterpret_cast<uint64_t>(node.cond->word), sizeof v);
    if (w != nullptr) std::memcpy(&v, w, sizeof v);
    return v;
  };
  const size_t n = node.branches.size();
  switch (node.type) {
    case ACL_MODEL_RI_COND_TYPE_IF: {
      const uint64_t c = read();
      if (c != 0) {
        node.table->run_sync(*node.branches[0]);
      } else if (n == 2) {
        node.table->run_sync(*node.branches[1]);
      }
      break;
    }
    case ACL_MODEL_RI_COND_TYPE_WHILE:
      while (read() != 0) node.table->run_sync(*node.branches[0]);
      break;
    default: {  // SWITCH: branch c, nothing when c is out of range (our choice)
      const uint64_t c = read();
      if (c < n) node.table->run_sync(*node.branches[c]);
      break;
    }
  }
}

// ---------------------------------------------------------------- task groups and their update

Status GraphTable::group_begin(Stream& stream) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> g = stream.capture_graph;
  if (!g) return Status(kStreamNotCaptured, "stream " + std::to_string(stream.id()) + " is not being captured");
  uint32_t li = 0;
  while (li < g->lanes_.size() && g->lanes_[li].stream.get() != &stream) ++li;
  auto& lane = g->lanes_[li];
  if (lane.open_group) {
    return Status(kTaskGroupStatus, "a task group is already open on stream " + std::to_string(stream.id()));
  }
  auto grp = std::make_shared<GraphTaskGroup>();
  grp->graph = g;
  groups_.add(grp);
  g->groups_.push_back(grp);
  lane.open_group = std::move(grp);
  return Status::Ok();
}

Status GraphTable::group_end(Stream& stream, void** handle) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> g = stream.capture_graph;
  if (!g) return Status(kStreamNotCaptured, "stream " + std::to_string(stream.id()) + " is not being captured");
  uint32_t li = 0;
  while (li < g->lanes_.size() && g->lanes_[li].stream.get() != &stream) ++li;
  auto& lane = g->lanes_[li];
  if (!lane.open_group) {
    return Status(kTaskGroupStatus, "no task group is open on stream " + std::to_string(stream.id()));
  }
  lane.open_group->open = false;
  *handle = lane.open_group->handle();
  lane.open_group.reset();
  return Status::Ok();
}

Status GraphTable::update_begin(Stream& stream, void* group) {
  std::lock_guard lock(mu_);
  const std::string sid = "stream " + std::to_string(stream.id());
  if (stream.capture_graph) return Status(kStreamCaptured, sid + " is being captured");
  if (stream.bound_graph) return Status(kStreamModel, sid + " is bound to a model runtime instance");
  if (stream.update_group) return Status(kTaskGroupStatus, sid + " is already collecting a task-group update");
  std::shared_ptr<GraphTaskGroup> grp = groups_.find(group);
  if (!grp) return Status(Errc::rt_invalid_handle, "handle is not a live task group");
  std::shared_ptr<Graph> g = grp->graph.lock();
  if (!g || !graphs_.find(g->handle())) return Status(Errc::rt_invalid_handle, "the task group's instance is gone");
  if (grp->open || g->capturing()) {
    return Status(kTaskGroupStatus, "the task group's instance is still being captured");
  }
  if (grp->updating != nullptr) return Status(kTaskGroupStatus, "another stream is updating this task group");
  grp->updating = &stream;
  grp->staged.clear();
  grp->staged_info.clear();
  grp->overflow = 0;
  stream.update_group = std::move(grp);
  stream.routed.store(true, std::memory_order_release);
  routed_count_.fetch_add(1, std::memory_order_acq_rel);
  return Status::Ok();
}

Status GraphTable::stage_update_locked(Task* task) {
  std::unique_ptr<Task> owned(task);
  GraphTaskGroup& grp = *task->stream->update_group;
  // Never more than the group holds: the rest is only counted (a mismatch at the end).
  if (grp.staged.size() >= grp.nodes.size()) {
    ++grp.overflow;
    return Status::Ok();
  }
  const bool kernel = task->task_kind == TaskKind::Work && task->kind == plugin::WorkKind::Kernel;
  grp.staged_info.push_back(kernel && pending_kernel_info() != nullptr ? copy_kernel_info(*pending_kernel_info())
                                                                       : nullptr);
  grp.staged.push_back(std::move(owned));
  return Status::Ok();
}

Status GraphTable::update_end(Stream& stream) {
  std::shared_ptr<GraphTaskGroup> grp;
  std::vector<std::unique_ptr<Task>> staged;
  std::vector<std::unique_ptr<KernelLaunchInfo>> infos;
  size_t overflow = 0;
  std::shared_ptr<Graph> g;
  {
    std::lock_guard lock(mu_);
    grp = std::move(stream.update_group);
    if (!grp) {
      return Status(kTaskGroupStatus, "no task-group update is open on stream " + std::to_string(stream.id()));
    }
    stream.routed.store(false, std::memory_order_release);
    routed_count_.fetch_sub(1, std::memory_order_acq_rel);
    grp->updating = nullptr;
    staged.swap(grp->staged);
    infos.swap(grp->staged_info);
    overflow = grp->overflow;
    g = grp->graph.lock();
    if (!g || !graphs_.find(g->handle())) return Status(Errc::rt_invalid_handle, "the task group's instance is gone");
    const size_t got = staged.size() + overflow;
    if (got != grp->nodes.size()) {
      return Status(kTaskGroupIntr, "the update submitted " + std::to_string(got) + " task(s) but the group holds " +
                                        std::to_string(grp->nodes.size()) + "; the instance keeps its tasks");
    }
    for (size_t i = 0; i < staged.size(); ++i) {
      const Task& old = *g->nodes_[static_cast<size_t>(grp->nodes[i])].task;
      if (staged[i]->task_kind != old.task_kind || staged[i]->kind != old.kind) {
        return Status(kTaskGroupIntr, "task " + std::to_string(i) +
                                          " of the update is of another kind than the group's; the instance "
                                          "keeps its tasks");
      }
    }
  }
  auto exec = quiesce(*g);  // executions in flight still read the old templates' arguments
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < staged.size(); ++i) {
    GraphNode& n = g->nodes_[static_cast<size_t>(grp->nodes[i])];
    n.task = std::move(staged[i]);
    n.kernel = std::move(infos[i]);
  }
  if (g->replay_) build_replay(*g);  // the instances copy the templates
  return Status::Ok();
}

// ---------------------------------------------------------------- per-task inspection and update

Status GraphTable::get_streams(Graph& g, void** streams, uint32_t* count) {
  if (g.subgraph()) return Status(Errc::rt_feature_not_support, graph_name(g) + " is a sub-graph");
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> self = graphs_.find(g.handle());
  if (!self) return Status(Errc::rt_invalid_handle, "modelRI was destroyed");
  std::vector<void*> out;
  for (size_t l = 0; l < g.lanes_.size(); ++l) {
    auto& lane = g.lanes_[l];
    if (g.built_) {
      if (lane.bound) out.push_back(lane.stream->handle());  // a built instance's streams are the user's
      continue;
    }
    out.push_back(part_handle(lane_refs_, self, l, &lane.handle));
  }
  return copy_out_handles(out, streams, count, "the instance", "stream");
}

Status GraphTable::tasks_by_stream(void* stream, void** tasks, uint32_t* count) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Graph> g;
  int32_t lane = -1;
  if (std::shared_ptr<GraphPartRef> ref = lane_refs_.find(stream)) {
    g = ref->graph.lock();
    lane = ref->index;
    if (!g || !graphs_.find(g->handle())) return Status(Errc::rt_invalid_handle, "the stream's instance is gone");
  } else {
    Runtime* rt = Runtime::instance();
    std::shared_ptr<Stream> s = rt != nullptr ? rt->find_stream(stream) : nullptr;
    if (!s) return Status(Errc::rt_invalid_handle, "stream is not a live stream (destroyed, or not a stream)");
    g = s->bound_graph;
    if (g) {
      for (size_t l = 0; l < g->lanes_.size(); ++l)
        if (g->lanes_[l].bound && g->lanes_[l].stream == s) lane = static_cast<int32_t>(l);
    }
    if (lane < 0) {
      return Status(Errc::rt_param_invalid, "stream " + std::to_string(s->id()) +
                                                " is not a stream of a model runtime instance (aclmdlRIGetStreams)");
    }
  }
  if (g->subgraph()) return Status(Errc::rt_feature_not_support, "the stream belongs to a sub-graph");
  std::vector<void*> out;
  for (size_t i = 0; i < g->nodes_.size(); ++i) {
    GraphNode& n = g->nodes_[i];
    if (n.lane != static_cast<uint32_t>(lane) || n.removed) continue;
    out.push_back(part_handle(task_refs_, g, i, &n.task_handle));
  }
  return copy_out_handles(out, tasks, count, "the stream", "task");
}

Status GraphTable::lock_task(void* handle, bool for_update, LockedTask* out) {
  std::shared_ptr<Graph> g;  // declared before the lock: a last reference is dropped after it
  std::unique_lock lock(mu_);
  std::shared_ptr<GraphPartRef> ref = task_refs_.find(handle);
  if (!ref) return Status(Errc::rt_invalid_handle, "task is not a live task of a model runtime instance");
  g = ref->graph.lock();
  if (!g || !graphs_.find(g->handle())) return Status(Errc::rt_invalid_handle, "the task's instance is gone");
  if (g->subgraph()) return Status(Errc::rt_feature_not_support, "the task belongs to a sub-graph");
  if (for_update && g->built_) {
    return Status(Errc::rt_feature_not_support, graph_name(*g) + " was built: only captured instances are updated");
  }
  if (ref->index < 0 || static_cast<size_t>(ref->index) >= g->nodes_.size()) {
    return Status(Errc::rt_invalid_handle, "the task is no longer part of its instance");
  }
  out->node = &g->nodes_[static_cast<size_t>(ref->index)];
  out->graph = std::move(g);
  out->lock = std::move(lock);
  return Status::Ok();
}

Status GraphTable::task_type(void* task, uint32_t* type) {
  LockedTask found;
  ARUN_RETURN_IF_ERROR(lock_task(task, false, &found));
  *type = task_type_of(*found.node);
  return Status::Ok();
}

Status GraphTable::task_seq(void* task, uint32_t* seq) {
  LockedTask found;
  ARUN_RETURN_IF_ERROR(lock_task(task, false, &found));
  *seq = found.node->seq_in_lane;
  return Status::Ok();
}

Status GraphTable::task_get_params(void* task, aclmdlRITaskParams* p) {
  LockedTask found;
  ARUN_RETURN_IF_ERROR(lock_task(task, false, &found));
  const GraphNode& n = *found.node;
  const uint32_t type = task_type_of(n);
  if (type == ACL_MODEL_RI_TASK_DEFAULT) {
    return Status(Errc::rt_param_invalid, "the task is of type ACL_MODEL_RI_TASK_DEFAULT: it has no parameters");
  }
  std::memset(p, 0, sizeof *p);
  p->type = static_cast<aclmdlRITaskType>(type);
  p->taskGrp = n.group;
  const Task& t = *n.task;
  if (type == ACL_MODEL_RI_TASK_KERNEL) {
    auto& k = p->kernelTaskParams;
    k.numBlocks = t.block_dim;
    if (n.kernel) {
      k.funcHandle = n.kernel->function;
      k.cfg = n.kernel->attrs.empty() ? nullptr : &n.kernel->cfg;
      k.args = const_cast<void*>(n.kernel->args);
      k.isHostArgs = n.kernel->host_args;
      k.argsSize = n.kernel->args_size;
    } else {  // a C++ kernel: its packed argument block
      k.args = t.user_args;
      k.isHostArgs = 1;
      k.argsSize = t.user_args_bytes;
    }
  } else if (type == ACL_MODEL_RI_TASK_VALUE_WRITE) {
    p->valueWriteTaskParams.devAddr = reinterpret_cast<void*>(t.value_addr);
    p->valueWriteTaskParams.value = t.value;
  } else {
    p->valueWaitTaskParams.devAddr = reinterpret_cast<void*>(t.value_addr);
    p->valueWaitTaskParams.value = t.value;
    p->valueWaitTaskParams.flag = t.value_flag;
  }
  return Status::Ok();
}

Status GraphTable::task_set_params(void* task, const aclmdlRITaskParams* p) {
  LockedTask found;
  ARUN_RETURN_IF_ERROR(lock_task(task, true, &found));
  GraphNode& n = *found.node;
  const uint32_t type = task_type_of(n);
  int32_t want = 0;
  std::memcpy(&want, &p->type, sizeof want);  // any int a C caller passed
  // Every refusal puts the instance in the fault state: aclmdlRIUpdate then answers 107040.
  auto fail = [&](const std::string& why) {
    found.graph->update_fault_ = true;
    return Status(Errc::rt_param_invalid, why + " (aclmdlRIUpdate of this instance will fail)");
  };
  if (want == ACL_MODEL_RI_TASK_DEFAULT || want == ACL_MODEL_RI_TASK_EVENT_RECORD ||
      want == ACL_MODEL_RI_TASK_EVENT_WAIT || want == ACL_MODEL_RI_TASK_EVENT_RESET) {
    return fail("params->type " + std::to_string(want) + ": default and event tasks cannot be changed");
  }
  if (static_cast<uint32_t>(want) != type) {
    return fail("params->type " + std::to_string(want) + " does not match the task's type " + std::to_string(type));
  }
  std::unique_ptr<Task> staged = copy_template(*n.task);
  std::unique_ptr<KernelLaunchInfo> info;
  if (type == ACL_MODEL_RI_TASK_KERNEL) {
    const auto& k = p->kernelTaskParams;
    if (k.numBlocks == 0) return fail("kernelTaskParams.numBlocks is 0");
    if (!n.kernel) {
      // A C++ kernel's argument block has no declared layout: only its block count can change.
      if (k.funcHandle != nullptr || k.args != nullptr) {
        return fail(
            "the task runs a C++ kernel (arun::launch): only numBlocks can be set, with funcHandle and args NULL");
      }
    } else {
      if (k.funcHandle == nullptr || k.args == nullptr) return fail("kernelTaskParams.funcHandle or args is NULL");
      rt::GraphKernelBlock block;
      Status st = rt::graph_kernel_block(k.funcHandle, k.args, k.argsSize, k.isHostArgs != 0, k.cfg, &block);
      if (!st.ok()) return fail(st.message());
      staged->user_kernel = block.trampoline;
      staged->user_args = block.block;
      staged->free_user_args = block.free;  // the staged template owns its block
      staged->user_args_bytes = block.args_bytes;
      info = std::make_unique<KernelLaunchInfo>();
      info->function = k.funcHandle;
      info->args = block.args_view;
      info->args_size = k.argsSize;
      info->host_args = k.isHostArgs != 0 ? 1 : 0;
      if (k.cfg != nullptr && k.cfg->attrs != nullptr) info->attrs.assign(k.cfg->attrs, k.cfg->attrs + k.cfg->numAttrs);
      info->cfg.attrs = info->attrs.data();
      info->cfg.numAttrs = info->attrs.size();
    }
    staged->block_dim = k.numBlocks;
    if (info) info->blocks = k.numBlocks;
  } else if (type == ACL_MODEL_RI_TASK_VALUE_WRITE) {
    if (p->valueWriteTaskParams.devAddr == nullptr) return fail("valueWriteTaskParams.devAddr is NULL");
    staged->value_addr = reinterpret_cast<uint64_t>(p->valueWriteTaskParams.devAddr);
    staged->value = p->valueWriteTaskParams.value;
  } else {
    const auto& w = p->valueWaitTaskParams;
    if (w.devAddr == nullptr) return fail("valueWaitTaskParams.devAddr is NULL");
    if (w.flag > ACL_STREAM_WAIT_VALUE_NOR)
      return fail("valueWaitTaskParams.flag " + std::to_string(w.flag) + " is not 0..3");
    staged->value_addr = reinterpret_cast<uint64_t>(w.devAddr);
    staged->value = w.value;
    staged->value_flag = w.flag;
  }
  n.staged_task = std::move(staged);
  n.staged_kernel = std::move(info);
  return Status::Ok();
}

Status GraphTable::task_disable(void* task) {
  LockedTask found;
  ARUN_RETURN_IF_ERROR(lock_task(task, true, &found));
  found.node->staged_disable = true;
  return Status::Ok();
}

Status GraphTable::kernel_attribute(void* task, int32_t attr, aclrtLaunchKernelAttrValue* value) {
  LockedTask found;
  ARUN_RETURN_IF_ERROR(lock_task(task, false, &found));
  const GraphNode& n = *found.node;
  if (task_type_of(n) != ACL_MODEL_RI_TASK_KERNEL)
    return Status(Errc::rt_param_invalid, "the task is not a kernel task");
  switch (attr) {
    case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
    case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
    case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
    case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
    case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
    case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING:
      break;
    case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE:
    case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET:
    case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH:
      return Status(Errc::rt_param_invalid, "attribute " + std::to_string(attr) + " cannot be queried");
    default:
      return Status(Errc::rt_param_invalid, "attrId " + std::to_string(attr) + " is not a launch attribute");
  }
  std::memset(value, 0, sizeof *value);  // not set at launch: the default
  if (n.kernel) {
    for (const auto& a : n.kernel->attrs) {
      int32_t id = 0;
      std::memcpy(&id, &a.id, sizeof id);
      if (id == attr) *value = a.value;
    }
  }
  return Status::Ok();
}

Status GraphTable::update(Graph& g) {
  if (g.subgraph() || g.built_) {
    return Status(Errc::rt_feature_not_support, graph_name(g) + (g.subgraph() ? " is a sub-graph" : " was built") +
                                                    ": aclmdlRIUpdate applies to captured instances");
  }
  if (g.capturing()) return Status(kModelCaptured, graph_name(g) + " is still being captured");
  {
    std::lock_guard lock(mu_);
    if (g.update_fault_) {
      // The fault is reported once; every staged change is dropped with it (our choice).
      g.update_fault_ = false;
      for (auto& n : g.nodes_) {
        n.staged_task.reset();
        n.staged_kernel.reset();
        n.staged_disable = false;
      }
      return Status(kModelUpdateFailed,
                    "a task parameter change of " + graph_name(g) + " failed earlier; no staged change was applied");
    }
    bool any = false;
    for (auto& n : g.nodes_) any = any || n.staged_task || n.staged_disable;
    if (!any) return Status::Ok();
  }
  auto exec = quiesce(g);  // executions in flight still read the old templates' arguments
  std::lock_guard lock(mu_);
  for (auto& n : g.nodes_) {
    if (n.staged_task) {
      n.task = std::move(n.staged_task);
      n.kernel = std::move(n.staged_kernel);
    }
    if (n.staged_disable) n.disabled = true;
    n.staged_disable = false;
  }
  if (g.replay_) build_replay(g);  // the instances copy the templates
  return Status::Ok();
}

}  // namespace arun
