#include "unit_pool.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "block_board.hpp"
#include "execution_unit.hpp"

namespace arun::ascend {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// std::atomic<uint32_t> has the layout of a uint32_t, which is what the futex calls need.
void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, const timespec* timeout = nullptr) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, timeout, nullptr, 0);
}
void futex_wake(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

uint64_t steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

uint64_t thread_cpu_ns(pthread_t thread) {
  clockid_t clock{};
  timespec ts{};
  if (::pthread_getcpuclockid(thread, &clock) != 0 || ::clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The monitor's period. Work nobody takes for a tick while every worker is blocked gets a new
// worker; work held up by computing workers only after kStallTicks ticks without any completion.
constexpr uint64_t kTickNs = 200'000;
constexpr uint32_t kStallTicks = 50;  // 10 ms

}  // namespace

struct UnitPool::Worker {
  UnitPool* pool = nullptr;
  uint32_t id = 0;
  std::thread thread;
  alignas(64) std::atomic<uint32_t> parked{0};  // futex word: 1 while the worker sleeps (or is about to)
  ExecutionUnit* next = nullptr;                // continuation: a unit the worker's own completion posted
};

uint32_t UnitPool::available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<uint32_t>(n);
  }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<uint32_t>(n) : 1u;
}

// Which worker the calling thread is: a pthread key, not a thread_local, because the plugin is
// dlopen'ed and LeakSanitizer's exit-time scan of dynamic TLS crashes on this toolchain.
UnitPool::UnitPool(const HostLog& log, uint32_t threads, uint32_t max_workers, uint64_t spin_ns)
    : log_(log),
      spin_ns_(spin_ns),
      base_(std::max(1u, threads == 0 ? available_cpus() : threads)),
      capacity_(std::max(base_, max_workers)),
      workers_(new Worker[capacity_]) {
  key_ok_ = ::pthread_key_create(&worker_key_, nullptr) == 0;
  window_ns_.store(spin_ns_, std::memory_order_relaxed);
}

UnitPool::~UnitPool() {
  stop_all();
  if (key_ok_) ::pthread_key_delete(worker_key_);
}

UnitPool::Worker* UnitPool::current_worker() const {
  return key_ok_ ? static_cast<Worker*>(::pthread_getspecific(worker_key_)) : nullptr;
}

bool UnitPool::on_worker_thread() const {
  return current_worker() != nullptr;
}

Status UnitPool::attach(BlockBoard* board, uint32_t units) {
  std::lock_guard lock(attach_mu_);
  bool placed = false;
  for (auto& slot : boards_) {
    BlockBoard* empty = nullptr;
    if (slot.compare_exchange_strong(empty, board, std::memory_order_acq_rel)) {
      placed = true;
      break;
    }
  }
  if (!placed) return Status(Errc::rt_dev_setup_error, "the unit pool serves at most 16 devices");
  unit_limit_ += units;
  limit_.store(std::min(capacity_, std::max(base_, unit_limit_)), std::memory_order_release);
  if (attached_++ > 0) return Status::Ok();

  stopping_.store(false, std::memory_order_seq_cst);
  for (uint32_t i = 0; i < base_; ++i) {
    if (!start_worker()) {
      stop_all();
      attached_ = 0;
      unit_limit_ = 0;
      for (auto& slot : boards_) slot.store(nullptr, std::memory_order_release);
      return Status(Errc::rt_dev_setup_error, "cannot start the device's worker threads");
    }
  }
  try {
    monitor_ = std::thread([this] { monitor(); });
    ::pthread_setname_np(monitor_.native_handle(), "npu-monitor");
  } catch (const std::system_error& e) {
    log_.warning(std::string("unit pool: no monitor thread (") + e.what() + "); the pool will not grow");
  }
  return Status::Ok();
}

