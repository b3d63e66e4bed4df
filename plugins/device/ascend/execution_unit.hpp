// ExecutionUnit: one AI core or copy engine as the core's scheduler and the profiler see it — a
// logical unit with a single-slot mailbox, run by the device's UnitPool (no thread of its own).
//
// post() puts the work in the mailbox and hands the unit to the pool; a worker takes it, runs it
// through the device's WorkExecutor and calls work->on_complete on the worker thread. The slot is
// emptied before the work runs, so on_complete may post the next item to the same unit; the pool
// then runs it on the same worker, next.
//
// An AI core whose mailbox is empty and that is not running anything is free: an idle worker may
// claim it to run blocks of another core's kernel (BlockBoard), so the blocks appear on that
// core. A claimed core is released between blocks as soon as work of its own is posted.
//
// The core never posts to a unit whose mailbox is still full; if it does anyway, the extra work
// goes to an overflow queue (logged) rather than being lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "arun/plugin/device.hpp"
#include "host_log.hpp"
#include "work_executor.hpp"

namespace arun::ascend {

class UnitPool;

class ExecutionUnit {
 public:
  // `name` names the unit in log messages ("npu0-aic3").
  ExecutionUnit(const WorkExecutor& executor, const HostLog& log, UnitPool& pool, uint32_t index, std::string name,
                std::atomic<uint64_t>& device_inflight);
  ExecutionUnit(const ExecutionUnit&) = delete;
  ExecutionUnit& operator=(const ExecutionUnit&) = delete;

  // The device's launch(): the work runs on a pool worker.
  void post(plugin::Work* work);

  // Pool side: runs what the mailbox holds (if anything) and calls its completion.
  void run_posted();
  bool has_work() const { return mailbox_.load(std::memory_order_seq_cst) != nullptr; }

  // Block helping (AI cores): claims the unit if it is free; end_help() releases it.
  bool try_claim_for_help();
  void end_help() { helping_.store(false, std::memory_order_release); }
  // A helper runs blocks of `launch` for this core (its device's executor).
  template <class Leave>
  void run_blocks(BlockBoard::Launch& launch, Leave leave) {
    executor_.run_blocks(launch, leave);
  }

  uint32_t index() const { return index_; }
  const std::string& name() const { return name_; }
  // Work items this unit has completed since the device opened (for tests and diagnostics).
  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }

 private:
  plugin::Work* take();
  void drain_overflow();

  const WorkExecutor& executor_;
  const HostLog& log_;
  UnitPool& pool_;
  const uint32_t index_;
  const std::string name_;
  std::atomic<uint64_t>& device_inflight_;  // posted, not yet completed, over the device's units

  alignas(64) std::atomic<plugin::Work*> mailbox_{nullptr};
  std::atomic<bool> running_{false};
  std::atomic<bool> helping_{false};
  std::atomic<bool> overflowed_{false};
  std::atomic<uint64_t> completed_{0};
  std::mutex overflow_mutex_;
  std::deque<plugin::Work*> overflow_;
};

}  // namespace arun::ascend
