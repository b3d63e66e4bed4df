#include "sched/scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include <boost/container/small_vector.hpp>

#include <unistd.h>

#include "arun/runtime/recorder.hpp"
#include "base/logging.hpp"
#include "host/host_queue.hpp"
#include "runtime/context.hpp"
#include "runtime/event.hpp"
#include "sched/ipc_watcher.hpp"
#include "sched/scheduler_batch.hpp"

namespace arun {

namespace {
std::atomic<FailureListener> g_failure_listener{nullptr};
std::atomic<uint64_t> g_direct_submit_default{0};

bool stops_on_failure(const Stream& s) {
  if (s.failure_mode_set.load(std::memory_order_acquire)) return s.failure_mode.load() == 1;  // ACL_STOP_ON_FAILURE
  return s.context() != nullptr && s.context()->stop_on_failure.load(std::memory_order_acquire);
}
}  // namespace

void Scheduler::set_failure_listener(FailureListener listener) {
  g_failure_listener.store(listener);
}

void Scheduler::set_direct_submit_default(uint64_t max_bytes) {
  g_direct_submit_default.store(max_bytes, std::memory_order_relaxed);
}

uint64_t Scheduler::direct_submit_default() {
  return g_direct_submit_default.load(std::memory_order_relaxed);
}

Scheduler::Scheduler(plugin::Device* device, std::unique_ptr<SchedulerPolicy> policy, int32_t device_id,
                     uint32_t queue_depth)
    : device_(device),
      policy_(std::move(policy)),
      device_id_(device_id),
      queue_depth_(std::max(queue_depth, 1u)),
      direct_max_bytes_(g_direct_submit_default.load(std::memory_order_relaxed)) {
  for (uint32_t k = 0; k < plugin::kUnitKindCount; ++k) {
    uint32_t n = device_->unit_count(static_cast<plugin::UnitKind>(k));
    // Highest index at the back: units are handed out from unit 0 upwards.
    for (uint32_t u = n; u-- > 0;) free_units_[k].push_back(u);
  }
}

// wait_timer_, the last member, joins its thread first; the IPC watcher must not call us after.
Scheduler::~Scheduler() {
  IpcWatcher::instance().forget(this);
}

void Scheduler::add_stream(const std::shared_ptr<Stream>& stream) {
  std::lock_guard lock(mu_);
  streams_.emplace(stream.get(), stream);
  policy_->stream_added(*stream);
}

// Drops every task of `s` that has not started; returns true if a running head was kept. Dropped
// event records complete now, so that no stream or host thread waits forever for work that will
// never run; dropped tasks count as completed, so waiters return.
bool Scheduler::discard_locked(Stream* s, Batch& batch) {
  bool head_running = false;
  if (!s->queue_.empty() && s->head_busy_) {
    Task* head = s->queue_.front();
    if (head->task_kind == TaskKind::Work) {
      head_running = !policy_->discard(*s);
    } else if (head->task_kind == TaskKind::HostCall) {
      head_running = true;  // posted to a host thread, which reports back
    } else if (head->task_kind == TaskKind::EventWait && head->record) {
      auto& blocked = head->record->blocked;
      blocked.erase(std::remove(blocked.begin(), blocked.end(), s), blocked.end());
    } else if (head->task_kind == TaskKind::NotifyWait || head->task_kind == TaskKind::ValueWait ||
               head->task_kind == TaskKind::IpcWait) {
      drop_device_wait_locked(head);
    }
  }
  size_t keep = head_running ? 1 : 0;
  std::vector<Stream*> unblocked;
  if (s->replay_ != nullptr) drop_lane_locked(s, unblocked);
  while (s->queue_.size() > keep) {
    Task* t = s->queue_.back();
    s->queue_.pop_back();
    if (t->task_kind == TaskKind::GraphLaunch) drop_launch_locked(s, t);
    if (t->task_kind == TaskKind::EventWait && t->event) --t->event->pending_waits;
    if (t->task_kind == TaskKind::EventRecord) {
      EventRecord& r = *t->record;
      r.device_ns = device_->now_ns();
      r.done.store(true, std::memory_order_seq_cst);
      for (Stream* w : r.blocked) unblocked.push_back(w);
      r.blocked.clear();
    }
    if (!t->pooled) {
      batch.retired.push_back(t);
    } else if (t->task_kind == TaskKind::GraphLaunch) {
      recycle_marker_locked(t, batch);
    } else if (t->observer) [[unlikely]] {  // a fed node: the instance keeps it, its report goes now
      batch.unobserved.push_back({std::move(t->observer), t->observer_cookie, 1});
    }
  }
  if (!head_running) s->head_busy_ = false;
  uint64_t last = head_running ? s->queue_.front()->seq : s->submitted_.load();
  s->submitted_.store(last, std::memory_order_release);
  if (!head_running) s->completed_.store(last, std::memory_order_release);
  if (s->replay_ != nullptr && s->queue_.empty()) feed_locked(s, batch);  // nothing left to feed: the lane ends
  batch.progressed = true;
  if (s->room_waiters_ != 0) batch.room = true;
  for (Stream* w : unblocked) {
    w->head_busy_ = false;
    advance(w, batch);
  }
  return head_running;
}

// ---------------------------------------------------------------- graph replays (sched/replay.hpp)

Replay::~Replay() {
  delete spare_marker.load(std::memory_order_acquire);
}

void Scheduler::recycle_marker_locked(Task* m, Batch& batch) {
  if (m->observer) [[unlikely]] {  // dropped before it started: its nodes never will
    batch.unobserved.push_back({std::move(m->observer), m->observer_cookie, m->observer_count});
  }
  m->observer_count = 1;
  m->prof_enqueue = 0;
  m->prof_ready = 0;
  m->prof_name = 0;
  m->correlation = 0;
  std::shared_ptr<Replay> r = std::move(m->replay);  // the instance must not own itself through its spare
  Task* none = nullptr;
  if (m->san || !r->spare_marker.compare_exchange_strong(none, m, std::memory_order_release)) [[unlikely]] {
    m->pooled = false;  // a spare is kept already (executions from several threads), or the sanitizer tracks it
    batch.retired.push_back(m);
  }
  batch.released.push_back(std::move(r));
}

void Scheduler::start_replay_locked(Stream* s, Task* launch, Batch& batch) {
  Replay& r = *launch->replay;
  r.running = true;
  r.launch = launch;
  r.prof_correlation = launch->correlation;
  r.prof_enqueue = launch->prof_enqueue;
  if (r.prof_enqueue != 0) [[unlikely]] {
    r.prof_thread = launch->submitter_tid;
    r.prof_stream = s->id();
    r.prof = GraphLaunchProf{launch->prof_name, r.graph_id, r.nodes, 0, prof::ticks(), device_->now_ns()};
    for (const auto& lane : r.lanes) r.prof.lanes += lane.tasks.empty() ? 0 : 1;
  }
  if (launch->observer) [[unlikely]] {  // the execution owes the marker's reports from now on
    r.observer = std::move(launch->observer);
    r.observer_cookie = launch->observer_cookie;
    r.observer_left = launch->observer_count;
  }
  // The previous execution is over, so nothing waits on these records any more.
  for (auto& rec : r.records) {
    rec->done.store(false, std::memory_order_relaxed);
    rec->blocked.clear();
    rec->device_ns = 0;
  }
  r.lanes_left = 0;
  for (uint32_t l = 0; l < r.lanes.size(); ++l) {
    Replay::Lane& lane = r.lanes[l];
    if (lane.tasks.empty()) continue;
    lane.next = 0;
    ++r.lanes_left;
    lane.stream->replay_ = &r;
    lane.stream->replay_lane_ = l;
  }
  if (r.lanes_left == 0) {
    end_replay_locked(r, batch);
    return;
  }
  for (auto& lane : r.lanes) {
    if (lane.tasks.empty()) continue;
    feed_locked(lane.stream, batch);
    batch.resumed.push_back(lane.stream);  // the roots start in this critical section: no hand-off
  }
}

void Scheduler::feed_locked(Stream* ls, Batch& batch) {
  Replay& r = *ls->replay_;
  Replay::Lane& lane = r.lanes[ls->replay_lane_];
  if (ls->stop_error_ != 0 || ls->abnormal_.load(std::memory_order_relaxed)) [[unlikely]] {
    // A lane stopped by a failure (ACL_STOP_ON_FAILURE) takes nothing more, as submit would refuse it.
    std::vector<Stream*> unblocked;
    drop_lane_locked(ls, unblocked);
    for (Stream* w : unblocked) {
      w->head_busy_ = false;
      batch.resumed.push_back(w);
    }
  }
  if (lane.next >= lane.tasks.size()) {
    ls->replay_ = nullptr;
    if (--r.lanes_left == 0) end_replay_locked(r, batch);
    return;
  }
  Task* t = lane.tasks[lane.next++];
  // What prepare() and enqueue_locked() do for a fresh task, minus what the instance keeps.
  t->scheduler = this;
  t->on_complete = &Scheduler::on_complete;
  t->cancel = &t->cancel_requested;
  t->cancel_requested.store(false, std::memory_order_relaxed);
  t->dispatched = false;
  t->submitter_tid = r.launch != nullptr ? r.launch->submitter_tid : 0;
  t->prof_enqueue = 0;
  t->prof_ready = 0;
  if (r.observer && t->task_kind == TaskKind::Work) [[unlikely]] {
    t->observer = r.observer;  // complete() reports and releases it
    t->observer_cookie = r.observer_cookie;
    --r.observer_left;
  }
  if (r.prof_enqueue != 0 && prof::on(prof::kTasks)) [[unlikely]] {
    t->prof_enqueue = prof::ticks();
    t->correlation = r.prof_correlation;
    if (t->task_kind == TaskKind::EventRecord) t->record->prof_id = prof::next_record_id();
  }
  t->seq = ls->submitted_.load(std::memory_order_relaxed) + 1;
  ls->submitted_.store(t->seq, std::memory_order_release);
  ls->queue_.push_back(t);
  if (t->prof_enqueue != 0) {
    t->prof_depth = 1;
    t->prof_ready = t->prof_enqueue;
  }
}

void Scheduler::end_replay_locked(Replay& r, Batch& batch) {
  r.running = false;
  if (r.prof_enqueue != 0) [[unlikely]] {
    emit_graph_record(r.prof, r.prof_thread, r.prof_stream, r.prof_correlation, r.prof_enqueue);
    r.prof_enqueue = 0;
  }
  if (r.observer) [[unlikely]] {
    // Nodes a stopped or aborted lane never fed: dropped unrun, as far as the observer knows.
    if (r.observer_left != 0) batch.unobserved.push_back({std::move(r.observer), r.observer_cookie, r.observer_left});
    r.observer.reset();
    r.observer_left = 0;
  }
  if (Task* launch = r.launch) {
    r.launch = nullptr;
    Stream* ls = launch->stream;
    ls->head_busy_ = false;
    finish(ls, launch, batch);  // retires the marker; `r` stays alive: the graph, or batch.released, holds it
    if (launch->pooled) recycle_marker_locked(launch, batch);
    batch.resumed.push_back(ls);
  }
  r.ended.fetch_add(1, std::memory_order_acq_rel);
  batch.progressed = true;  // destroy / update may be waiting for the instance to go idle
  if (!r.waiting.empty()) {
    Stream* w = r.waiting.front();
    r.waiting.pop_front();
    w->head_busy_ = false;  // its marker is the head again: advance() starts it
    batch.resumed.push_back(w);
  }
}

void Scheduler::drop_launch_locked(Stream* s, Task* launch) {
  Replay& r = *launch->replay;
  r.waiting.erase(std::remove(r.waiting.begin(), r.waiting.end(), s), r.waiting.end());
  if (r.launch == launch) {
    r.launch = nullptr;  // the execution goes on; its end finds no marker to retire
  } else {
    r.ended.fetch_add(1, std::memory_order_acq_rel);  // never started
  }
}

void Scheduler::drop_lane_locked(Stream* s, std::vector<Stream*>& unblocked) {
  Replay::Lane& lane = s->replay_->lanes[s->replay_lane_];
  // Records never fed complete now, so the other lanes do not wait for them forever.
  for (; lane.next < lane.tasks.size(); ++lane.next) {
    Task* t = lane.tasks[lane.next];
    if (t->task_kind != TaskKind::EventRecord) continue;
    EventRecord& rec = *t->record;
    rec.done.store(true, std::memory_order_seq_cst);
    for (Stream* w : rec.blocked) unblocked.push_back(w);
    rec.blocked.clear();
  }
}

void Scheduler::discard_pending(Stream& stream) {
  Batch batch;
  {
    std::lock_guard lock(mu_);
    discard_locked(&stream, batch);
    dispatch(batch);
  }
  flush(batch);
}

void Scheduler::abort(Stream& stream) {
  Batch batch;
  uint64_t running = 0;
  {
    std::lock_guard lock(mu_);
    stream.aborting_ = true;
    if (stream.room_waiters_ != 0) batch.room = true;
    stream.stop_error_ = 0;
    stream.first_error_ = 0;
    stream.abnormal_.store(false, std::memory_order_release);  // R3: abort returns it to normal
    stream.abort_epoch_.fetch_add(1, std::memory_order_acq_rel);
    if (discard_locked(&stream, batch)) {
      Task* head = stream.queue_.front();
      head->cancel_requested.store(true, std::memory_order_release);
      running = head->seq;
    }
    dispatch(batch);
  }
  flush(batch);
  if (running != 0) wait_for(stream, running, -1);
  std::lock_guard lock(mu_);
  stream.aborting_ = false;
  stream.first_error_ = 0;  // the halted task's outcome belongs to the abort
}

bool Scheduler::stop_running(Stream& stream) {
  Batch batch;
  {
    std::lock_guard lock(mu_);
    if (stream.queue_.empty() || !stream.head_busy_) return false;
    Task* head = stream.queue_.front();
    // A work head that is only ready (not yet on a unit) does not run; neither does an event wait
    // that is blocked (it is a marker). A blocking host call and a device-side wait do.
    const bool running = (head->task_kind == TaskKind::Work && head->dispatched) ||
                         head->task_kind == TaskKind::HostCall || head->task_kind == TaskKind::NotifyWait ||
                         head->task_kind == TaskKind::ValueWait || head->task_kind == TaskKind::IpcWait;
    if (!running) return false;
    if (head->task_kind == TaskKind::Work) head->cancel_requested.store(true, std::memory_order_release);
    stream.abnormal_.store(true, std::memory_order_release);
    // A running work head or host call stays until it ends; a device-side wait is killed here.
    discard_locked(&stream, batch);
    dispatch(batch);
  }
  flush(batch);
  return true;
}

bool Scheduler::drain(Stream& stream, int64_t deadline_ns) {
  const uint64_t target = stream.submitted();
  for (;;) {
    int64_t slice = Notifier::now_ns() + 20'000'000;  // re-check for a stuck wait every 20 ms
    if (deadline_ns >= 0 && deadline_ns < slice) slice = deadline_ns;
    if (wait_for(stream, target, slice)) return true;
    if (deadline_ns >= 0 && Notifier::now_ns() >= deadline_ns) return false;
    bool stuck = false;
    {
      std::lock_guard lock(mu_);
      stuck = stuck_locked(stream);
    }
    if (stuck) {
      log().warn(
          "stream {} of device {} waits on a notify or a device value that nothing can set any more; "
          "its remaining tasks are dropped",
          stream.id(), device_id_);
      discard_pending(stream);
      return true;
    }
  }
}

void Scheduler::host_call_done(Task* task) {
  Batch batch;
  // Host-call threads are not device threads: the device may be closed once this stream's work is
  // done, so quiesce() waits for this flush to finish launching before the device goes.
  struct Flushing {
    std::atomic<int>& n;
    ~Flushing() { n.fetch_sub(1, std::memory_order_release); }
  };
  host_flushes_.fetch_add(1, std::memory_order_acq_rel);
  Flushing guard{host_flushes_};
  {
    std::lock_guard lock(mu_);
    Stream* s = task->stream;
    finish(s, task, batch);
    advance(s, batch);
    if (s->detached_ && s->queue_.empty()) {
      auto it = streams_.find(s);
      batch.dropped = std::move(it->second);
      streams_.erase(it);
    }
    dispatch(batch);
  }
  flush(batch);
}

void Scheduler::remove_stream(const std::shared_ptr<Stream>& stream, bool discard) {
  if (discard) {
    discard_pending(*stream);
  } else {
    drain(*stream, -1);
  }
  std::lock_guard lock(mu_);
  policy_->stream_removed(*stream);
  if (stream->queue_.empty()) {
    streams_.erase(stream.get());
  } else {
    stream->detached_ = true;  // its running head still refers to it
  }
}

uint32_t Scheduler::blocked_submitters(const Stream& stream) const {
  std::lock_guard lock(mu_);
  return stream.room_waiters_;
}

uint32_t Scheduler::busy_units(plugin::UnitKind kind) const {
  std::lock_guard lock(mu_);
  auto k = static_cast<uint32_t>(kind);
  return device_->unit_count(kind) - static_cast<uint32_t>(free_units_[k].size());
}

void Scheduler::prepare(Task* task) {
  task->scheduler = this;
  task->on_complete = &Scheduler::on_complete;
  task->cancel = &task->cancel_requested;
  task->submitter_tid = prof::thread_id();  // cached in initial-exec TLS: no __tls_get_addr
  if (prof::on(prof::kTasks)) [[unlikely]] {
    const uint64_t span_start = prof::current_span_start();
    task->prof_enqueue = span_start != 0 ? span_start : prof::ticks();
    task->correlation = prof::current_correlation();
  }
  if (san::on()) [[unlikely]]
    san::on_submit(task);
  if (task->task_kind == TaskKind::Work) {
    uint64_t cookie = 0;
    if (rt::TaskObserver* observer = rt::current_task_observer(&cookie)) [[unlikely]] {
      task->observer = observer->shared_from_this();
      task->observer_cookie = cookie;
      observer->task_submitted(cookie);  // balanced in complete() or, if refused, by ~Task
    }
  }
}

int Scheduler::admit_locked(std::unique_lock<std::mutex>& lock, Stream* s, Batch* pending) {
  // Backlog: wait for room before anything else, then decide on the stream's state as it is after
  // the wait (it may have been stopped or aborted meanwhile, which also wakes us).
  if (s->queue_.size() >= queue_depth_ && s->stop_error_ == 0 && !s->aborting_) {
    if (pending != nullptr) {
      dispatch(*pending);
      lock.unlock();
      flush(*pending);
      *pending = Batch{};
      lock.lock();
    }
    ++s->room_waiters_;
    room_.wait(lock, [&] { return s->queue_.size() < queue_depth_ || s->stop_error_ != 0 || s->aborting_; });
    --s->room_waiters_;
  }
  if (s->stop_error_ != 0) return s->stop_error_;
  if (s->aborting_) return -1;
  if (s->abnormal_.load(std::memory_order_relaxed)) return static_cast<int>(Errc::rt_internal_error);
  return 0;
}

uint64_t Scheduler::submit(Task* task, Status* refused) {
  prepare(task);
  uint64_t seq = 0;
  int stop_error = 0;
  Task* direct = nullptr;
  Batch batch;
  {
    std::unique_lock lock(mu_);
    stop_error = admit_locked(lock, task->stream, nullptr);
    if (stop_error == 0) {
      enqueue_locked(task, batch);
      seq = task->seq;
    }
    dispatch(batch);
    // Dispatched in this critical section: it went straight to the head of an idle stream, nothing
    // orders before it, and the policy gave it a unit. From here on it is running, as on a unit.
    if (seq != 0 && task->dispatched && direct_candidate_locked(*task)) direct = task;
  }
  flush(batch, direct);
  if (seq != 0) return seq;
  int32_t id = task->stream->id();
  delete task;
  if (stop_error == static_cast<int>(Errc::rt_internal_error) && refused != nullptr) {
    *refused =
        Status(Errc::rt_internal_error, "stream " + std::to_string(id) +
                                            " is abnormal after aclrtStreamStop; call aclrtStreamAbort or destroy it");
  } else if (stop_error > 0 && refused != nullptr) {
    *refused = Status(static_cast<Errc>(stop_error),
                      "stream " + std::to_string(id) + " stopped after a task failed with error " +
                          std::to_string(stop_error) + " (ACL_STOP_ON_FAILURE); call aclrtStreamAbort or destroy it");
  }
  return 0;
}

Status Scheduler::submit_batch(const std::vector<Task*>& tasks) {
  for (Task* t : tasks) prepare(t);
  Status first;
  std::vector<Task*> refused;
  Batch batch;
  {
    std::unique_lock lock(mu_);
    for (Task* t : tasks) {
      const int stop_error = admit_locked(lock, t->stream, &batch);
      if (stop_error != 0) {
        if (stop_error > 0 && first.ok()) {
          first = Status(static_cast<Errc>(stop_error), "stream " + std::to_string(t->stream->id()) +
                                                            " refused the graph's tasks (stopped or abnormal)");
        }
        refused.push_back(t);
        continue;
      }
      enqueue_locked(t, batch);
    }
    dispatch(batch);
  }
  flush(batch);
  for (Task* t : refused) delete t;
  return first;
}

void Scheduler::enqueue_locked(Task* task, Batch& batch) {
  Stream* s = task->stream;
  // Captures happen in submission order: a record replaces the event's latest capture, and a
  // wait binds to the capture current now, whatever is recorded later.
  if (task->task_kind == TaskKind::EventRecord) {
    task->event->latest = task->record;
    if (task->prof_enqueue != 0) task->record->prof_id = prof::next_record_id();
  } else if (task->task_kind == TaskKind::EventWait) {
    // A wait bound in advance (a graph replay waiting for a record its worker enqueues later)
    // keeps its record.
    if (!task->record) task->record = task->event->latest;
    ++task->event->pending_waits;
  }
  task->seq = s->submitted_.load(std::memory_order_relaxed) + 1;
  s->submitted_.store(task->seq, std::memory_order_release);
  s->queue_.push_back(task);
  if (task->prof_enqueue != 0) {
    task->prof_depth = static_cast<uint32_t>(s->queue_.size());
    if (s->queue_.size() == 1) task->prof_ready = task->prof_enqueue;  // ready at once: no clock read
  }
  if (s->queue_.size() == 1) advance(s, batch);
}

// Retires every marker at the head of `stream` whose condition holds, and hands a work head to the
// policy. Streams unblocked by a completed record are processed in the same pass.
void Scheduler::advance(Stream* first, Batch& batch) {
  batch.resumed.push_back(first);
  while (!batch.resumed.empty()) {
    Stream* s = batch.resumed.back();
    batch.resumed.pop_back();
    while (!s->queue_.empty() && !s->head_busy_) {
      Task* t = s->queue_.front();
      switch (t->task_kind) {
        case TaskKind::Work:
          s->head_busy_ = true;
          if (t->san) [[unlikely]]
            san::on_ready(t);
          if (t->prof_enqueue != 0 && t->prof_ready == 0) t->prof_ready = prof::ticks();
          policy_->ready(t);
          break;
        case TaskKind::EventRecord: {
          if (t->san) [[unlikely]]
            san::on_retire(t);  // before `done`: a waiter on another device may retire at once
          EventRecord& r = *t->record;
          r.device_ns = device_->now_ns();
          r.done.store(true, std::memory_order_seq_cst);
          if (r.watched.load(std::memory_order_seq_cst)) batch.progressed = true;
          for (Stream* w : r.blocked) {
            w->head_busy_ = false;
            batch.resumed.push_back(w);
          }
          r.blocked.clear();
          if (t->prof_enqueue != 0) emit_marker_record(*t, plugin::RecordKind::EventRecord);
          finish(s, t, batch);
          break;
        }
        case TaskKind::EventWait:
          if (t->record && !t->record->done.load(std::memory_order_relaxed)) {
            t->record->blocked.push_back(s);
            s->head_busy_ = true;
            if (t->wait_timeout_ns >= 0) [[unlikely]]
              wait_timer_.arm(WaitTimer::now_ns() + static_cast<uint64_t>(t->wait_timeout_ns), s, s->uid(), t->seq);
          } else {
            if (t->event) --t->event->pending_waits;
            if (t->prof_enqueue != 0) emit_marker_record(*t, plugin::RecordKind::EventWait);
            if (t->graph_prof && t->prof_enqueue != 0) [[unlikely]]  // a launcher-path execution ended
              emit_graph_record(*t->graph_prof, t->submitter_tid, s->id(), t->correlation, t->prof_enqueue);
            finish(s, t, batch);
          }
          break;
        case TaskKind::EventReset:
          t->event->latest.reset();
          finish(s, t, batch);
          break;
        case TaskKind::NotifyRecord:
        case TaskKind::NotifyWait:
        case TaskKind::ValueWrite:
        case TaskKind::ValueWait:
        case TaskKind::IpcWait:
          run_device_marker_locked(s, t, batch);
          break;
        case TaskKind::GraphLaunch:
          s->head_busy_ = true;  // until the execution ends (end_replay_locked)
          if (t->replay->running) {
            t->replay->waiting.push_back(s);
          } else {
            start_replay_locked(s, t, batch);
          }
          break;
        case TaskKind::HostCall: {
          // Posted under the mutex so that the calls of a stream reach their thread in order.
          HostCall call{t->host_fn, t->host_user, s, t->host_blocking ? t : nullptr};
          if (t->san) [[unlikely]] {
            san::on_ready(t);
            call.san = t->san;
          }
          if (t->prof_enqueue != 0 && !t->graph_prof) {
            call.prof_enqueue = t->prof_enqueue;
            call.prof_posted = prof::ticks();
            call.correlation = t->correlation;
            call.prof_name = t->prof_name;
            call.submitter_tid = t->submitter_tid;
            call.device = device_id_;
            call.stream_id = s->id();
            call.prof_depth = t->prof_depth;
          }
          bool posted = t->host_queue && t->host_queue->post(call);
          if (posted && t->host_blocking) {
            s->head_busy_ = true;
          } else {
            finish(s, t, batch);  // non-blocking, or its thread unsubscribed meanwhile (skipped)
          }
          break;
        }
      }
    }
  }
}

void Scheduler::finish(Stream* s, Task* t, Batch& batch) {
  if (t->san && t->task_kind != TaskKind::Work && t->task_kind != TaskKind::HostCall &&
      t->task_kind != TaskKind::EventRecord) [[unlikely]]
    san::on_retire(t);
  s->queue_.pop_front();
  if (s->room_waiters_ != 0) batch.room = true;
  s->head_busy_ = false;
  s->completed_.store(t->seq, std::memory_order_seq_cst);
  if (t->seq >= s->notify_at_.load(std::memory_order_seq_cst)) {
    s->notify_at_.store(UINT64_MAX, std::memory_order_relaxed);  // woken waiters register again
    batch.progressed = true;
  }
  if (!t->pooled) batch.retired.push_back(t);
  if (s->replay_ != nullptr && s->queue_.empty()) feed_locked(s, batch);
}

// A failed task: the stream's first error and, under a context in stop-on-failure mode, the
// context's sticky error (spec part 2, R3).
void Scheduler::note_failure_locked(Stream* s, int code, const char* message) {
  if (s->first_error_ == 0) {
    s->first_error_ = code;
    s->first_error_message_ = message != nullptr ? message : "";
  }
  Context* ctx = s->context();
  if (ctx != nullptr && ctx->stop_on_failure.load(std::memory_order_acquire)) {
    int none = 0;
    ctx->sticky_error.compare_exchange_strong(none, code, std::memory_order_acq_rel);
  }
}

// A marker (device-side wait or write) that failed on the device: reported like a failed task
// (the exception callbacks are not called for markers) and retired; its stream goes on unless it
// stops on failure.
void Scheduler::fail_marker_locked(Stream* s, Task* t, int code, Batch& batch) {
  note_failure_locked(s, code);
  finish(s, t, batch);
  if (stops_on_failure(*s)) {
    s->stop_error_ = code;
    discard_locked(s, batch);
  }
  batch.resumed.push_back(s);
}

void Scheduler::dispatch(Batch& batch) {
  for (uint32_t k = 0; k < plugin::kUnitKindCount; ++k) {
    auto kind = static_cast<plugin::UnitKind>(k);
    auto& free = free_units_[k];
    while (!free.empty()) {
      Task* t = policy_->pick(kind);
      if (t == nullptr) break;
      t->unit = free.back();
      t->dispatched = true;
      if (t->san) [[unlikely]]
        san::on_dispatch(t);
      free.pop_back();
      policy_->started(*t);
      batch.launches.push_back({kind, t->unit, t});
    }
  }
}

void Scheduler::flush(Batch& batch, Task* direct) {
  for (auto& l : batch.launches) {
    if (l.task != direct) device_->launch(l.kind, l.unit, l.task);
  }
  if (batch.progressed) notifier_.notify();
  if (batch.room) room_.notify_all();
  for (Task* t : batch.retired) delete t;
  for (auto& u : batch.unobserved)
    for (uint32_t i = 0; i < u.count; ++i) u.observer->task_finished(u.cookie, false, 0, 0);
  if (direct != nullptr) run_direct(direct);
}

// Direct submission: tiny copies and memsets, which a hand-off to a device thread and back would
// cost more than the work itself (bench/README.md, "Direct submission"). A sanitized task keeps
// the device thread (the sanitizer protects pinned pages while queued work uses them).
bool Scheduler::direct_candidate_locked(const Task& t) const {
  const uint64_t max = direct_max_bytes_.load(std::memory_order_relaxed);
  if (max == 0 || t.task_kind != TaskKind::Work || t.san || t.pooled || t.stream->replay_ != nullptr) return false;
  switch (t.kind) {
    case plugin::WorkKind::Copy:
    case plugin::WorkKind::Memset:
      return t.bytes <= max;
    case plugin::WorkKind::Copy2D: {
      uint64_t bytes = 0;
      return !__builtin_mul_overflow(t.width, t.height, &bytes) && bytes <= max;
    }
    case plugin::WorkKind::Kernel:
      return false;
  }
  return false;
}

// The task holds its unit and its stream's head (dispatched, head_busy_), exactly as if it had
// been posted: later tasks of the stream, event records included, queue behind it, and a stop or
// an abort sees it running and asks it to stop through Work::cancel. complete() then does what the
// device's callback would have done, on this thread and with no lock held.
void Scheduler::run_direct(Task* task) {
  // Like a host call's flush: the completion may launch other streams' tasks after publishing
  // this one, so a device close waits for that (quiesce()).
  struct Flushing {
    std::atomic<int>& n;
    ~Flushing() { n.fetch_sub(1, std::memory_order_release); }
  };
  host_flushes_.fetch_add(1, std::memory_order_acq_rel);
  Flushing guard{host_flushes_};
  direct_runs_.fetch_add(1, std::memory_order_relaxed);
  plugin::WorkResult r = device_->execute_now(task);
  r.unit = task->unit;
  complete(task, r);
}

void Scheduler::on_complete(plugin::Work* work, const plugin::WorkResult& result) {
  auto* task = static_cast<Task*>(work);
  task->scheduler->complete(task, result);
}

void Scheduler::complete(Task* task, const plugin::WorkResult& result) {
  if (task->san) [[unlikely]]
    san::on_complete(task);  // pinned pages open before anyone can see the completion
  // A task halted on request (aclrtStreamStop / aclrtStreamAbort) did not fail.
  bool halted = result.status == static_cast<int>(Errc::rt_device_task_abort) &&
                task->cancel_requested.load(std::memory_order_acquire);
  bool failed = result.status != 0 && !halted;
  // The exception hooks run before the completion is published, so a synchronize that reports the
  // failure returns after they did; no lock is held while they run.
  if (failed) {
    if (FailureListener listener = g_failure_listener.load()) {
      const bool kernel = task->user_kernel != nullptr;
      listener({static_cast<uint32_t>(task->seq), task->stream->id(), task->submitter_tid, device_id_, result.status,
                kernel, kernel ? task->user_args : nullptr, kernel ? task->user_args_bytes : 0});
    }
  }
  // The work is done with its arguments: free a kernel's argument block (arunLaunchKernel) now,
  // with no lock held and before the completion is published, so that a synchronize that returns
  // finds it freed. Tasks that never ran free theirs when they are destroyed.
  if (task->free_user_args != nullptr) {
    auto free_args = task->free_user_args;
    task->free_user_args = nullptr;
    free_args(task->user_args);
  }
  // Written before the completion is published, so a program that synchronizes and then stops
  // profiling finds the record delivered.
  if (task->prof_enqueue != 0) emit_task_record(*task, result);
  if (task->observer) [[unlikely]] {
    // Device times on the steady clock: both clocks advance at 1 ns per ns, so the distance back
    // from "now" carries over.
    const uint64_t steady_now = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
    const uint64_t device_now = device_->now_ns();
    const auto to_steady = [&](uint64_t t) { return steady_now - (device_now >= t ? device_now - t : 0); };
    std::shared_ptr<rt::TaskObserver> observer = std::move(task->observer);
    observer->task_finished(task->observer_cookie, true, to_steady(result.start_ns), to_steady(result.end_ns));
  }
  Batch batch;
  {
    std::lock_guard lock(mu_);
    Stream* s = task->stream;
    free_units_[static_cast<uint32_t>(task->unit_kind)].push_back(task->unit);
    policy_->finished(*task, result.end_ns >= result.start_ns ? result.end_ns - result.start_ns : 0);
    if (failed) note_failure_locked(s, result.status, failure_messages_ ? result.message : nullptr);
    finish(s, task, batch);
    if (failed && stops_on_failure(*s)) {
      s->stop_error_ = result.status;
      discard_locked(s, batch);
    }
    advance(s, batch);
    // The task may have written device memory that a ValueWait tests.
    if (!device_waits_.empty()) {
      recheck_device_waits_locked(batch);
      if (!batch.resumed.empty()) {
        Stream* w = batch.resumed.back();
        batch.resumed.pop_back();
        advance(w, batch);
      }
    }
    if (s->detached_ && s->queue_.empty()) {
      auto it = streams_.find(s);
      batch.dropped = std::move(it->second);
      streams_.erase(it);
    }
    dispatch(batch);
  }
  flush(batch);
}

// A timed wait (event, notify or value wait) reached its deadline: if it is still the blocked head
// of its stream, it fails with ACL_ERROR_RT_TASK_TIMEOUT (the stream's error, which its next
// synchronize reports) and the stream moves on. Runs on the timer's thread, not a device thread:
// quiesce() waits for its flush as for a host call's.
void Scheduler::expire_wait(Stream* stream, uint64_t stream_uid, uint64_t seq) {
  Batch batch;
  host_flushes_.fetch_add(1, std::memory_order_acq_rel);
  {
    std::lock_guard lock(mu_);
    auto it = streams_.find(stream);
    if (it == streams_.end() || stream->uid() != stream_uid) {  // destroyed meanwhile
      host_flushes_.fetch_sub(1, std::memory_order_release);
      return;
    }
    Stream* s = stream;
    Task* t = s->queue_.empty() || !s->head_busy_ ? nullptr : s->queue_.front();
    bool blocked = false;
    if (t != nullptr && t->seq == seq) {
      if (t->task_kind == TaskKind::EventWait) {
        blocked = t->record && !t->record->done.load(std::memory_order_relaxed);
        if (blocked) {
          auto& waiting = t->record->blocked;
          waiting.erase(std::remove(waiting.begin(), waiting.end(), s), waiting.end());
          if (t->event) --t->event->pending_waits;
        }
      } else if (t->task_kind == TaskKind::NotifyWait || t->task_kind == TaskKind::ValueWait ||
                 t->task_kind == TaskKind::IpcWait) {
        blocked = std::find(device_waits_.begin(), device_waits_.end(), t) != device_waits_.end();
        if (blocked) drop_device_wait_locked(t);
      }
    }
    if (blocked) {
      s->head_busy_ = false;
      fail_marker_locked(s, t, static_cast<int>(Errc::rt_task_timeout), batch);
      batch.resumed.pop_back();  // fail_marker_locked queued s; advance() starts from it
      advance(s, batch);
      if (s->detached_ && s->queue_.empty()) {
        batch.dropped = std::move(it->second);
        streams_.erase(it);
      }
      dispatch(batch);
    }
  }
  flush(batch);
  host_flushes_.fetch_sub(1, std::memory_order_release);
}

namespace {
const char* task_type_name(plugin::TaskType type) {
  switch (type) {
    case plugin::TaskType::Kernel:
      return "kernel";
    case plugin::TaskType::Copy:
      return "memcpy";
    case plugin::TaskType::Copy2D:
      return "memcpy2d";
    case plugin::TaskType::Memset:
      return "memset";
    case plugin::TaskType::DeviceTask:
      return "device_task";
    case plugin::TaskType::HostCall:
      return "host_call";
  }
  return "task";
}
}  // namespace

uint64_t Scheduler::prof_clock_offset() {
  uint64_t offset = prof_clock_offset_.load(std::memory_order_relaxed);
  if (offset == 0) {
    // The device's reading bracketed by two of ours, the tightest of a few tries: a thread
    // preempted between two bare reads would skew every device timestamp by the preemption (a
    // task's end could then precede the enqueue of a task queued behind it on the timeline).
    uint64_t measured = 0;
    uint64_t tightest = UINT64_MAX;
    for (int i = 0; i < 8; ++i) {
      const uint64_t before = prof::now_ns();
      const uint64_t device = device_->now_ns();
      const uint64_t after = prof::now_ns();
      if (after - before < tightest) {
        tightest = after - before;
        measured = before + (after - before) / 2 - device;
      }
    }
    if (prof_clock_offset_.compare_exchange_strong(offset, measured, std::memory_order_relaxed)) offset = measured;
  }
  return offset;
}

void Scheduler::emit_task_record(const Task& task, const plugin::WorkResult& result) {
  if (!prof::on(prof::kTasks)) return;  // the session ended while the task ran
  const uint64_t offset = prof_clock_offset();
  plugin::Record r{};
  r.kind = plugin::RecordKind::Task;
  plugin::TaskType type = plugin::TaskType::Kernel;
  switch (task.kind) {
    case plugin::WorkKind::Copy:
      type = plugin::TaskType::Copy;
      break;
    case plugin::WorkKind::Copy2D:
      type = plugin::TaskType::Copy2D;
      break;
    case plugin::WorkKind::Memset:
      type = plugin::TaskType::Memset;
      break;
    case plugin::WorkKind::Kernel:
      type = task.host_fn != nullptr && task.user_kernel == nullptr ? plugin::TaskType::DeviceTask
                                                                    : plugin::TaskType::Kernel;
      break;
  }
  r.subkind = static_cast<uint16_t>(type);
  r.name = task.prof_name != 0 ? task.prof_name : prof::intern_static(task_type_name(type));
  r.thread = task.submitter_tid;
  r.device = device_id_;
  r.stream = task.stream->id();
  r.unit = task.unit | (task.unit_kind == plugin::UnitKind::Copy ? plugin::kCopyUnitBit : 0u);
  r.correlation = task.correlation;
  r.t0 = prof::ticks_to_ns(task.prof_enqueue);
  r.t1 = task.prof_ready != 0 ? prof::ticks_to_ns(task.prof_ready) : r.t0;
  r.t2 = result.start_ns + offset;
  r.t3 = (result.end_ns >= result.start_ns ? result.end_ns : result.start_ns) + offset;
  if (type == plugin::TaskType::Copy || type == plugin::TaskType::Copy2D || type == plugin::TaskType::Memset) {
    r.value0 = type == plugin::TaskType::Copy2D ? task.width * task.height : task.bytes;
    const bool from_device = task.src.device != nullptr, to_device = task.dst.device != nullptr;
    plugin::CopyDirection dir =
        from_device ? (to_device ? plugin::CopyDirection::DeviceToDevice : plugin::CopyDirection::DeviceToHost)
                    : (to_device ? plugin::CopyDirection::HostToDevice : plugin::CopyDirection::HostToHost);
    r.value2 = static_cast<uint64_t>(dir);
  }
  if (type == plugin::TaskType::Kernel) {
    r.value0 = task.prof_detail;
    r.value2 = task.prof_model;
  }
  r.value1 = task.block_dim;
  r.value3 = (static_cast<uint64_t>(static_cast<uint32_t>(result.status)) << 32) | task.prof_depth;
  prof::emit(r);
  // The cores that helped run the kernel's blocks: its span on their tracks too.
  for (uint64_t helpers = task.helper_units; helpers != 0; helpers &= helpers - 1) {
    plugin::Record h = r;
    h.kind = plugin::RecordKind::Blocks;
    h.unit = static_cast<uint32_t>(__builtin_ctzll(helpers));
    prof::emit(h);
  }
}

void Scheduler::emit_graph_record(const GraphLaunchProf& p, uint32_t thread, int32_t stream, uint64_t correlation,
                                  uint64_t enqueue_ticks) {
  if (!prof::on(prof::kTasks) || p.start_ticks == 0) return;  // the session ended, or it never started
  const uint64_t offset = prof_clock_offset();
  plugin::Record r{};
  r.kind = plugin::RecordKind::GraphLaunch;
  r.name = p.name;
  r.thread = thread;
  r.device = device_id_;
  r.stream = stream;
  r.correlation = correlation;
  r.t0 = prof::ticks_to_ns(enqueue_ticks);
  r.t1 = prof::ticks_to_ns(p.start_ticks);
  r.t2 = p.start_device_ns + offset;
  r.t3 = std::max(device_->now_ns(), p.start_device_ns) + offset;
  r.value0 = p.nodes;
  r.value1 = p.graph_id;
  r.value2 = p.lanes;
  prof::emit(r);
}

void Scheduler::emit_marker_record(const Task& task, plugin::RecordKind kind) {
  if (!prof::on(prof::kTasks)) return;
  plugin::Record r{};
  r.kind = kind;
  r.thread = task.submitter_tid;
  r.device = device_id_;
  r.stream = task.stream->id();
  r.correlation = task.correlation;
  r.t0 = kind == plugin::RecordKind::EventWait ? prof::ticks_to_ns(task.prof_enqueue) : prof::now_ns();
  r.t1 = prof::now_ns();
  r.value0 = task.record ? task.record->prof_id : 0;
  prof::emit(r);
}

bool Scheduler::wait_for(const Stream& stream, uint64_t seq, int64_t deadline_ns, const uint32_t* abort_epoch) {
  auto reached = [&] {
    return stream.completed() >= seq || (abort_epoch != nullptr && stream.abort_epoch() != *abort_epoch);
  };
  if (Notifier::spin(reached)) return true;
  auto& stream_rw = const_cast<Stream&>(stream);
  for (;;) {
    uint32_t epoch = notifier_.begin_park();
    // Publish what we wait for, then re-check: the completion path stores `completed` before it
    // reads `notify_at`, so one of the two sides always sees the other.
    uint64_t at = stream_rw.notify_at_.load(std::memory_order_seq_cst);
    while (seq < at && !stream_rw.notify_at_.compare_exchange_weak(at, seq, std::memory_order_seq_cst)) {
    }
    if (reached()) {
      notifier_.cancel_park();
      return true;
    }
    if (!notifier_.park(epoch, deadline_ns)) return reached();
    if (reached()) return true;
  }
}

bool Scheduler::wait_all(int64_t deadline_ns) {
  std::vector<std::pair<std::shared_ptr<Stream>, uint64_t>> targets;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, s] : streams_) targets.emplace_back(s, s->submitted());
  }
  for (auto& [s, seq] : targets) {
    if (!wait_for(*s, seq, deadline_ns)) return false;
  }
  return true;
}

