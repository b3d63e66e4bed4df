// Device-side waits and writes, retired by the scheduler like event markers: notify record and
// wait-and-reset (spec part 2, 4.5) and the stream-ordered value write / wait (4.6).
//
// A wait whose condition does not hold when it reaches its stream's head blocks that stream only:
// the head stays busy and the task joins device_waits_. Whatever could make a condition true
// checks them again, under the scheduler mutex: a notify record, a value write, every completed
// device task (a copy, memset or kernel may have written the word a ValueWait tests) and, from
// the host, aclrtNotifyBatchReset or a synchronous copy (poke_device_waits). No thread polls. A
// wait with a timeout (aclrtWaitAndResetNotify) is failed with ACL_ERROR_RT_TASK_TIMEOUT by the
// scheduler's WaitTimer (Scheduler::expire_wait), as timed event waits are.
#include <algorithm>

#include "arun/core/status.hpp"
#include "runtime/notify.hpp"
#include "sched/ipc_watcher.hpp"
#include "sched/scheduler_batch.hpp"

namespace arun {

namespace {

// aclrtValueWait's conditions (ACL_STREAM_WAIT_VALUE_GEQ / EQ / AND / NOR) on the word `v`.
bool value_holds(uint64_t v, uint64_t value, uint32_t flag) {
  switch (flag) {
    case 0:  // GEQ, wrap-around safe: v has reached value
      return static_cast<int64_t>(v - value) >= 0;
    case 1:  // EQ
      return v == value;
    case 2:  // AND
      return (v & value) != 0;
    case 3:  // NOR
      return ~(v | value) != 0;
    default:
      return false;
  }
}

// The code a value task fails with when its word is no longer inside a live allocation (freed
// while the task was queued).
constexpr int kValueFault = static_cast<int>(Errc::rt_internal_error);

// A wait on a page shared with an exporter that exited before satisfying it (our choice: 107000,
// as an open of its handle would answer).
constexpr int kExporterGone = static_cast<int>(Errc::rt_param_invalid);

// The page another process may change under the wait, or null.
std::shared_ptr<IpcEventShare> shared_page(const Task* t) {
  if (t->task_kind == TaskKind::IpcWait) return t->ipc;
  if (t->task_kind == TaskKind::NotifyWait) return t->notify->shared_page();
  return nullptr;
}

}  // namespace

int Scheduler::check_device_wait_locked(Task* t, bool* satisfied) {
  *satisfied = false;
  if (t->task_kind == TaskKind::NotifyWait) {
    // The wait consumes the record: one record releases exactly one wait (in any process).
    *satisfied = t->notify->consume();
    if (!*satisfied) {
      auto page = t->notify->shared_page();
      if (page && page->known_gone()) return kExporterGone;
    }
    return 0;
  }
  if (t->task_kind == TaskKind::IpcWait) {
    // known_gone() is read before `completed` again: a record completed just before the exporter
    // exited still counts.
    if (t->ipc->reached(t->ipc_n)) {
      *satisfied = true;
    } else if (t->ipc->known_gone()) {
      *satisfied = t->ipc->reached(t->ipc_n);
      if (!*satisfied) return kExporterGone;
    }
    return 0;
  }
  void* word = device_->map(t->value_addr, sizeof(uint64_t));
  if (word == nullptr) return kValueFault;
  const uint64_t v = __atomic_load_n(static_cast<const uint64_t*>(word), __ATOMIC_ACQUIRE);
  *satisfied = value_holds(v, t->value, t->value_flag);
  return 0;
}

void Scheduler::run_device_marker_locked(Stream* s, Task* t, Batch& batch) {
  switch (t->task_kind) {
    case TaskKind::NotifyRecord:
      t->notify->raise();  // recording a set notify leaves it set
      finish(s, t, batch);
      if (!device_waits_.empty()) recheck_device_waits_locked(batch);
      return;
    case TaskKind::ValueWrite: {
      void* word = device_->map(t->value_addr, sizeof(uint64_t));
      if (word == nullptr) {
        fail_marker_locked(s, t, kValueFault, batch);
        return;
      }
      __atomic_store_n(static_cast<uint64_t*>(word), t->value, __ATOMIC_RELEASE);
      finish(s, t, batch);
      if (!device_waits_.empty()) recheck_device_waits_locked(batch);
      return;
    }
    default: {  // NotifyWait, ValueWait, IpcWait
      // Read before the check, so a change another process makes after it wakes the watcher.
      std::shared_ptr<IpcEventShare> page = shared_page(t);
      const uint32_t seen = page ? page->seq() : 0;
      bool satisfied = false;
      if (int code = check_device_wait_locked(t, &satisfied)) {
        fail_marker_locked(s, t, code, batch);
        return;
      }
      if (satisfied) {
        finish(s, t, batch);
        return;
      }
      s->head_busy_ = true;
      device_waits_.push_back(t);
      if (page) {
        IpcWatcher::instance().add(t, this, std::move(page), seen);
        t->ipc_watched = true;
      }
      if (t->wait_timeout_ns >= 0)
        wait_timer_.arm(WaitTimer::now_ns() + static_cast<uint64_t>(t->wait_timeout_ns), s, s->uid(), t->seq);
      return;
    }
  }
}

// Releases every blocked wait whose condition now holds, oldest first. Released streams go to
// batch.resumed; the caller advances them (advance() does so when it is the caller).
void Scheduler::recheck_device_waits_locked(Batch& batch) {
  for (size_t i = 0; i < device_waits_.size();) {
    Task* t = device_waits_[i];
    bool satisfied = false;
    const int code = check_device_wait_locked(t, &satisfied);
    if (code == 0 && !satisfied) {
      ++i;
      continue;
    }
    device_waits_.erase(device_waits_.begin() + static_cast<std::ptrdiff_t>(i));
    unwatch_locked(t);
    Stream* s = t->stream;
    s->head_busy_ = false;
    if (code != 0) {
      fail_marker_locked(s, t, code, batch);
    } else {
      finish(s, t, batch);
      batch.resumed.push_back(s);
    }
  }
}

void Scheduler::drop_device_wait_locked(Task* t) {
  auto it = std::find(device_waits_.begin(), device_waits_.end(), t);
  if (it != device_waits_.end()) device_waits_.erase(it);
  unwatch_locked(t);
}

void Scheduler::unwatch_locked(Task* t) {
  if (!t->ipc_watched) return;
  t->ipc_watched = false;
  IpcWatcher::instance().remove(t);
}

bool Scheduler::stuck_locked(const Stream& s) const {
  if (s.queue_.empty() || !s.head_busy_) return false;
  // A blocked event wait counts too: its record sits behind a device-side wait somewhere (records
  // are captured at enqueue, so waits cannot form a cycle).
  const Task* head = s.queue_.front();
  const TaskKind kind = head->task_kind;
  if (kind != TaskKind::NotifyWait && kind != TaskKind::ValueWait && kind != TaskKind::EventWait &&
      kind != TaskKind::GraphLaunch)
    return false;
  if (head->wait_timeout_ns >= 0) return false;  // its own timeout will move it on
  for (const Task* w : device_waits_) {
    if (w->wait_timeout_ns >= 0) return false;  // a timeout will move things on
    if (w->ipc_watched) {
      // Another process may satisfy it: not when the page never left this process (a notify
      // exported but not imported elsewhere), which leaves the stuck check as for a local wait.
      std::shared_ptr<IpcEventShare> page = shared_page(w);
      if (page && page->shared_elsewhere()) return false;
    }
  }
  for (uint32_t k = 0; k < plugin::kUnitKindCount; ++k) {
    if (free_units_[k].size() != device_->unit_count(static_cast<plugin::UnitKind>(k))) return false;
  }
  for (const auto& [key, other] : streams_) {
    if (!other->queue_.empty() && other->head_busy_ && other->queue_.front()->task_kind == TaskKind::HostCall) {
      return false;  // a host function may still record the notify or write the value
    }
  }
  return true;
}

void Scheduler::poke_device_waits() {
  Batch batch;
  host_flushes_.fetch_add(1, std::memory_order_acq_rel);
  {
    std::lock_guard lock(mu_);
    if (!device_waits_.empty()) {
      recheck_device_waits_locked(batch);
      if (!batch.resumed.empty()) {
        Stream* w = batch.resumed.back();
        batch.resumed.pop_back();
        advance(w, batch);
      }
      dispatch(batch);
    }
  }
  flush(batch);
  host_flushes_.fetch_sub(1, std::memory_order_release);
}

}  // namespace arun
