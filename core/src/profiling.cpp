#include "profiling.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "trace_rings.hpp"

namespace arun::prof {

std::atomic<uint64_t> g_active{0};
thread_local ThreadState t_thread __attribute__((tls_model("initial-exec"))) = {};

namespace {

using plugin::Record;

}  // namespace

// One thread's ring. head is written by the owning thread only, tail by the collector only.
// The slots are mapped with MAP_POPULATE: the pages are faulted in once, when the ring is made,
// instead of one page fault every 42 records on the hot path during its first lap.
Record* map_slots(uint64_t cap) {
  void* p = ::mmap(nullptr, cap * sizeof(Record), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<Record*>(p);
}

struct Ring {
  explicit Ring(uint64_t cap) : slots(map_slots(cap)), mask(cap - 1), capacity(cap) {}
  Record* slots;  // never unmapped: rings live as long as the process
  const uint64_t mask;
  const uint64_t capacity;
  alignas(64) std::atomic<uint64_t> head{0};
  uint64_t cached_tail = 0;            // producer's last view of tail
  std::atomic<uint64_t> dropped{0};    // producer increments (single writer), collector reads
  std::atomic<uint32_t> tid{0};
  alignas(64) std::atomic<uint64_t> tail{0};
  uint64_t dropped_seen = 0;           // collector's last view of dropped
  bool in_use = true;                  // guarded by Registry::mu
};

namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Ring>> rings;
  std::atomic<uint64_t> capacity{1u << 15};  // 32768 records = 3 MiB (the default buffer_size, 4MiB, rounded down)
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: rings must outlive every writer
  return *r;
}

// The fast path reads t_thread.ring; the owner object, whose destructor hands the ring back when
// the thread exits, is touched only when a ring is acquired.
struct RingOwner {
  Ring* ring = nullptr;
  ~RingOwner() {
    if (ring == nullptr) return;
    std::lock_guard lock(registry().mu);
    ring->in_use = false;  // its records stay until the collector drains them
    t_thread.ring = nullptr;
  }
};
thread_local RingOwner t_ring_owner;

Ring* acquire_ring() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mu);
  Ring* found = nullptr;
  for (auto& r : reg.rings) {
    if (!r->in_use) {
      found = r.get();
      break;
    }
  }
  if (found == nullptr) {
    reg.rings.push_back(std::make_unique<Ring>(reg.capacity.load(std::memory_order_relaxed)));
    found = reg.rings.back().get();
  }
  found->in_use = true;
  found->tid.store(thread_id(), std::memory_order_relaxed);
  t_ring_owner.ring = found;
  t_thread.ring = found;
  return found;
}

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

std::atomic<uint64_t> g_correlation_threads{0};
std::atomic<uint64_t> g_record_ids{0};

}  // namespace

uint32_t read_thread_id() {
  t_thread.tid = static_cast<uint32_t>(::gettid());
  return t_thread.tid;
}

uint64_t correlation_prefix() {
  t_thread.correlation_base = (g_correlation_threads.fetch_add(1, std::memory_order_relaxed) + 1) << 32;
  return t_thread.correlation_base;
}

void emit(const Record& record) {
  Ring* ring = t_thread.ring;
  if (ring == nullptr) [[unlikely]] ring = acquire_ring();
  const uint64_t h = ring->head.load(std::memory_order_relaxed);
  if (h - ring->cached_tail >= ring->capacity) {
    ring->cached_tail = ring->tail.load(std::memory_order_acquire);
    if (h - ring->cached_tail >= ring->capacity) {
      ring->dropped.store(ring->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return;
    }
  }
  ring->slots[h & ring->mask] = record;
  ring->head.store(h + 1, std::memory_order_release);
  // Half full: ask the collector to come now rather than at its next tick (once per half ring).
  if (h + 1 - ring->cached_tail == ring->capacity / 2) [[unlikely]] {
    ring->cached_tail = ring->tail.load(std::memory_order_acquire);
    if (h + 1 - ring->cached_tail >= ring->capacity / 2) kick_collector();
  }
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

void ApiSpan::finish() {
  Record r = make_record(plugin::RecordKind::ApiCall);
  r.name = intern_static(function_);
  r.correlation = correlation_;
  r.t0 = start_;
  r.t1 = now_ns();
  emit(r);
}

// ---- TraceRings

void TraceRings::set_capacity(uint64_t records) {
  uint64_t cap = 64;
  while (cap * 2 <= records) cap *= 2;
  registry().capacity.store(cap, std::memory_order_relaxed);
}

void TraceRings::drain(std::vector<Record>* out, uint64_t* dropped) {
  Registry& reg = registry();
  std::vector<Ring*> rings;
  {
    std::lock_guard lock(reg.mu);
    for (auto& r : reg.rings) rings.push_back(r.get());
  }
  for (Ring* ring : rings) {
    const uint64_t h = ring->head.load(std::memory_order_acquire);
    const uint64_t t = ring->tail.load(std::memory_order_relaxed);
    for (uint64_t i = t; i < h; ++i) out->push_back(ring->slots[i & ring->mask]);
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
}

void TraceRings::discard() {
  std::vector<Record> sink;
  uint64_t dropped = 0;
  drain(&sink, &dropped);
}

const plugin::StringTable& strings() { return string_table(); }

}  // namespace arun::prof
