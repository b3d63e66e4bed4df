#include "execution_unit.hpp"

#include "unit_pool.hpp"

namespace arun::ascend {

using plugin::Work;

ExecutionUnit::ExecutionUnit(const WorkExecutor& executor, const HostLog& log, UnitPool& pool, uint32_t index,
                             std::string name, std::atomic<uint64_t>& device_inflight)
    : executor_(executor),
      log_(log),
      pool_(pool),
      index_(index),
      name_(std::move(name)),
      device_inflight_(device_inflight) {}

void ExecutionUnit::post(Work* work) {
  device_inflight_.fetch_add(1, std::memory_order_relaxed);
  Work* expected = nullptr;
  if (!mailbox_.compare_exchange_strong(expected, work, std::memory_order_seq_cst)) {
    // Contract violation (the core launched onto a unit whose previous item was not taken yet):
    // the item runs after the current one, when run_posted() finds the overflow.
    log_.warning("unit " + name_ + ": launch onto a busy unit; work queued behind the current item");
    {
      std::lock_guard lock(overflow_mutex_);
      overflow_.push_back(work);
      overflowed_.store(true, std::memory_order_seq_cst);
    }
    // The current item may have finished meanwhile, before it could see the overflow.
    if (!running_.load(std::memory_order_seq_cst)) drain_overflow();
    return;
  }
  pool_.post(this);
}

void ExecutionUnit::drain_overflow() {
  std::lock_guard lock(overflow_mutex_);
  if (overflow_.empty()) return;
  Work* expected = nullptr;
  if (!mailbox_.compare_exchange_strong(expected, overflow_.front(), std::memory_order_seq_cst)) return;
  overflow_.pop_front();
  if (overflow_.empty()) overflowed_.store(false, std::memory_order_release);
  pool_.post(this);
}

bool ExecutionUnit::try_claim_for_help() {
  if (has_work() || running_.load(std::memory_order_acquire)) return false;
  bool expected = false;
  if (!helping_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return false;
  // Work posted between the check and the claim wins: the helper lets go at once.
  if (has_work()) {
    end_help();
    return false;
  }
  return true;
}

Work* ExecutionUnit::take() {
  return mailbox_.exchange(nullptr, std::memory_order_acq_rel);
}

void ExecutionUnit::run_posted() {
  Work* w = take();
  if (w == nullptr) return;  // a duplicate hand-off: the item already ran
  running_.store(true, std::memory_order_release);
  uint64_t helpers = 0;
  std::string why;
  plugin::WorkResult r = executor_.run(*w, &helpers, &why);
  r.unit = index_;
  if (!why.empty()) r.message = why.c_str();
  w->helper_units = helpers;
  running_.store(false, std::memory_order_release);
  completed_.fetch_add(1, std::memory_order_relaxed);
  // An item queued behind this one by a misbehaving launch gets the mailbox now.
  if (overflowed_.load(std::memory_order_seq_cst)) drain_overflow();
  if (w->on_complete != nullptr) {
    try {
      w->on_complete(w, r);
    } catch (...) {
      log_.error("unit " + name_ + ": a completion callback threw; exception dropped");
    }
  }
  // Last: close() waits for this to reach zero, and the work item may be gone by now.
  device_inflight_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace arun::ascend
