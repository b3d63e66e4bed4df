// Task: one entry of a stream's in-order queue. Device work (copy, memset, kernel) derives its
// description from plugin::Work so the device can execute it directly; markers (event record,
// event wait, event reset) never reach a device: the scheduler retires them when they become the
// stream's head and their condition holds. Host calls (aclrtLaunchCallback, aclrtLaunchHostFunc)
// never reach a device either: at the head of their stream they are posted to a HostQueue, and a
// blocking one keeps the stream's head until the host thread that runs it reports back.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "arun/plugin/device.hpp"
#include "arun/runtime/task_observer.hpp"
#include "runtime/ipc_event.hpp"
#include "sanitizer/stream_sanitizer.hpp"

struct arunBlock;  // what a user kernel sees of its block (arun/kernel.h): a plugin::KernelContext

namespace arun {

class Stream;
class Scheduler;
class Event;
struct EventRecord;
struct NotifyState;
struct Replay;
struct GraphLaunchProf;

// NotifyRecord / NotifyWait (aclrtRecordNotify, aclrtWaitAndResetNotify), ValueWrite / ValueWait
// (aclrtValueWrite, aclrtValueWait) are device-side markers too: a wait that does not hold when it
// reaches the head blocks only its stream, and the scheduler re-checks it when a record, a value
// write or a completed device task could have made it true (sched/device_waits.cpp).
enum class TaskKind : uint8_t {
  Work,
  EventRecord,
  EventWait,
  EventReset,
  HostCall,
  NotifyRecord,
  NotifyWait,
  ValueWrite,
  ValueWait,
  IpcWait,     // a stream wait on an IPC event opened from another process's handle (sched/ipc_watcher.hpp)
  GraphLaunch  // one execution of a captured graph (sched/replay.hpp): holds its stream's head until it ends
};

class HostQueue;

struct Task : plugin::Work {
  TaskKind task_kind = TaskKind::Work;
  plugin::UnitKind unit_kind = plugin::UnitKind::Compute;
  uint32_t unit = 0;
  Stream* stream = nullptr;  // the stream outlives its tasks (destroying a stream drains it)
  Scheduler* scheduler = nullptr;
  uint64_t seq = 0;  // position in the stream, from 1
  // Set by the policy when the task became ready: its clock (policies that age tasks) and a
  // device-wide counter (ties and FIFO order across streams).
  uint64_t ready_ns = 0;
  uint64_t ready_seq = 0;
  std::shared_ptr<EventRecord> record;  // EventRecord / EventWait: the record it completes or waits for
  std::shared_ptr<Event> event;         // EventWait / EventReset
  // ascend-run device tasks (arunLaunchDeviceTask): a plain host function run on a compute unit
  void (*host_fn)(void*) = nullptr;
  void* host_user = nullptr;
  // arunLaunchKernel: the user's kernel, its argument block, and what frees the block (once, when
  // the task is destroyed: after it ran, when it is dropped, or when it is refused).
  void (*user_kernel)(arunBlock* block, void* args) = nullptr;
  void* user_args = nullptr;
  void (*free_user_args)(void* args) = nullptr;
  uint32_t user_args_bytes = 0;  // LaunchAttrs::args_bytes (0: unknown); exception info
  // Overflow detection (spec part 2, 4.8): the device's overflow status word when the stream's
  // switch was on at submission, else nullptr; a block's arunBlockReportOverflow sets it.
  std::atomic<uint32_t>* overflow_sink = nullptr;
  // HostCall: host_fn(host_user) runs on a thread serving `host_queue`.
  std::shared_ptr<HostQueue> host_queue;
  bool host_blocking = true;
  // Host thread that submitted the task (exception info), and a flag the device polls between
  // blocks or chunks: set by aclrtStreamStop / aclrtStreamAbort to halt the task while it runs.
  uint32_t submitter_tid = 0;
  std::atomic<bool> cancel_requested{false};
  bool dispatched = false;  // handed to a unit (guarded by the scheduler mutex)
  // NotifyRecord / NotifyWait: the notify; ValueWrite / ValueWait: the device address, the value
  // and the flag (ACL_STREAM_WAIT_VALUE_*).
  std::shared_ptr<NotifyState> notify;
  uint64_t value_addr = 0;
  uint64_t value = 0;
  uint32_t value_flag = 0;
  // EventWait / NotifyWait / ValueWait: how long the wait may block its stream (counted from when
  // it does) before it fails with ACL_ERROR_RT_TASK_TIMEOUT; < 0: forever. Scheduler::wait_timer_.
  int64_t wait_timeout_ns = -1;
  // Profiling (profiling.hpp): set only while a session collects tasks. prof_enqueue != 0 marks
  // a task that is being profiled; enqueue and ready are prof::ticks(), converted when the record is
  // written; prof_name is the interned LaunchAttrs::op_name of a kernel launch (an operator's
  // type), else the record is named after the work kind.
  uint64_t prof_enqueue = 0;
  uint64_t prof_ready = 0;
  uint64_t correlation = 0;
  uint32_t prof_name = 0;
  uint32_t prof_depth = 0;
  // A kernel launch's operator details (LaunchAttrs::op_detail, interned; model_tag), carried to
  // the record's value0 / value2 (plugin::OpDetailField).
  uint32_t prof_detail = 0;
  uint64_t prof_model = 0;
  // A TaskObserverScope active when the task was submitted (aclprofModelSubscribe): told when the
  // task completes, or here when it is destroyed unrun.
  std::shared_ptr<rt::TaskObserver> observer;
  uint64_t observer_cookie = 0;
  uint32_t observer_count = 1;  // reports owed to `observer`: a GraphLaunch marker owes one per node
  // IPC events (runtime/ipc_event.hpp): an EventRecord of an exported event publishes record
  // number ipc_n on the page when the task is destroyed (retired, dropped or refused alike); an
  // IpcWait waits until the page's completed count reaches ipc_n.
  std::shared_ptr<IpcEventShare> ipc;
  uint64_t ipc_n = 0;
  bool ipc_watched = false;  // a blocked wait registered with the IpcWatcher (scheduler mutex)
  // Stream sanitizer (sanitizer/stream_sanitizer.hpp): set at submission while it is on, else null.
  std::shared_ptr<san::TaskState> san;
  // GraphLaunch: the graph's task instances. `pooled`: an instance owned by a Replay, which the
  // scheduler reuses instead of deleting when it retires.
  std::shared_ptr<Replay> replay;
  bool pooled = false;
  // A launcher-path execution (runtime/graph.cpp), while profiled: its start call (no record of its
  // own) and the wait for its end record, which writes the RecordKind::GraphLaunch record.
  std::shared_ptr<GraphLaunchProf> graph_prof;

  Task() = default;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (observer)
      for (uint32_t i = 0; i < observer_count; ++i) observer->task_finished(observer_cookie, false, 0, 0);
    if (free_user_args != nullptr) free_user_args(user_args);
    if (ipc && task_kind == TaskKind::EventRecord) ipc->complete(ipc_n);
    if (san) [[unlikely]]
      san::task_destroyed(san.get());
  }
};

}  // namespace arun
