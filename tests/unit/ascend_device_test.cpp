// Unit tests of the simulated Ascend NPU model (plugins/device/ascend), driven through the Device
// interface the core uses, with a trivial HostServices.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ascend_config.hpp"
#include "ascend_device.hpp"
#include "range_allocator.hpp"

namespace {

using namespace std::chrono_literals;
using arun::Errc;
using arun::ascend::AscendConfig;
using arun::ascend::AscendDevice;
using arun::ascend::DeviceMemory;
using arun::ascend::RangeAllocator;
using arun::ascend::UnitPool;
using arun::plugin::DevAddr;
using arun::plugin::KernelContext;
using arun::plugin::MemoryUsage;
using arun::plugin::MemRef;
using arun::plugin::PageKind;
using arun::plugin::UnitKind;
using arun::plugin::Work;
using arun::plugin::WorkKind;
using arun::plugin::WorkResult;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr int kCopyData = 507052;
constexpr int kAicore = 507015;

class TestHost final : public arun::plugin::HostServices {
 public:
  void log(arun::plugin::LogLevel level, std::string_view source, std::string_view message) override {
    std::lock_guard lock(mutex_);
    lines_.push_back(std::string(source) + ": " + std::string(message));
  }
  bool log_enabled(arun::plugin::LogLevel) const override { return true; }
  bool logged(std::string_view needle) {
    std::lock_guard lock(mutex_);
    for (auto& l : lines_)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

AscendConfig small_config(uint64_t memory = 64 * MiB, uint32_t ai_cores = 2, uint32_t copy_engines = 2) {
  AscendConfig c;
  c.device_count = 1;
  c.memory_bytes = memory;
  c.ai_cores = ai_cores;
  c.copy_engines = copy_engines;
  return c;
}

// A device with its address space reserved and its units running.
struct OpenDevice {
  explicit OpenDevice(const AscendConfig& config, uint32_t index = 0) : device(index, config, &host) {
    arun::Status s = device.init();
    EXPECT_TRUE(s.ok()) << s.message();
    s = device.open();
    EXPECT_TRUE(s.ok()) << s.message();
  }
  TestHost host;
  AscendDevice device;
};

// A Work that remembers its completion.
struct TrackedWork : Work {
  TrackedWork() { on_complete = &TrackedWork::complete; }
  static void complete(Work* w, const WorkResult& r) {
    auto* self = static_cast<TrackedWork*>(w);
    self->result = r;
    self->completer = std::this_thread::get_id();
    self->done.store(true, std::memory_order_release);
  }
  bool wait(std::chrono::milliseconds timeout = 10s) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (!done.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::yield();
    }
    return true;
  }
  std::atomic<bool> done{false};
  WorkResult result;
  std::thread::id completer;
};

MemRef host_ref(const void* p) {
  return MemRef{reinterpret_cast<uint64_t>(p), nullptr};
}
MemRef dev_ref(AscendDevice& d, DevAddr a) {
  return MemRef{a, &d};
}

DevAddr must_allocate(AscendDevice& d, uint64_t bytes, PageKind page = PageKind::Normal) {
  DevAddr a = 0;
  arun::Status s = d.allocate(bytes, page, &a);
  EXPECT_TRUE(s.ok()) << s.message();
  return a;
}

uint64_t occupied_by(AscendDevice& d, uint64_t bytes, PageKind page) {
  const uint64_t before = d.memory_usage().free;
  DevAddr a = must_allocate(d, bytes, page);
  const uint64_t used = before - d.memory_usage().free;
  EXPECT_TRUE(d.release(a).ok());
  return used;
}

// ---------------------------------------------------------------------------------------------
// RangeAllocator in isolation

TEST(RangeAllocator, BestFitAlignmentAndCoalescing) {
  RangeAllocator r(1 * MiB);
  auto a = r.allocate(4 * KiB, 512);
  auto b = r.allocate(8 * KiB, 512);
  auto c = r.allocate(4 * KiB, 512);
  auto d = r.allocate(16 * KiB, 512);
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, 4 * KiB);
  // Free b (8 KiB hole) and d (16 KiB hole merging with the tail): a 4 KiB request best-fits b.
  r.release(*b, 8 * KiB);
  auto merged = r.release(*d, 16 * KiB);
  EXPECT_EQ(merged.offset, 16 * KiB);
  EXPECT_EQ(merged.size, 1 * MiB - 16 * KiB);
  auto e = r.allocate(4 * KiB, 512);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, *b);
  // Aligned placement skips holes that cannot hold the aligned start.
  auto f = r.allocate(64 * KiB, 64 * KiB);
  ASSERT_TRUE(f);
  EXPECT_EQ(*f % (64 * KiB), 0u);
  // Release everything: both-side coalescing gives back one range covering the capacity.
  r.release(*a, 4 * KiB);
  r.release(*c, 4 * KiB);
  r.release(*f, 64 * KiB);
  auto all = r.release(*e, 4 * KiB);
  EXPECT_EQ(all.offset, 0u);
  EXPECT_EQ(all.size, 1 * MiB);
  EXPECT_EQ(r.free_range_count(), 1u);
  EXPECT_EQ(r.free_bytes(), 1 * MiB);
  EXPECT_EQ(r.largest_free(), 1 * MiB);
  EXPECT_FALSE(r.allocate(1 * MiB + 512, 512));
  EXPECT_TRUE(r.allocate(1 * MiB, 512));
}

// ---------------------------------------------------------------------------------------------
// Options and properties

