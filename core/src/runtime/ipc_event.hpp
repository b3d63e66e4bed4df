// IpcEventShare: the state of an IPC event (spec part 2, 4.14, aclrtIpcGetEventHandle /
// aclrtIpcOpenEventHandle) that every process using the event sees: one 4 KiB memfd page.
//
// - The exporter (an event of aclrtCreateEventExWithFlag(ACL_EVENT_IPC)) numbers its records:
//   recording bumps `recorded` at submission and queues, right behind the record on the same
//   stream, a one-block kernel that raises `completed` to that number (and again when the kernel's
//   argument block is freed, so a record dropped by an abort or a finalize never leaves a waiter
//   hanging). Stream order makes the kernel run once everything before the record has completed.
// - An importer maps the same page (the descriptor comes from the exporter's IpcBroker, like IPC
//   memory). A wait captures `recorded` when it is enqueued (as a local wait captures the latest
//   record) and is satisfied once `completed` reaches it. Waiting is a futex on `seq` (a shared
//   futex: the page is MAP_SHARED), woken by every completion, with a short timeout so the waiter
//   also notices a cancel (aclrtStreamAbort) and the exporter's death (a pidfd opened at import:
//   immune to pid reuse, and a zombie exporter counts as gone).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "arun/core/status.hpp"

namespace arun {

class IpcEventShare {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  // Exporter: a fresh page owned by this process.
  static Status create(std::shared_ptr<IpcEventShare>* out);
  // Importer: maps `fd` (not taken) of `size` bytes that process `exporter` shares.
  static Status open(int fd, uint64_t size, pid_t exporter, std::shared_ptr<IpcEventShare>* out);
  ~IpcEventShare();
  IpcEventShare(const IpcEventShare&) = delete;
  IpcEventShare& operator=(const IpcEventShare&) = delete;

  bool imported() const { return imported_; }
  int fd() const { return fd_; }

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
  bool exporter_gone() const;

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
  bool imported_ = false;
};

}  // namespace arun
