// Captured task graphs (aclmdlRI, spec part 2, 4.12): what a stream capture records, and how a
// replay submits it.
//
// Capture: Runtime::submit hands every task aimed at a capturing stream to GraphTable::capture
// instead of the scheduler. Work, host calls and device-side value/notify tasks become nodes (the
// Task itself is kept as the node's template); event records and waits become dependencies. Each
// captured stream is a lane with a frontier: the nodes its next node depends on. A stream that waits
// on an event recorded in the capture joins it as a new lane (a fork). Node indices only ever point
// backwards, so capture order is a topological order.
//
// Replay: CaptureEnd turns the graph into a flat plan of steps over lanes, each lane a hidden
// stream the graph owns. A cross-lane dependency becomes a record of a private event after its
// source node and a wait before its target; a private "done" event serialises the graph's
// executions. A captured instance without conditional nodes also gets a Replay (sched/replay.hpp):
// task instances built once, fed to the lanes by the scheduler from one GraphLaunch marker, which
// is all aclmdlRIExecuteAsync submits. The others (built instances, conditions, sanitizer on) cost
// the calling thread two tasks on the replay stream: a start call and a wait for the graph's end
// record. When the start call reaches the stream's head, the graph table's start worker clones
// the plan's tasks and hands them to Scheduler::submit_batch, one lock for the whole graph; the
// scheduler releases each node when its stream order and event waits allow, as for any task.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "acl/acl_mdl.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "host/host_queue.hpp"
#include "runtime/event.hpp"
#include "runtime/handle_table.hpp"
#include "runtime/stream.hpp"
#include "sched/replay.hpp"

namespace arun {

class Context;

// ACL codes of the capture family (acl/error_codes/rt_error_codes.h) not named in Errc.
namespace graph_errc {
constexpr Errc kCaptureDependency = static_cast<Errc>(107024);
constexpr Errc kStreamUnjoined = static_cast<Errc>(107025);
constexpr Errc kModelCaptured = static_cast<Errc>(107026);
constexpr Errc kStreamCaptured = static_cast<Errc>(107027);
constexpr Errc kEventCaptured = static_cast<Errc>(107028);
constexpr Errc kStreamNotCaptured = static_cast<Errc>(107029);
constexpr Errc kCaptureModeNotSupport = static_cast<Errc>(107030);
constexpr Errc kCaptureImplicit = static_cast<Errc>(107031);
constexpr Errc kCaptureConflict = static_cast<Errc>(107032);
constexpr Errc kCaptureUnmatched = static_cast<Errc>(107036);
constexpr Errc kCaptureWrongThread = static_cast<Errc>(107038);
constexpr Errc kCaptureBlockAsync = static_cast<Errc>(107041);
constexpr Errc kModelContext = static_cast<Errc>(107004);
constexpr Errc kStreamModel = static_cast<Errc>(107005);
constexpr Errc kFileOpen = static_cast<Errc>(107009);
constexpr Errc kCaptureInvalidated = static_cast<Errc>(507903);
constexpr Errc kTaskGroupStatus = static_cast<Errc>(107033);
constexpr Errc kTaskGroupIntr = static_cast<Errc>(107034);
constexpr Errc kInsufficientArray = static_cast<Errc>(107039);
constexpr Errc kModelUpdateFailed = static_cast<Errc>(107040);
constexpr Errc kSubGraphCapturing = static_cast<Errc>(107045);
constexpr Errc kTaskTypeNotSupport = static_cast<Errc>(507009);
constexpr Errc kSyncTimeout = static_cast<Errc>(507046);
}  // namespace graph_errc

// Capture modes (aclmdlRICaptureMode): lower is more restrictive.
enum class CaptureMode : uint32_t { Global = 0, ThreadLocal = 1, Relaxed = 2 };

class Graph;
class GraphTable;

// What aclmdlRITaskGetParams / aclmdlRIKernelTaskGetAttribute report of a kernel launched through
// aclrtLaunchKernel* (a C++ kernel, arun::launch, has no function handle and no cfg). `args`
// points into the node's template (its packed argument bytes) or is the caller's device address.
struct KernelLaunchInfo {
  void* function = nullptr;
  const void* args = nullptr;
  size_t args_size = 0;
  uint32_t host_args = 1;
  uint32_t blocks = 0;
  std::vector<aclrtLaunchKernelAttr> attrs;
  aclrtLaunchKernelCfg cfg{};  // points into attrs (what GetParams hands out)
};
// The kernel-binary launches (front/kernel_binaries.cpp) announce their facts for the duration of
// their rt::launch_kernel call; a capture that takes the task keeps a copy. Thread-local.
void set_pending_kernel_info(const KernelLaunchInfo* info);
const KernelLaunchInfo* pending_kernel_info();
std::unique_ptr<KernelLaunchInfo> copy_kernel_info(const KernelLaunchInfo& info);
// A copy of a node's template to give new parameters (it owns no argument block: the caller sets
// user_args and free_user_args).
std::unique_ptr<Task> copy_node_template(const Task& t);

// aclmdlRICondHandleCreate: an 8-byte device word owned by an instance.
struct GraphCond {
  void* handle_ = nullptr;
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }
  std::weak_ptr<Graph> graph;
  uint64_t* word = nullptr;  // device address
  uint64_t default_value = 0;
  bool assign_default = false;
  bool used = false;  // drives a conditional node already
};