TEST(AscendConfig, SchemaDefaultsAndOptionValues) {
  std::vector<std::string> keys;
  for (uint32_t i = 0; i < arun::ascend::kOptionSpecCount; ++i) {
    const auto& spec = arun::ascend::kOptionSpecs[i];
    keys.emplace_back(spec.key);
    EXPECT_NE(spec.help, nullptr);
    EXPECT_GT(std::strlen(spec.help), 10u) << spec.key;
  }
  for (const char* k : {"device_count", "soc_name", "memory", "ai_cores", "vector_cores", "copy_engines", "l2_cache"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  EXPECT_STREQ(arun::ascend::kOptionSpecs[2].default_value, "\"16GiB\"");
  EXPECT_EQ(arun::ascend::kOptionSpecs[2].min, 64.0 * MiB);

  arun::plugin::OptionValues v;
  v.set("device_count", int64_t{3});
  v.set("soc_name", std::string("Ascend910B4"));
  v.set("memory", int64_t(128 * MiB));
  v.set("ai_cores", int64_t{8});
  v.set("vector_cores", int64_t{16});
  v.set("copy_engines", int64_t{2});
  v.set("l2_cache", int64_t(96 * MiB));
  AscendConfig c = AscendConfig::from_options(v);
  EXPECT_EQ(c.device_count, 3u);
  TestHost host;
  AscendDevice d(0, c, &host);
  ASSERT_TRUE(d.init().ok());
  const auto& p = d.properties();
  EXPECT_EQ(p.soc_name, "Ascend910B4");
  EXPECT_EQ(p.memory_bytes, 128 * MiB);
  EXPECT_EQ(p.compute_units, 8u);
  EXPECT_EQ(p.vector_units, 16u);
  EXPECT_EQ(p.copy_units, 2u);
  EXPECT_EQ(p.l2_bytes, 96 * MiB);
  EXPECT_EQ(p.page_bytes, 4096u);
  EXPECT_EQ(p.huge_page_bytes, 2 * MiB);
  EXPECT_EQ(d.unit_count(UnitKind::Compute), 8u);
  EXPECT_EQ(d.unit_count(UnitKind::Copy), 2u);
  EXPECT_EQ(d.memory_usage().total, 128 * MiB);
}

// ---------------------------------------------------------------------------------------------
// Memory

TEST(AscendMemory, DefaultSixteenGiBIsReservedNotCommitted) {
  TestHost host;
  AscendDevice d(0, AscendConfig{}, &host);  // the 910B3 defaults: 16 GiB
  ASSERT_TRUE(d.init().ok());
  EXPECT_EQ(d.memory_usage().total, 16 * GiB);
  DevAddr big = must_allocate(d, 12 * GiB, PageKind::Huge);
  EXPECT_EQ(big % (2 * MiB), 0u);
  auto* tail = static_cast<unsigned char*>(d.map(big + 12 * GiB - 4096, 4096));
  ASSERT_NE(tail, nullptr);
  std::memset(tail, 1, 4096);  // touches one page of the 12 GiB
  EXPECT_TRUE(d.release(big).ok());
  EXPECT_EQ(d.memory_usage().free, 16 * GiB);
}

TEST(AscendMemory, RoundingAlignmentAndPageClasses) {
  OpenDevice od(small_config(2 * GiB));
  auto& d = od.device;
  // 32-byte granule plus 32 bytes of tail padding, in 512-byte blocks.
  EXPECT_EQ(occupied_by(d, 1, PageKind::Normal), 512u);
  EXPECT_EQ(occupied_by(d, 480, PageKind::Normal), 512u);    // 480 + 32 = 512
  EXPECT_EQ(occupied_by(d, 481, PageKind::Normal), 1024u);   // 512 + 32 = 544 -> 1024
  EXPECT_EQ(occupied_by(d, 4096, PageKind::Normal), 4608u);  // 4096 + 32 -> 4608
  // Huge pages only above 1 MiB.
  EXPECT_EQ(occupied_by(d, 1 * MiB, PageKind::Huge), 1 * MiB + 512);
  EXPECT_EQ(occupied_by(d, 1 * MiB + 1, PageKind::Huge), 2 * MiB);
  EXPECT_EQ(occupied_by(d, 2 * MiB, PageKind::Huge), 4 * MiB);  // the padding spills into a second page
  EXPECT_EQ(occupied_by(d, 2 * MiB - 32, PageKind::Huge), 2 * MiB);
  // 1 GiB pages: no tail padding.
  EXPECT_EQ(occupied_by(d, 1, PageKind::Huge1G), 1 * GiB);
  EXPECT_EQ(occupied_by(d, 1 * GiB, PageKind::Huge1G), 1 * GiB);

  DevAddr small = must_allocate(d, 100);
  DevAddr huge = must_allocate(d, 3 * MiB, PageKind::Huge);
  DevAddr giant = must_allocate(d, 10, PageKind::Huge1G);
  EXPECT_EQ(small % 512, 0u);
  EXPECT_EQ(huge % (2 * MiB), 0u);
  EXPECT_EQ(giant % GiB, 0u);
  // find_allocation reports the size the user asked for.
  DevAddr base = 0;
  uint64_t size = 0;
  ASSERT_TRUE(d.find_allocation(huge + 12345, &base, &size));
  EXPECT_EQ(base, huge);
  EXPECT_EQ(size, 3 * MiB);
  EXPECT_TRUE(d.release(small).ok());
  EXPECT_TRUE(d.release(huge).ok());
  EXPECT_TRUE(d.release(giant).ok());
  EXPECT_EQ(d.memory_usage().free, d.memory_usage().total);
}

TEST(AscendMemory, CapacityIsEnforcedAndUsageIsTruthful) {
  OpenDevice od(small_config(64 * MiB));
  auto& d = od.device;
  MemoryUsage u = d.memory_usage();
  EXPECT_EQ(u.total, 64 * MiB);
  EXPECT_EQ(u.free, 64 * MiB);
  EXPECT_EQ(u.largest_free, 64 * MiB);
  EXPECT_EQ(u.allocations, 0u);

  // 64 MiB itself does not fit: the tail padding makes it 64 MiB + 512.
  DevAddr a = 0;
  arun::Status s = d.allocate(64 * MiB, PageKind::Normal, &a);
  EXPECT_EQ(s.code(), Errc::rt_memory_allocation);
  EXPECT_NE(s.message().find("requested 67108864"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("free 67108864"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("largest free block 67108864"), std::string::npos) << s.message();

  DevAddr x = must_allocate(d, 10 * MiB);
  DevAddr y = must_allocate(d, 20 * MiB);
  u = d.memory_usage();
  EXPECT_EQ(u.allocations, 2u);
  EXPECT_EQ(u.free, 64 * MiB - (10 * MiB + 512) - (20 * MiB + 512));
  EXPECT_EQ(u.largest_free, u.free);
  s = d.allocate(40 * MiB, PageKind::Normal, &a);
  EXPECT_EQ(s.code(), Errc::rt_memory_allocation);
  EXPECT_NE(s.message().find("free " + std::to_string(u.free)), std::string::npos) << s.message();

  // Exactly the rest (minus padding) fits, and then nothing does.
  DevAddr rest = must_allocate(d, u.free - 32);
  EXPECT_EQ(d.memory_usage().free, 0u);
  EXPECT_EQ(d.memory_usage().largest_free, 0u);
  EXPECT_EQ(d.allocate(1, PageKind::Normal, &a).code(), Errc::rt_memory_allocation);
  EXPECT_EQ(d.allocate(0, PageKind::Normal, &a).code(), Errc::rt_param_invalid);
  EXPECT_EQ(d.allocate(UINT64_MAX, PageKind::Normal, &a).code(), Errc::rt_memory_allocation);

  for (DevAddr p : {x, y, rest}) EXPECT_TRUE(d.release(p).ok());
  u = d.memory_usage();
  EXPECT_EQ(u.free, 64 * MiB);
  EXPECT_EQ(u.allocations, 0u);
}

TEST(AscendMemory, FreedPiecesCoalesceIntoTheWhole) {
  OpenDevice od(small_config(64 * MiB));
  auto& d = od.device;
  std::mt19937 rng(7);
  std::vector<DevAddr> pieces;
  // Allocate everything in pieces of varied sizes.
  for (;;) {
    uint64_t bytes = 512 * (1 + rng() % 200) - 32;  // occupies exactly 512 * k
    DevAddr a = 0;
    if (!d.allocate(bytes, PageKind::Normal, &a).ok()) {
      if (d.memory_usage().free == 0) break;
      bytes = d.memory_usage().free - 32;
      ASSERT_TRUE(d.allocate(bytes, PageKind::Normal, &a).ok());
    }
    pieces.push_back(a);
  }
  EXPECT_EQ(d.memory_usage().free, 0u);
  EXPECT_EQ(d.memory_usage().allocations, pieces.size());

  // Free every other piece: lots of free memory, but in holes no bigger than one piece.
  std::vector<DevAddr> sorted = pieces;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); i += 2) ASSERT_TRUE(d.release(sorted[i]).ok());
  MemoryUsage u = d.memory_usage();
  EXPECT_GT(u.free, 20 * MiB);
  EXPECT_LE(u.largest_free, 200 * 512u);
  DevAddr big = 0;
  EXPECT_EQ(d.allocate(u.largest_free + 1, PageKind::Normal, &big).code(), Errc::rt_memory_allocation);

  // Free the rest in random order: everything coalesces back into one range.
  std::vector<DevAddr> rest;
  for (size_t i = 1; i < sorted.size(); i += 2) rest.push_back(sorted[i]);
  std::shuffle(rest.begin(), rest.end(), rng);
  for (DevAddr a : rest) ASSERT_TRUE(d.release(a).ok());
  u = d.memory_usage();
  EXPECT_EQ(u.free, 64 * MiB);
  EXPECT_EQ(u.largest_free, 64 * MiB);
  EXPECT_EQ(u.allocations, 0u);
  big = must_allocate(d, 64 * MiB - 32);
  EXPECT_EQ(d.memory_usage().free, 0u);
  EXPECT_TRUE(d.release(big).ok());
}

TEST(AscendMemory, ReleaseOfABadPointerIsRejected) {
  OpenDevice od(small_config());
  auto& d = od.device;
  DevAddr a = must_allocate(d, 4096);
  int on_stack = 0;
  arun::Status s = d.release(reinterpret_cast<uint64_t>(&on_stack));
  EXPECT_EQ(s.code(), Errc::rt_memory_free);
  EXPECT_NE(s.message().find("not device memory"), std::string::npos) << s.message();
  s = d.release(a + 64);
  EXPECT_EQ(s.code(), Errc::rt_memory_free);
  EXPECT_NE(s.message().find("not its base"), std::string::npos) << s.message();
  EXPECT_EQ(d.release(0).code(), Errc::rt_memory_free);
  EXPECT_TRUE(d.release(a).ok());
  s = d.release(a);  // double free
  EXPECT_EQ(s.code(), Errc::rt_memory_free);
  EXPECT_NE(s.message().find("not the base of a live allocation"), std::string::npos) << s.message();
  EXPECT_EQ(d.memory_usage().free, d.memory_usage().total);
}

TEST(AscendMemory, MapAndFindStayInsideTheUsersBytes) {
  OpenDevice od(small_config());
  auto& d = od.device;
  DevAddr a = must_allocate(d, 1000);
  DevAddr b = must_allocate(d, 1000);
  ASSERT_NE(d.map(a, 1000), nullptr);
  EXPECT_NE(d.map(a + 999, 1), nullptr);
  EXPECT_NE(d.map(a + 500, 0), nullptr);
  EXPECT_EQ(d.map(a, 1001), nullptr);      // past the user's size (into the padding)
  EXPECT_EQ(d.map(a + 1000, 1), nullptr);  // padding is not addressable
  EXPECT_EQ(d.map(a + 1000, 0), nullptr);
  EXPECT_EQ(d.map(a, b - a + 10), nullptr);  // spans two allocations
  EXPECT_EQ(d.map(a - 1, 1), nullptr);
  EXPECT_EQ(d.map(a + 10, UINT64_MAX), nullptr);
  // The host view is the device's backing, not the device address.
  EXPECT_NE(reinterpret_cast<uint64_t>(d.map(a, 1)), a);

  DevAddr base = 0;
  uint64_t size = 0;
  EXPECT_TRUE(d.find_allocation(a + 999, &base, &size));
  EXPECT_EQ(base, a);
  EXPECT_EQ(size, 1000u);
  EXPECT_FALSE(d.find_allocation(a + 1000, &base, &size));
  EXPECT_TRUE(d.owns(a));
  int host_var = 0;
  EXPECT_FALSE(d.owns(reinterpret_cast<uint64_t>(&host_var)));
  EXPECT_FALSE(d.find_allocation(reinterpret_cast<uint64_t>(&host_var), &base, &size));
  EXPECT_EQ(d.map(reinterpret_cast<uint64_t>(&host_var), 4), nullptr);

  EXPECT_TRUE(d.release(a).ok());
  EXPECT_EQ(d.map(a, 1), nullptr);
  EXPECT_FALSE(d.find_allocation(a, &base, &size));
  EXPECT_TRUE(d.owns(a));  // still this device's address space
  EXPECT_TRUE(d.release(b).ok());
}

TEST(AscendMemoryDeathTest, HostReadOfADeviceAddressFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        AscendDevice d(0, small_config(), nullptr);
        if (!d.init().ok()) std::abort();
        DevAddr a = 0;
        if (!d.allocate(64, PageKind::Normal, &a).ok()) std::abort();
        std::memset(d.map(a, 64), 1, 64);  // the device view is fine ...
        volatile const int* p = reinterpret_cast<volatile const int*>(a);
        std::fprintf(stderr, "read %d\n", *p);  // ... the host dereference is not
        std::_Exit(0);
      },
      "");
}

