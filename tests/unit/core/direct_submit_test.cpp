// Direct submission (issue 16, Scheduler::set_direct_submit): a tiny copy or memset that reaches an
// idle stream runs on the submitting thread through Device::execute_now instead of a unit. These
// tests run each scenario with the switch on and off on a device whose units are real threads, and
// check that the outcome (data, order, errors and their messages, event records) is the same and
// that the path taken is the one the switch asks for.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arun/runtime/recorder.hpp"
#include "prof/trace_rings.hpp"
#include "runtime/event.hpp"
#include "sched/fifo_policy.hpp"
#include "sched/scheduler.hpp"

using namespace arun;

namespace {

// A device whose units are one worker thread (launch() queues, the worker runs and calls back) and
// whose execute_now() runs the same code on the caller. Memory is host memory (MemRef::addr is a
// host address on both sides). A copy from address kBadAddr faults with 507052 and a message, as
// the Ascend model's copy engine does for a range that is not live. Every execution appends the
// task's tag (Work::value for copies, which ignore it) to `order` and notes which thread ran it.
class ThreadDevice final : public plugin::Device {
 public:
  static constexpr uint64_t kBadAddr = 0x10;

  ThreadDevice() {
    props_.soc_name = "thread";
    props_.compute_units = 1;
    props_.copy_units = 2;
    worker_ = std::thread([this] { serve(); });
  }
  ~ThreadDevice() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  const plugin::DeviceProperties& properties() const override { return props_; }
  Status open() override { return Status::Ok(); }
  void close() override {}
  Status allocate(uint64_t, plugin::PageKind, plugin::DevAddr*) override {
    return Status(Errc::rt_memory_allocation, "none");
  }
  Status release(plugin::DevAddr) override { return Status(Errc::rt_memory_free, "none"); }
  plugin::MemoryUsage memory_usage() const override { return {}; }
  bool owns(plugin::DevAddr) const override { return false; }
  bool find_allocation(plugin::DevAddr, plugin::DevAddr*, uint64_t*) const override { return false; }
  void* map(plugin::DevAddr, uint64_t) override { return nullptr; }
  // The steady clock from the device's creation, as the Ascend model's DeviceClock.
  uint64_t now_ns() const override { return prof::steady_ns() - epoch_; }
  uint32_t unit_count(plugin::UnitKind kind) const override {
    return kind == plugin::UnitKind::Compute ? props_.compute_units : props_.copy_units;
  }
  void launch(plugin::UnitKind, uint32_t unit, plugin::Work* work) override {
    {
      std::lock_guard lock(mu_);
      queue_.push_back({unit, work});
    }
    cv_.notify_all();
  }
  plugin::WorkResult execute_now(plugin::Work* work) override {
    thread_local std::string why;
    plugin::WorkResult r = run(*work, &why);
    ++inline_runs;
    return r;
  }

  // Blocks the worker (not execute_now) until release_worker(): queued work stays queued.
  void hold_worker() {
    std::lock_guard lock(mu_);
    held_ = true;
  }
  void release_worker() {
    {
      std::lock_guard lock(mu_);
      held_ = false;
    }
    cv_.notify_all();
  }
  // Waits until the worker has returned from every completion callback (a scheduler may be
  // destroyed only then: the callback still touches it after publishing the completion).
  void quiesce() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }
  std::vector<int32_t> order() const {
    std::lock_guard lock(log_mu_);
    return order_;
  }

  std::atomic<int> inline_runs{0};
  std::atomic<int> worker_runs{0};