int Scheduler::take_error(Stream& stream, std::string* message) {
  std::lock_guard lock(mu_);
  int e = stream.first_error_;
  stream.first_error_ = 0;
  if (message != nullptr) *message = std::move(stream.first_error_message_);
  stream.first_error_message_.clear();
  return e;
}

int Scheduler::take_any_error(std::string* message) {
  std::lock_guard lock(mu_);
  int first = 0;
  for (auto& [key, s] : streams_) {
    if (s->first_error_ != 0 && first == 0) {
      first = s->first_error_;
      if (message != nullptr) *message = s->first_error_message_;
    }
    s->first_error_ = 0;
    s->first_error_message_.clear();
  }
  return first;
}

std::shared_ptr<EventRecord> Scheduler::latest_record(const Event& event) {
  std::lock_guard lock(mu_);
  return event.latest;
}

bool Scheduler::waits_pending(const Event& event) {
  std::lock_guard lock(mu_);
  return event.pending_waits > 0;
}

bool Scheduler::wait_record(const EventRecord& record, int64_t deadline_ns) {
  auto done = [&] { return record.done.load(std::memory_order_seq_cst); };
  if (Notifier::spin(done)) return true;
  const_cast<EventRecord&>(record).watched.store(true, std::memory_order_seq_cst);
  for (;;) {
    uint32_t epoch = notifier_.begin_park();
    if (done()) {
      notifier_.cancel_park();
      return true;
    }
    if (!notifier_.park(epoch, deadline_ns)) return done();
    if (done()) return true;
  }
}

void Scheduler::quiesce() const {
  while (host_flushes_.load(std::memory_order_acquire) > 0) std::this_thread::yield();
}

uint64_t Scheduler::outstanding() const {
  std::lock_guard lock(mu_);
  uint64_t n = 0;
  for (auto& [key, s] : streams_) n += s->submitted() - s->completed();
  return n;
}

}  // namespace arun
