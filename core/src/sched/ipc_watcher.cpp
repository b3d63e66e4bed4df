#include "sched/ipc_watcher.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "runtime/ipc_event.hpp"
#include "sched/scheduler.hpp"

namespace arun {

namespace {

// futex_waitv(2) (Linux 5.16), declared here: older kernel headers lack it.
struct WaitV {
  uint64_t val;
  uint64_t uaddr;
  uint32_t flags;
  uint32_t reserved;
};
constexpr long kSysFutexWaitv = 449;  // the same number on every architecture
constexpr uint32_t kFutex2U32 = 0x02;
constexpr uint32_t kFutex2Private = 128;
constexpr size_t kMaxWaiters = 128;         // the kernel's limit, the wake word included
constexpr int64_t kPidPollNs = 10'000'000;  // how often exporters' deaths are looked for

timespec deadline_in(int64_t ns) {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_nsec += ns;
  ts.tv_sec += ts.tv_nsec / 1'000'000'000;
  ts.tv_nsec %= 1'000'000'000;
  return ts;
}

}  // namespace

IpcWatcher& IpcWatcher::instance() {
  static IpcWatcher* watcher = new IpcWatcher();  // never destroyed: no exit-time teardown order
  return *watcher;
}

void IpcWatcher::wake_locked() {
  __atomic_add_fetch(&wake_word_, 1, __ATOMIC_ACQ_REL);
  ::syscall(SYS_futex, &wake_word_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void IpcWatcher::add(const void* key, Scheduler* sched, std::shared_ptr<IpcEventShare> page, uint32_t seen) {
  std::lock_guard lock(mu_);
  entries_.push_back(Entry{key, sched, std::move(page), seen, false});
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  wake_locked();
}

void IpcWatcher::remove(const void* key) {
  std::lock_guard lock(mu_);
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; }),
                 entries_.end());
}

void IpcWatcher::forget(Scheduler* sched) {
  std::unique_lock lock(mu_);
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.sched == sched; }),
                 entries_.end());
  idle_.wait(lock, [&] { return poking_ != sched; });
}

size_t IpcWatcher::watched() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void IpcWatcher::run() {
  bool have_waitv = true;
  std::vector<std::shared_ptr<IpcEventShare>> held;  // keeps the pages mapped while we wait on them
  std::vector<WaitV> waiters;
  std::unique_lock lock(mu_);
  for (;;) {
    // What changed since each wait was last checked: a page's seq, or its exporter's life.
    std::vector<Scheduler*> pokes;
    for (Entry& e : entries_) {
      const uint32_t seq = e.page->seq();
      bool tell = seq != e.seen;
      e.seen = seq;
      if (!e.gone_told && e.page->exporter_gone()) tell = e.gone_told = true;
      if (tell && std::find(pokes.begin(), pokes.end(), e.sched) == pokes.end()) pokes.push_back(e.sched);
    }
    for (Scheduler* s : pokes) {
      // forget() may have dropped it while we were poking another one.
      const bool live = std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.sched == s; });
      if (!live) continue;
      poking_ = s;
      lock.unlock();
      s->poke_device_waits();
      lock.lock();
      poking_ = nullptr;
      idle_.notify_all();
    }
    if (!pokes.empty()) continue;  // look again: the pokes themselves may have changed pages

    const uint32_t wake = __atomic_load_n(&wake_word_, __ATOMIC_ACQUIRE);
    held.clear();
    waiters.clear();
    waiters.push_back(WaitV{wake, reinterpret_cast<uintptr_t>(&wake_word_), kFutex2U32 | kFutex2Private, 0});
    for (const Entry& e : entries_) {
      if (waiters.size() == kMaxWaiters) break;  // the rest are seen at the next timeout
      held.push_back(e.page);
      waiters.push_back(WaitV{e.seen, reinterpret_cast<uintptr_t>(e.page->seq_word()), kFutex2U32, 0});
    }
    const bool idle = entries_.empty();
    lock.unlock();
    if (idle) {
      ::syscall(SYS_futex, &wake_word_, FUTEX_WAIT_PRIVATE, wake, nullptr, nullptr, 0);
    } else if (have_waitv) {
      timespec until = deadline_in(kPidPollNs);
      if (::syscall(kSysFutexWaitv, waiters.data(), waiters.size(), 0, &until, CLOCK_MONOTONIC) < 0 &&
          errno == ENOSYS) {
        have_waitv = false;
      }
    } else {
      // No futex_waitv: poll every millisecond.
      timespec slice{0, 1'000'000};
      ::syscall(SYS_futex, &wake_word_, FUTEX_WAIT_PRIVATE, wake, &slice, nullptr, 0);
    }
    held.clear();
    lock.lock();
  }
}

}  // namespace arun