TEST(AscendMemory, ReleaseReturnsPagesToTheOs) {
  OpenDevice od(small_config());
  auto& d = od.device;
  const uint64_t bytes = 8 * MiB;
  DevAddr a = must_allocate(d, bytes);
  auto* view = static_cast<unsigned char*>(d.map(a, bytes));
  ASSERT_NE(view, nullptr);
  std::memset(view, 0xab, bytes);
  const long page = sysconf(_SC_PAGESIZE);
  auto resident_pages = [&] {
    auto start = reinterpret_cast<uintptr_t>(view);
    auto first = start - start % page;
    const size_t len = start + bytes - first;
    std::vector<unsigned char> vec((len + page - 1) / page);
    EXPECT_EQ(mincore(reinterpret_cast<void*>(first), len, vec.data()), 0);
    size_t n = 0;
    for (unsigned char c : vec) n += c & 1;
    return n;
  };
  EXPECT_GE(resident_pages(), bytes / page);
  ASSERT_TRUE(d.release(a).ok());
  EXPECT_EQ(resident_pages(), 0u);
  // Best fit hands the same range back; the old contents are gone (fresh zero pages).
  DevAddr again = must_allocate(d, bytes);
  ASSERT_EQ(again, a);
  auto* v2 = static_cast<unsigned char*>(d.map(again, bytes));
  EXPECT_EQ(v2[0], 0);
  EXPECT_EQ(v2[bytes / 2], 0);
  EXPECT_TRUE(d.release(again).ok());
}

TEST(AscendMemory, ReleaseKeepsNeighboursSharingAPage) {
  OpenDevice od(small_config());
  auto& d = od.device;
  // Several 512-byte blocks share one host page; freeing one must not zero the others.
  std::vector<DevAddr> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(must_allocate(d, 400));
  for (int i = 0; i < 8; ++i) std::memset(d.map(blocks[i], 400), 0x10 + i, 400);
  for (int i = 0; i < 8; i += 2) ASSERT_TRUE(d.release(blocks[i]).ok());
  for (int i = 1; i < 8; i += 2) {
    auto* p = static_cast<unsigned char*>(d.map(blocks[i], 400));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p[0], 0x10 + i);
    EXPECT_EQ(p[399], 0x10 + i);
  }
  for (int i = 1; i < 8; i += 2) ASSERT_TRUE(d.release(blocks[i]).ok());
}