// A conditional node (aclmdlRIAddCondTask): at replay a blocking host call on the owner's
// condition worker reads the word and runs the chosen sub-graph to completion.
struct CondNode {
  uint32_t type = 0;  // aclmdlRICondTaskType
  std::vector<std::shared_ptr<Graph>> branches;
  std::shared_ptr<GraphCond> cond;
  Graph* owner = nullptr;
  GraphTable* table = nullptr;
};

// aclrtActiveStream / aclrtSwitchStream recorded on a bound stream: at execution a blocking host
// call on the owner's condition worker starts a lane that runs only when activated (its first
// segment) or, for a switch, chooses between the true stream and the rest of its own lane.
struct ControlNode {
  bool is_switch = false;
  uint32_t target = 0;  // lane to activate (the true stream of a switch)
  int32_t tail = -1;    // switch: the segment after it on its own lane (-1: nothing follows)
  const void* left = nullptr;
  const void* right = nullptr;
  uint32_t cond = 0;  // aclrtCondition
  uint32_t type = 0;  // aclrtCompareDataType
  Graph* owner = nullptr;
  GraphTable* table = nullptr;
};

// aclmdlRICaptureTaskGrpBegin/End: nodes captured together; an update replaces them as a unit.
struct GraphTaskGroup {
  void* handle_ = nullptr;
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }
  std::weak_ptr<Graph> graph;
  std::vector<int32_t> nodes;
  bool open = true;
  // aclmdlRICaptureTaskUpdateBegin/End: the stream collecting replacements, and what it collected.
  Stream* updating = nullptr;
  std::vector<std::unique_ptr<Task>> staged;
  std::vector<std::unique_ptr<KernelLaunchInfo>> staged_info;
  size_t overflow = 0;  // tasks beyond the group's count (only counted)
};

// The handle of one node (aclmdlRITask) or one lane (a captured instance's aclrtStream).
struct GraphPartRef {
  void* handle_ = nullptr;
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }
  std::weak_ptr<Graph> graph;
  int32_t index = 0;
};