 private:
  plugin::WorkResult run(const plugin::Work& w, std::string* why) {
    plugin::WorkResult r;
    r.start_ns = now_ns();
    if (w.kind == plugin::WorkKind::Copy && w.src.addr == kBadAddr) {
      r.status = 507052;
      *why = "src range [16, +" + std::to_string(w.bytes) + ") is not live";
      r.message = why->c_str();
    } else if (w.kind == plugin::WorkKind::Copy) {
      std::memcpy(reinterpret_cast<void*>(w.dst.addr), reinterpret_cast<const void*>(w.src.addr), w.bytes);
    } else if (w.kind == plugin::WorkKind::Memset) {
      std::memset(reinterpret_cast<void*>(w.dst.addr), w.value & 0xff, w.bytes);
    }
    {
      std::lock_guard lock(log_mu_);
      order_.push_back(w.kind == plugin::WorkKind::Copy ? w.value : -1);
    }
    r.end_ns = now_ns();
    return r;
  }
  void serve() {
    for (;;) {
      std::pair<uint32_t, plugin::Work*> item;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || (!held_ && !queue_.empty()); });
        if (queue_.empty()) return;
        item = queue_.front();
        queue_.pop_front();
        busy_ = true;
      }
      std::string why;
      plugin::WorkResult r = run(*item.second, &why);
      r.unit = item.first;
      ++worker_runs;
      item.second->on_complete(item.second, r);
      {
        std::lock_guard lock(mu_);
        busy_ = false;
      }
      cv_.notify_all();
    }
  }

  plugin::DeviceProperties props_;
  const uint64_t epoch_ = prof::steady_ns() - 1;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<uint32_t, plugin::Work*>> queue_;
  bool held_ = false;
  bool busy_ = false;
  bool stop_ = false;
  mutable std::mutex log_mu_;
  std::vector<int32_t> order_;
  std::thread worker_;
};

struct DirectSubmit : ::testing::TestWithParam<bool> {
  void SetUp() override {
    sched = std::make_unique<Scheduler>(&device, std::make_unique<FifoPolicy>());
    EXPECT_EQ(0u, sched->direct_submit()) << "a scheduler made without a runtime keeps the old path";
    sched->set_direct_submit(on() ? Scheduler::kDirectSubmitBytes : 0);
  }
  void TearDown() override {
    device.release_worker();
    for (auto& s : streams) sched->remove_stream(s, false);
    device.quiesce();
  }
  bool on() const { return GetParam(); }

  std::shared_ptr<Stream> stream() {
    auto s = std::make_shared<Stream>(nullptr, sched.get(), int32_t(streams.size()), 0, 0, false);
    sched->add_stream(s);
    streams.push_back(s);
    return s;
  }
  uint64_t copy(Stream& s, void* dst, const void* src, uint64_t bytes, int32_t tag = 0) {
    auto* t = new Task();
    t->kind = plugin::WorkKind::Copy;
    t->unit_kind = plugin::UnitKind::Copy;
    t->dst = {reinterpret_cast<uint64_t>(dst), nullptr};
    t->src = {reinterpret_cast<uint64_t>(src), nullptr};
    t->bytes = bytes;
    static_cast<plugin::Work*>(t)->value = tag;  // Task::value is a ValueWait's
    t->stream = &s;
    return sched->submit(t);
  }
  uint64_t memset(Stream& s, void* dst, int value, uint64_t bytes) {
    auto* t = new Task();
    t->kind = plugin::WorkKind::Memset;
    t->unit_kind = plugin::UnitKind::Copy;
    t->dst = {reinterpret_cast<uint64_t>(dst), nullptr};
    t->bytes = bytes;
    static_cast<plugin::Work*>(t)->value = value;
    t->stream = &s;
    return sched->submit(t);
  }
  std::shared_ptr<EventRecord> record(Stream& s, const std::shared_ptr<Event>& e) {
    auto* t = new Task();
    t->task_kind = TaskKind::EventRecord;
    t->record = std::make_shared<EventRecord>();
    t->event = e;
    t->stream = &s;
    auto r = t->record;
    sched->submit(t);
    return r;
  }
  void wait(Stream& s, const std::shared_ptr<Event>& e) {
    auto* t = new Task();
    t->task_kind = TaskKind::EventWait;
    t->event = e;
    t->stream = &s;
    sched->submit(t);
  }
  bool sync(Stream& s) { return sched->wait_for(s, s.submitted(), Notifier::deadline_after_ms(10000)); }

  ThreadDevice device;
  std::unique_ptr<Scheduler> sched;
  std::vector<std::shared_ptr<Stream>> streams;
};

}  // namespace