TEST(AscendMemory, ConcurrentAllocateAndRelease) {
  OpenDevice od(small_config());
  auto& d = od.device;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<DevAddr> mine;
      for (int i = 0; i < 2000; ++i) {
        if (mine.size() < 16 && rng() % 3 != 0) {
          DevAddr a = 0;
          if (d.allocate(1 + rng() % 20000, PageKind::Normal, &a).ok()) {
            std::memset(d.map(a, 1), t, 1);
            mine.push_back(a);
          }
        } else if (!mine.empty()) {
          if (!d.release(mine.back()).ok()) failures++;
          mine.pop_back();
        }
      }
      for (DevAddr a : mine)
        if (!d.release(a).ok()) failures++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  MemoryUsage u = d.memory_usage();
  EXPECT_EQ(u.allocations, 0u);
  EXPECT_EQ(u.free, u.total);
  EXPECT_EQ(u.largest_free, u.total);
}

// ---------------------------------------------------------------------------------------------
// Work on units

TEST(AscendUnits, CopiesAndMemsetsRunOnCopyEngines) {
  OpenDevice od(small_config());
  auto& d = od.device;
  const size_t n = 1 * MiB;
  std::vector<unsigned char> src(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7);
  DevAddr a = must_allocate(d, n);
  DevAddr b = must_allocate(d, n);

  TrackedWork h2d;
  h2d.kind = WorkKind::Copy;
  h2d.dst = dev_ref(d, a);
  h2d.src = host_ref(src.data());
  h2d.bytes = n;
  d.launch(UnitKind::Copy, 1, &h2d);
  ASSERT_TRUE(h2d.wait());
  EXPECT_EQ(h2d.result.status, 0);
  EXPECT_EQ(h2d.result.unit, 1u);
  EXPECT_NE(h2d.completer, std::this_thread::get_id());
  EXPECT_LE(h2d.result.start_ns, h2d.result.end_ns);

  TrackedWork d2d;
  d2d.kind = WorkKind::Copy;
  d2d.dst = dev_ref(d, b);
  d2d.src = dev_ref(d, a);
  d2d.bytes = n;
  d.launch(UnitKind::Copy, 0, &d2d);
  ASSERT_TRUE(d2d.wait());
  EXPECT_EQ(d2d.result.status, 0);
  EXPECT_GE(d2d.result.start_ns, h2d.result.end_ns);

  TrackedWork fill;
  fill.kind = WorkKind::Memset;
  fill.dst = dev_ref(d, b + 100);
  fill.bytes = 50;
  fill.value = 0x1ee;  // only the low byte counts
  d.launch(UnitKind::Copy, 0, &fill);
  ASSERT_TRUE(fill.wait());
  EXPECT_EQ(fill.result.status, 0);

  TrackedWork d2h;
  d2h.kind = WorkKind::Copy;
  d2h.dst = host_ref(back.data());
  d2h.src = dev_ref(d, b);
  d2h.bytes = n;
  d.launch(UnitKind::Copy, 1, &d2h);
  ASSERT_TRUE(d2h.wait());
  EXPECT_EQ(d2h.result.status, 0);
  std::vector<unsigned char> expect = src;
  std::memset(expect.data() + 100, 0xee, 50);
  EXPECT_EQ(back, expect);

  // 2-D: 4 rows of 10 bytes from a host matrix with pitch 16 into device rows of pitch 32.
  std::vector<unsigned char> mat(16 * 4);
  std::iota(mat.begin(), mat.end(), 0);
  TrackedWork c2d;
  c2d.kind = WorkKind::Copy2D;
  c2d.dst = dev_ref(d, a);
  c2d.src = host_ref(mat.data());
  c2d.width = 10;
  c2d.height = 4;
  c2d.spitch = 16;
  c2d.dpitch = 32;
  d.launch(UnitKind::Copy, 0, &c2d);
  ASSERT_TRUE(c2d.wait());
  EXPECT_EQ(c2d.result.status, 0);
  auto* view = static_cast<unsigned char*>(d.map(a, 128));
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 10; ++col) EXPECT_EQ(view[row * 32 + col], mat[row * 16 + col]);
    EXPECT_EQ(view[row * 32 + 10], src[row * 32 + 10]);  // untouched between rows
  }
  // A 2-D copy whose last row runs past the allocation is a copy fault.
  TrackedWork c2d_bad;
  c2d_bad.kind = WorkKind::Copy2D;
  c2d_bad.dst = dev_ref(d, a);
  c2d_bad.src = host_ref(mat.data());
  c2d_bad.width = 10;
  c2d_bad.height = 4;
  c2d_bad.spitch = 16;
  c2d_bad.dpitch = n / 3;
  d.launch(UnitKind::Copy, 0, &c2d_bad);
  ASSERT_TRUE(c2d_bad.wait());
  EXPECT_EQ(c2d_bad.result.status, kCopyData);
}

TEST(AscendUnits, CopyFromAFreedRangeIsACopyFaultNotACrash) {
  OpenDevice od(small_config());
  auto& d = od.device;
  DevAddr a = must_allocate(d, 4096);
  DevAddr live = must_allocate(d, 4096);
  ASSERT_TRUE(d.release(a).ok());
  std::vector<unsigned char> host(8192, 0x5a);

  TrackedWork from_freed;
  from_freed.kind = WorkKind::Copy;
  from_freed.dst = host_ref(host.data());
  from_freed.src = dev_ref(d, a);
  from_freed.bytes = 4096;
  d.launch(UnitKind::Copy, 0, &from_freed);
  ASSERT_TRUE(from_freed.wait());
  EXPECT_EQ(from_freed.result.status, kCopyData);
  EXPECT_EQ(host[0], 0x5a);  // nothing was written
  EXPECT_TRUE(od.host.logged("copy data failed"));

  // Past the end of a live allocation, to a freed range, memset of a freed range: all faults.
  Work w;
  w.kind = WorkKind::Copy;
  w.dst = dev_ref(d, live);
  w.src = host_ref(host.data());
  w.bytes = 4097;
  EXPECT_EQ(d.execute_now(&w).status, kCopyData);
  w.dst = dev_ref(d, a);
  w.bytes = 16;
  EXPECT_EQ(d.execute_now(&w).status, kCopyData);
  Work m;
  m.kind = WorkKind::Memset;
  m.dst = dev_ref(d, a);
  m.bytes = 16;
  EXPECT_EQ(d.execute_now(&m).status, kCopyData);
  // A device address passed as if it were host memory does not crash the unit either.
  w.dst = host_ref(host.data());
  w.src = MemRef{live, nullptr};
  w.bytes = 16;
  EXPECT_EQ(d.execute_now(&w).status, kCopyData);
  // Zero bytes is a successful no-op even on a bad address.
  w.src = dev_ref(d, a);
  w.bytes = 0;
  EXPECT_EQ(d.execute_now(&w).status, 0);
  // Good work still works afterwards.
  w.dst = dev_ref(d, live);
  w.src = host_ref(host.data());
  w.bytes = 4096;
  WorkResult r = d.execute_now(&w);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(static_cast<unsigned char*>(d.map(live, 1))[0], 0x5a);
}

