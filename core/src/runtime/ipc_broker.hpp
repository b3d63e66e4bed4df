// IpcBroker: device memory shared across processes (spec part 2, 4.13 shareable handles and 4.14
// IPC memory). Design (plugins/device/ascend/README.md, "Memory shared across processes"):
//
// - An exporting process runs one broker thread serving a unix socket in the abstract namespace,
//   named after its pid ("arun-ipc-<pid>"). A key ("arun-ipc-<pid>-<128 random bits in hex>")
//   or a shareable handle (pid << 42 | 42 random bits) names the exporter, so an importer knows
//   where to ask without any registry; the random part makes names unguessable.
// - An importer connects and sends the name. The broker learns the importer's pid from the kernel
//   (SO_PEERCRED: it cannot be forged), checks it against the export's allow-list (unless the
//   export disabled validation) and answers with a status and, on success, the memory's memfd over
//   SCM_RIGHTS with the offset and size to map. The importer maps it into a range of its own
//   (VirtualMemory::map_shared / a physical handle) and closes the descriptor.
// - The kernel's reference counts do the rest: memory stays valid while any process maps it and is
//   freed with its last user. An exporter that exits takes its socket along, so later imports fail
//   with a clean error; mappings already made stay valid.
//
// Process scope; the runtime's teardown calls reset() (exports die with the runtime that made them).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun {

class IpcBroker {
 public:
  static IpcBroker& instance();

  // What a successful request returns: a descriptor (the caller closes it), where the shared bytes
  // start in it, how many, and the physical properties (shareable handles).
  struct Grant {
    int fd = -1;
    uint64_t offset = 0;
    uint64_t size = 0;
    aclrtPhysicalMemProp prop{};
    pid_t importer = 0;  // set by the broker: the asking process (SO_PEERCRED)
  };
  // Produces the grant when an allowed importer asks (on the broker thread); may fail, e.g. when
  // the exported memory was freed meanwhile.
  using Source = std::function<Status(Grant*)>;

  // Exports. `pid_check` false: any process may import. `block` (0: none) is the device block an
  // IPC memory key exports, which withdraw_freed() matches.
  Status export_key(Source source, bool pid_check, std::string* key, uint64_t block = 0);
  Status export_handle(uint64_t local_handle, Source source, bool pid_check, uint64_t* shareable);
  // Whether this process exported `local_handle` already (one shareable handle per handle).
  bool handle_exported(uint64_t local_handle) const;
  // Allow-lists. rt_param_invalid when this process did not export the name.
  Status allow_key(const std::string& key, const int32_t* pids, size_t count);
  Status allow_handle(uint64_t shareable, const int32_t* pids, size_t count);
  // aclrtFree of `block` succeeded: withdraws the keys exporting it (an address reused by a later
  // allocation must not be handed out under the old key) and returns how many imports they had
  // granted. One relaxed load when this process never exported a block.
  uint64_t withdraw_freed(uint64_t block);
  // Whether importers of `key` are checked against its allow-list (aclrtNotifyGetExportKey may
  // change it); rt_param_invalid when this process did not export the key.
  Status set_key_pid_check(const std::string& key, bool pid_check);
  // Whether this process exports `key` now.
  bool key_exported(const std::string& key) const;
  // Withdraws an export; false when this process has no such export.
  bool withdraw_key(const std::string& key);

  // Importer side: asks the exporter named by the key / handle. rt_param_invalid: malformed or
  // unknown name, exporter gone; rt_no_permission: not on the allow-list.
  static Status import_key(const std::string& key, Grant* grant);
  static Status import_handle(uint64_t shareable, Grant* grant);
  static pid_t key_pid(const std::string& key);  // 0 when malformed
  static pid_t handle_pid(uint64_t shareable) { return static_cast<pid_t>(shareable >> 42); }

  // Stops the thread and forgets every export (runtime teardown).
  void reset();

 private:
  IpcBroker() = default;
  struct Export {
    Source source;
    bool pid_check = true;
    std::set<int32_t> allowed;
    uint64_t block = 0;   // IPC memory: the exported block's address
    uint64_t grants = 0;  // imports answered
  };
  Status start_locked();
  void serve();
  void answer(int conn);
  static Status request(pid_t pid, uint32_t kind, const std::string& key, uint64_t handle, Grant* grant);

  mutable std::mutex mu_;
  std::map<std::string, Export> keys_;
  std::map<uint64_t, Export> handles_;            // by shareable handle
  std::map<uint64_t, uint64_t> handle_of_local_;  // local physical handle -> shareable
  std::atomic<bool> blocks_exported_{false};
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd that wakes the thread to stop
  std::thread thread_;
};

}  // namespace arun
