// The bounded stream queue: a submitter blocks on a full stream and goes on as tasks complete; every
// task runs once, in order; waiting on another stream's event cannot deadlock the full stream; stop
// and abort wake blocked submitters. "Blocked" is observed through Scheduler::blocked_submitters,
// never by timing.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "manual_device.hpp"
#include "runtime/event.hpp"
#include "sched/priority_policy.hpp"
#include "sched/scheduler.hpp"

using namespace arun;
using arun::test::ManualDevice;
using arun::test::tag;

namespace {

using Tags = std::vector<void*>;

constexpr uint32_t kDepth = 4;

struct Backlog : ::testing::Test {
  Backlog() : device(1, 1), sched(&device, std::make_unique<PriorityPolicy>(), 0, kDepth) {}
  void TearDown() override {
    for (int guard = 0; guard < 10000 && !device.running_tags().empty(); ++guard) {
      for (void* t : device.running_tags()) device.complete(t);
    }
    for (auto& s : streams) sched.remove_stream(s, true);
  }
  std::shared_ptr<Stream> stream() {
    auto s = std::make_shared<Stream>(nullptr, &sched, int32_t(streams.size()), 0, 0, false);
    sched.add_stream(s);
    streams.push_back(s);
    return s;
  }
  uint64_t work(Stream& s, uintptr_t t, Status* refused = nullptr) {
    auto* task = new Task();
    task->kind = plugin::WorkKind::Kernel;
    task->args = tag(t);
    task->stream = &s;
    return sched.submit(task, refused);
  }
  void record(Stream& s, const std::shared_ptr<Event>& e) {
    auto* task = new Task();
    task->task_kind = TaskKind::EventRecord;
    task->record = std::make_shared<EventRecord>();
    task->event = e;
    task->stream = &s;
    ASSERT_NE(sched.submit(task), 0u);
  }
  void wait(Stream& s, const std::shared_ptr<Event>& e) {
    auto* task = new Task();
    task->task_kind = TaskKind::EventWait;
    task->event = e;
    task->stream = &s;
    ASSERT_NE(sched.submit(task), 0u);
  }
  // Spins until `n` submitters are blocked on `s`. A generous guard turns a bug into a failure
  // instead of a hang; no assertion depends on how long it takes.
  bool until_blocked(const Stream& s, uint32_t n) {
    for (int i = 0; i < 2'000'000; ++i) {
      if (sched.blocked_submitters(s) == n) return true;
      std::this_thread::yield();
    }
    return false;
  }

  ManualDevice device;
  Scheduler sched;
  std::vector<std::shared_ptr<Stream>> streams;
};

}  // namespace

TEST_F(Backlog, AFullQueueBlocksThenDrainsEveryTaskOnceInOrder) {
  auto s = stream();
  for (uintptr_t i = 1; i <= kDepth; ++i) ASSERT_NE(work(*s, i), 0u);
  EXPECT_EQ(s->depth(), kDepth);
  constexpr uintptr_t kTotal = 12;
  std::atomic<uintptr_t> submitted{kDepth};
  std::thread producer([&] {
    for (uintptr_t i = kDepth + 1; i <= kTotal; ++i) {
      EXPECT_NE(work(*s, i), 0u);
      submitted = i;
    }
  });
  ASSERT_TRUE(until_blocked(*s, 1));
  EXPECT_EQ(submitted.load(), kDepth);  // task 5 waits for room
  EXPECT_EQ(s->submitted(), kDepth);
  for (uintptr_t done = 1; done <= kTotal; ++done) {
    EXPECT_LE(s->depth(), kDepth);
    ASSERT_TRUE(device.complete(tag(done))) << "task " << done << " is not the one running";
    // The producer refills one slot per completion; wait for it before the next, so the history
    // shows that the queue never held more than its bound.
    if (done + kDepth <= kTotal) {
      for (int i = 0; i < 2'000'000 && s->submitted() < done + kDepth; ++i) std::this_thread::yield();
      EXPECT_EQ(s->submitted(), done + kDepth);
    }
  }
  producer.join();
  Tags expected;
  for (uintptr_t i = 1; i <= kTotal; ++i) expected.push_back(tag(i));
  EXPECT_EQ(device.history(), expected);
  EXPECT_TRUE(s->idle());
}