TEST(AscendUnits, PeerToPeerCopyGoesThroughThePeersMap) {
  TestHost host;
  AscendConfig c = small_config();
  AscendDevice d0(0, c, &host), d1(1, c, &host);
  ASSERT_TRUE(d0.init().ok());
  ASSERT_TRUE(d1.init().ok());
  ASSERT_TRUE(d0.open().ok());
  ASSERT_TRUE(d1.open().ok());
  DevAddr a0 = must_allocate(d0, 256);
  DevAddr a1 = must_allocate(d1, 256);
  EXPECT_FALSE(d0.owns(a1));
  EXPECT_FALSE(d1.owns(a0));
  std::memset(d0.map(a0, 256), 0x42, 256);
  TrackedWork p2p;
  p2p.kind = WorkKind::Copy;
  p2p.dst = dev_ref(d1, a1);
  p2p.src = dev_ref(d0, a0);
  p2p.bytes = 256;
  d0.launch(UnitKind::Copy, 0, &p2p);
  ASSERT_TRUE(p2p.wait());
  EXPECT_EQ(p2p.result.status, 0);
  EXPECT_EQ(static_cast<unsigned char*>(d1.map(a1, 256))[255], 0x42);
  // An address of d1 claimed to belong to d0 does not translate.
  p2p.done = false;
  p2p.dst = dev_ref(d0, a1);
  d0.launch(UnitKind::Copy, 0, &p2p);
  ASSERT_TRUE(p2p.wait());
  EXPECT_EQ(p2p.result.status, kCopyData);
}

struct BlockRecord {
  DevAddr out = 0;
  std::atomic<uint32_t> seen_dim{0};
  std::atomic<uint32_t> calls{0};
};

void record_blocks(KernelContext& ctx, void* args) {
  auto* rec = static_cast<BlockRecord*>(args);
  rec->seen_dim.store(ctx.block_dim());
  rec->calls++;
  auto* out = static_cast<uint32_t*>(ctx.map(rec->out + 4 * ctx.block_idx(), 4));
  if (out != nullptr) *out = ctx.block_idx() * 10 + 1;
}

void overrun_in_block_3(KernelContext& ctx, void* args) {
  auto* rec = static_cast<BlockRecord*>(args);
  rec->calls++;
  const uint64_t offset = ctx.block_idx() == 3 ? 4096 : 4 * ctx.block_idx();  // block 3 writes past the end
  auto* out = static_cast<uint32_t*>(ctx.map(rec->out + offset, 4));
  if (ctx.block_idx() == 3) {
    EXPECT_EQ(out, nullptr);
  }
  if (out != nullptr) *out = 7;
}

void report_custom_fault(KernelContext& ctx, void*) {
  if (ctx.block_idx() == 1) ctx.fault(507035, "vector core exception");
}

void throws(KernelContext&, void*) {
  throw std::runtime_error("boom");
}

