// ExecutionUnit: one AI core or copy engine, modelled as a thread with a single-slot mailbox.
//
// post() puts the work in the mailbox and returns; the unit thread takes it, runs it through the
// WorkExecutor and calls work->on_complete on the unit thread. The slot is emptied before the
// work runs, so on_complete may post the next item to the same unit (the loop picks it up).
//
// Waking: an idle unit polls its mailbox for `spin_ns` with a pause instruction, then parks on a
// futex of its own, so idle units cost no CPU and a post wakes exactly the unit it targets. The
// poster only makes the wake system call when the unit has actually parked (Dekker handshake on
// `parked_` and the mailbox, both seq_cst).
//
// AI cores also help with the blocks of kernels other cores run (BlockBoard): an idle core with a
// board joins any launch that still has unclaimed blocks, and leaves between blocks once work of its
// own arrives.
//
// The core never posts to a unit whose mailbox is still full; if it does anyway, the extra work
// goes to an overflow queue (logged) rather than being lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"
#include "block_board.hpp"
#include "host_log.hpp"
#include "work_executor.hpp"

namespace arun::ascend {

class ExecutionUnit {
 public:
  // `name` is the thread name (at most 15 characters are kept). `board` is where an AI core finds
  // blocks to help with (nullptr: the unit only runs what is posted to it).
  ExecutionUnit(const WorkExecutor& executor, const HostLog& log, uint32_t index, std::string name, uint64_t spin_ns,
                BlockBoard* board = nullptr);
  ~ExecutionUnit();
  ExecutionUnit(const ExecutionUnit&) = delete;
  ExecutionUnit& operator=(const ExecutionUnit&) = delete;

  Status start();
  // Runs whatever is already posted (and whatever its completions post), then joins the thread.
  void stop();

  void post(plugin::Work* work);
  // Wakes the unit if it sleeps; false if it was not parked (it is busy or about to look anyway).
  bool wake_if_parked();

  uint32_t index() const { return index_; }
  // Work items this unit has completed since start() (for tests and diagnostics).
  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }
  // Times the unit thread parked (went to sleep in the kernel).
  uint64_t parks() const { return parks_.load(std::memory_order_relaxed); }

 private:
  void loop();
  plugin::Work* take();
  void wake();
  void help();
  bool has_work() const;
  bool idle_has_something() const;

  const WorkExecutor& executor_;
  const HostLog& log_;
  const uint32_t index_;
  const std::string name_;
  const uint64_t spin_ns_;
  BlockBoard* const board_;

  alignas(64) std::atomic<plugin::Work*> mailbox_{nullptr};
  std::atomic<uint32_t> parked_{0};  // futex word: 1 while the unit sleeps (or is about to)
  std::atomic<bool> stopping_{false};
  std::atomic<bool> overflowed_{false};

  alignas(64) std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> parks_{0};
  std::mutex overflow_mutex_;
  std::deque<plugin::Work*> overflow_;
  std::thread thread_;
};

}  // namespace arun::ascend
