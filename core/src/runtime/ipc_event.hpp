// IpcEventShare: the state of an IPC event (spec part 2, 4.14, aclrtIpcGetEventHandle /
// aclrtIpcOpenEventHandle) or of an exported notify (4.5, aclrtNotifyGetExportKey) that every
// process using it sees: one 4 KiB memfd page.
//
// - The exporter (an event of aclrtCreateEventExWithFlag(ACL_EVENT_IPC)) numbers its records:
//   recording bumps `recorded` at submission; the record's task raises `completed` to that number
//   when it is destroyed (Task::~Task: after the scheduler retired it, or when an abort, a stop or
//   a finalize dropped it, so no waiter hangs on a record that will never happen). Stream order
//   retires the record once everything before it has completed; no execution unit is involved.
// - A notify's page holds its one bit (`notify_bit`): records set it, a wait consumes it with a
//   compare-and-swap, so one record releases exactly one wait in whichever process.
// - An importer maps the same page (the descriptor comes from the exporter's IpcBroker, like IPC
//   memory). A stream wait is a scheduler marker (TaskKind::IpcWait, or a NotifyWait on a shared
//   notify) that blocks only its stream; the per-process IpcWatcher (runtime/ipc_watcher.hpp)
//   futex-waits on `seq` (a shared futex: the page is MAP_SHARED), which every completion, notify
//   record and close bumps, and checks the exporter's death (a pidfd opened at import: immune to
//   pid reuse, and a zombie exporter counts as gone), then asks the scheduler to look again.
//   Host waits (aclrtSynchronizeEvent) use wait() below.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "arun/core/status.hpp"

namespace arun {

class IpcEventShare {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  enum class Kind : uint32_t { Event = 0x56455041u /* "APEV" */, Notify = 0x544e5041u /* "APNT" */ };

  // Exporter: a fresh page owned by this process. `tag` (notifies: the device and the notify id)
  // is stored for importers.
  static Status create(std::shared_ptr<IpcEventShare>* out, Kind kind = Kind::Event, uint64_t tag = 0);
  // Importer: maps `fd` (not taken) of `size` bytes that process `exporter` shares; refuses a page
  // of another kind.
  static Status open(int fd, uint64_t size, pid_t exporter, std::shared_ptr<IpcEventShare>* out,
                     Kind kind = Kind::Event);
  ~IpcEventShare();
  IpcEventShare(const IpcEventShare&) = delete;
  IpcEventShare& operator=(const IpcEventShare&) = delete;

  bool imported() const { return imported_; }
  int fd() const { return fd_; }
  // The page's memfd inode: the same for every mapping of one page (an event opened in the process
  // that exported it maps the page a second time), so it names the event across them.
  uint64_t identity() const { return identity_; }
  uint64_t tag() const;

  // The futex word every change bumps (the IpcWatcher waits on it).
  uint32_t* seq_word() const;
  uint32_t seq() const;

  // Notify pages: the bit.
  void notify_raise();
  bool notify_consume();  // true when it was set (and is now clear)
  void notify_clear();

  // Exporter: the number of the record being submitted, and its completion (idempotent).
  uint64_t begin_record();
  void complete(uint64_t n);
  // The exporter destroyed its event (wakes waiters; records already queued still complete).
  void close();

  uint64_t recorded() const;
  bool reached(uint64_t target) const;

  enum class WaitResult { Done, Timeout, ExporterGone, Cancelled };
  // Waits until `completed` >= target. deadline_ns: steady-clock ns, or < 0 for none;
  // `cancelled` (may be empty) is polled every few milliseconds.
  WaitResult wait(uint64_t target, int64_t deadline_ns, const std::function<bool()>& cancelled) const;
  // The other side is gone. An import: its exporter exited (a poll of the pidfd; a true answer
  // sticks). The exporter's page: it was granted to other processes (note_granted with their pids)
  // and every one of them has exited, so only this process could still change it (true until the
  // next grant).
  bool exporter_gone() const;
  // What exporter_gone() found so far (no system call: for the scheduler, under its lock).
  bool known_gone() const { return gone_.load(std::memory_order_acquire); }
  // The exporter's broker handed the page to a process (note_granted), or this is an import:
  // another process may change it. A page nobody else has cannot unblock a stuck wait.
  void note_granted(pid_t importer = 0);
  bool shared_elsewhere() const { return imported_ || granted_.load(std::memory_order_acquire); }

  // The export name (guarded by mu): empty until aclrtIpcGetEventHandle exports it.
  std::mutex mu;
  std::string key;

 private:
  struct Page;
  IpcEventShare() = default;
  Page* page_ = nullptr;
  int fd_ = -1;
  int pidfd_ = -1;
  pid_t exporter_ = 0;
  uint64_t identity_ = 0;
  bool imported_ = false;
  mutable std::atomic<bool> gone_{false};
  std::atomic<bool> granted_{false};
  // Exporter: the live processes the page was granted to (pid, pidfd or -1), pruned as they exit.
  mutable std::mutex importers_mu_;
  mutable std::vector<std::pair<pid_t, int>> importers_;
  bool granted_to_other_ = false;  // under importers_mu_
};

}  // namespace arun
