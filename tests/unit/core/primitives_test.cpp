// Small core building blocks: handle table, memory registry, notifier.
#include <gtest/gtest.h>

#include <thread>

#include "runtime/handle_table.hpp"
#include "runtime/memory_registry.hpp"
#include "sched/notifier.hpp"

using namespace arun;

namespace {
struct Thing {
  void set_handle(void* h) { handle = h; }
  void* handle = nullptr;
};
}  // namespace

TEST(HandleTable, HandlesAreNeverReusedAndKindsDoNotMix) {
  HandleTable<Thing> streams(HandleKind::Stream);
  HandleTable<Thing> events(HandleKind::Event);
  void* a = streams.add(std::make_shared<Thing>());
  EXPECT_NE(streams.find(a), nullptr);
  EXPECT_EQ(events.find(a), nullptr);
  EXPECT_NE(streams.remove(a), nullptr);
  EXPECT_EQ(streams.find(a), nullptr);
  EXPECT_EQ(streams.remove(a), nullptr);
  void* b = streams.add(std::make_shared<Thing>());
  EXPECT_NE(a, b);
  EXPECT_EQ(streams.find(reinterpret_cast<void*>(0x1234)), nullptr);
  EXPECT_EQ(streams.find(nullptr), nullptr);
}

TEST(MemoryRegistry, FindsContainingRangesOnly) {
  MemoryRegistry reg;
  alignas(64) static char block[256];
  reg.add(block, 128);
  void* base = nullptr;
  uint64_t size = 0;
  EXPECT_TRUE(reg.find(block + 10, 100, &base, &size));
  EXPECT_EQ(base, block);
  EXPECT_EQ(size, 128u);
  EXPECT_FALSE(reg.find(block + 10, 200));  // runs past the end
  EXPECT_FALSE(reg.find(block + 128, 1));   // just after
  EXPECT_FALSE(reg.remove(block + 1));      // not a base
  EXPECT_TRUE(reg.remove(block));
  EXPECT_FALSE(reg.find(block, 1));
}

TEST(Notifier, ParkReturnsOnNotifyAndHonoursDeadlines) {
  Notifier n;
  // Nobody notifies: the park times out.
  uint32_t e = n.begin_park();
  EXPECT_FALSE(n.park(e, Notifier::now_ns() + 1'000'000));
  // A notify between begin_park and park makes park return at once.
  e = n.begin_park();
  n.notify();
  EXPECT_TRUE(n.park(e, Notifier::now_ns() + 5'000'000'000));
  // A parked waiter is woken by a notify from another thread.
  std::atomic<bool> flag{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // long enough for the waiter to park
    flag.store(true);
    n.notify();
  });
  while (!flag.load()) {
    e = n.begin_park();
    if (flag.load()) {
      n.cancel_park();
      break;
    }
    EXPECT_TRUE(n.park(e, -1));
  }
  t.join();
  EXPECT_TRUE(Notifier::spin([&] { return flag.load(); }));
}
