#include "arun/runtime/recorder.hpp"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "prof/trace_rings.hpp"

namespace arun::prof {

// Read on every record site, written once per session: not on a cache line with the counters
// below, which hot paths write (see g_record_ids).
alignas(64) std::atomic<uint64_t> g_active{0};
std::atomic<const TscLine*> g_tsc_line{nullptr};
constinit thread_local ThreadState t_thread __attribute__((tls_model("initial-exec"))) = {};

namespace {

using plugin::Record;

}  // namespace

// The slots are committed lazily: only the ring's first kPrefaultBytes are faulted in when the ring
// is made (so the default 4 MiB ring takes no page fault on the hot path during its first lap), and
// the rest of a larger ring is committed page by page as records reach it. A large [profiler]
// buffer_size therefore reserves address space per thread, not memory, until it is used.
constexpr uint64_t kPrefaultBytes = 4u << 20;

template <class Slot>
Slot* map_slots(uint64_t cap) {
  const uint64_t bytes = cap * sizeof(Slot);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const uint64_t prefault = std::min(bytes, kPrefaultBytes);
  auto* bytes_at = static_cast<volatile char*>(p);
  for (uint64_t off = 0; off < prefault; off += 4096) bytes_at[off] = 0;
  return static_cast<Slot*>(p);
}

template <class Slot>
RingOf<Slot>::RingOf(uint64_t cap) : slots(map_slots<Slot>(cap)), mask(cap - 1), capacity(cap) {}
template <class Slot>
RingOf<Slot>::~RingOf() {
  ::munmap(slots, capacity * sizeof(Slot));
}

namespace {

// A power of two of entries of `size` bytes that fits in `bytes` (at least 64).
uint64_t entries_in(uint64_t bytes, size_t size) {
  uint64_t cap = 64;
  while (cap * 2 * size <= bytes) cap *= 2;
  return cap;
}

constexpr uint64_t kDefaultBufferBytes = 4u << 20;  // [profiler] buffer_size's default

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Ring>> rings;
  std::vector<std::unique_ptr<SpanRing>> span_rings;
  std::atomic<uint64_t> bytes{kDefaultBufferBytes};  // per ring
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: a live thread's ring outlives statics
  return *r;
}

// The fast path reads t_thread's ring pointers; the owner object, whose destructor retires the
// rings when the thread exits, is touched only when a ring is acquired. A retired ring is freed by
// the next drain (the collector's, a session's stop, or aclFinalize's), once its last records are
// delivered.
struct RingOwner {
  Ring* ring = nullptr;
  SpanRing* spans = nullptr;
  ~RingOwner() {
    t_thread.exited = true;  // records emitted by later thread_local destructors are not kept
    if (ring == nullptr && spans == nullptr) return;
    std::lock_guard lock(registry().mu);
    if (ring != nullptr) ring->retired = true;
    if (spans != nullptr) spans->retired = true;
    t_thread.ring = nullptr;
    t_thread.spans = nullptr;
  }
};
thread_local RingOwner t_ring_owner;

// Makes the calling thread's ring of Slots, registered in `rings`, and notes it where the fast path
// reads it (`in_thread`) and where the thread's exit retires it (`in_owner`).
template <class Slot>
RingOf<Slot>* make_ring(std::vector<std::unique_ptr<RingOf<Slot>>>& rings, RingOf<Slot>*& in_thread,
                        RingOf<Slot>*& in_owner) {
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  rings.push_back(std::make_unique<RingOf<Slot>>(entries_in(reg.bytes.load(std::memory_order_relaxed), sizeof(Slot))));
  RingOf<Slot>* made = rings.back().get();
  made->tid.store(thread_id(), std::memory_order_relaxed);
  in_thread = in_owner = made;
  return made;
}

}  // namespace

// An exiting thread gets no new ring (its owner object may already be gone).
Ring* acquire_ring() {
  return t_thread.exited ? nullptr : make_ring(registry().rings, t_thread.ring, t_ring_owner.ring);
}

SpanRing* acquire_span_ring() {
  return t_thread.exited ? nullptr : make_ring(registry().span_rings, t_thread.spans, t_ring_owner.spans);
}

namespace {

// ---- strings

class Strings final : public plugin::StringTable {
 public:
  Strings() { texts_.emplace_back(); }  // id 0: empty
  std::string_view get(uint32_t id) const override {
    std::lock_guard lock(mu_);
    return id < texts_.size() ? std::string_view(texts_[id]) : std::string_view();
  }
  uint32_t intern(std::string_view text) {
    std::lock_guard lock(mu_);
    auto it = ids_.find(std::string(text));
    if (it != ids_.end()) return it->second;
    auto id = static_cast<uint32_t>(texts_.size());
    texts_.emplace_back(text);  // a deque never moves its elements: views stay valid
    ids_.emplace(texts_.back(), id);
    return id;
  }

