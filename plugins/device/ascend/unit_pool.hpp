// UnitPool: the host threads that run the work of every simulated NPU of a plugin instance.
//
// An AI core or copy engine is a logical unit (ExecutionUnit): a mailbox the core's scheduler
// launches into, with an index the profiler and aclrtGetDeviceInfo see. It is not a thread. The
// pool's workers take units whose mailbox holds work, run it through the owning device's
// WorkExecutor and call the completion; idle workers also run blocks of multi-block kernels on
// behalf of free AI cores (BlockBoard). So 20 AI cores and 4 copy engines per device cost no
// threads of their own, and a machine with 2 CPUs runs 2 workers, not 48 unit threads.
//
// Hand-offs:
//  - A completion that launches the next task (the scheduler does it inside on_complete) hands
//    that unit straight to the worker that is completing: it runs next, with no queue and no wake.
//  - Any other launch goes to a FIFO queue. At most one idle worker spins (polls) for `spin_ns`:
//    the one that went idle last, so the window follows the latest work; the others park on their
//    own futex. A launch wakes a parked worker only when nobody spins, and a worker that takes a
//    unit while more are queued passes the wake-up on, so a burst of launches reaches as many
//    workers as it needs while a steady stream of launches makes no system call.
//
// Blocking work: a kernel that sleeps or waits for another block holds its worker. To keep the
// device model's promise that every unit progresses on its own (blocks of one launch may wait for
// each other, as SyncAll does on an NPU), a monitor thread watches pending work that no worker takes:
// when nothing completed for a whole tick while work waits and every worker is busy, and the busy
// workers were blocked rather than computing (or nothing completed for kStallTicks ticks), it starts
// one more worker, up to one per logical unit. Extra workers stay (parked) until the pool stops.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "arun/core/status.hpp"
#include "host_log.hpp"

namespace arun::ascend {

class BlockBoard;
class ExecutionUnit;

class UnitPool {
 public:
  // `threads`: workers started when the first device attaches (0: the CPUs this process may use).
  // `max_workers`: the most the pool may grow to (the logical units of every device it serves).
  UnitPool(const HostLog& log, uint32_t threads, uint32_t max_workers, uint64_t spin_ns);
  ~UnitPool();
  UnitPool(const UnitPool&) = delete;
  UnitPool& operator=(const UnitPool&) = delete;

  // A device opens: its board joins the places idle workers look for blocks, and its `units`
  // raise the most workers the pool may grow to. The first attach starts the workers.
  Status attach(BlockBoard* board, uint32_t units);
  // A device closed (its work has drained): the last detach stops and joins every worker.
  void detach(BlockBoard* board, uint32_t units);

  // `unit` has work in its mailbox: a worker will run it.
  void post(ExecutionUnit* unit);
  // A kernel published blocks: make sure an idle worker looks at the boards.
  void blocks_published();

  // Whether the calling thread is one of this pool's workers.
  bool on_worker_thread() const;
  // Workers running now (base plus grown), and how often the pool grew / a worker parked.
  uint32_t workers() const { return started_.load(std::memory_order_acquire); }
  uint32_t base_workers() const { return base_; }
  uint64_t grown() const { return grown_.load(std::memory_order_relaxed); }
  uint64_t parks() const { return parks_.load(std::memory_order_relaxed); }
  // How long the idle worker polls before it parks now, and what a worker woken from its park
  // does with the gap between the pool's latest end of work and its wake-up (idle()).
  uint64_t poll_window_ns() const { return window_ns_.load(std::memory_order_relaxed); }
  void adapt_window(uint64_t gap_ns);

  // Counts completions and blocks run; the device's board adds its blocks (the monitor's measure
  // of whether work moves).
  std::atomic<uint64_t>* progress_counter() { return &progress_; }

  // CPUs the calling process may run on (sched_getaffinity), at least 1.
  static uint32_t available_cpus();

 private:
  struct Worker;
  Worker* current_worker() const;  // the calling thread's Worker of this pool, or nullptr
  void loop(Worker& w);
  void run_unit(ExecutionUnit& unit);
  bool help_once(Worker& w);
  void idle(Worker& w);
  ExecutionUnit* pop();
  bool boards_claimable() const;  // a published launch has blocks an idle worker may join
  bool has_pending() const;
  bool has_something() const;
  void wake_one();
  void monitor();
  bool start_worker();  // false at the limit or when the thread cannot start
  void stop_all();

  static constexpr uint64_t kMaxWindowFactor = 16;
  static constexpr uint64_t kMaxWindowNs = 200000;

  const HostLog& log_;
  const uint64_t spin_ns_;
  const uint32_t base_;

  // Ready units, oldest first.
  std::mutex queue_mu_;
  std::deque<ExecutionUnit*> queue_;
  alignas(64) std::atomic<uint32_t> queued_{0};
  alignas(64) std::atomic<uint32_t> spinning_{0};  // the polling worker's id + 1; 0: nobody polls
  std::atomic<uint32_t> busy_{0};                  // workers running a unit or blocks
  std::atomic<uint64_t> progress_{0};              // completions and blocks run
  std::atomic<uint64_t> parks_{0};
  std::atomic<uint64_t> grown_{0};
  // The poller's window now: from spin_ns_ up to kMaxWindowFactor * spin_ns_ (capped by
  // kMaxWindowNs unless spin_ns_ is larger), following how soon
  // work came after the workers went idle (idle()).
  std::atomic<uint64_t> window_ns_;
  std::atomic<uint64_t> last_idle_ns_{0};  // when a worker last went idle (steady clock)
  std::atomic<bool> stopping_{false};

  // Boards of open devices (one slot per device a plugin instance may have); idle workers read
  // them without a lock.
  static constexpr uint32_t kMaxBoards = 16;
  std::mutex attach_mu_;
  std::atomic<BlockBoard*> boards_[kMaxBoards] = {};
  uint32_t attached_ = 0;
  uint32_t unit_limit_ = 0;

  // Workers: a fixed array, so wake_one() and the monitor read [0, started_) without a lock.
  const uint32_t capacity_;
  std::unique_ptr<Worker[]> workers_;
  std::mutex workers_mu_;  // starting and stopping workers
  std::atomic<uint32_t> started_{0};
  std::atomic<uint32_t> limit_{0};

  pthread_key_t worker_key_{};  // the calling worker thread's Worker
  bool key_ok_ = false;
  std::atomic<uint32_t> monitor_word_{0};  // futex: 1 = armed (work may be starving)
  std::thread monitor_;
};

}  // namespace arun::ascend
