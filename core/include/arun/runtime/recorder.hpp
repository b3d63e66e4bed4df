// The hot-path side of profiling: what code that does work calls to leave a record.
//
// When no session runs, `on(category)` is one relaxed load of a word that is 0 and a branch the
// CPU predicts, and nothing else happens. When a session runs, emit() copies a fixed-size record
// into the calling thread's own ring buffer, and an API span leaves a compact 32-byte entry in a
// second ring of the thread's (no lock, no allocation, no system call either way); the collector
// thread (profiler.cpp) empties the rings and hands batches to the sinks, so no sink ever runs on a
// thread that enqueues or completes work. A full ring drops the record and counts it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "arun/plugin/profiler.hpp"

namespace arun::prof {

// Categories, named by the ACL_PROF_* bit that turns them on (acl_prof.h).
inline constexpr uint64_t kApi = 0x0001;     // ACL_PROF_ACL_API: API spans, host event syncs
inline constexpr uint64_t kTasks = 0x0002;   // ACL_PROF_TASK_TIME (and its L0/L2 levels): tasks, events
inline constexpr uint64_t kMarks = 0x0080;   // ACL_PROF_MSPROFTX: marks, ranges, steps
inline constexpr uint64_t kMemory = 0x1000;  // ACL_PROF_TASK_MEMORY: allocations and frees
inline constexpr uint64_t kAll = kApi | kTasks | kMarks | kMemory;

// The categories being collected now (0 when no session runs).
extern std::atomic<uint64_t> g_active;

inline bool on(uint64_t category) {
  return (g_active.load(std::memory_order_relaxed) & category) != 0;
}

// The record clock: steady-clock nanoseconds, the same clock the simulated device's clock counts
// from, so device times convert by a constant offset.
inline uint64_t steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Hot-path reads of the record clock use the time-stamp counter instead of clock_gettime (9 ns
// against 27 ns on the reference VM, and an API span reads the clock twice): ticks become
// steady-clock nanoseconds through a line fitted against the steady clock (calibrate_clock(),
// called by every session start before it turns its categories on, so each session is anchored
// afresh and NTP slewing of the steady clock cannot build up). A line is immutable once published;
// a new one is written to another slot of a small pool and swapped in by one pointer store, so a
// reader never sees half of each. No line (no invariant TSC, or not calibrated yet): the steady
// clock is read directly.
struct TscLine {
  uint64_t tsc0;  // anchor: this tick count ...
  uint64_t ns0;   // ... was this steady-clock time
  int64_t mult;   // nanoseconds per tick, 32.32 fixed point
};
extern std::atomic<const TscLine*> g_tsc_line;

// Fits and publishes a new line (the first call measures the rate over 10 ms; later calls refine it
// over the whole time since). Returns false, and leaves the steady clock in use, when the CPU has no
// invariant TSC. Not thread-safe against itself: called under the profiler's control lock.
bool calibrate_clock();

// Raw record-clock ticks: what hot paths keep (API span times, task enqueue and ready times), turned
// into nanoseconds later, off the hot path, by ticks_to_ns (the collector, or the device thread that
// writes a task's record). TSC ticks once a line is published, else steady-clock nanoseconds; a line
// is published before any session turns a category on and never withdrawn, so a tick value and its
// conversion always agree on which it is.
inline uint64_t ticks() {
#if defined(__x86_64__)
  if (g_tsc_line.load(std::memory_order_relaxed) != nullptr) [[likely]]
    return __builtin_ia32_rdtsc();
#endif
  return steady_ns();
}

inline uint64_t ticks_to_ns(uint64_t t) {
  if (const TscLine* line = g_tsc_line.load(std::memory_order_acquire)) [[likely]] {
    const auto d = static_cast<int64_t>(t - line->tsc0);  // may be a little below the anchor
    return line->ns0 + static_cast<uint64_t>(static_cast<int64_t>((static_cast<__int128>(d) * line->mult) >> 32));
  }
  return t;
}

inline uint64_t now_ns() {
  return ticks_to_ns(ticks());
}

// Appends a record to the calling thread's buffer (drops and counts it if the buffer is full).
void emit(const plugin::Record& record);

// One API span as a thread's span ring holds it: only what the calling thread knows (its thread is
// the ring's, its kind is implied), a third of a Record, so a span costs four stores and a launch
// loop moves a third of the memory. drain() turns each into an ApiCall Record.
struct SpanSlot {
  uint64_t t0, t1;       // ticks()
  const char* function;  // a string literal, interned by the drain
  uint64_t correlation;
};
static_assert(sizeof(SpanSlot) == 32, "two spans a cache line");

// A thread's ring of Slots. head is written by the owning thread only, tail by the collector only
// (profiling.cpp makes, drains and frees rings; the hot path below only appends).
template <class Slot>
struct RingOf {
  explicit RingOf(uint64_t cap);
  ~RingOf();
  RingOf(const RingOf&) = delete;
  RingOf& operator=(const RingOf&) = delete;
  Slot* slots;
  const uint64_t mask;
  const uint64_t capacity;
  alignas(64) std::atomic<uint64_t> head{0};
  uint64_t cached_tail = 0;          // producer's last view of tail
  std::atomic<uint64_t> dropped{0};  // producer increments (single writer), collector reads
  std::atomic<uint32_t> tid{0};
  alignas(64) std::atomic<uint64_t> tail{0};
  uint64_t dropped_seen = 0;  // collector's last view of dropped
  bool retired = false;       // its thread exited (guarded by the ring registry's lock)
};
using Ring = RingOf<plugin::Record>;
using SpanRing = RingOf<SpanSlot>;

// Everything the hot path keeps per thread, in one trivially initialised thread_local. The
// initial-exec TLS model makes each access a plain %fs-relative load: the default model for a
// shared library calls __tls_get_addr on every access, which cost more than the record itself.
struct ThreadState {
  uint64_t correlation;       // of the innermost API span (0: none)
  uint64_t span_start;        // when it began, in ticks() (0: none)
  uint64_t correlation_next;  // the last correlation id given out (0: none yet; see next_correlation)
  Ring* ring;                 // this thread's record ring (nullptr: none yet)
  SpanRing* spans;            // its API-span ring (nullptr: none yet)
  uint32_t tid;               // Linux tid (0: not read yet)
  bool exited;                // the thread's rings were retired: it is exiting
};
// constinit: no dynamic initialisation, so an access is not routed through a TLS init function.
extern constinit thread_local ThreadState t_thread __attribute__((tls_model("initial-exec")));

uint32_t read_thread_id();      // first call on a thread
uint64_t correlation_prefix();  // first call on a thread

// The calling thread's Linux tid (cached).
inline uint32_t thread_id() {
  uint32_t tid = t_thread.tid;
  return tid != 0 ? tid : read_thread_id();
}

// Make the calling thread's rings (nullptr once the thread is exiting; emit() and ApiSpan call
// them at a thread's first entry), and the slow halves of reserve_in / commit_in. In profiling.cpp.
Ring* acquire_ring();
SpanRing* acquire_span_ring();
template <class Slot>
bool ring_full(RingOf<Slot>* ring, uint64_t h);
template <class Slot>
void ring_half_full(RingOf<Slot>* ring, uint64_t h);

// The slot the owning thread's next entry goes to, or nullptr (ring full: the entry is counted as
// dropped). commit_in() publishes it.
template <class Slot>
inline Slot* reserve_in(RingOf<Slot>* ring) {
  const uint64_t h = ring->head.load(std::memory_order_relaxed);
  if (h - ring->cached_tail >= ring->capacity) [[unlikely]] {
    if (ring_full(ring, h)) return nullptr;
  }
  return &ring->slots[h & ring->mask];
}

template <class Slot>
inline void commit_in(RingOf<Slot>* ring) {
  const uint64_t h = ring->head.load(std::memory_order_relaxed) + 1;
  ring->head.store(h, std::memory_order_release);
  // Half full: ask the collector to come now rather than at its next tick (once per half ring).
  if (h - ring->cached_tail == ring->capacity / 2) [[unlikely]]
    ring_half_full(ring, h);
}

// Interns a string; the id stays valid for the life of the process. Takes a lock: call it off the
// hot path, or use intern_static.
uint32_t intern(std::string_view text);
// For string literals and other text that lives as long as the program: looked up by address
// without a lock after the first call.
uint32_t intern_static(const char* text);

// Correlation ids: each API span gets a fresh one, unique in the process and made without an atomic
// read-modify-write: a per-thread prefix in the top 24 bits and a per-thread count in the low 40
// (10^12 spans a thread: more than a day of back-to-back calls before a thread's count would run
// into the next prefix), kept together so that taking one is one increment.
inline uint64_t next_correlation() {
  const uint64_t id = t_thread.correlation_next;
  if (id == 0) [[unlikely]]
    return t_thread.correlation_next = correlation_prefix() + 1;
  return t_thread.correlation_next = id + 1;
}
inline uint64_t current_correlation() {
  return t_thread.correlation;
}
inline void set_current_correlation(uint64_t id) {
  t_thread.correlation = id;
}
// When the calling thread's innermost API span began, in ticks() (0 outside any span): the enqueue
// time of the tasks it submits, which saves a clock read per launch.
inline uint64_t current_span_start() {
  return t_thread.span_start;
}
inline void set_current_span_start(uint64_t t) {
  t_thread.span_start = t;
}

// Wakes the collector early (a ring is half full). Defined with the collector (profiler.cpp).
void kick_collector();

// A fresh id for an event record (links a record to its waits in the timeline).
uint64_t next_record_id();

// An API span: times the enclosing scope and leaves a SpanSlot in the thread's span ring when it
// ends. Only constructed while a session collects API spans (api_call checks); one that outlives
// its session still writes its slot: a later drain either delivers it before the session ends or
// the next session's start discards it, and drains drop records older than their session.
class ApiSpan {
 public:
  [[gnu::always_inline]] explicit ApiSpan(const char* function) : function_(function) {
    ThreadState& t = t_thread;
    saved_ = t.correlation;
    saved_start_ = t.span_start;
    correlation_ = next_correlation();
    start_ = ticks();
    t.correlation = correlation_;
    t.span_start = start_;
  }
  [[gnu::always_inline]] ~ApiSpan() {
    const uint64_t end = ticks();
    ThreadState& t = t_thread;
    t.correlation = saved_;
    t.span_start = saved_start_;
    SpanRing* ring = t.spans;
    if (ring == nullptr) [[unlikely]] {
      ring = acquire_span_ring();
      if (ring == nullptr) return;
    }
    SpanSlot* slot = reserve_in(ring);
    if (slot == nullptr) return;
    slot->t0 = start_;
    slot->t1 = end;
    slot->function = function_;
    slot->correlation = correlation_;
    commit_in(ring);
  }
  ApiSpan(const ApiSpan&) = delete;
  ApiSpan& operator=(const ApiSpan&) = delete;

 private:
  const char* function_;
  uint64_t correlation_;
  uint64_t saved_;
  uint64_t saved_start_;
  uint64_t start_;  // ticks()
};

// A blank record of `kind` with the calling thread filled in.
inline plugin::Record make_record(plugin::RecordKind kind) {
  plugin::Record r{};
  r.kind = kind;
  r.thread = thread_id();
  r.device = -1;
  r.stream = -1;
  return r;
}

}  // namespace arun::prof