 private:
  mutable std::mutex mu_;
  std::deque<std::string> texts_;
  std::unordered_map<std::string, uint32_t> ids_;
};

Strings& string_table() {
  static Strings* s = new Strings();  // never destroyed: sinks may look strings up at exit
  return *s;
}

// Address-keyed cache in front of the table for literals: open addressing, lock-free lookups.
constexpr size_t kStaticSlots = 4096;
struct StaticSlot {
  std::atomic<const char*> key{nullptr};
  std::atomic<uint32_t> id{0};
};
StaticSlot g_static[kStaticSlots];
std::mutex g_static_mu;

alignas(64) std::atomic<uint64_t> g_correlation_threads{0};
alignas(64) std::atomic<uint64_t> g_record_ids{0};  // one fetch_add per profiled event record

}  // namespace

namespace {

bool invariant_tsc() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d & (1u << 8)) != 0;  // "invariant TSC": constant rate, runs in every C-state
#else
  return false;
#endif
}

// One (ticks, ns) pair: the steady clock read between two counter reads, keeping the tightest of a
// few tries (a preemption in between would skew the pair).
void clock_pair(uint64_t* tsc, uint64_t* ns) {
#if defined(__x86_64__)
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t a = __builtin_ia32_rdtsc();
    const uint64_t n = steady_ns();
    const uint64_t b = __builtin_ia32_rdtsc();
    if (b - a < best) {
      best = b - a;
      *tsc = a + (b - a) / 2;
      *ns = n;
    }
  }
#else
  *tsc = 0;
  *ns = steady_ns();
#endif
}

}  // namespace