TEST_F(Backlog, AFullStreamWaitingOnAnotherStreamsEventDoesNotDeadlock) {
  auto producer_stream = stream();
  auto consumer = stream();
  auto e = std::make_shared<Event>(nullptr, 0);
  work(*producer_stream, 1);  // runs; the record behind it completes only when 1 does
  record(*producer_stream, e);
  wait(*consumer, e);
  for (uintptr_t i = 0; i < kDepth - 1; ++i) ASSERT_NE(work(*consumer, 10 + i), 0u);
  std::atomic<bool> done{false};
  std::thread submitter([&] {
    EXPECT_NE(work(*consumer, 20), 0u);
    done = true;
  });
  ASSERT_TRUE(until_blocked(*consumer, 1));
  // The other stream takes work while the consumer's submitter is blocked...
  EXPECT_NE(work(*producer_stream, 2), 0u);
  EXPECT_EQ(device.running_tags(), Tags{tag(1)});
  // ...and completing its task releases the event, the wait, and so the consumer's queue.
  for (int guard = 0; guard < 2'000'000; ++guard) {
    auto running = device.running_tags();
    if (running.empty()) {
      if (done && consumer->idle()) break;
      std::this_thread::yield();
      continue;
    }
    device.complete(running.front());
  }
  submitter.join();
  EXPECT_TRUE(consumer->idle());
  auto h = device.history();
  auto pos = [&](uintptr_t t) { return std::find(h.begin(), h.end(), tag(t)) - h.begin(); };
  EXPECT_EQ(h.size(), 6u);
  EXPECT_LT(pos(10), pos(11));
  EXPECT_LT(pos(12), pos(20));
}

TEST_F(Backlog, StopOnFailureWakesABlockedSubmitterAndRefusesItsTask) {
  auto s = stream();
  s->failure_mode.store(1);  // ACL_STOP_ON_FAILURE
  s->failure_mode_set.store(true);
  for (uintptr_t i = 1; i <= kDepth; ++i) ASSERT_NE(work(*s, i), 0u);
  Status refused;
  uint64_t seq = 99;
  std::thread submitter([&] { seq = work(*s, 50, &refused); });
  ASSERT_TRUE(until_blocked(*s, 1));
  ASSERT_TRUE(device.complete(tag(1), static_cast<int>(Errc::rt_aicore_exception)));
  submitter.join();
  EXPECT_EQ(seq, 0u);
  EXPECT_EQ(refused.code(), Errc::rt_aicore_exception) << refused.message();
  EXPECT_EQ(device.history(), Tags{tag(1)});  // the queued tasks were dropped, not run
  EXPECT_EQ(sched.blocked_submitters(*s), 0u);
}

TEST_F(Backlog, AbortWakesABlockedSubmitter) {
  auto s = stream();
  for (uintptr_t i = 1; i <= kDepth; ++i) ASSERT_NE(work(*s, i), 0u);
  std::atomic<bool> returned{false};
  std::thread submitter([&] {
    work(*s, 50);  // dropped by the abort, or enqueued after it: either way it returns
    returned = true;
  });
  ASSERT_TRUE(until_blocked(*s, 1));
  std::thread aborter([&] { sched.abort(*s); });  // waits for the running task
  for (int i = 0; i < 2'000'000 && sched.blocked_submitters(*s) != 0; ++i) std::this_thread::yield();
  EXPECT_EQ(sched.blocked_submitters(*s), 0u);
  device.complete(tag(1));
  aborter.join();
  submitter.join();
  EXPECT_TRUE(returned.load());
  // Tasks 2..4 were dropped: only 1 (and 50, if it came after the abort) ran.
  auto h = device.history();
  EXPECT_EQ(h.front(), tag(1));
  EXPECT_EQ(std::count(h.begin(), h.end(), tag(2)), 0);
}

TEST_F(Backlog, DepthCountsQueuedWaitingAndRunningTasks) {
  auto a = stream();
  auto b = stream();
  auto e = std::make_shared<Event>(nullptr, 0);
  EXPECT_EQ(a->depth(), 0u);
  work(*a, 1);
  record(*a, e);
  wait(*b, e);
  work(*b, 2);
  EXPECT_EQ(a->depth(), 2u);  // running task + pending record
  EXPECT_EQ(b->depth(), 2u);  // blocked wait + task behind it
  device.complete(tag(1));
  EXPECT_EQ(a->depth(), 0u);
  EXPECT_EQ(b->depth(), 1u);
  device.complete(tag(2));
  EXPECT_EQ(b->depth(), 0u);
  EXPECT_EQ(sched.queue_depth(), kDepth);
}
