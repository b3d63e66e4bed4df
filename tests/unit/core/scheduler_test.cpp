// The scheduler in isolation, on a ManualDevice: stream order, unit accounting, event
// dependencies, discarding, waiting and error reporting, all observed without timing.
#include <gtest/gtest.h>

#include <algorithm>

#include "manual_device.hpp"
#include "runtime/event.hpp"
#include "sched/fifo_policy.hpp"
#include "sched/scheduler.hpp"

using namespace arun;
using arun::test::ManualDevice;
using arun::test::tag;

namespace {

// Tags are small integers cast to pointers, carried in Work::args.
struct Fixture : ::testing::Test {
  explicit Fixture(uint32_t compute = 1, uint32_t copy = 1) : device(compute, copy) {}
  void SetUp() override { sched = std::make_unique<Scheduler>(&device, std::make_unique<FifoPolicy>()); }
  void TearDown() override {
    // Finish whatever is still running so streams can be removed.
    for (int guard = 0; guard < 1000 && !device.running_tags().empty(); ++guard) {
      for (void* t : device.running_tags()) device.complete(t);
    }
    for (auto& s : streams) sched->remove_stream(s, true);
  }

  std::shared_ptr<Stream> stream() {
    auto s = std::make_shared<Stream>(nullptr, sched.get(), int32_t(streams.size()), 0, 0, false);
    sched->add_stream(s);
    streams.push_back(s);
    return s;
  }
  uint64_t work(Stream& s, uintptr_t t, plugin::UnitKind kind = plugin::UnitKind::Compute) {
    auto* task = new Task();
    task->kind = plugin::WorkKind::Kernel;
    task->args = tag(t);
    task->unit_kind = kind;
    task->stream = &s;
    return sched->submit(task);
  }
  std::shared_ptr<Event> event() { return std::make_shared<Event>(nullptr, 0); }
  void record(Stream& s, const std::shared_ptr<Event>& e) {
    auto* task = new Task();
    task->task_kind = TaskKind::EventRecord;
    task->record = std::make_shared<EventRecord>();
    task->event = e;
    task->stream = &s;
    sched->submit(task);
  }
  void wait(Stream& s, const std::shared_ptr<Event>& e) {
    auto* task = new Task();
    task->task_kind = TaskKind::EventWait;
    task->event = e;
    task->stream = &s;
    sched->submit(task);
  }

  ManualDevice device;
  std::unique_ptr<Scheduler> sched;
  std::vector<std::shared_ptr<Stream>> streams;
};

struct TwoComputeUnits : Fixture {
  TwoComputeUnits() : Fixture(2, 1) {}
};

using Tags = std::vector<void*>;

}  // namespace

TEST_F(TwoComputeUnits, StreamRunsOneTaskAtATimeInOrder) {
  auto s = stream();
  work(*s, 1);
  work(*s, 2);
  work(*s, 3);
  // Two units are free, but a stream is in order: only its head runs.
  EXPECT_EQ(device.running_tags(), Tags{tag(1)});
  EXPECT_EQ(s->submitted(), 3u);
  EXPECT_EQ(s->completed(), 0u);
  ASSERT_TRUE(device.complete(tag(1)));
  EXPECT_EQ(device.running_tags(), Tags{tag(2)});
  EXPECT_EQ(s->completed(), 1u);
  ASSERT_TRUE(device.complete(tag(2)));
  ASSERT_TRUE(device.complete(tag(3)));
  EXPECT_EQ(device.history(), (Tags{tag(1), tag(2), tag(3)}));
  EXPECT_TRUE(s->idle());
}

TEST_F(TwoComputeUnits, DifferentStreamsRunConcurrently) {
  auto a = stream();
  auto b = stream();
  work(*a, 1);
  work(*b, 2);
  auto running = device.running();
  ASSERT_EQ(running.size(), 2u);
  EXPECT_NE(running[0].unit, running[1].unit);
}

TEST_F(Fixture, OneComputeUnitSerialisesStreamsOldestReadyFirst) {
  auto a = stream();
  auto b = stream();
  auto c = stream();
  work(*a, 1);
  work(*b, 2);
  work(*c, 3);
  work(*a, 4);
  EXPECT_EQ(device.running_tags(), Tags{tag(1)});
  device.complete(tag(1));  // a's next task (4) becomes ready after b's and c's heads
  EXPECT_EQ(device.running_tags(), Tags{tag(2)});
  device.complete(tag(2));
  device.complete(tag(3));
  device.complete(tag(4));
  EXPECT_EQ(device.history(), (Tags{tag(1), tag(2), tag(3), tag(4)}));
}