bool calibrate_clock() {
  static int usable = -1;  // -1: not checked yet
  static uint64_t first_tsc = 0, first_ns = 0;
  // Every line published stays allocated (24 bytes a session): a reader may still hold an old one.
  static auto* lines = new std::vector<std::unique_ptr<TscLine>>();
  if (usable < 0) {
    usable = invariant_tsc() ? 1 : 0;
    if (usable == 0) return false;
    clock_pair(&first_tsc, &first_ns);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (usable == 0) return false;
  uint64_t tsc = 0, ns = 0;
  clock_pair(&tsc, &ns);
  if (tsc <= first_tsc || ns <= first_ns) return false;
  lines->push_back(std::make_unique<TscLine>());
  TscLine& line = *lines->back();
  line.tsc0 = tsc;
  line.ns0 = ns;
  line.mult = static_cast<int64_t>((static_cast<unsigned __int128>(ns - first_ns) << 32) / (tsc - first_tsc));
  g_tsc_line.store(&line, std::memory_order_release);
  return true;
}

uint32_t read_thread_id() {
  t_thread.tid = static_cast<uint32_t>(::gettid());
  return t_thread.tid;
}

uint64_t correlation_prefix() {
  return (g_correlation_threads.fetch_add(1, std::memory_order_relaxed) + 1) << 40;
}

template <class Slot>
bool ring_full(RingOf<Slot>* ring, uint64_t h) {
  ring->cached_tail = ring->tail.load(std::memory_order_acquire);
  if (h - ring->cached_tail < ring->capacity) return false;
  ring->dropped.store(ring->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return true;
}

template <class Slot>
void ring_half_full(RingOf<Slot>* ring, uint64_t h) {
  ring->cached_tail = ring->tail.load(std::memory_order_acquire);
  if (h - ring->cached_tail >= ring->capacity / 2) kick_collector();
}

template bool ring_full(Ring*, uint64_t);
template bool ring_full(SpanRing*, uint64_t);
template void ring_half_full(Ring*, uint64_t);
template void ring_half_full(SpanRing*, uint64_t);

void emit(const Record& record) {
  Ring* ring = t_thread.ring;
  if (ring == nullptr && (ring = acquire_ring()) == nullptr) return;
  Record* slot = reserve_in(ring);
  if (slot == nullptr) return;
  *slot = record;
  commit_in(ring);
}

uint32_t intern(std::string_view text) {
  return string_table().intern(text);
}

uint32_t intern_static(const char* text) {
  if (text == nullptr) return 0;
  const size_t start = (reinterpret_cast<uintptr_t>(text) >> 3) * 0x9E3779B97F4A7C15ull >> 52;  // 12 bits
  for (size_t i = 0; i < 64; ++i) {
    StaticSlot& slot = g_static[(start + i) % kStaticSlots];
    const char* key = slot.key.load(std::memory_order_acquire);
    if (key == text) return slot.id.load(std::memory_order_relaxed);
    if (key != nullptr) continue;
    std::lock_guard lock(g_static_mu);
    key = slot.key.load(std::memory_order_relaxed);
    if (key == text) return slot.id.load(std::memory_order_relaxed);
    if (key != nullptr) continue;  // taken meanwhile by another text: probe on
    uint32_t id = string_table().intern(text);
    slot.id.store(id, std::memory_order_relaxed);
    slot.key.store(text, std::memory_order_release);
    return id;
  }
  return string_table().intern(text);  // a crowded neighbourhood: the locked path
}

uint64_t next_record_id() {
  return g_record_ids.fetch_add(1, std::memory_order_relaxed) + 1;
}

namespace {

Record span_record(const SpanSlot& span, uint32_t thread) {
  Record r{};
  r.kind = plugin::RecordKind::ApiCall;
  r.name = intern_static(span.function);
  r.thread = thread;
  r.device = -1;
  r.stream = -1;
  r.correlation = span.correlation;
  r.t0 = ticks_to_ns(span.t0);
  r.t1 = ticks_to_ns(span.t1);
  return r;
}

// Moves one ring's entries to `out` (as Records) and its new drops to a Dropped record.
template <class Slot>
void drain_ring(RingOf<Slot>& ring, std::vector<Record>* out, uint64_t* dropped) {
  const uint64_t h = ring.head.load(std::memory_order_acquire);
  const uint64_t t = ring.tail.load(std::memory_order_relaxed);
  const uint32_t tid = ring.tid.load(std::memory_order_relaxed);
  for (uint64_t i = t; i < h; ++i) {
    if constexpr (std::is_same_v<Slot, SpanSlot>) {
      out->push_back(span_record(ring.slots[i & ring.mask], tid));
    } else {
      out->push_back(ring.slots[i & ring.mask]);
    }
  }
  ring.tail.store(h, std::memory_order_release);
  const uint64_t d = ring.dropped.load(std::memory_order_relaxed);
  if (d != ring.dropped_seen) {
    Record r{};
    r.kind = plugin::RecordKind::Dropped;
    r.thread = tid;
    r.device = -1;
    r.stream = -1;
    r.value0 = d - ring.dropped_seen;
    *dropped += r.value0;
    ring.dropped_seen = d;
    out->push_back(r);
  }
}

// The rings to drain now, and which of them are retired (nothing more can be written there).
template <class Slot>
void collect(std::vector<std::unique_ptr<RingOf<Slot>>>& rings, std::vector<RingOf<Slot>*>* live,
             std::vector<RingOf<Slot>*>* retired) {
  for (auto& r : rings) {
    live->push_back(r.get());
    if (r->retired) retired->push_back(r.get());
  }
}

template <class Slot>
void free_retired(std::vector<std::unique_ptr<RingOf<Slot>>>& rings, const std::vector<RingOf<Slot>*>& retired) {
  std::erase_if(rings, [&](const std::unique_ptr<RingOf<Slot>>& r) {
    return std::find(retired.begin(), retired.end(), r.get()) != retired.end();
  });
}

}  // namespace

// ---- TraceRings

void TraceRings::set_buffer_bytes(uint64_t bytes) {
  registry().bytes.store(bytes, std::memory_order_relaxed);
}

void TraceRings::drain(std::vector<Record>* out, uint64_t* dropped) {
  Registry& reg = registry();
  std::vector<Ring*> rings, retired;
  std::vector<SpanRing*> span_rings, retired_spans;
  {
    std::lock_guard lock(reg.mu);
    collect(reg.rings, &rings, &retired);
    collect(reg.span_rings, &span_rings, &retired_spans);
  }
  for (SpanRing* ring : span_rings) drain_ring(*ring, out, dropped);
  for (Ring* ring : rings) drain_ring(*ring, out, dropped);
  if (retired.empty() && retired_spans.empty()) return;
  std::lock_guard lock(reg.mu);
  free_retired(reg.rings, retired);
  free_retired(reg.span_rings, retired_spans);
}

void TraceRings::discard() {
  std::vector<Record> sink;
  uint64_t dropped = 0;
  drain(&sink, &dropped);
}

size_t TraceRings::ring_count() {
  std::lock_guard lock(registry().mu);
  return registry().rings.size() + registry().span_rings.size();
}

const plugin::StringTable& strings() {
  return string_table();
}

}  // namespace arun::prof