struct GraphNode {
  std::unique_ptr<Task> task;  // the template each replay clones
  uint32_t lane = 0;
  uint32_t seq_in_lane = 0;                  // position in its lane, from 0
  std::vector<int32_t> deps;                 // earlier nodes; kStart: the work before the capture
  int32_t edge_event = -1;                   // index into Graph::edge_events_ when a node of another lane waits for it
  std::unique_ptr<KernelLaunchInfo> kernel;  // kernel-binary launches
  std::shared_ptr<CondNode> cond;            // conditional nodes
  std::shared_ptr<ControlNode> control;      // aclrtActiveStream / aclrtSwitchStream
  // Built instances with control nodes: runs only when activated or after a false switch (a lane
  // bound with ACL_MODEL_STREAM_FLAG_DEFAULT, or what follows a switch); then in this segment.
  bool dynamic = false;
  int32_t segment = -1;
  void* task_handle = nullptr;  // aclmdlRITask, made on first listing
  void* group = nullptr;        // its aclrtTaskGrp, if any
  bool disabled = false;        // skipped by replays (aclmdlRITaskDisable + aclmdlRIUpdate)
  bool removed = false;         // aclrtPersistentTaskClean dropped it
  // Staged by aclmdlRITaskSetParams / aclmdlRITaskDisable until aclmdlRIUpdate.
  std::unique_ptr<Task> staged_task;
  std::unique_ptr<KernelLaunchInfo> staged_kernel;
  bool staged_disable = false;
};

class Graph {
 public:
  static constexpr int32_t kStart = -1;
  enum class StepOp : uint8_t { Node, Record, Wait, CondInit, Join };
  struct Step {
    StepOp op;
    uint32_t lane;
    int32_t index;  // Node: node index; Record / Wait: edge event index (-1: the done event); CondInit: conds_ index
  };