TEST_P(DirectSubmit, CopyThenRecordThenWaitOnAnotherStream) {
  auto a = stream();
  auto b = stream();
  auto e = std::make_shared<Event>(nullptr, 0);
  std::vector<uint8_t> src(4096, 0x5a), mid(4096, 0), dst(4096, 0);
  copy(*a, mid.data(), src.data(), src.size(), 1);
  if (on()) {
    // Ran before submit returned, on this thread: the stream is already idle.
    EXPECT_EQ(1u, a->completed());
    EXPECT_EQ(1, device.inline_runs.load());
    EXPECT_EQ(1u, sched->direct_runs());
  }
  auto rec = record(*a, e);
  wait(*b, e);
  copy(*b, dst.data(), mid.data(), mid.size(), 2);
  ASSERT_TRUE(sync(*b));
  ASSERT_TRUE(sync(*a));
  EXPECT_TRUE(sched->record_done(*rec));
  EXPECT_EQ(src, dst);
  EXPECT_EQ((std::vector<int32_t>{1, 2}), device.order());
  EXPECT_EQ(on() ? 2 : 0, device.inline_runs.load());
  EXPECT_EQ(on() ? 0 : 2, device.worker_runs.load());
  EXPECT_EQ(0, sched->take_error(*a));
  EXPECT_EQ(0, sched->take_error(*b));
}

TEST_P(DirectSubmit, MemsetThenCopy) {
  auto s = stream();
  std::vector<uint8_t> buf(1024, 0), out(1024, 0);
  memset(*s, buf.data(), 0x3c, buf.size());
  copy(*s, out.data(), buf.data(), buf.size(), 7);
  ASSERT_TRUE(sync(*s));
  EXPECT_EQ(std::vector<uint8_t>(1024, 0x3c), out);
  EXPECT_EQ(on() ? 2u : 0u, sched->direct_runs());
}

// A task behind work that has not finished is never run directly, whatever its size: it waits
// for its turn and goes to a unit.
TEST_P(DirectSubmit, QueuedTaskGoesToAUnitInOrder) {
  auto s = stream();
  std::vector<uint8_t> src(64, 1), dst(64, 0);
  device.hold_worker();
  auto* k = new Task();  // a kernel: never direct, held on the worker
  k->kind = plugin::WorkKind::Kernel;
  k->stream = s.get();
  sched->submit(k);
  copy(*s, dst.data(), src.data(), src.size(), 3);
  EXPECT_EQ(0u, s->completed());
  EXPECT_EQ(0, device.inline_runs.load());
  device.release_worker();
  ASSERT_TRUE(sync(*s));
  EXPECT_EQ(src, dst);
  EXPECT_EQ((std::vector<int32_t>{-1, 3}), device.order());
  EXPECT_EQ(0u, sched->direct_runs());
}

TEST_P(DirectSubmit, LargerThanTheThresholdGoesToAUnit) {
  auto s = stream();
  std::vector<uint8_t> src(Scheduler::kDirectSubmitBytes + 1, 9), dst(src.size(), 0);
  copy(*s, dst.data(), src.data(), src.size(), 4);
  ASSERT_TRUE(sync(*s));
  EXPECT_EQ(src, dst);
  EXPECT_EQ(0, device.inline_runs.load());
  EXPECT_EQ(1, device.worker_runs.load());
}

// A failing copy: the same code and message on the next synchronize, whichever thread ran it, and
// the stream goes on (ACL_CONTINUE_ON_FAILURE, the default).
TEST_P(DirectSubmit, FailureReportsTheSameCodeAndMessage) {
  auto s = stream();
  std::vector<uint8_t> dst(256, 0), src(256, 4);
  copy(*s, dst.data(), reinterpret_cast<void*>(ThreadDevice::kBadAddr), 256, 5);
  ASSERT_TRUE(sync(*s));
  std::string why;
  EXPECT_EQ(507052, sched->take_error(*s, &why));
  // Without set_failure_messages (a device older than ABI minor 10) the message is not read.
  EXPECT_EQ("", why);
  sched->set_failure_messages(true);
  copy(*s, dst.data(), reinterpret_cast<void*>(ThreadDevice::kBadAddr), 256, 6);
  copy(*s, dst.data(), src.data(), src.size(), 7);
  ASSERT_TRUE(sync(*s));
  EXPECT_EQ(507052, sched->take_error(*s, &why));
  EXPECT_EQ("src range [16, +256) is not live", why);
  EXPECT_EQ(0, sched->take_error(*s)) << "reported once";
  EXPECT_EQ(src, dst) << "the task after the failure ran";
  EXPECT_EQ(on() ? 3u : 0u, sched->direct_runs());
}

