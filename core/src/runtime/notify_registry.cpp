#include "runtime/notify_registry.hpp"

#include <unistd.h>

#include <algorithm>

#include "acl/acl_rt.h"
#include "runtime/ipc_broker.hpp"

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
    std::string key;
    {
      std::lock_guard lock(mu_);
      ids_[h->state->device].erase(h->state->id);
      key = h->state->key;
      if (!key.empty()) exported_.erase(key);
    }
    // No new importers; those that have the page keep it until they close it.
    if (!key.empty()) IpcBroker::instance().withdraw_key(key);
  }
  return Status::Ok();
}

Status NotifyRegistry::export_key(const std::shared_ptr<NotifyState>& shared, bool check_pid, std::string* key) {
  NotifyState& state = *shared;
  std::lock_guard lock(mu_);
  if (state.key.empty()) {
    if (state.shared_page()) {
      return Status(Errc::rt_param_invalid, "a notify imported from another process cannot be exported again");
    }
    std::shared_ptr<IpcEventShare> page;
    const uint64_t tag = (uint64_t{static_cast<uint32_t>(state.device)} << 32) | state.id;
    ARUN_RETURN_IF_ERROR(IpcEventShare::create(&page, IpcEventShare::Kind::Notify, tag));
    std::weak_ptr<IpcEventShare> weak = page;
    auto share_now = [weak](IpcBroker::Grant* g) {
      auto p = weak.lock();
      if (!p) return Status(Errc::rt_param_invalid, "the notify was destroyed");
      g->fd = ::dup(p->fd());
      if (g->fd < 0) return Status(Errc::rt_internal_error, "dup of the notify page failed");
      p->note_granted(g->importer);  // its death may leave a wait here that nobody can satisfy
      g->offset = 0;
      g->size = IpcEventShare::kPageBytes;
      return Status::Ok();
    };
    std::string name;
    ARUN_RETURN_IF_ERROR(IpcBroker::instance().export_key(share_now, check_pid, &name));
    state.share(std::move(page));  // the bit moves into the page; the state keeps it alive
    state.key = std::move(name);
  } else {
    ARUN_RETURN_IF_ERROR(IpcBroker::instance().set_key_pid_check(state.key, check_pid));
  }
  exported_[state.key] = shared;
  state.check_pid = check_pid;
  *key = state.key;
  return Status::Ok();
}

Status NotifyRegistry::import(const std::string& key, int32_t device, int32_t pid, void** handle) {
  std::shared_ptr<NotifyState> state;
  const pid_t exporter = IpcBroker::key_pid(key);
  if (exporter != 0 && exporter != ::getpid()) {
    // Another process's notify: its broker checks our pid and hands over the page.
    IpcBroker::Grant g;
    ARUN_RETURN_IF_ERROR(IpcBroker::import_key(key, &g));
    std::shared_ptr<IpcEventShare> page;
    Status st = g.offset == 0 ? IpcEventShare::open(g.fd, g.size, exporter, &page, IpcEventShare::Kind::Notify)
                              : Status(Errc::rt_param_invalid, "the key does not name a notify");
    ::close(g.fd);
    ARUN_RETURN_IF_ERROR(st);
    const auto from = static_cast<int32_t>(page->tag() >> 32);
    state = std::make_shared<NotifyState>(from, static_cast<uint32_t>(page->tag()), ACL_NOTIFY_DEFAULT);
    state->share(std::move(page));
  } else {
    std::lock_guard lock(mu_);
    auto it = exported_.find(key);
    if (it != exported_.end()) state = it->second.lock();
    if (!state) {
      return Status(Errc::rt_param_invalid, "no notify is exported under the key \"" + key + "\"");
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
  return IpcBroker::instance().allow_key(state.key, pids, num);
}

}  // namespace arun