void UnitPool::detach(BlockBoard* board, uint32_t units) {
  std::lock_guard lock(attach_mu_);
  for (auto& slot : boards_) {
    BlockBoard* expected = board;
    if (slot.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel)) break;
  }
  unit_limit_ -= std::min(unit_limit_, units);
  if (attached_ == 0 || --attached_ > 0) return;
  stop_all();
}

bool UnitPool::start_worker() {
  std::lock_guard lock(workers_mu_);
  const uint32_t n = started_.load(std::memory_order_relaxed);
  if (n >= capacity_ || (n >= limit_.load(std::memory_order_acquire) && n >= base_)) return false;
  Worker& w = workers_[n];
  w.pool = this;
  w.id = n;
  w.next = nullptr;
  w.parked.store(0, std::memory_order_relaxed);
  try {
    w.thread = std::thread([this, &w] { loop(w); });
  } catch (const std::system_error& e) {
    log_.error(std::string("unit pool: cannot start a worker thread: ") + e.what());
    return false;
  }
  const std::string name = "npu-exec" + std::to_string(n);
  ::pthread_setname_np(w.thread.native_handle(), name.c_str());
  started_.store(n + 1, std::memory_order_release);
  return true;
}

void UnitPool::stop_all() {
  if (on_worker_thread()) {
    log_.error("unit pool: the last device closed from a completion on a worker thread; workers not joined");
    return;
  }
  stopping_.store(true, std::memory_order_seq_cst);
  if (monitor_.joinable()) {
    monitor_word_.store(1, std::memory_order_seq_cst);
    futex_wake(&monitor_word_);
    monitor_.join();
  }
  std::lock_guard lock(workers_mu_);
  const uint32_t n = started_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    workers_[i].parked.store(0, std::memory_order_seq_cst);
    futex_wake(&workers_[i].parked);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (workers_[i].thread.joinable()) workers_[i].thread.join();
  }
  started_.store(0, std::memory_order_release);
}

void UnitPool::post(ExecutionUnit* unit) {
  // The completion of a unit's work launching the next task: the completing worker runs it next.
  Worker* self = current_worker();
  if (self != nullptr && self->next == nullptr) {
    self->next = unit;
    return;
  }
  {
    // The count changes with the queue, under its lock, so it never runs below the queue's size.
    std::lock_guard lock(queue_mu_);
    queue_.push_back(unit);
    queued_.fetch_add(1, std::memory_order_seq_cst);
  }
  if (spinning_.load(std::memory_order_seq_cst) == 0) wake_one();
}

void UnitPool::blocks_published() {
  if (spinning_.load(std::memory_order_seq_cst) == 0) wake_one();
}

void UnitPool::wake_one() {
  const uint32_t n = started_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    Worker& w = workers_[i];
    if (w.parked.load(std::memory_order_seq_cst) != 0 && w.parked.exchange(0, std::memory_order_seq_cst) != 0) {
      futex_wake(&w.parked);
      return;
    }
  }
  // Every worker is busy: the monitor watches whether the work gets taken.
  if (monitor_word_.load(std::memory_order_seq_cst) == 0 && monitor_word_.exchange(1, std::memory_order_seq_cst) == 0)
    futex_wake(&monitor_word_);
}

ExecutionUnit* UnitPool::pop() {
  if (queued_.load(std::memory_order_seq_cst) == 0) return nullptr;
  std::lock_guard lock(queue_mu_);
  if (queue_.empty()) return nullptr;
  ExecutionUnit* u = queue_.front();
  queue_.pop_front();
  queued_.fetch_sub(1, std::memory_order_seq_cst);
  return u;
}

bool UnitPool::boards_claimable() const {
  for (const auto& slot : boards_) {
    BlockBoard* b = slot.load(std::memory_order_acquire);
    if (b != nullptr && b->claimable()) return true;
  }
  return false;
}

bool UnitPool::has_pending() const {
  return queued_.load(std::memory_order_seq_cst) != 0 || boards_claimable();
}

bool UnitPool::has_something() const {
  return has_pending() || stopping_.load(std::memory_order_seq_cst);
}