  Graph(Context* context, uint32_t id) : context_(context), id_(id) {}
  ~Graph();
  Context* context() const { return context_; }
  uint32_t id() const { return id_; }
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }
  bool capturing() const { return capturing_.load(std::memory_order_acquire); }
  bool built() const { return built_; }
  bool subgraph() const { return parent_ != nullptr; }

  std::mutex mu;  // name and callbacks
  // Guards node templates against aclrtTaskUpdateAsync, which swaps one while executions clone
  // (built instances: the update runs as a device task, so it must never wait for an execution).
  std::mutex tmpl_mu;
  // Shared by executions while they build and submit their tasks; destroy takes it exclusively.
  std::shared_mutex exec_mu;
  std::string name;
  std::vector<std::pair<void (*)(void*), void*>> destroy_callbacks;

 private:
  friend class GraphTable;
  struct Lane {
    Lane() = default;
    Lane(std::shared_ptr<Stream> s, std::vector<int32_t> f) : stream(std::move(s)), frontier(std::move(f)) {}
    std::shared_ptr<Stream> stream;  // the captured stream
    std::vector<int32_t> frontier;   // what its next node depends on
    std::shared_ptr<GraphTaskGroup> open_group;
    void* handle = nullptr;  // captured instances: the lane's aclrtStream for aclmdlRIGetStreams
    // Built instances: ACL_MODEL_STREAM_FLAG_*, aclmdlRIEndTask seen, still bound.
    uint32_t bind_flag = 0;
    bool ended = false;
    bool bound = false;
  };
  bool planned(const GraphNode& n) const;
  // Built instances with control nodes (runtime/graph_build.cpp): the nodes that run only when
  // activated, in segments (a lane's nodes up to and including a switch), each submitted by a
  // control node to its lane's dynamic stream; a Join step of lane 0 waits for them.
  struct Segment {
    uint32_t lane = 0;
    std::vector<int32_t> nodes;
  };
  Context* context_;
  uint32_t id_;
  void* handle_ = nullptr;
  std::atomic<bool> capturing_{true};

  // Capture state, guarded by GraphTable::mu_ while capturing; fixed afterwards.
  CaptureMode mode_ = CaptureMode::Global;
  std::thread::id begin_thread_;
  bool invalidated_ = false;
  std::string invalid_reason_;
  std::vector<GraphNode> nodes_;
  std::vector<Lane> lanes_;  // lanes_[0]: the origin stream
  // Events recorded in the capture: the frontier of the recording lane at that point.
  std::unordered_map<const Event*, std::pair<std::shared_ptr<Event>, std::vector<int32_t>>> records_;

  // Replay plan (CaptureEnd).
  std::vector<Step> plan_;
  std::vector<std::shared_ptr<Stream>> exec_lanes_;  // one hidden stream per lane
  std::vector<std::shared_ptr<Event>> edge_events_;
  std::shared_ptr<Event> done_event_;
  // Per execution: the replay stream records on start_event_ and waits on end_event_.
  std::shared_ptr<Event> start_event_, end_event_;
  // Guarded by GraphTable::launch_mu_: executions issued and not yet started (or dropped),
  // and whether destroy has begun (no execution may start after it).
  uint32_t pending_ = 0;
  bool destroying_ = false;
  bool plan_needs_start_ = false;

  // Explicit build (aclmdlRIBuild*): built_ from BuildBegin; capturing_ stays true until BuildEnd.
  bool built_ = false;
  bool build_done_ = false;
  // Sub-graphs (aclmdlRIAddCondTask): the parent, whether a capture filled it, and while a
  // capture on the parent's stream fills it, the parent to return the stream to.
  Graph* parent_ = nullptr;
  bool filled_ = false;
  std::shared_ptr<Graph> outer_;
  std::vector<std::shared_ptr<Graph>> children_;
  std::vector<std::shared_ptr<GraphCond>> conds_;
  std::vector<std::shared_ptr<GraphTaskGroup>> groups_;
  std::unique_ptr<HostWorker> cond_worker_;  // runs this instance's conditional nodes
  bool update_fault_ = false;                // a SetParams failed: aclmdlRIUpdate answers 107040
  std::shared_ptr<Stream> exec_stream_;      // aclmdlRIExecute's stream (built instances)
  bool has_control_ = false;
  std::vector<Segment> segments_;
  std::vector<int32_t> lane_first_segment_;         // per lane: its first dynamic segment, or -1
  std::vector<std::shared_ptr<Stream>> dyn_lanes_;  // per lane: the stream its segments run on
  std::shared_ptr<Event> segment_event_;            // what the segments' end records belong to
  std::unique_ptr<HostWorker> join_worker_;
  // The running execution's dynamic part (executions of one instance never overlap): lanes
  // started, and the end records of the segments submitted. Reset by the Join step.
  std::mutex dyn_mu_;
  std::vector<char> lane_started_;
  std::vector<std::shared_ptr<EventRecord>> segment_ends_;
  // End records of executions submitted and maybe unfinished (aclmdlRIAbort completes them).
  std::vector<std::shared_ptr<EventRecord>> inflight_ends_;
  // The task instances every execution reuses (sched/replay.hpp): captured instances without
  // conditional nodes, sanitizer off. Rebuilt after an update; null: the launcher path.
  std::shared_ptr<Replay> replay_;
  // Templates replaced by aclrtTaskUpdateAsync while executions that cloned them (sharing their
  // argument block) may still run: freed once the end records of those executions completed.
  struct Retired {
    std::unique_ptr<Task> task;
    std::unique_ptr<KernelLaunchInfo> kernel;
    std::vector<std::shared_ptr<EventRecord>> ends;
  };
  std::vector<Retired> retired_;  // guarded by GraphTable::launch_mu_
};

// The runtime's graphs and active captures.
class GraphTable {
 public:
  GraphTable() = default;
  ~GraphTable() { stop_launcher(); }
  // Stops the start worker (teardown, after every graph was released).
  void stop_launcher();
  // True while some capture is open anywhere (the fast-path test of Runtime::submit).
  bool any_active() const {
    return active_count_.load(std::memory_order_acquire) != 0 || routed_count_.load(std::memory_order_acquire) != 0;
  }

  Status begin(Stream& stream, std::shared_ptr<Stream> owner, CaptureMode mode, void** handle);
  Status end(Stream& stream, void** handle);
  // aclmdlRICaptureGetInfo: 0 none, 1 active, 2 invalidated.
  void info(const Stream& stream, int* status, void** handle);
  std::shared_ptr<Graph> find(void* handle) const { return graphs_.find(handle); }

