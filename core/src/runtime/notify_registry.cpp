#include "runtime/notify_registry.hpp"

#include <unistd.h>

#include <algorithm>

namespace arun {

Status NotifyRegistry::create(int32_t device, uint64_t flag, void** handle) {
  std::shared_ptr<NotifyState> state;
  {
    std::lock_guard lock(mu_);
    auto& ids = ids_[device];
    if (ids.size() >= kPerDevice) {
      return Status(Errc::rt_no_notify_resource, "device " + std::to_string(device) + " already has " +
                                                     std::to_string(kPerDevice) + " notifies (the limit)");
    }
    uint32_t id = 0;  // the lowest free id
    for (uint32_t used : ids) {
      if (used != id) break;
      ++id;
    }
    ids.insert(id);
    state = std::make_shared<NotifyState>(device, id, flag);
  }
  auto h = std::make_shared<NotifyHandle>();
  h->state = std::move(state);
  *handle = handles_.add(std::move(h));
  return Status::Ok();
}

Status NotifyRegistry::destroy(const void* handle) {
  auto h = handles_.remove(handle);
  if (!h) return Status(Errc::rt_invalid_handle, "notify handle is not a live notify (destroyed, or not a notify)");
  if (!h->imported) {
    std::lock_guard lock(mu_);
    ids_[h->state->device].erase(h->state->id);
    if (!h->state->key.empty()) exported_.erase(h->state->key);
  }
  return Status::Ok();
}

std::string NotifyRegistry::export_key(const std::shared_ptr<NotifyState>& shared, bool check_pid) {
  NotifyState& state = *shared;
  std::lock_guard lock(mu_);
  if (state.key.empty()) {
    // Unique in this process and recognisable; no other process can open it (see import).
    static uint64_t serial = 0;
    state.key = "arun-notify-" + std::to_string(::getpid()) + "-" + std::to_string(state.device) + "-" +
                std::to_string(state.id) + "-" + std::to_string(++serial);
  }
  exported_[state.key] = shared;
  state.check_pid = check_pid;
  return state.key;
}

Status NotifyRegistry::import(const std::string& key, int32_t device, int32_t pid, void** handle) {
  std::shared_ptr<NotifyState> state;
  {
    std::lock_guard lock(mu_);
    auto it = exported_.find(key);
    if (it != exported_.end()) state = it->second.lock();
    if (!state) {
      return Status(Errc::rt_param_invalid, "no notify is exported under the key \"" + key +
                                                "\" in this process (notifies are shared within one process only)");
    }
    if (state->check_pid && std::find(state->pids.begin(), state->pids.end(), pid) == state->pids.end()) {
      return Status(Errc::rt_no_permission, "process " + std::to_string(pid) + " is not allowed to import notify \"" +
                                                key + "\" (aclrtNotifySetImportPid)");
    }
  }
  if (state->device != device) {
    return Status(Errc::rt_feature_not_support, "notify \"" + key + "\" belongs to device " +
                                                    std::to_string(state->device) + "; importing it on device " +
                                                    std::to_string(device) + " is not supported");
  }
  auto h = std::make_shared<NotifyHandle>();
  h->state = std::move(state);
  h->imported = true;
  *handle = handles_.add(std::move(h));
  return Status::Ok();
}

Status NotifyRegistry::allow_pids(NotifyState& state, const int32_t* pids, size_t num) {
  std::lock_guard lock(mu_);
  if (state.key.empty()) {
    return Status(Errc::rt_param_invalid, "the notify was not exported (call aclrtNotifyGetExportKey first)");
  }
  for (size_t i = 0; i < num; ++i) {
    if (std::find(state.pids.begin(), state.pids.end(), pids[i]) == state.pids.end()) state.pids.push_back(pids[i]);
  }
  return Status::Ok();
}

}  // namespace arun