// Several threads launch to one stream at once (run it under TSan): every task runs once, in
// stream order, whether it ran on its launcher (the stream was idle) or on the unit (it queued
// behind another thread's task). Event records and waits to a second stream go in between.
TEST_P(DirectSubmit, ConcurrentLaunchersKeepStreamOrder) {
  auto s = stream();
  auto other = stream();
  auto e = std::make_shared<Event>(nullptr, 0);
  constexpr int kThreads = 4, kEach = 300;
  std::vector<uint8_t> src(128, 1);
  std::vector<std::vector<uint8_t>> dst(kThreads, std::vector<uint8_t>(128, 0));
  std::vector<std::vector<uint8_t>> filled(kThreads, std::vector<uint8_t>(32, 0));
  std::vector<std::vector<std::pair<uint64_t, int32_t>>> seqs(kThreads);  // (position in s, tag)
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const int32_t tag = t * kEach + i;
        seqs[t].emplace_back(copy(*s, dst[t].data(), src.data(), src.size(), tag), tag);
        if (i % 50 == 0) {
          record(*s, e);
          wait(*other, e);
          memset(*other, filled[t].data(), 2, filled[t].size());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_TRUE(sync(*s));
  ASSERT_TRUE(sync(*other));
  std::vector<std::pair<uint64_t, int32_t>> all;
  for (auto& v : seqs) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  std::vector<int32_t> expected;
  for (auto& [seq, tag] : all) expected.push_back(tag);
  std::vector<int32_t> ran = device.order();
  ran.erase(std::remove(ran.begin(), ran.end(), -1), ran.end());  // the memsets
  EXPECT_EQ(expected, ran) << "the copies of stream s ran in the order of their positions";
  for (auto& d : dst) EXPECT_EQ(src, d);
  for (auto& f : filled) EXPECT_EQ(std::vector<uint8_t>(32, 2), f);
  EXPECT_EQ(s->submitted(), s->completed());
  EXPECT_EQ(other->submitted(), other->completed());
  if (!on()) {
    EXPECT_EQ(0, device.inline_runs.load());
  } else {
    EXPECT_LT(0, device.inline_runs.load()) << "the first copy found the stream idle";
  }
}

// The task record of a copy (profiling on): the same record either way, with device times
// converted to the record clock between the task's ready time and the drain.
TEST_P(DirectSubmit, ProfilerRecordOfACopy) {
  auto s = stream();
  std::vector<uint8_t> src(512, 6), dst(512, 0);
  std::vector<plugin::Record> old;
  uint64_t dropped = 0;
  prof::TraceRings::drain(&old, &dropped);  // records of earlier tests go
  prof::g_active.store(prof::kTasks, std::memory_order_relaxed);
  const uint64_t before = prof::now_ns();
  copy(*s, dst.data(), src.data(), src.size(), 8);
  const bool done = sync(*s);
  prof::g_active.store(0, std::memory_order_relaxed);
  const uint64_t after = prof::now_ns();
  ASSERT_TRUE(done);
  EXPECT_EQ(on() ? 1u : 0u, sched->direct_runs());
  std::vector<plugin::Record> records;
  prof::TraceRings::drain(&records, &dropped);
  std::vector<plugin::Record> tasks;
  for (const auto& r : records)
    if (r.kind == plugin::RecordKind::Task) tasks.push_back(r);
  ASSERT_EQ(1u, tasks.size());
  const plugin::Record& r = tasks[0];
  EXPECT_EQ(static_cast<uint16_t>(plugin::TaskType::Copy), r.subkind);
  EXPECT_EQ(s->id(), r.stream);
  EXPECT_NE(0u, r.unit & plugin::kCopyUnitBit) << "on a copy engine, not the host unit";
  EXPECT_EQ(512u, r.value0);
  EXPECT_EQ(static_cast<uint64_t>(plugin::CopyDirection::HostToHost), r.value2);
  EXPECT_EQ(0u, r.value3 >> 32) << "status";
  // enqueue <= ready <= start <= end, all inside the test's window (the device clock is converted
  // by a measured offset: allow a few microseconds of rounding between the two clocks).
  constexpr uint64_t kSlack = 20'000;
  EXPECT_LE(before, r.t0 + kSlack);
  EXPECT_LE(r.t0, r.t1);
  EXPECT_LE(r.t1, r.t2 + kSlack);
  EXPECT_LE(r.t2, r.t3);
  EXPECT_LE(r.t3, after + kSlack);
}

INSTANTIATE_TEST_SUITE_P(OnOff, DirectSubmit, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "on" : "off"; });
