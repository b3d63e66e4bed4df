// Replay: one captured graph's task instances, built once when the graph is instantiated and
// reused by every execution (runtime/graph.cpp builds it; the scheduler runs it).
//
// Why: cloning a graph's tasks per execution costs the host per node, and handing the clone-and-
// submit to another thread costs a futex wake. Instead aclmdlRIExecuteAsync enqueues one
// TaskKind::GraphLaunch marker on the replay stream. When the marker reaches the head of its
// stream, the scheduler (whichever thread advanced the stream, under its lock) starts the
// execution: it resets the private edge records and feeds each lane's hidden stream its first
// task; every time a lane's head retires, the lane's next task is fed (Scheduler::finish). So
// the caller does O(lanes) work, nodes are released as their dependencies complete, and the
// marker stays at its stream's head until every lane ran out, keeping later work behind the graph.
//
// Executions of one instance never overlap (our choice in the spec): a marker that reaches its
// head while the instance runs waits in `waiting` and starts when the running execution ends, so
// one set of task instances suffices. All fields except the counters are guarded by the
// scheduler mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace arun {

namespace rt {
class TaskObserver;
}
class Stream;
struct Task;
struct EventRecord;

// What the profiler's one record of an execution (plugin::RecordKind::GraphLaunch) needs besides
// the launching task's own fields (thread, stream, correlation, enqueue); filled only while a
// session collects tasks. The launcher path shares it between the start call, which fills the
// start, and the wait for the end record, which writes the record when it retires.
struct GraphLaunchProf {
  uint32_t name = 0;  // interned: the instance's name, or "modelRI <id>"
  uint32_t graph_id = 0;
  uint32_t nodes = 0;            // node tasks the execution runs
  uint32_t lanes = 0;            // hidden streams they run on
  uint64_t start_ticks = 0;      // prof::ticks() when it started; 0: it never did
  uint64_t start_device_ns = 0;  // the same instant on the device clock
};

struct Replay {
  struct Lane {
    Stream* stream = nullptr;  // hidden stream the graph owns (outlives the Replay's executions)
    std::vector<Task*> tasks;  // in plan order; owned by Replay::owned
    size_t next = 0;           // the next task to feed
  };
  std::vector<Lane> lanes;
  std::vector<std::unique_ptr<Task>> owned;
  std::vector<std::shared_ptr<EventRecord>> records;  // cross-lane edges: reset at every start
  uint32_t graph_id = 0;
  uint32_t nodes = 0;       // tasks of `owned` that are graph nodes (the rest are edge records / waits)
  uint32_t work_nodes = 0;  // of those, device work (what a task observer hears of)

  // Scheduler state.
  bool running = false;
  Task* launch = nullptr;         // the running execution's marker (nullptr once dropped by an abort)
  uint32_t lanes_left = 0;        // lanes of the running execution not yet run out
  std::deque<Stream*> waiting;    // replay streams whose marker waits for the running execution
  uint64_t prof_correlation = 0;  // the running execution's launch (its node records link to it)
  uint64_t prof_enqueue = 0;      // 0: the running execution is not profiled
  uint32_t prof_thread = 0;
  int32_t prof_stream = 0;
  GraphLaunchProf prof;
  // An aclprofModelSubscribe observer active where the running execution was launched: each node
  // task fed reports to it; observer_left counts the reports still owed (nodes not fed yet).
  std::shared_ptr<rt::TaskObserver> observer;
  uint64_t observer_cookie = 0;
  uint32_t observer_left = 0;

  // Executions issued by aclmdlRIExecuteAsync and executions over (ran, or dropped unrun); the
  // instance is idle when they are equal (destroy and update wait for it).
  std::atomic<uint64_t> issued{0};
  std::atomic<uint64_t> ended{0};
  std::atomic<bool> closed{false};  // the instance is being destroyed: no execution may start
  // A retired GraphLaunch marker (`pooled`) kept for the next aclmdlRIExecuteAsync, which takes it
  // without a lock: an execution costs no allocation. Put back under the scheduler mutex.
  std::atomic<Task*> spare_marker{nullptr};
  bool idle() const { return ended.load(std::memory_order_acquire) == issued.load(std::memory_order_acquire); }

  ~Replay();
};

}  // namespace arun