  // Runtime::submit: `task` aims at a capturing stream, or is an event wait while captures are
  // open. Sets *taken when the capture took the task (freeing it), else the caller submits it.
  // *task_id: the id of the node it became (its position in its stream, from 1), else 0.
  Status capture(Task* task, bool* taken, uint32_t* task_id = nullptr);
  // Operations a capture forbids on its streams: a synchronize or query invalidates the capture.
  Status refuse_on_capturing(Stream& stream, const char* what);
  // An event whose record was captured (query / synchronize): kEventCaptured.
  Status check_event(const Event& event);
  // Unsafe calls under the capture modes (synchronous copies, async copies of pageable memory).
  Status check_unsafe(const Context* context, bool async_copy, const char* what);
  // The default stream of a context with an open capture (implicit dependency).
  Status check_default_stream(const Stream& stream);

  // `end_out`: the execution's end record (aclmdlRIExecute waits for it).
  Status execute(Graph& graph, const std::shared_ptr<Stream>& stream, std::shared_ptr<EventRecord>* end_out = nullptr);
  // aclmdlRIExecute / aclmdlRIAbort of a built instance.
  Status execute_sync(Graph& graph, int32_t timeout_ms);
  Status abort(Graph& graph);

  // Explicit build (runtime/graph_build.cpp).
  Status build_begin(Context* context, void** handle);
  Status bind(Graph& g, const std::shared_ptr<Stream>& stream, uint32_t flag);
  Status end_task(Graph& g, Stream& stream);
  Status build_end(Graph& g);
  Status unbind(Graph& g, Stream& stream);
  Status persistent_clean(Stream& stream);
  // aclmdlRICaptureToModelRIBegin: fills sub-graph `sub` from `stream`.
  Status begin_sub(Stream& stream, std::shared_ptr<Stream> owner, Graph& sub, CaptureMode mode);
  // Task groups and their update.
  Status group_begin(Stream& stream);
  Status group_end(Stream& stream, void** handle);
  Status update_begin(Stream& stream, void* group);
  Status update_end(Stream& stream);
  // Per-task inspection and update.
  Status get_streams(Graph& g, void** streams, uint32_t* count);
  Status tasks_by_stream(void* stream, void** tasks, uint32_t* count);
  Status task_type(void* task, uint32_t* type);
  Status task_seq(void* task, uint32_t* seq);
  Status task_get_params(void* task, aclmdlRITaskParams* params);
  Status task_set_params(void* task, const aclmdlRITaskParams* params);
  Status task_disable(void* task);
  Status kernel_attribute(void* task, int32_t attr, aclrtLaunchKernelAttrValue* value);
  Status update(Graph& g);
  // Conditions.
  Status cond_create(Graph& g, uint64_t default_value, bool assign_default, uint64_t* word, void** handle);
  Status cond_ptr(void* handle, uint64_t** ptr);
  Status add_cond(Stream& stream, void* cond, uint32_t type, uint32_t size, void** branches);
  // aclrtActiveStream / aclrtSwitchStream on bound `stream` (a switch: `left` and `right` set).
  Status add_control(Stream& stream, Stream& target, bool is_switch, const void* left, const void* right, uint32_t cond,
                     uint32_t type);
  // aclrtTaskUpdateAsync. find_bound_task: the node `task_id` (aclrtGetThreadLastTaskId after its
  // launch) of model-bound `stream` (107005 if it is not bound, 107000 if there is no such task);
  // `inspect` sees it under the table's lock. replace_template: the node's next executions run
  // `task` (and report `kernel`); `make` builds both from the current node under the lock, and
  // its failure is returned. Never waits for an execution (it runs as a device task).
  using NodeInspector = std::function<Status(const GraphNode&)>;
  using NodeMaker = std::function<Status(const GraphNode&, std::unique_ptr<Task>*, std::unique_ptr<KernelLaunchInfo>*)>;
  Status find_bound_task(Stream& stream, uint32_t task_id, const NodeInspector& inspect, std::weak_ptr<Graph>* graph,
                         int32_t* node);
  Status replace_template(const std::weak_ptr<Graph>& graph, int32_t node, const NodeMaker& make);
  // Runs the destroy callbacks, waits for pending executions and drops the graph.
  Status destroy(void* handle);
  // aclmdlRIDebugJsonPrint's Chrome-tracing document and aclmdlRIDebugPrint's text.
  std::string to_json(Graph& graph, bool verbose);
  std::string describe(Graph& graph);
  // Destroys every graph of `context` (nullptr: every graph), when a context or the runtime goes.
  void release(const Context* context);