TEST(AscendUnits, KernelsSeeBlocksAndFaultOnBadMaps) {
  OpenDevice od(small_config(64 * MiB, 3, 1));
  OpenDevice serial(small_config(64 * MiB, 1, 1));
  auto& d = od.device;
  DevAddr out = must_allocate(d, 4096);
  std::memset(d.map(out, 4096), 0, 4096);

  BlockRecord rec;
  rec.out = out;
  TrackedWork k;
  k.kind = WorkKind::Kernel;
  k.kernel = &record_blocks;
  k.args = &rec;
  k.block_dim = 16;
  d.launch(UnitKind::Compute, 2, &k);
  ASSERT_TRUE(k.wait());
  EXPECT_EQ(k.result.status, 0);
  EXPECT_EQ(k.result.unit, 2u);
  EXPECT_EQ(rec.calls.load(), 16u);
  EXPECT_EQ(rec.seen_dim, 16u);
  auto* view = static_cast<uint32_t*>(d.map(out, 64));
  for (uint32_t b = 0; b < 16; ++b) EXPECT_EQ(view[b], b * 10 + 1);

  // On one AI core the blocks run in order, so the fault in block 3 skips exactly blocks 4..7.
  DevAddr serial_out = must_allocate(serial.device, 4096);
  BlockRecord bad;
  bad.out = serial_out;
  TrackedWork k2;
  k2.kind = WorkKind::Kernel;
  k2.kernel = &overrun_in_block_3;
  k2.args = &bad;
  k2.block_dim = 8;
  serial.device.launch(UnitKind::Compute, 0, &k2);
  ASSERT_TRUE(k2.wait());
  EXPECT_EQ(k2.result.status, kAicore);
  EXPECT_EQ(bad.calls.load(), 4u);  // the exception aborts the remaining blocks
  EXPECT_TRUE(serial.host.logged("AI Core exception"));

  Work k3;
  k3.kind = WorkKind::Kernel;
  k3.kernel = &report_custom_fault;
  k3.block_dim = 4;
  EXPECT_EQ(d.execute_now(&k3).status, 507035);
  k3.kernel = &throws;
  EXPECT_EQ(d.execute_now(&k3).status, kAicore);

  // execute_now runs on the calling thread.
  std::thread::id ran_on;
  Work k4;
  k4.kind = WorkKind::Kernel;
  k4.kernel = [](KernelContext&, void* a) { *static_cast<std::thread::id*>(a) = std::this_thread::get_id(); };
  k4.args = &ran_on;
  k4.block_dim = 1;
  EXPECT_EQ(d.execute_now(&k4).status, 0);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

// --- blocks of one launch spread over the AI cores (BlockBoard) ---------------------------------

// Each block arrives, then waits until `expected` blocks have arrived (or a generous bound passes,
// which fails the launch): the launch can only succeed if that many blocks run at the same time.
struct Rendezvous {
  uint32_t expected = 0;
  std::atomic<uint32_t> arrived{0};
  std::atomic<uint32_t> running{0};
  std::atomic<uint32_t> max_running{0};
  std::mutex mutex;
  std::vector<std::thread::id> threads;
  std::vector<uint32_t> order;
};

void rendezvous_block(KernelContext& ctx, void* args) {
  auto* r = static_cast<Rendezvous*>(args);
  const uint32_t now = ++r->running;
  uint32_t prev = r->max_running.load();
  while (prev < now && !r->max_running.compare_exchange_weak(prev, now)) {
  }
  {
    std::lock_guard lock(r->mutex);
    r->threads.push_back(std::this_thread::get_id());
    r->order.push_back(ctx.block_idx());
  }
  const uint32_t arrived = ++r->arrived;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (arrived <= r->expected && r->arrived.load() < r->expected) {
    if (std::chrono::steady_clock::now() > until) {
      ctx.fault(kAicore, "rendezvous: blocks did not run in parallel");
      break;
    }
    std::this_thread::yield();
  }
  --r->running;
}

TEST(AscendBlocks, BlocksOfOneLaunchRunInParallelOnIdleCores) {
  OpenDevice od(small_config(64 * MiB, 4, 1));
  Rendezvous r;
  r.expected = 4;
  TrackedWork k;
  k.kind = WorkKind::Kernel;
  k.kernel = &rendezvous_block;
  k.args = &r;
  k.block_dim = 4;
  od.device.launch(UnitKind::Compute, 1, &k);
  ASSERT_TRUE(k.wait(30s));
  EXPECT_EQ(k.result.status, 0);
  EXPECT_EQ(k.result.unit, 1u) << "the launch completes on the unit the core gave it";
  EXPECT_EQ(r.max_running.load(), 4u);
  std::vector<std::thread::id> threads = r.threads;
  std::sort(threads.begin(), threads.end());
  EXPECT_EQ(std::unique(threads.begin(), threads.end()) - threads.begin(), 4) << "four blocks, four cores";
}

TEST(AscendBlocks, OneAiCoreRunsTheBlocksOneAfterAnotherInOrder) {
  OpenDevice od(small_config(64 * MiB, 1, 1));
  Rendezvous r;
  r.expected = 0;  // nobody waits
  TrackedWork k;
  k.kind = WorkKind::Kernel;
  k.kernel = &rendezvous_block;
  k.args = &r;
  k.block_dim = 16;
  od.device.launch(UnitKind::Compute, 0, &k);
  ASSERT_TRUE(k.wait());
  EXPECT_EQ(k.result.status, 0);
  EXPECT_EQ(r.max_running.load(), 1u);
  std::vector<uint32_t> expected(16);
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(r.order, expected);
}

struct BlockCounts {
  std::vector<std::atomic<uint32_t>> hits;
  explicit BlockCounts(size_t n) : hits(n) {}
};

void count_block(KernelContext& ctx, void* args) {
  static_cast<BlockCounts*>(args)->hits[ctx.block_idx()]++;
}

TEST(AscendBlocks, ConcurrentLaunchesRunEveryBlockExactlyOnce) {
  OpenDevice od(small_config(64 * MiB, 6, 1));
  constexpr uint32_t kLaunches = 6, kBlocks = 3000;
  std::vector<std::unique_ptr<BlockCounts>> counts;
  std::vector<std::unique_ptr<TrackedWork>> works;
  for (uint32_t i = 0; i < kLaunches; ++i) {
    counts.push_back(std::make_unique<BlockCounts>(kBlocks));
    works.push_back(std::make_unique<TrackedWork>());
    works[i]->kind = WorkKind::Kernel;
    works[i]->kernel = &count_block;
    works[i]->args = counts[i].get();
    works[i]->block_dim = kBlocks;
  }
  // Two rounds on every unit: the second launches find the board busy with the first ones.
  for (uint32_t i = 0; i < kLaunches; ++i) od.device.launch(UnitKind::Compute, i, works[i].get());
  for (uint32_t i = 0; i < kLaunches; ++i) {
    ASSERT_TRUE(works[i]->wait(30s));
    EXPECT_EQ(works[i]->result.status, 0);
    for (uint32_t b = 0; b < kBlocks; ++b) ASSERT_EQ(counts[i]->hits[b].load(), 1u) << "launch " << i << " block " << b;
  }
}

TEST(AscendBlocks, AFaultInOneBlockFailsTheLaunchOnceAndStopsClaims) {
  OpenDevice od(small_config(64 * MiB, 4, 1));
  BlockCounts counts(5000);
  TrackedWork k;
  k.kind = WorkKind::Kernel;
  k.kernel = [](KernelContext& ctx, void* a) {
    static_cast<BlockCounts*>(a)->hits[ctx.block_idx()]++;
    if (ctx.block_idx() == 0) ctx.fault(507016, "trap in block 0");
    if (ctx.block_idx() == 1) ctx.fault(507035, "a later fault does not replace the first");
  };
  k.args = &counts;
  k.block_dim = 5000;
  od.device.launch(UnitKind::Compute, 0, &k);
  ASSERT_TRUE(k.wait());
  EXPECT_TRUE(k.result.status == 507016 || k.result.status == 507035) << k.result.status;
  uint32_t ran = 0;
  for (auto& h : counts.hits) {
    EXPECT_LE(h.load(), 1u);
    ran += h.load();
  }
  // Block 0 faults first thing; each of the 4 cores can have claimed at most a few blocks before
  // it sees the fault, nowhere near all 5000.
  EXPECT_LT(ran, 5000u);
}

TEST(AscendBlocks, ACancelRequestIsHonouredBetweenBlocks) {
  OpenDevice od(small_config(64 * MiB, 1, 1));
  struct Args {
    std::atomic<bool> cancel{false};
    std::atomic<uint32_t> ran{0};
  } args;
  TrackedWork k;
  k.kind = WorkKind::Kernel;
  k.kernel = [](KernelContext& ctx, void* a) {
    auto* p = static_cast<Args*>(a);
    p->ran++;
    if (ctx.block_idx() == 5) p->cancel = true;  // as aclrtStreamStop would, from another thread
  };
  k.args = &args;
  k.cancel = &args.cancel;
  k.block_dim = 100;
  od.device.launch(UnitKind::Compute, 0, &k);
  ASSERT_TRUE(k.wait());
  EXPECT_EQ(k.result.status, static_cast<int>(Errc::rt_device_task_abort));
  EXPECT_EQ(args.ran.load(), 6u);
}

TEST(AscendBlocks, AHelpingCoreReturnsToWorkPostedToIt) {
  // Core 1 helps with launch A (400 blocks of 1 ms each). Work posted to core 1 meanwhile runs as
  // soon as core 1's current block ends, long before A's remaining blocks are done.
  OpenDevice od(small_config(64 * MiB, 2, 1));
  struct Progress {
    std::atomic<uint32_t> blocks{0};
    std::atomic<uint32_t> blocks_when_b_ran{0};
  } progress;
  TrackedWork a;
  a.kind = WorkKind::Kernel;
  a.kernel = [](KernelContext&, void* p) {
    static_cast<Progress*>(p)->blocks++;
    std::this_thread::sleep_for(1ms);
  };
  a.args = &progress;
  a.block_dim = 400;
  od.device.launch(UnitKind::Compute, 0, &a);
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (progress.blocks.load() < 4 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  TrackedWork b;
  b.kind = WorkKind::Kernel;
  b.kernel = [](KernelContext&, void* p) {
    auto* pr = static_cast<Progress*>(p);
    pr->blocks_when_b_ran = pr->blocks.load();
  };
  b.args = &progress;
  od.device.launch(UnitKind::Compute, 1, &b);
  ASSERT_TRUE(b.wait());
  ASSERT_TRUE(a.wait());
  EXPECT_EQ(b.result.unit, 1u);
  EXPECT_EQ(a.result.status, 0);
  EXPECT_EQ(progress.blocks.load(), 400u);
  // Core 0 alone needs 200+ ms for the rest of A; core 1 comes back after at most one 1 ms block.
  EXPECT_LT(progress.blocks_when_b_ran.load(), 300u);
}

// A chain: each completion launches the next item onto the same unit, from the unit thread.
struct Chain : Work {
  AscendDevice* device = nullptr;
  UnitKind unit_kind = UnitKind::Copy;
  uint32_t unit = 0;
  int remaining = 0;
  uint64_t last_end = 0;
  bool monotonic = true;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};

  static void next(Work* w, const WorkResult& r) {
    auto* c = static_cast<Chain*>(w);
    if (r.status != 0 || r.unit != c->unit) c->failures++;
    if (r.start_ns < c->last_end || r.end_ns < r.start_ns) c->monotonic = false;
    c->last_end = r.end_ns;
    if (--c->remaining > 0) {
      c->device->launch(c->unit_kind, c->unit, c);
    } else {
      c->done.store(true, std::memory_order_release);
    }
  }
  bool wait(std::chrono::seconds timeout = 30s) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (!done.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(100us);
    }
    return true;
  }
};