TEST_F(Fixture, CopiesUseCopyUnitsAlongsideCompute) {
  auto a = stream();
  auto b = stream();
  work(*a, 1, plugin::UnitKind::Compute);
  work(*b, 2, plugin::UnitKind::Copy);
  auto running = device.running();
  ASSERT_EQ(running.size(), 2u);
  EXPECT_EQ(running[0].kind, plugin::UnitKind::Compute);
  EXPECT_EQ(running[1].kind, plugin::UnitKind::Copy);
  EXPECT_EQ(sched->busy_units(plugin::UnitKind::Compute), 1u);
  EXPECT_EQ(sched->busy_units(plugin::UnitKind::Copy), 1u);
}

TEST_F(TwoComputeUnits, CrossStreamEventWaitHoldsBackTheWaiter) {
  auto a = stream();
  auto b = stream();
  auto e = event();
  work(*a, 1);
  record(*a, e);
  wait(*b, e);
  work(*b, 2);
  // b's task must not start while a's task (captured by the record) runs, though a unit is free.
  EXPECT_EQ(device.running_tags(), Tags{tag(1)});
  EXPECT_FALSE(e->latest->done.load());
  EXPECT_TRUE(sched->waits_pending(*e));
  device.complete(tag(1));
  EXPECT_TRUE(e->latest->done.load());
  EXPECT_FALSE(sched->waits_pending(*e));
  EXPECT_EQ(device.running_tags(), Tags{tag(2)});
}

TEST_F(TwoComputeUnits, WaitOnANeverRecordedEventDoesNotBlock) {
  auto b = stream();
  auto e = event();
  wait(*b, e);
  work(*b, 7);
  EXPECT_EQ(device.running_tags(), Tags{tag(7)});
}

TEST_F(TwoComputeUnits, WaitBindsToTheRecordCurrentAtEnqueue) {
  auto a = stream();
  auto b = stream();
  auto e = event();
  work(*a, 1);
  record(*a, e);  // record #1 captures task 1
  wait(*b, e);    // binds to record #1
  work(*b, 3);
  work(*a, 2);
  record(*a, e);  // record #2 captures task 2: must not affect b's wait
  device.complete(tag(1));
  auto running = device.running_tags();
  std::sort(running.begin(), running.end());
  EXPECT_EQ(running, (Tags{tag(2), tag(3)}));
  EXPECT_FALSE(e->latest->done.load());  // the latest record (#2) is still pending
}

TEST_F(Fixture, RecordOnAnIdleStreamCompletesAtOnce) {
  auto a = stream();
  auto e = event();
  record(*a, e);
  ASSERT_TRUE(e->latest);
  EXPECT_TRUE(e->latest->done.load());
  EXPECT_TRUE(sched->wait_record(*e->latest, 0));
}

TEST_F(Fixture, WaitForTimesOutThenSucceeds) {
  auto a = stream();
  uint64_t seq = work(*a, 1);
  EXPECT_FALSE(sched->wait_for(*a, seq, Notifier::now_ns() + 2'000'000));
  device.complete(tag(1));
  EXPECT_TRUE(sched->wait_for(*a, seq, Notifier::now_ns() + 2'000'000));
  EXPECT_TRUE(sched->wait_all(0));
}

TEST_F(Fixture, DiscardDropsQueuedTasksButNotTheRunningOne) {
  auto a = stream();
  work(*a, 1);
  work(*a, 2);
  work(*a, 3);
  sched->discard_pending(*a);
  EXPECT_EQ(device.running_tags(), Tags{tag(1)});
  EXPECT_FALSE(a->idle());
  device.complete(tag(1));
  EXPECT_TRUE(a->idle());
  EXPECT_EQ(device.history(), Tags{tag(1)});  // 2 and 3 never ran
}

TEST_F(Fixture, DiscardReleasesAStreamBlockedOnAnEvent) {
  auto a = stream();
  auto b = stream();
  auto e = event();
  work(*a, 1);
  record(*a, e);
  wait(*b, e);
  work(*b, 2);
  sched->discard_pending(*b);
  EXPECT_TRUE(b->idle());
  EXPECT_FALSE(sched->waits_pending(*e));
  device.complete(tag(1));
  EXPECT_EQ(device.history(), Tags{tag(1)});
}

TEST_F(Fixture, FirstErrorIsReportedOnce) {
  auto a = stream();
  work(*a, 1);
  work(*a, 2);
  device.complete(tag(1), 507015);
  device.complete(tag(2), 507052);
  EXPECT_EQ(sched->take_error(*a), 507015);
  EXPECT_EQ(sched->take_error(*a), 0);
}