void UnitPool::run_unit(ExecutionUnit& unit) {
  busy_.fetch_add(1, std::memory_order_relaxed);
  unit.run_posted();
  busy_.fetch_sub(1, std::memory_order_relaxed);
  progress_.fetch_add(1, std::memory_order_relaxed);
}

bool UnitPool::help_once(Worker& w) {
  (void)w;
  for (const auto& slot : boards_) {
    BlockBoard* board = slot.load(std::memory_order_acquire);
    if (board == nullptr || !board->claimable()) continue;
    ExecutionUnit* core = nullptr;
    BlockBoard::Launch* launch = board->join(&core);
    if (launch == nullptr) continue;
    busy_.fetch_add(1, std::memory_order_relaxed);
    // Leave between blocks when the core gets work of its own or units wait for a worker.
    core->run_blocks(*launch, [&] {
      return core->has_work() || queued_.load(std::memory_order_relaxed) != 0 ||
             stopping_.load(std::memory_order_relaxed);
    });
    board->leave(*launch, *core);
    busy_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

void UnitPool::loop(Worker& w) {
  if (key_ok_) ::pthread_setspecific(worker_key_, &w);
  for (;;) {
    ExecutionUnit* u = w.next;
    w.next = nullptr;
    if (u == nullptr) {
      u = pop();
      // More is queued than this worker takes: pass the wake-up on before running (the unit may
      // block for long), so a burst of launches that woke one worker still reaches as many
      // workers as it has units (or arms the monitor when none is left).
      if (u != nullptr && queued_.load(std::memory_order_seq_cst) != 0 &&
          spinning_.load(std::memory_order_seq_cst) == 0)
        wake_one();
    }
    if (u != nullptr) {
      run_unit(*u);
      continue;
    }
    if (help_once(w)) continue;
    if (stopping_.load(std::memory_order_acquire)) break;
    idle(w);
  }
  if (key_ok_) ::pthread_setspecific(worker_key_, nullptr);
}

// Polls for a window, then parks. The worker that went idle last polls: it takes the poller's
// role from the one before, which parks, so one worker at most polls, and its window starts when
// the latest work ended (the next launch of a busy program usually follows within it). Blocks
// published meanwhile end the poll (the worker goes to join them); a board whose blocks this
// worker could not join (no free core) does not keep it awake: it parks, and the next publish or
// leave wakes it.
//
// The window adapts, between spin_ns and kMaxWindowFactor * spin_ns (at most kMaxWindowNs, unless
// spin_ns itself is more): a worker woken from its park
// measures how long after the pool's latest end of work the new work came. A gap the largest
// window would have covered (a program that synchronizes and launches again, whose own wake-up
// from the synchronize takes microseconds on a virtual machine) widens the window to twice the
// gap, so the next launch finds a poller and pays no futex wake; a longer gap halves it back
// towards spin_ns. Polling yields the CPU between polls, so the wider window costs only
// otherwise idle CPU time.
void UnitPool::idle(Worker& w) {
  // Blocks published while this worker polls or goes to park are work for it: a publish wakes
  // nobody while somebody polls. A board already claimable now is one this worker just failed to
  // join (no free core, or the launch is full): it is not watched, or the worker would spin on it.
  const bool watch_boards = !boards_claimable();
  auto work_waiting = [this, watch_boards] {
    return queued_.load(std::memory_order_seq_cst) != 0 || stopping_.load(std::memory_order_seq_cst) ||
           (watch_boards && boards_claimable());
  };
  // The latest end of work in the pool: the moment the gap to the next launch starts.
  last_idle_ns_.store(steady_ns(), std::memory_order_relaxed);
  if (spin_ns_ > 0) {
    const uint32_t me = w.id + 1;
    spinning_.store(me, std::memory_order_seq_cst);
    const uint64_t until = steady_ns() + window_ns_.load(std::memory_order_relaxed);
    bool found = false;
    bool mine = true;
    do {
      for (int i = 0; i < 32 && !found && mine; ++i) {
        found = work_waiting();
        mine = spinning_.load(std::memory_order_relaxed) == me;
        if (!found) cpu_relax();
      }
      // Give the CPU to a runnable thread that shares it (the launching thread, on a machine with
      // few CPUs): polling must not delay the very launch it waits for.
      if (!found && mine) ::sched_yield();
    } while (!found && mine && steady_ns() < until);
    uint32_t expected = me;
    spinning_.compare_exchange_strong(expected, 0, std::memory_order_seq_cst);
    if (found) return;  // the loop takes the work (and passes a wake-up on if more is queued)
  }
  w.parked.store(1, std::memory_order_seq_cst);
  if (!work_waiting()) {
    parks_.fetch_add(1, std::memory_order_relaxed);
    futex_wait(&w.parked, 1);  // returns at once if a poster already cleared the word
    if (spin_ns_ > 0) adapt_window(steady_ns() - last_idle_ns_.load(std::memory_order_relaxed));
  }
  w.parked.store(0, std::memory_order_relaxed);
}

void UnitPool::adapt_window(uint64_t gap_ns) {
  const uint64_t most = std::max(spin_ns_, std::min(kMaxWindowFactor * spin_ns_, kMaxWindowNs));
  const uint64_t now = window_ns_.load(std::memory_order_relaxed);
  const uint64_t next = gap_ns <= most ? std::clamp(2 * gap_ns, spin_ns_, most) : std::max(spin_ns_, now / 2);
  window_ns_.store(next, std::memory_order_relaxed);
}

void UnitPool::monitor() {
  uint64_t last_progress = progress_.load(std::memory_order_relaxed);
  uint32_t stalled = 0;
  std::vector<uint64_t> cpu_before;
  for (;;) {
    if (stopping_.load(std::memory_order_seq_cst)) return;
    // Park until a launch finds every worker busy (the word is 1 while the monitor watches, so
    // launches meanwhile make no system call).
    if (!has_pending()) {
      monitor_word_.store(0, std::memory_order_seq_cst);
      if (!has_pending() && !stopping_.load(std::memory_order_seq_cst)) futex_wait(&monitor_word_, 0);
      monitor_word_.store(1, std::memory_order_seq_cst);
      stalled = 0;
      last_progress = progress_.load(std::memory_order_relaxed);
      continue;
    }
    // Sample the busy workers' CPU time across one tick.
    const uint32_t n = started_.load(std::memory_order_acquire);
    cpu_before.resize(n);
    for (uint32_t i = 0; i < n; ++i) cpu_before[i] = thread_cpu_ns(workers_[i].thread.native_handle());
    timespec tick{0, static_cast<long>(kTickNs)};
    futex_wait(&monitor_word_, 1, &tick);  // a timed sleep that stop_all() can cut short
    if (stopping_.load(std::memory_order_seq_cst)) return;
    const uint64_t now_progress = progress_.load(std::memory_order_relaxed);
    const bool moved = now_progress != last_progress;
    last_progress = now_progress;
    if (moved || !has_pending()) {
      stalled = 0;
      continue;
    }
    // Idle workers would have taken it; a lost wake-up is the only way here.
    if (busy_.load(std::memory_order_relaxed) < n) {
      wake_one();
      continue;
    }
    ++stalled;
    uint64_t cpu = 0;
    for (uint32_t i = 0; i < n; ++i) cpu += thread_cpu_ns(workers_[i].thread.native_handle()) - cpu_before[i];
    // Blocked workers (sleeping kernels, blocks waiting for each other) used little CPU: more
    // threads help at once. Computing workers get company only after a long stall.
    const bool blocked = cpu < static_cast<uint64_t>(n) * kTickNs / 2;
    if (blocked || stalled >= kStallTicks) {
      if (start_worker()) {
        grown_.fetch_add(1, std::memory_order_relaxed);
        stalled = 0;
      }
    }
  }
}

}  // namespace arun::ascend
