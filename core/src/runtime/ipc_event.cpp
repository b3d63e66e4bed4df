#include "runtime/ipc_event.hpp"

#include <sys/stat.h>

#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include "base/status_helpers.hpp"

namespace arun {

namespace {
constexpr uint32_t kVersion = 2;
constexpr int64_t kPollNs = 5'000'000;  // how often a waiter looks at cancel / the exporter

}  // namespace

// Plain words accessed with __atomic builtins: the page is shared with other processes, so no
// std::atomic objects (whose layout is not promised) live in it.
struct IpcEventShare::Page {
  uint32_t magic;
  uint32_t version;
  int32_t exporter;  // pid
  uint32_t closed;   // the exporter destroyed the event
  uint64_t recorded;
  uint64_t completed;
  uint32_t seq;         // futex word, bumped by every completion, notify record and close
  uint32_t notify_bit;  // notify pages: set by a record, consumed by a wait
  uint64_t tag;         // notify pages: the exporter's device (high 32 bits) and notify id
};

namespace {
void bump(uint32_t* seq) {
  __atomic_add_fetch(seq, 1, __ATOMIC_ACQ_REL);
  ::syscall(SYS_futex, seq, FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}
}  // namespace

namespace {
uint64_t inode_of(int fd) {
  struct stat sb {};
  return ::fstat(fd, &sb) == 0 ? static_cast<uint64_t>(sb.st_ino) : 0;
}
}  // namespace

Status IpcEventShare::create(std::shared_ptr<IpcEventShare>* out, Kind kind, uint64_t tag) {
  const int fd = static_cast<int>(::syscall(SYS_memfd_create, "arun-ipc-event", MFD_CLOEXEC));
  if (fd < 0) return Status(Errc::rt_no_event_resource, std::string("IPC event page: ") + std::strerror(errno));
  if (::ftruncate(fd, kPageBytes) != 0) {
    const int err = errno;
    ::close(fd);
    return Status(Errc::rt_no_event_resource, std::string("IPC event page: ") + std::strerror(err));
  }
  void* p = ::mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    return Status(Errc::rt_no_event_resource, std::string("IPC event page: ") + std::strerror(err));
  }
  std::shared_ptr<IpcEventShare> s(new IpcEventShare());
  s->fd_ = fd;
  s->identity_ = inode_of(fd);
  s->page_ = static_cast<Page*>(p);
  s->exporter_ = ::getpid();
  s->page_->exporter = s->exporter_;
  s->page_->version = kVersion;
  s->page_->tag = tag;
  __atomic_store_n(&s->page_->magic, static_cast<uint32_t>(kind), __ATOMIC_RELEASE);
  *out = std::move(s);
  return Status::Ok();
}

Status IpcEventShare::open(int fd, uint64_t size, pid_t exporter, std::shared_ptr<IpcEventShare>* out, Kind kind) {
  const char* what = kind == Kind::Event ? "the handle does not name an IPC event" : "the key does not name a notify";
  if (size != kPageBytes) return Status(Errc::rt_param_invalid, what);
  void* p = ::mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status(Errc::rt_param_invalid, std::string("IPC event page: ") + std::strerror(errno));
  std::shared_ptr<IpcEventShare> s(new IpcEventShare());
  s->page_ = static_cast<Page*>(p);
  s->imported_ = true;
  s->exporter_ = exporter;
  if (__atomic_load_n(&s->page_->magic, __ATOMIC_ACQUIRE) != static_cast<uint32_t>(kind) ||
      s->page_->version != kVersion || s->page_->exporter != exporter) {
    return Status(Errc::rt_param_invalid, what);
  }
  s->fd_ = ::dup(fd);
  s->identity_ = inode_of(fd);
  // A pidfd tells a dead exporter from a live one without races on pid reuse; opened now, while
  // the exporter has just answered. Where pidfds are missing, kill(pid, 0) is the fallback.
  if (exporter != ::getpid()) s->pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, exporter, 0));
  *out = std::move(s);
  return Status::Ok();
}

IpcEventShare::~IpcEventShare() {
  for (auto& [pid, fd] : importers_)
    if (fd >= 0) ::close(fd);
  if (page_ != nullptr) ::munmap(page_, kPageBytes);
  if (fd_ >= 0) ::close(fd_);
  if (pidfd_ >= 0) ::close(pidfd_);
}

