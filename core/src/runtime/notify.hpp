// Notify (spec part 2, 4.5): a device-side one-bit synchronisation object. aclrtRecordNotify sets
// it in stream order, aclrtWaitAndResetNotify blocks its stream until it is set and clears it (so
// one record releases one wait); both are scheduler markers (TaskKind::NotifyRecord / NotifyWait).
// The state outlives its handles: pending tasks hold it, so destroying the handle never pulls it
// from under them. An exported notify can be opened again by its key (aclrtNotifyImportByKey); each
// import is a handle of its own on the same state.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ipc_event.hpp"

namespace arun {

struct NotifyState {
  NotifyState(int32_t device, uint32_t id, uint64_t flag) : device(device), id(id), flag(flag) {}
  const int32_t device;  // the device that was current at creation; records and waits run there
  const uint32_t id;     // aclrtGetNotifyId: unique among the device's live notifies
  const uint64_t flag;   // ACL_NOTIFY_DEFAULT / ACL_NOTIFY_DEVICE_USE_ONLY
  // The bit: set by a record, cleared by the wait it releases (under the device's scheduler
  // mutex) and by aclrtNotifyBatchReset from the host (lock-free). Once the notify is shared with
  // other processes (exported, or imported from another process) the bit lives in `ipc`'s page
  // and `bit` says kMoved; moving it is one exchange, so no record or wait is lost meanwhile.
  static constexpr uint32_t kMoved = 2;
  void raise() {
    uint32_t v = bit.load(std::memory_order_acquire);
    while (v != kMoved) {
      if (v == 1 || bit.compare_exchange_weak(v, 1, std::memory_order_acq_rel, std::memory_order_acquire)) return;
    }
    ipc->notify_raise();
  }
  bool consume() {  // true when it was set
    uint32_t v = bit.load(std::memory_order_acquire);
    while (v != kMoved) {
      if (v == 0) return false;
      if (bit.compare_exchange_weak(v, 0, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
    }
    return ipc->notify_consume();
  }
  void clear() {
    uint32_t v = bit.load(std::memory_order_acquire);
    while (v != kMoved) {
      if (v == 0 || bit.compare_exchange_weak(v, 0, std::memory_order_acq_rel, std::memory_order_acquire)) return;
    }
    ipc->notify_clear();
  }
  // Moves the bit into `page` (once: the registry's mutex guards the export).
  void share(std::shared_ptr<IpcEventShare> page) {
    ipc = std::move(page);
    if (bit.exchange(kMoved, std::memory_order_acq_rel) == 1) ipc->notify_raise();
  }
  // The shared page, or null while the notify is this process's alone.
  std::shared_ptr<IpcEventShare> shared_page() const {
    return bit.load(std::memory_order_acquire) == kMoved ? ipc : nullptr;
  }

  // IPC, guarded by the NotifyRegistry's mutex: the export key ("" = not exported), whether
  // importers are checked against `pids`, and the pids aclrtNotifySetImportPid allowed.
  std::string key;
  bool check_pid = true;
  std::vector<int32_t> pids;

 private:
  std::atomic<uint32_t> bit{0};
  std::shared_ptr<IpcEventShare> ipc;  // written once, before `bit` says kMoved
};

}  // namespace arun
