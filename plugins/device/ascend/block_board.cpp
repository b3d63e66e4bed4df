#include "block_board.hpp"

#include <algorithm>

#include "execution_unit.hpp"

namespace arun::ascend {

void BlockBoard::attach(std::vector<ExecutionUnit*> units) {
  std::lock_guard lock(mu_);
  units_ = std::move(units);
}

void BlockBoard::detach() {
  std::lock_guard lock(mu_);
  units_.clear();
}

void BlockBoard::publish(Launch& launch) {
  {
    std::lock_guard lock(mu_);
    launch.exhausted.store(false, std::memory_order_relaxed);
    claimable_.fetch_add(1, std::memory_order_seq_cst);
    open_.push_back(&launch);
  }
  wake_one();  // the owner is running, so it is not parked and wake_one() passes over it
}

void BlockBoard::withdraw(Launch& launch) {
  mark_exhausted(launch);  // a failed or cancelled launch may still have unclaimed blocks
  std::unique_lock lock(mu_);
  open_.erase(std::remove(open_.begin(), open_.end(), &launch), open_.end());
  released_.wait(lock, [&] { return launch.helpers == 0; });
}

BlockBoard::Launch* BlockBoard::join() {
  Launch* found = nullptr;
  bool more = false;
  {
    std::lock_guard lock(mu_);
    for (Launch* l : open_) {
      const uint32_t next = l->next.load(std::memory_order_relaxed);
      if (next < l->block_dim && l->status.load(std::memory_order_relaxed) == 0 && has_room(*l)) {
        ++l->helpers;
        found = l;
        if (!has_room(*l)) {
          l->full = true;
          if (!l->exhausted.load(std::memory_order_relaxed)) claimable_.fetch_sub(1, std::memory_order_seq_cst);
        }
        // Blocks left once this helper has claimed its first, and room for one more core.
        more = l->block_dim - next > 1 && has_room(*l);
        break;
      }
    }
  }
  if (found != nullptr) {
    found->participants.fetch_add(1, std::memory_order_relaxed);
    if (more) wake_one();
  }
  return found;
}

bool BlockBoard::has_room(const Launch& launch) {
  return launch.max_cores == 0 || launch.helpers + 1 < launch.max_cores;
}

void BlockBoard::leave(Launch& launch) {
  bool reopened = false;
  {
    std::lock_guard lock(mu_);
    if (launch.full) {
      launch.full = false;
      if (!launch.exhausted.load(std::memory_order_relaxed)) {
        claimable_.fetch_add(1, std::memory_order_seq_cst);
        reopened = true;
      }
    }
    if (--launch.helpers == 0) released_.notify_all();
  }
  if (reopened) wake_one();  // the core that left may be busy with its own work now
}

bool BlockBoard::claim(Launch& launch, uint32_t* block) {
  if (launch.status.load(std::memory_order_relaxed) != 0) {
    mark_exhausted(launch);
    return false;
  }
  const uint32_t b = launch.next.fetch_add(1, std::memory_order_relaxed);
  if (b + 1 >= launch.block_dim) mark_exhausted(launch);
  if (b >= launch.block_dim) return false;
  *block = b;
  return true;
}

void BlockBoard::mark_exhausted(Launch& launch) {
  if (launch.max_cores == 0) {
    if (!launch.exhausted.exchange(true, std::memory_order_seq_cst)) claimable_.fetch_sub(1, std::memory_order_seq_cst);
    return;
  }
  // A limited launch leaves the count when it fills up too, so its count changes under the mutex.
  if (launch.exhausted.load(std::memory_order_seq_cst)) return;
  std::lock_guard lock(mu_);
  if (!launch.exhausted.exchange(true, std::memory_order_seq_cst) && !launch.full) {
    claimable_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

void BlockBoard::wake_one() {
  std::lock_guard lock(mu_);
  const size_t n = units_.size();
  if (n == 0) return;
  // Start where the last search stopped, so wake-ups rotate over the cores instead of always
  // landing on the lowest-numbered parked one.
  const uint32_t start = wake_cursor_.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    if (units_[(start + i) % n]->wake_if_parked()) return;
  }
}

}  // namespace arun::ascend