uint64_t IpcEventShare::begin_record() {
  return __atomic_add_fetch(&page_->recorded, 1, __ATOMIC_ACQ_REL);
}

void IpcEventShare::complete(uint64_t n) {
  uint64_t cur = __atomic_load_n(&page_->completed, __ATOMIC_ACQUIRE);
  while (cur < n) {
    if (__atomic_compare_exchange_n(&page_->completed, &cur, n, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      bump(&page_->seq);
      return;
    }
  }
}

void IpcEventShare::close() {
  __atomic_store_n(&page_->closed, 1u, __ATOMIC_RELEASE);
  bump(&page_->seq);
}

uint64_t IpcEventShare::tag() const {
  return page_->tag;
}

uint32_t* IpcEventShare::seq_word() const {
  return &page_->seq;
}

uint32_t IpcEventShare::seq() const {
  return __atomic_load_n(&page_->seq, __ATOMIC_ACQUIRE);
}

void IpcEventShare::notify_raise() {
  // Only a clear-to-set change wakes anyone: recording a set notify leaves it set.
  if (__atomic_exchange_n(&page_->notify_bit, 1u, __ATOMIC_ACQ_REL) == 0) bump(&page_->seq);
}

bool IpcEventShare::notify_consume() {
  uint32_t one = 1;
  return __atomic_compare_exchange_n(&page_->notify_bit, &one, 0u, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void IpcEventShare::notify_clear() {
  __atomic_store_n(&page_->notify_bit, 0u, __ATOMIC_RELEASE);
}

uint64_t IpcEventShare::recorded() const {
  return __atomic_load_n(&page_->recorded, __ATOMIC_ACQUIRE);
}

bool IpcEventShare::reached(uint64_t target) const {
  return __atomic_load_n(&page_->completed, __ATOMIC_ACQUIRE) >= target;
}

namespace {
// A process has exited (a zombie counts): the pidfd is readable, or without one kill says so.
bool process_gone(pid_t pid, int pidfd) {
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}
}  // namespace

void IpcEventShare::note_granted(pid_t importer) {
  granted_.store(true, std::memory_order_release);
  if (importer <= 0 || importer == ::getpid()) return;
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, importer, 0));
  std::lock_guard lock(importers_mu_);
  importers_.emplace_back(importer, fd);
  granted_to_other_ = true;
  gone_.store(false, std::memory_order_release);
}

bool IpcEventShare::exporter_gone() const {
  if (!imported_) {
    std::lock_guard lock(importers_mu_);
    if (!granted_to_other_) return false;
    for (auto it = importers_.begin(); it != importers_.end();) {
      if (!process_gone(it->first, it->second)) return false;
      if (it->second >= 0) ::close(it->second);
      it = importers_.erase(it);
    }
    gone_.store(true, std::memory_order_release);
    return true;
  }
  if (exporter_ == ::getpid()) return false;
  if (gone_.load(std::memory_order_acquire)) return true;
  bool gone = false;
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    gone = ::poll(&p, 1, 0) > 0;  // readable once the process has exited (zombie included)
  } else {
    gone = ::kill(exporter_, 0) != 0 && errno == ESRCH;
  }
  if (gone) gone_.store(true, std::memory_order_release);
  return gone;
}

IpcEventShare::WaitResult IpcEventShare::wait(uint64_t target, int64_t deadline_ns,
                                              const std::function<bool()>& cancelled) const {
  for (;;) {
    const uint32_t seq = __atomic_load_n(&page_->seq, __ATOMIC_ACQUIRE);
    if (reached(target)) return WaitResult::Done;
    // Checked after `completed`: an exporter that completed the record and then exited is fine.
    if (exporter_gone()) return reached(target) ? WaitResult::Done : WaitResult::ExporterGone;
    if (cancelled && cancelled()) return WaitResult::Cancelled;
    int64_t slice = kPollNs;
    if (deadline_ns >= 0) {
      const int64_t left = deadline_ns - steady_ns();
      if (left <= 0) return WaitResult::Timeout;
      if (left < slice) slice = left;
    }
    timespec ts{static_cast<time_t>(slice / 1'000'000'000), static_cast<long>(slice % 1'000'000'000)};
    ::syscall(SYS_futex, &page_->seq, FUTEX_WAIT, seq, &ts, nullptr, 0);
  }
}

}  // namespace arun
