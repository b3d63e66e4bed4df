// BlockBoard: how the blocks of one kernel launch spread over a device's AI cores.
//
// The core hands a launch to one AI core, its owner. When the launch has more than one block the
// owner publishes it here and claims blocks one at a time; every other AI core that is idle (its
// mailbox is empty) joins and claims blocks too, so the blocks of a launch run in parallel on as
// many cores as are free, while the core's scheduler still sees one task on one unit.
//
// Waking costs a futex system call (tens of microseconds across CPUs), so the owner wakes one
// parked sibling only, and every helper that joins wakes the next one while blocks are left: the
// wake-ups fan out instead of serialising on the owner. A helper leaves between blocks as soon as
// work of its own is posted, so helping never delays what the scheduler gave that unit for longer
// than one block.
//
// A launch with a core limit (Work::max_compute_units, from the resource-limit API) admits at most
// that many cores at once: the owner plus limit-1 helpers; join() passes over a full launch, and a
// full launch does not count as claimable (idle cores park instead of polling it) until a helper
// leaves it.
//
// Lifetime: a Launch lives on the owner's stack. Helpers hold it only between join() and leave(),
// both under the board mutex, and withdraw() waits for them, so a helper never touches a launch
// whose kernel has completed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "arun/plugin/device.hpp"

namespace arun::ascend {

class ExecutionUnit;

class BlockBoard {
 public:
  struct Launch {
    const plugin::Work* work = nullptr;
    uint32_t block_dim = 0;
    std::atomic<uint32_t> next{0};          // next unclaimed block index
    std::atomic<int> status{0};             // first fault of any block (0 = none yet)
    std::atomic<bool> exhausted{true};      // every block claimed, or never published
    std::atomic<uint32_t> participants{1};  // units that ran at least one block (owner included)
    uint32_t helpers = 0;                   // guarded by the board mutex
    uint32_t max_cores = 0;                 // cores that may run blocks at once, owner included (0: all)
    bool full = false;                      // at its core limit; guarded by the board mutex
  };

  // The compute units that may help; set once the units run, cleared before they stop.
  void attach(std::vector<ExecutionUnit*> units);
  void detach();

  // Owner: makes the launch's blocks claimable and wakes one parked sibling.
  void publish(Launch& launch);
  // Owner: removes the launch and waits until no helper holds it.
  void withdraw(Launch& launch);

  // Helper: a published launch with unclaimed blocks (now held), or nullptr.
  Launch* join();
  void leave(Launch& launch);

  // Next block index of `launch` for the caller, or false when every block is claimed or the
  // launch has failed.
  bool claim(Launch& launch, uint32_t* block);

  // Cheap check for idle units: is any published launch still claimable?
  bool claimable() const { return claimable_.load(std::memory_order_seq_cst) != 0; }

 private:
  void mark_exhausted(Launch& launch);
  // Whether one more helper may join (board mutex held).
  static bool has_room(const Launch& launch);
  void wake_one();

  mutable std::mutex mu_;
  std::condition_variable released_;
  std::vector<Launch*> open_;
  std::vector<ExecutionUnit*> units_;
  std::atomic<uint32_t> claimable_{0};
  std::atomic<uint32_t> wake_cursor_{0};
};

}  // namespace arun::ascend
