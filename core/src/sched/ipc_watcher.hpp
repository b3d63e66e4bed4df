// IpcWatcher: the one thread per process that watches the stream waits other processes resolve
// (spec part 2, 4.14 IPC events; 4.5 notifies exported with aclrtNotifyGetExportKey).
//
// Such a wait is a scheduler marker like a local notify wait: it blocks only its stream, holds no
// execution unit, and joins Scheduler::device_waits_. Nothing in this process completes it, so
// while it is blocked the scheduler registers it here (under its mutex). The thread futex-waits
// on the `seq` word of every watched page at once (futex_waitv; one word in 1 ms slices where the
// kernel lacks it), with a 10 ms timeout to poll the exporters' pidfds, and when a page changed or
// an exporter died it calls Scheduler::poke_device_waits(), which re-checks every blocked wait
// under the scheduler's mutex. Abort, stop, timeouts and stream destruction remove the wait from
// device_waits_ and unregister it; the watcher never touches a task.
//
// Locks: the scheduler's mutex may be held when calling add / remove (it is taken before the
// watcher's); the watcher calls a scheduler with no lock of its own held, and forget() (from
// ~Scheduler) waits until it is not inside that scheduler.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace arun {

class IpcEventShare;
class Scheduler;

class IpcWatcher {
 public:
  static IpcWatcher& instance();

  // `key` (a task) blocks on `page` in `sched`; `seen` is the page's seq read before the scheduler
  // last checked the condition, so a change after that check is never missed.
  void add(const void* key, Scheduler* sched, std::shared_ptr<IpcEventShare> page, uint32_t seen);
  void remove(const void* key);
  // ~Scheduler: drops its entries and waits until the thread is not calling it.
  void forget(Scheduler* sched);
  // Waits watched now (tests).
  size_t watched() const;

 private:
  IpcWatcher() = default;
  struct Entry {
    const void* key;
    Scheduler* sched;
    std::shared_ptr<IpcEventShare> page;
    uint32_t seen;
    bool gone_told;  // the exporter's death was reported once
  };
  void run();
  void wake_locked();

  mutable std::mutex mu_;
  std::condition_variable idle_;  // the thread left a scheduler's poke
  std::vector<Entry> entries_;
  Scheduler* poking_ = nullptr;
  uint32_t wake_word_ = 0;  // futex: bumped by add (a new page to wait on)
  std::thread thread_;
};

}  // namespace arun
