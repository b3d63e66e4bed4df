#include "block_board.hpp"

#include <algorithm>

#include "execution_unit.hpp"
#include "unit_pool.hpp"

namespace arun::ascend {

void BlockBoard::attach(std::vector<ExecutionUnit*> cores, UnitPool* pool, std::atomic<uint64_t>* progress) {
  std::lock_guard lock(mu_);
  cores_ = std::move(cores);
  pool_ = pool;
  progress_ = progress;
}

void BlockBoard::detach() {
  std::lock_guard lock(mu_);
  cores_.clear();
  pool_ = nullptr;
  progress_ = nullptr;
}

void BlockBoard::publish(Launch& launch) {
  {
    std::lock_guard lock(mu_);
    launch.exhausted.store(false, std::memory_order_relaxed);
    claimable_.fetch_add(1, std::memory_order_seq_cst);
    open_.push_back(&launch);
  }
  if (pool_ != nullptr) pool_->blocks_published();
}

void BlockBoard::withdraw(Launch& launch) {
  mark_exhausted(launch);  // a failed or cancelled launch may still have unclaimed blocks
  std::unique_lock lock(mu_);
  open_.erase(std::remove(open_.begin(), open_.end(), &launch), open_.end());
  released_.wait(lock, [&] { return launch.helpers == 0; });
}

ExecutionUnit* BlockBoard::claim_free_core() {
  const size_t n = cores_.size();
  for (size_t i = 0; i < n; ++i) {
    ExecutionUnit* c = cores_[(core_cursor_ + i) % n];
    if (c->try_claim_for_help()) {
      core_cursor_ = static_cast<uint32_t>((core_cursor_ + i + 1) % n);
      return c;
    }
  }
  return nullptr;
}

BlockBoard::Launch* BlockBoard::join(ExecutionUnit** core) {
  Launch* found = nullptr;
  bool more = false;
  {
    std::lock_guard lock(mu_);
    for (Launch* l : open_) {
      const uint32_t next = l->next.load(std::memory_order_relaxed);
      if (next < l->block_dim && l->status.load(std::memory_order_relaxed) == 0 && has_room(*l)) {
        // Blocks run on behalf of a core the scheduler is not using; with none free, nobody helps
        // (on an NPU every core would be busy too).
        ExecutionUnit* c = claim_free_core();
        if (c == nullptr) break;
        *core = c;
        if (c->index() < 64) l->helper_cores.fetch_or(uint64_t{1} << c->index(), std::memory_order_relaxed);
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
    if (more && pool_ != nullptr) pool_->blocks_published();
  }
  return found;
}

bool BlockBoard::has_room(const Launch& launch) {
  return launch.max_cores == 0 || launch.helpers + 1 < launch.max_cores;
}

void BlockBoard::leave(Launch& launch, ExecutionUnit& core) {
  core.end_help();
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
  if (reopened && pool_ != nullptr) pool_->blocks_published();  // the worker that left may be busy now
}

bool BlockBoard::claim(Launch& launch, uint32_t* block) {
  if (launch.status.load(std::memory_order_relaxed) != 0) {
    mark_exhausted(launch);
    return false;
  }
  const uint32_t b = launch.next.fetch_add(1, std::memory_order_relaxed);
  if (b + 1 >= launch.block_dim) mark_exhausted(launch);
  if (b >= launch.block_dim) return false;
  if (progress_ != nullptr) progress_->fetch_add(1, std::memory_order_relaxed);
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

}  // namespace arun::ascend
