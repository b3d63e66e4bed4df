#include "scheduler.hpp"

#include <algorithm>

#include <boost/container/small_vector.hpp>

#include "event.hpp"

namespace arun {

// Work collected inside the critical section and carried out after it.
struct Scheduler::Batch {
  struct Launch {
    plugin::UnitKind kind;
    uint32_t unit;
    Task* task;
  };
  boost::container::small_vector<Launch, 4> launches;
  boost::container::small_vector<Task*, 4> retired;
  boost::container::small_vector<Stream*, 4> resumed;
  std::shared_ptr<Stream> dropped;  // a detached stream whose last task completed
  bool progressed = false;
};

Scheduler::Scheduler(plugin::Device* device, std::unique_ptr<SchedulerPolicy> policy)
    : device_(device), policy_(std::move(policy)) {
  for (uint32_t k = 0; k < plugin::kUnitKindCount; ++k) {
    uint32_t n = device_->unit_count(static_cast<plugin::UnitKind>(k));
    // Highest index at the back: units are handed out from unit 0 upwards.
    for (uint32_t u = n; u-- > 0;) free_units_[k].push_back(u);
  }
}

Scheduler::~Scheduler() = default;

void Scheduler::add_stream(const std::shared_ptr<Stream>& stream) {
  std::lock_guard lock(mu_);
  streams_.emplace(stream.get(), stream);
  policy_->stream_added(*stream);
}

void Scheduler::discard_pending(Stream& stream) {
  Batch batch;
  {
    std::lock_guard lock(mu_);
    Stream* s = &stream;
    // Keep a running head (it cannot be preempted); drop everything else.
    bool head_running = false;
    if (!s->queue_.empty() && s->head_busy_) {
      Task* head = s->queue_.front();
      if (head->task_kind == TaskKind::Work) {
        head_running = !policy_->discard(*s);
      } else if (head->task_kind == TaskKind::EventWait && head->record) {
        auto& blocked = head->record->blocked;
        blocked.erase(std::remove(blocked.begin(), blocked.end(), s), blocked.end());
      }
    }
    size_t keep = head_running ? 1 : 0;
    while (s->queue_.size() > keep) {
      Task* t = s->queue_.back();
      s->queue_.pop_back();
      if (t->task_kind == TaskKind::EventWait && t->event) --t->event->pending_waits;
      batch.retired.push_back(t);
    }
    if (!head_running) s->head_busy_ = false;
    // Discarded tasks count as completed, so waiters return; a running head completes normally.
    uint64_t last = head_running ? s->queue_.front()->seq : s->submitted_.load();
    s->submitted_.store(last, std::memory_order_release);
    if (!head_running) s->completed_.store(last, std::memory_order_release);
    batch.progressed = true;
  }
  flush(batch);
}

void Scheduler::remove_stream(const std::shared_ptr<Stream>& stream, bool discard) {
  if (discard) {
    discard_pending(*stream);
  } else {
    wait_for(*stream, stream->submitted(), -1);
  }
  std::lock_guard lock(mu_);
  policy_->stream_removed(*stream);
  if (stream->queue_.empty()) {
    streams_.erase(stream.get());
  } else {
    stream->detached_ = true;  // its running head still refers to it
  }
}

uint32_t Scheduler::busy_units(plugin::UnitKind kind) const {
  std::lock_guard lock(mu_);
  auto k = static_cast<uint32_t>(kind);
  return device_->unit_count(kind) - static_cast<uint32_t>(free_units_[k].size());
}

uint64_t Scheduler::submit(Task* task) {
  task->scheduler = this;
  task->on_complete = &Scheduler::on_complete;
  uint64_t seq = 0;
  Batch batch;
  {
    std::lock_guard lock(mu_);
    Stream* s = task->stream;
    // Captures happen in submission order: a record replaces the event's latest capture, and a
    // wait binds to the capture current now, whatever is recorded later.
    if (task->task_kind == TaskKind::EventRecord) {
      task->event->latest = task->record;
    } else if (task->task_kind == TaskKind::EventWait) {
      task->record = task->event->latest;
      ++task->event->pending_waits;
    }
    task->seq = s->submitted_.load(std::memory_order_relaxed) + 1;
    s->submitted_.store(task->seq, std::memory_order_release);
    s->queue_.push_back(task);
    seq = task->seq;
    if (s->queue_.size() == 1) advance(s, batch);
    dispatch(batch);
  }
  flush(batch);
  return seq;
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
          policy_->ready(t);
          break;
        case TaskKind::EventRecord: {
          EventRecord& r = *t->record;
          r.device_ns = device_->now_ns();
          r.done.store(true, std::memory_order_seq_cst);
          if (r.watched.load(std::memory_order_seq_cst)) batch.progressed = true;
          for (Stream* w : r.blocked) {
            w->head_busy_ = false;
            batch.resumed.push_back(w);
          }
          r.blocked.clear();
          finish(s, t, batch);
          break;
        }
        case TaskKind::EventWait:
          if (t->record && !t->record->done.load(std::memory_order_relaxed)) {
            t->record->blocked.push_back(s);
            s->head_busy_ = true;
          } else {
            if (t->event) --t->event->pending_waits;
            finish(s, t, batch);
          }
          break;
        case TaskKind::EventReset:
          t->event->latest.reset();
          finish(s, t, batch);
          break;
      }
    }
  }
}

