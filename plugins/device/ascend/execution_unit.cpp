#include "execution_unit.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace arun::ascend {

using plugin::Work;

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// std::atomic<uint32_t> has the layout of a uint32_t, which is what the futex calls need.
void futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}
void futex_wake(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

uint64_t steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

ExecutionUnit::ExecutionUnit(const WorkExecutor& executor, const HostLog& log, uint32_t index, std::string name,
                             uint64_t spin_ns, BlockBoard* board)
    : executor_(executor), log_(log), index_(index), name_(std::move(name)), spin_ns_(spin_ns), board_(board) {}

ExecutionUnit::~ExecutionUnit() {
  stop();
}

Status ExecutionUnit::start() {
  if (thread_.joinable()) return Status::Ok();
  stopping_.store(false, std::memory_order_relaxed);
  completed_.store(0, std::memory_order_relaxed);
  parks_.store(0, std::memory_order_relaxed);
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error& e) {
    return Status(Errc::rt_dev_setup_error, "cannot start unit thread " + name_ + ": " + e.what());
  }
  ::pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
  return Status::Ok();
}

void ExecutionUnit::stop() {
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    log_.error("unit " + name_ + ": stop() called from its own thread (a completion closed the device); not joined");
    return;
  }
  stopping_.store(true, std::memory_order_seq_cst);
  wake();
  try {
    thread_.join();
  } catch (const std::system_error& e) {
    log_.error("unit " + name_ + ": join failed: " + e.what());
  }
}

void ExecutionUnit::wake() {
  if (parked_.load(std::memory_order_seq_cst) != 0 && parked_.exchange(0, std::memory_order_seq_cst) != 0) {
    futex_wake(&parked_);
  }
}

bool ExecutionUnit::wake_if_parked() {
  if (parked_.load(std::memory_order_seq_cst) == 0 || parked_.exchange(0, std::memory_order_seq_cst) == 0) return false;
  futex_wake(&parked_);
  return true;
}

void ExecutionUnit::post(Work* work) {
  Work* expected = nullptr;
  if (!mailbox_.compare_exchange_strong(expected, work, std::memory_order_seq_cst)) {
    // Contract violation (the core launched onto a unit whose previous item was not taken yet).
    log_.warning("unit " + name_ + ": launch onto a busy unit; work queued behind the current item");
    {
      std::lock_guard lock(overflow_mutex_);
      overflow_.push_back(work);
    }
    overflowed_.store(true, std::memory_order_seq_cst);
  }
  wake();
}

bool ExecutionUnit::has_work() const {
  return mailbox_.load(std::memory_order_seq_cst) != nullptr || overflowed_.load(std::memory_order_seq_cst);
}

bool ExecutionUnit::idle_has_something() const {
  return has_work() || stopping_.load(std::memory_order_seq_cst) || (board_ != nullptr && board_->claimable());
}

void ExecutionUnit::help() {
  BlockBoard::Launch* launch = board_->join();
  if (launch == nullptr) return;
  executor_.run_blocks(*launch, [this] { return has_work() || stopping_.load(std::memory_order_relaxed); });
  board_->leave(*launch);
}

Work* ExecutionUnit::take() {
  Work* w = mailbox_.exchange(nullptr, std::memory_order_acq_rel);
  if (w != nullptr || !overflowed_.load(std::memory_order_acquire)) return w;
  std::lock_guard lock(overflow_mutex_);
  if (overflow_.empty()) return nullptr;
  w = overflow_.front();
  overflow_.pop_front();
  if (overflow_.empty()) overflowed_.store(false, std::memory_order_release);
  return w;
}

void ExecutionUnit::loop() {
  for (;;) {
    if (Work* w = take()) {
      plugin::WorkResult r = executor_.run(*w);
      r.unit = index_;
      completed_.fetch_add(1, std::memory_order_relaxed);
      if (w->on_complete != nullptr) {
        try {
          w->on_complete(w, r);
        } catch (...) {
          log_.error("unit " + name_ + ": a completion callback threw; exception dropped");
        }
      }
      continue;
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    if (board_ != nullptr && board_->claimable()) {
      help();
      continue;
    }

    // Poll a little: work that follows work closely is picked up without a futex round trip.
    if (spin_ns_ > 0) {
      const uint64_t until = steady_ns() + spin_ns_;
      bool found = false;
      do {
        for (int i = 0; i < 32; ++i) {
          if (idle_has_something()) {
            found = true;
            break;
          }
          cpu_relax();
        }
      } while (!found && steady_ns() < until);
      if (found) continue;
    }

    parked_.store(1, std::memory_order_seq_cst);
    if (!idle_has_something()) {
      parks_.fetch_add(1, std::memory_order_relaxed);
      futex_wait(&parked_, 1);  // returns at once if a poster already cleared the word
    }
    parked_.store(0, std::memory_order_relaxed);
  }
}

}  // namespace arun::ascend
