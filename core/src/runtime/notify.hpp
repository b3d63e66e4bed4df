// Notify (spec part 2, 4.5): a device-side one-bit synchronisation object. aclrtRecordNotify sets
// it in stream order, aclrtWaitAndResetNotify blocks its stream until it is set and clears it (so
// one record releases one wait); both are scheduler markers (TaskKind::NotifyRecord / NotifyWait).
// The state outlives its handles: pending tasks hold it, so destroying the handle never pulls it
// from under them. An exported notify can be opened again by its key (aclrtNotifyImportByKey); each
// import is a handle of its own on the same state.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace arun {

struct NotifyState {
  NotifyState(int32_t device, uint32_t id, uint64_t flag) : device(device), id(id), flag(flag) {}
  const int32_t device;  // the device that was current at creation; records and waits run there
  const uint32_t id;     // aclrtGetNotifyId: unique among the device's live notifies
  const uint64_t flag;   // ACL_NOTIFY_DEFAULT / ACL_NOTIFY_DEVICE_USE_ONLY
  // Set by a record, cleared by the wait it releases (under the device's scheduler mutex) and by
  // aclrtNotifyBatchReset from the host (no lock: an atomic store).
  std::atomic<bool> set{false};
  // IPC, guarded by the NotifyRegistry's mutex: the export key ("" = not exported), whether
  // importers are checked against `pids`, and the pids aclrtNotifySetImportPid allowed.
  std::string key;
  bool check_pid = true;
  std::vector<int32_t> pids;
};

}  // namespace arun
