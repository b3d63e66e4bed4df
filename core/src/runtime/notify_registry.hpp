// NotifyRegistry: the runtime's notifies (spec part 2, 4.5): their handles, the ids each device
// hands out, and the export keys of IPC notifies. Owned by the Runtime, so aclFinalize forgets
// them all; notify state that queued tasks still hold lives on until those tasks are gone.
//
// Across processes: exporting gives the notify a shared page (runtime/ipc_event.hpp, Kind::Notify)
// that its bit moves into, and an IpcBroker key ("arun-ipc-<pid>-<128 random bits>") through which
// another process, if its pid is allowed (aclrtNotifySetImportPid) or validation is disabled,
// receives the page over SCM_RIGHTS. Records and waits in every process then act on the shared bit;
// a wait blocked on it is watched by the IpcWatcher. The exporter's exit fails an importer's
// blocked wait with 107000 and later imports with 107000; the page lives while any process maps it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "arun/core/status.hpp"
#include "runtime/handle_table.hpp"
#include "runtime/notify.hpp"

namespace arun {

// What an aclrtNotify names: the notify it created, or an import of an exported one.
struct NotifyHandle {
  std::shared_ptr<NotifyState> state;
  bool imported = false;
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }

 private:
  void* handle_ = nullptr;
};

class NotifyRegistry {
 public:
  // Live notifies per device (ours; CANN's is per chip, 1024 .. 65535).
  static constexpr uint32_t kPerDevice = 8192;

  // A clear notify on `device`; rt_no_notify_resource when the device has kPerDevice live ones.
  Status create(int32_t device, uint64_t flag, void** handle);
  // nullptr if `handle` is not a live notify handle.
  std::shared_ptr<NotifyHandle> find(const void* handle) const { return handles_.find(handle); }
  // rt_invalid_handle if not live. Destroying the creating handle frees the id and the export key;
  // destroying an import only closes it.
  Status destroy(const void* handle);
  // The notify's export key (the same on every call); `check_pid` false: any process may import.
  Status export_key(const std::shared_ptr<NotifyState>& state, bool check_pid, std::string* key);
  // Opens the notify exported as `key` (by this process or another) on `device` for the process
  // `pid`: rt_param_invalid for an unknown key or a gone exporter, rt_no_permission for a pid not
  // allowed, rt_feature_not_support for a notify of another device.
  Status import(const std::string& key, int32_t device, int32_t pid, void** handle);
  // aclrtNotifySetImportPid: rt_param_invalid if the notify was not exported.
  Status allow_pids(NotifyState& state, const int32_t* pids, size_t num);

 private:
  mutable std::mutex mu_;
  HandleTable<NotifyHandle> handles_{HandleKind::Notify};
  std::map<int32_t, std::set<uint32_t>> ids_;  // live ids per device
  std::map<std::string, std::weak_ptr<NotifyState>> exported_;
};

}  // namespace arun