void Scheduler::finish(Stream* s, Task* t, Batch& batch) {
  s->queue_.pop_front();
  s->head_busy_ = false;
  s->completed_.store(t->seq, std::memory_order_seq_cst);
  if (t->seq >= s->notify_at_.load(std::memory_order_seq_cst)) {
    s->notify_at_.store(UINT64_MAX, std::memory_order_relaxed);  // woken waiters register again
    batch.progressed = true;
  }
  batch.retired.push_back(t);
}

void Scheduler::dispatch(Batch& batch) {
  for (uint32_t k = 0; k < plugin::kUnitKindCount; ++k) {
    auto kind = static_cast<plugin::UnitKind>(k);
    auto& free = free_units_[k];
    while (!free.empty()) {
      Task* t = policy_->pick(kind);
      if (t == nullptr) break;
      t->unit = free.back();
      free.pop_back();
      policy_->started(*t);
      batch.launches.push_back({kind, t->unit, t});
    }
  }
}

void Scheduler::flush(Batch& batch) {
  for (auto& l : batch.launches) device_->launch(l.kind, l.unit, l.task);
  if (batch.progressed) notifier_.notify();
  for (Task* t : batch.retired) delete t;
}

void Scheduler::on_complete(plugin::Work* work, const plugin::WorkResult& result) {
  auto* task = static_cast<Task*>(work);
  task->scheduler->complete(task, result);
}

void Scheduler::complete(Task* task, const plugin::WorkResult& result) {
  Batch batch;
  {
    std::lock_guard lock(mu_);
    Stream* s = task->stream;
    if (result.status != 0 && s->first_error_ == 0) s->first_error_ = result.status;
    free_units_[static_cast<uint32_t>(task->unit_kind)].push_back(task->unit);
    policy_->finished(*task, result.end_ns >= result.start_ns ? result.end_ns - result.start_ns : 0);
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

bool Scheduler::wait_for(const Stream& stream, uint64_t seq, int64_t deadline_ns) {
  auto reached = [&] { return stream.completed() >= seq; };
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

int Scheduler::take_error(Stream& stream) {
  std::lock_guard lock(mu_);
  int e = stream.first_error_;
  stream.first_error_ = 0;
  return e;
}

int Scheduler::take_any_error() {
  std::lock_guard lock(mu_);
  int first = 0;
  for (auto& [key, s] : streams_) {
    if (s->first_error_ != 0 && first == 0) first = s->first_error_;
    s->first_error_ = 0;
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

uint64_t Scheduler::outstanding() const {
  std::lock_guard lock(mu_);
  uint64_t n = 0;
  for (auto& [key, s] : streams_) n += s->submitted() - s->completed();
  return n;
}

}  // namespace arun
