#include "profiling.hpp"

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
#include <unordered_map>

#include "trace_rings.hpp"

namespace arun::prof {

// Read on every record site, written once per session: not on a cache line with the counters
// below, which hot paths write (see g_record_ids).
alignas(64) std::atomic<uint64_t> g_active{0};
std::atomic<const TscLine*> g_tsc_line{nullptr};
constinit thread_local ThreadState t_thread __attribute__((tls_model("initial-exec"))) = {};

namespace {

using plugin::Record;

}  // namespace

// The slots are mapped with MAP_POPULATE: the pages are faulted in once, when the ring is made,
// instead of one page fault every 42 records on the hot path during its first lap.
Record* map_slots(uint64_t cap) {
  void* p = ::mmap(nullptr, cap * sizeof(Record), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<Record*>(p);
}

Ring::Ring(uint64_t cap) : slots(map_slots(cap)), mask(cap - 1), capacity(cap) {}
Ring::~Ring() { ::munmap(slots, capacity * sizeof(Record)); }

namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Ring>> rings;
  std::atomic<uint64_t> capacity{1u << 15};  // 32768 records = 3 MiB (the default buffer_size, 4MiB, rounded down)
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: a live thread's ring outlives statics
  return *r;
}

// The fast path reads t_thread.ring; the owner object, whose destructor retires the ring when the
// thread exits, is touched only when a ring is acquired. A retired ring is freed by the next drain
// (the collector's, a session's stop, or aclFinalize's), once its last records are delivered.
struct RingOwner {
  Ring* ring = nullptr;
  ~RingOwner() {
    t_thread.exited = true;  // records emitted by later thread_local destructors are not kept
    if (ring == nullptr) return;
    std::lock_guard lock(registry().mu);
    ring->retired = true;
    t_thread.ring = nullptr;
  }
};
thread_local RingOwner t_ring_owner;

}  // namespace

Ring* acquire_ring() {
  if (t_thread.exited) return nullptr;
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  reg.rings.push_back(std::make_unique<Ring>(reg.capacity.load(std::memory_order_relaxed)));
  Ring* found = reg.rings.back().get();
  found->tid.store(thread_id(), std::memory_order_relaxed);
  t_ring_owner.ring = found;
  t_thread.ring = found;
  return found;
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
  t_thread.correlation_base = (g_correlation_threads.fetch_add(1, std::memory_order_relaxed) + 1) << 32;
  return t_thread.correlation_base;
}

void ring_half_full(Ring* ring, uint64_t h) {
  ring->cached_tail = ring->tail.load(std::memory_order_acquire);
  if (h - ring->cached_tail >= ring->capacity / 2) kick_collector();
}

void emit(const Record& record) {
  Ring* ring = nullptr;
  Record* slot = reserve_slot(ring);
  if (slot == nullptr) return;
  *slot = record;
  commit_slot(ring);
}

uint32_t intern(std::string_view text) { return string_table().intern(text); }

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

uint64_t next_record_id() { return g_record_ids.fetch_add(1, std::memory_order_relaxed) + 1; }

namespace {
void complete_api_record(Record& r) {
  r.subkind = 0;
  r.name = intern_static(reinterpret_cast<const char*>(r.value0));
  r.device = -1;
  r.stream = -1;
  r.unit = 0;
  r.t0 = ticks_to_ns(r.t0);
  r.t1 = ticks_to_ns(r.t1);
  r.t2 = r.t3 = 0;
  r.value0 = r.value1 = r.value2 = r.value3 = 0;
}
}  // namespace

// ---- TraceRings

void TraceRings::set_capacity(uint64_t records) {
  uint64_t cap = 64;
  while (cap * 2 <= records) cap *= 2;
  registry().capacity.store(cap, std::memory_order_relaxed);
}

void TraceRings::drain(std::vector<Record>* out, uint64_t* dropped) {
  Registry& reg = registry();
  std::vector<Ring*> rings;
  std::vector<Ring*> retired;  // retired before we look at them: nothing more can be written there
  {
    std::lock_guard lock(reg.mu);
    for (auto& r : reg.rings) {
      rings.push_back(r.get());
      if (r->retired) retired.push_back(r.get());
    }
  }
  for (Ring* ring : rings) {
    const uint64_t h = ring->head.load(std::memory_order_acquire);
    const uint64_t t = ring->tail.load(std::memory_order_relaxed);
    for (uint64_t i = t; i < h; ++i) {
      Record& r = out->emplace_back(ring->slots[i & ring->mask]);
      if (r.kind == plugin::RecordKind::ApiCall) complete_api_record(r);  // see ApiSpan::finish
    }
    ring->tail.store(h, std::memory_order_release);
    const uint64_t d = ring->dropped.load(std::memory_order_relaxed);
    if (d != ring->dropped_seen) {
      Record r{};
      r.kind = plugin::RecordKind::Dropped;
      r.thread = ring->tid.load(std::memory_order_relaxed);
      r.device = -1;
      r.stream = -1;
      r.value0 = d - ring->dropped_seen;
      *dropped += r.value0;
      ring->dropped_seen = d;
      out->push_back(r);
    }
  }
  if (retired.empty()) return;
  std::lock_guard lock(reg.mu);
  std::erase_if(reg.rings, [&](const std::unique_ptr<Ring>& r) {
    return std::find(retired.begin(), retired.end(), r.get()) != retired.end();
  });
}

void TraceRings::discard() {
  std::vector<Record> sink;
  uint64_t dropped = 0;
  drain(&sink, &dropped);
}

size_t TraceRings::ring_count() {
  std::lock_guard lock(registry().mu);
  return registry().rings.size();
}

const plugin::StringTable& strings() { return string_table(); }

}  // namespace arun::prof