 private:
  void finish_plan(Graph& g);
  // (Re)builds g.replay_ from the plan and the current templates; executions must be idle.
  void build_replay(Graph& g);
  // Waits until no execution of g.replay_ is queued or running.
  static void wait_replay_idle(Graph& g);
  // Waits until no execution of `g` is queued or running; returns holding g.exec_mu exclusively.
  std::unique_lock<std::shared_mutex> quiesce(Graph& g);
  // Drops the replay plan and its hidden streams (aclrtPersistentTaskClean rebuilds it).
  void drop_plan(Graph& g);
  // Runs a sub-graph to completion from a condition worker.
  void run_sync(Graph& g);
  static void run_cond(void* node);
  static void run_control(void* node);
  static void run_join(void* graph);
  // Built instances with control nodes: splits the dynamic nodes into segments (at BuildEnd,
  // before the plan); refuses event dependencies between them and other streams.
  Status plan_segments_locked(Graph& g, const std::vector<int32_t>& lane0_frontier);
  void start_lane(Graph& g, uint32_t lane);
  void submit_segment(Graph& g, int32_t segment);
  // The node behind a task handle (aclmdlRITask), found with mu_ held and returned holding it.
  struct LockedTask {
    std::shared_ptr<Graph> graph;  // declared first: released after the lock
    GraphNode* node = nullptr;
    std::unique_lock<std::mutex> lock;
  };
  Status lock_task(void* handle, bool for_update, LockedTask* out);
  Status stage_update_locked(Task* task);
  void add_node_locked(Graph& g, uint32_t lane, std::unique_ptr<Task> task);
  void forget_parts(Graph& g);
  Status destroy_graph(const std::shared_ptr<Graph>& g);
  void unbind_all_locked(Graph& g);
  void close_capture_locked(Graph& g);
  void invalidate_locked(Graph& g, const std::string& why);
  uint32_t thread_mode() const;

  // Launcher path (runtime/graph.cpp): an execution's tasks are cloned and submitted when its
  // start call reaches the head of the replay stream (a blocking host call served by
  // start_worker_), so updates ordered before it apply and an abort that drops it runs nothing.
  struct Launch {
    std::shared_ptr<Graph> graph;
    std::shared_ptr<EventRecord> start, end;
  };
  struct Start;
  static void run_start(void* start);
  static void free_start(void* start);  // the task is destroyed: a start that never ran is dropped
  void submit_launch(Launch& launch, GraphLaunchProf* prof = nullptr);  // prof: gets the node and lane counts
  void sweep_retired_locked(Graph& g);

  std::mutex launch_mu_;
  std::condition_variable drained_cv_;        // a graph's pending_ dropped
  std::unique_ptr<HostWorker> start_worker_;  // made on first use

  mutable std::mutex mu_;
  HandleTable<Graph> graphs_{HandleKind::Graph};
  HandleTable<GraphPartRef> task_refs_{HandleKind::GraphTask};
  HandleTable<GraphPartRef> lane_refs_{HandleKind::GraphStream};
  HandleTable<GraphTaskGroup> groups_{HandleKind::TaskGroup};
  HandleTable<GraphCond> conds_{HandleKind::CondHandle};
  std::atomic<int> routed_count_{0};            // bound streams and streams collecting an update
  std::vector<std::shared_ptr<Graph>> active_;  // open captures
  std::atomic<int> active_count_{0};
  std::atomic<uint32_t> next_id_{0};
};

// aclmdlRICaptureThreadExchangeMode: the calling thread's capture mode.
CaptureMode exchange_thread_capture_mode(CaptureMode mode);

}  // namespace arun