void nop_kernel(KernelContext&, void*) {}

TEST(AscendUnits, CompletionMayLaunchAgainOnTheSameUnit) {
  OpenDevice od(small_config());
  auto& d = od.device;
  DevAddr a = must_allocate(d, 64);
  Chain c;
  c.device = &d;
  c.unit = 1;
  c.remaining = 5000;
  c.kind = WorkKind::Memset;
  c.dst = dev_ref(d, a);
  c.bytes = 64;
  c.value = 3;
  c.on_complete = &Chain::next;
  d.launch(UnitKind::Copy, 1, &c);
  ASSERT_TRUE(c.wait());
  EXPECT_EQ(c.failures.load(), 0);
  EXPECT_TRUE(c.monotonic);
  EXPECT_EQ(d.unit(UnitKind::Copy, 1)->completed(), 5000u);
}

TEST(AscendUnits, ManyLaunchesFromSeveralThreads) {
  // Park at once (no spin) so that nearly every launch goes through the futex hand-off.
  for (uint64_t spin : {uint64_t{0}, uint64_t{5000}}) {
    AscendConfig cfg = small_config(64 * MiB, 4, 4);
    cfg.unit_spin_ns = spin;
    OpenDevice od(cfg);
    auto& d = od.device;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (uint32_t t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        DevAddr buf = must_allocate(d, 4096);
        std::vector<unsigned char> host(4096, static_cast<unsigned char>(t));
        for (int i = 0; i < 500; ++i) {
          TrackedWork copy;
          copy.kind = WorkKind::Copy;
          copy.dst = dev_ref(d, buf);
          copy.src = host_ref(host.data());
          copy.bytes = 4096;
          d.launch(UnitKind::Copy, t, &copy);
          TrackedWork k;
          k.kind = WorkKind::Kernel;
          k.kernel = &nop_kernel;
          k.block_dim = 2;
          d.launch(UnitKind::Compute, t, &k);
          if (!copy.wait() || !k.wait()) {
            failures++;
            return;
          }
          if (copy.result.status != 0 || k.result.status != 0 || copy.result.unit != t || k.result.unit != t)
            failures++;
        }
        if (static_cast<unsigned char*>(d.map(buf, 1))[0] != t) failures++;
        if (!d.release(buf).ok()) failures++;
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0) << "spin " << spin;
    for (uint32_t u = 0; u < 4; ++u) {
      EXPECT_EQ(d.unit(UnitKind::Copy, u)->completed(), 500u);
      EXPECT_EQ(d.unit(UnitKind::Compute, u)->completed(), 500u);
    }
  }
}

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

uint32_t process_threads() {
  uint32_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(AscendUnits, LogicalUnitsCostNoThreadsAndIdleWorkersPark) {
  AscendConfig cfg = small_config(64 * MiB, 40, 8);
  cfg.executor_threads = 2;
  const uint32_t threads_before = process_threads();
  OpenDevice od(cfg);
  auto& d = od.device;
  // 48 units, two workers and the monitor: not a thread per unit.
  EXPECT_EQ(d.pool().workers(), 2u);
  EXPECT_LE(process_threads(), threads_before + 3);
  std::this_thread::sleep_for(50ms);  // let the spinning worker give up and park
  const double cpu_before = process_cpu_ms();
  const uint64_t parks_before = d.pool().parks();
  std::this_thread::sleep_for(200ms);
  const double idle_cpu = process_cpu_ms() - cpu_before;
  EXPECT_LT(idle_cpu, 20.0) << "an idle device burned " << idle_cpu << " ms of CPU in 200 ms";
  EXPECT_EQ(d.pool().parks(), parks_before) << "parked workers woke up with nothing to do";

  // Every unit runs its work, on the unit the launch named.
  std::vector<std::unique_ptr<TrackedWork>> works;
  for (uint32_t u = 0; u < 40; ++u) {
    works.push_back(std::make_unique<TrackedWork>());
    works.back()->kind = WorkKind::Kernel;
    works.back()->kernel = &nop_kernel;
    d.launch(UnitKind::Compute, u, works.back().get());
  }
  for (uint32_t u = 0; u < 40; ++u) {
    ASSERT_TRUE(works[u]->wait());
    EXPECT_EQ(works[u]->result.unit, u);
    EXPECT_EQ(d.unit(UnitKind::Compute, u)->completed(), 1u);
  }
  EXPECT_EQ(d.pool().grown(), 0u) << "short work never needs more workers";
}

TEST(AscendUnits, PollWindowWidensForQuickRelaunchesAndNarrowsWhenIdle) {
  AscendConfig cfg = small_config(64 * MiB, 2, 1);
  cfg.executor_threads = 2;
  cfg.unit_spin_ns = 5000;
  OpenDevice od(cfg);
  UnitPool& pool = od.device.pool();
  EXPECT_EQ(pool.poll_window_ns(), 5000u);
  // The rule: work that came within 16 x 5 us of the end of the last widens the window to twice
  // that gap (at least 5 us, at most 80 us); later work halves it, down to 5 us.
  const std::pair<uint64_t, uint64_t> steps[] = {{1000, 5000},   {12000, 24000}, {79000, 80000},
                                                 {81000, 40000}, {3000, 6000},   {50000, 80000}};
  for (const auto& [gap, want] : steps) {
    pool.adapt_window(gap);
    EXPECT_EQ(pool.poll_window_ns(), want) << "after a gap of " << gap << " ns";
  }
  // Wired to the park: launches 20 ms apart always find the workers parked, and each wake-up
  // halves the window back to unit_spin_ns.
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(20ms);
    TrackedWork w;
    w.kind = WorkKind::Kernel;
    w.kernel = &nop_kernel;
    od.device.launch(UnitKind::Compute, 0, &w);
    ASSERT_TRUE(w.wait());
  }
  EXPECT_EQ(pool.poll_window_ns(), 5000u);
}

TEST(AscendUnits, PollWindowNeverExceeds200Microseconds) {
  AscendConfig cfg = small_config(64 * MiB, 2, 1);
  cfg.unit_spin_ns = 50000;  // 16 x 50 us would be 800 us
  OpenDevice od(cfg);
  od.device.pool().adapt_window(150000);
  EXPECT_EQ(od.device.pool().poll_window_ns(), 200000u);
}

