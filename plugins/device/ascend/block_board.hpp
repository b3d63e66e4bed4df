// BlockBoard: how the blocks of one kernel launch spread over a device's AI cores.
//
// The core hands a launch to one AI core, its owner. When the launch has more than one block the
// owner publishes it here and claims blocks one at a time; an idle pool worker (UnitPool) joins on
// behalf of a free AI core of the same device (nothing posted to it, not running, not helping) and
// claims blocks too, so the blocks of a launch run in parallel on as many cores as are free and
// workers are idle, while the core's scheduler still sees one task on one unit. Which cores helped
// is recorded (Launch::helper_cores) for the profiler.
//
// Publishing asks the pool for one idle worker; each helper that joins asks for the next while
// blocks are left, so wake-ups fan out instead of serialising on the owner. A helper leaves between
// blocks as soon as its core gets work of its own or other units wait for a worker, so helping
// never delays what the scheduler gave that core for longer than one block.
//
// A launch with a core limit (Work::max_compute_units, from the resource-limit API) admits at most
// that many cores at once: the owner plus limit-1 helpers; join() passes over a full launch, and a
// full launch does not count as claimable (idle workers park instead of polling it) until a helper
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
#include <string>
#include <vector>

#include "arun/plugin/device.hpp"

namespace arun::ascend {

class ExecutionUnit;
class UnitPool;

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
    std::atomic<uint64_t> helper_cores{0};  // bit u: AI core u ran blocks as a helper (u < 64)
    std::string message;                    // the first fault's, written by the block that set status
  };

  // The device's AI cores and the pool whose workers help; set while the device is open.
  void attach(std::vector<ExecutionUnit*> cores, UnitPool* pool, std::atomic<uint64_t>* progress);
  void detach();

  // Owner: makes the launch's blocks claimable and wakes one parked sibling.
  void publish(Launch& launch);
  // Owner: removes the launch and waits until no helper holds it.
  void withdraw(Launch& launch);

  // Helper: a published launch with unclaimed blocks (now held) and the free AI core it runs them
  // for (now claimed), or nullptr.
  Launch* join(ExecutionUnit** core);
  void leave(Launch& launch, ExecutionUnit& core);

  // Next block index of `launch` for the caller, or false when every block is claimed or the
  // launch has failed.
  bool claim(Launch& launch, uint32_t* block);

  // Cheap check for idle units: is any published launch still claimable?
  bool claimable() const { return claimable_.load(std::memory_order_seq_cst) != 0; }

 private:
  void mark_exhausted(Launch& launch);
  // Whether one more helper may join (board mutex held).
  static bool has_room(const Launch& launch);
  ExecutionUnit* claim_free_core();  // board mutex held

  mutable std::mutex mu_;
  std::condition_variable released_;
  std::vector<Launch*> open_;
  std::vector<ExecutionUnit*> cores_;
  UnitPool* pool_ = nullptr;
  std::atomic<uint64_t>* progress_ = nullptr;  // the pool's progress count: one per block claimed
  std::atomic<uint32_t> claimable_{0};
  uint32_t core_cursor_ = 0;  // where the search for a free core starts (rotates)
};

}  // namespace arun::ascend