TEST(AscendUnits, SleepingWorkOnEveryUnitStillRunsConcurrently) {
  // Work that blocks (sleeps) holds its worker; the pool grows so that the device's units still
  // progress independently, as they would on the NPU: 8 units x 20 ms finish well before 8 x 20 ms.
  AscendConfig cfg = small_config(64 * MiB, 8, 1);
  cfg.executor_threads = 1;
  OpenDevice od(cfg);
  auto& d = od.device;
  std::vector<std::unique_ptr<TrackedWork>> works;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t u = 0; u < 8; ++u) {
    works.push_back(std::make_unique<TrackedWork>());
    works.back()->kind = WorkKind::Kernel;
    works.back()->kernel = [](KernelContext&, void*) { std::this_thread::sleep_for(20ms); };
    d.launch(UnitKind::Compute, u, works.back().get());
  }
  for (auto& w : works) ASSERT_TRUE(w->wait());
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(elapsed, 120ms);
  EXPECT_GE(d.pool().grown(), 3u);
  EXPECT_LE(d.pool().workers(), 9u) << "at most one worker per unit";
}

TEST(AscendBlocks, HelperCoresAreReportedWithTheLaunch) {
  // A 20-block kernel on core 3 of an idle device: free cores run blocks too, and the launch says
  // which (the profiler draws the kernel on their tracks).
  AscendConfig cfg = small_config(64 * MiB, 20, 1);
  cfg.executor_threads = 2;
  OpenDevice od(cfg);
  TrackedWork k;
  k.kind = WorkKind::Kernel;
  k.kernel = [](KernelContext&, void*) { std::this_thread::sleep_for(2ms); };
  k.block_dim = 20;
  k.helper_units = ~uint64_t{0};  // the device overwrites it
  od.device.launch(UnitKind::Compute, 3, &k);
  ASSERT_TRUE(k.wait());
  EXPECT_EQ(k.result.status, 0);
  EXPECT_EQ(k.result.unit, 3u);
  EXPECT_NE(k.helper_units, 0u) << "no other core ran a block";
  EXPECT_EQ(k.helper_units & (uint64_t{1} << 3), 0u) << "the owner is not its own helper";
  EXPECT_EQ(k.helper_units >> 20, 0u) << "only cores that exist";

  // One block: nobody helps.
  TrackedWork one;
  one.kind = WorkKind::Kernel;
  one.kernel = &nop_kernel;
  one.helper_units = ~uint64_t{0};
  od.device.launch(UnitKind::Compute, 0, &one);
  ASSERT_TRUE(one.wait());
  EXPECT_EQ(one.helper_units, 0u);
}

TEST(AscendDevice, ClockIsMonotonicAcrossWorkAndReopen) {
  OpenDevice od(small_config());
  auto& d = od.device;
  uint64_t prev = d.now_ns();
  for (int i = 0; i < 10000; ++i) {
    uint64_t now = d.now_ns();
    ASSERT_GE(now, prev);
    prev = now;
  }
  Work w;
  w.kind = WorkKind::Kernel;
  w.kernel = &nop_kernel;
  WorkResult r = d.execute_now(&w);
  EXPECT_GE(r.start_ns, prev);
  EXPECT_GE(r.end_ns, r.start_ns);
  EXPECT_GE(d.now_ns(), r.end_ns);
  d.close();
  ASSERT_TRUE(d.open().ok());
  EXPECT_GE(d.now_ns(), r.end_ns);  // a reset does not rewind the clock
}

TEST(AscendDevice, OpenCloseOpen) {
  TestHost host;
  AscendDevice d(0, small_config(), &host);
  ASSERT_TRUE(d.init().ok());
  EXPECT_EQ(d.now_ns(), 0u);  // not booted yet
  // A launch on a closed device cannot run: it completes with 507033 on the caller's thread.
  TrackedWork early;
  early.kind = WorkKind::Memset;
  d.launch(UnitKind::Copy, 0, &early);
  ASSERT_TRUE(early.done.load());
  EXPECT_EQ(early.result.status, static_cast<int>(Errc::rt_dev_setup_error));

  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(d.open().ok());
    ASSERT_TRUE(d.open().ok());  // idempotent
    EXPECT_TRUE(d.is_open());
    DevAddr a = must_allocate(d, 1000);
    TrackedWork fill;
    fill.kind = WorkKind::Memset;
    fill.dst = dev_ref(d, a);
    fill.bytes = 1000;
    fill.value = round;
    d.launch(UnitKind::Copy, 1, &fill);
    ASSERT_TRUE(fill.wait());
    EXPECT_EQ(fill.result.status, 0);
    EXPECT_EQ(static_cast<unsigned char*>(d.map(a, 1000))[999], round);
    // A launch onto a unit that does not exist completes at once with an error.
    TrackedWork nowhere;
    nowhere.kind = WorkKind::Memset;
    d.launch(UnitKind::Copy, 99, &nowhere);
    ASSERT_TRUE(nowhere.done.load());
    EXPECT_EQ(nowhere.result.status, static_cast<int>(Errc::rt_param_invalid));
    EXPECT_EQ(d.memory_usage().allocations, 1u);
    d.close();
    d.close();  // idempotent
    EXPECT_FALSE(d.is_open());
    // close() releases every allocation.
    MemoryUsage u = d.memory_usage();
    EXPECT_EQ(u.allocations, 0u);
    EXPECT_EQ(u.free, u.total);
    EXPECT_EQ(d.map(a, 1), nullptr);
  }
}

}  // namespace

// Kernels on several units that wait for each other (as HCCL's sync points do across devices):
// every round needs all of them running at once, so the pool must grow and must never lose a
// hand-off, round after round.
struct Barrier {
  std::mutex mu;
  std::condition_variable cv;
  uint32_t arrived = 0;
  uint32_t generation = 0;
  uint32_t n = 0;
};

void barrier_kernel(KernelContext& ctx, void* args) {
  auto* b = static_cast<Barrier*>(args);
  std::unique_lock lock(b->mu);
  const uint32_t gen = b->generation;
  if (++b->arrived == b->n) {
    b->arrived = 0;
    ++b->generation;
    b->cv.notify_all();
    return;
  }
  if (!b->cv.wait_for(lock, 10s, [&] { return b->generation != gen; })) ctx.fault(kAicore, "barrier timed out");
}

TEST(AscendUnits, KernelsThatWaitForEachOtherAlwaysMeet) {
  AscendConfig cfg = small_config(64 * MiB, 8, 1);
  cfg.executor_threads = 2;
  OpenDevice od(cfg);
  auto& d = od.device;
  Barrier barrier;
  barrier.n = 8;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::unique_ptr<TrackedWork>> works;
    std::vector<std::thread> launchers;
    for (uint32_t u = 0; u < 8; ++u) {
      works.push_back(std::make_unique<TrackedWork>());
      works.back()->kind = WorkKind::Kernel;
      works.back()->kernel = &barrier_kernel;
      works.back()->args = &barrier;
    }
    if (round % 2 == 0) {
      // A burst from one thread: most launches find a polling worker and wake nobody themselves.
      for (uint32_t u = 0; u < 8; ++u) d.launch(UnitKind::Compute, u, works[u].get());
    } else {
      for (uint32_t u = 0; u < 8; ++u)
        launchers.emplace_back([&, u] { d.launch(UnitKind::Compute, u, works[u].get()); });
      for (auto& t : launchers) t.join();
    }
    for (uint32_t u = 0; u < 8; ++u) {
      ASSERT_TRUE(works[u]->wait(20s)) << "round " << round << " unit " << u;
      ASSERT_EQ(works[u]->result.status, 0) << "round " << round;
    }
  }
}
