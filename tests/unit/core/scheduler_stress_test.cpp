// The scheduler under concurrency (meant for TSan): several host threads submit to their own
// streams while unit threads complete work; per-stream order must hold and every task run once.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <thread>

#include "sched/policy_registry.hpp"
#include "sched/scheduler.hpp"

using namespace arun;

namespace {

// A device whose units are real threads that run the Work's kernel and complete it.
class ThreadedDevice final : public plugin::Device {
 public:
  explicit ThreadedDevice(uint32_t units) : units_(units) {
    props_.compute_units = units;
    props_.copy_units = 1;
    for (uint32_t i = 0; i < units + 1; ++i) workers_.emplace_back([this, i] { loop(i); });
  }
  ~ThreadedDevice() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  const plugin::DeviceProperties& properties() const override { return props_; }
  Status open() override { return Status::Ok(); }
  void close() override {}
  Status allocate(uint64_t, plugin::PageKind, plugin::DevAddr*) override {
    return Status(Errc::rt_memory_allocation, "");
  }
  Status release(plugin::DevAddr) override { return Status(Errc::rt_memory_free, ""); }
  plugin::MemoryUsage memory_usage() const override { return {}; }
  bool owns(plugin::DevAddr) const override { return false; }
  bool find_allocation(plugin::DevAddr, plugin::DevAddr*, uint64_t*) const override { return false; }
  void* map(plugin::DevAddr, uint64_t) override { return nullptr; }
  uint64_t now_ns() const override { return uint64_t(Notifier::now_ns()); }
  uint32_t unit_count(plugin::UnitKind kind) const override { return kind == plugin::UnitKind::Compute ? units_ : 1; }
  void launch(plugin::UnitKind kind, uint32_t unit, plugin::Work* work) override {
    uint32_t slot = kind == plugin::UnitKind::Compute ? unit : units_;
    {
      std::lock_guard lock(mu_);
      // A unit is never handed a second task while it runs one.
      EXPECT_EQ(mailbox_[slot], nullptr);
      mailbox_[slot] = work;
    }
    cv_.notify_all();
  }
  plugin::WorkResult execute_now(plugin::Work*) override { return {}; }

 private:
  void loop(uint32_t slot) {
    for (;;) {
      plugin::Work* w = nullptr;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || mailbox_[slot] != nullptr; });
        if (stop_ && mailbox_[slot] == nullptr) return;
        w = mailbox_[slot];
        mailbox_[slot] = nullptr;
      }
      if (w->kernel) w->kernel(ctx_, w->args);
      plugin::WorkResult r;
      r.unit = slot == units_ ? 0 : slot;
      w->on_complete(w, r);
    }
  }
  struct NullContext final : plugin::KernelContext {
    uint32_t block_idx() const override { return 0; }
    uint32_t block_dim() const override { return 1; }
    void* map(plugin::DevAddr, uint64_t) override { return nullptr; }
    void fault(int, const char*) override {}
  };
  NullContext ctx_;
  uint32_t units_;
  plugin::DeviceProperties props_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  plugin::Work* mailbox_[64] = {};
  std::vector<std::thread> workers_;
};

struct Record {
  std::atomic<uint64_t>* last;  // last sequence number seen on the stream
  std::atomic<int>* violations;
  std::atomic<uint64_t>* ran;
  uint64_t n;
};

void body(plugin::KernelContext&, void* args) {
  auto* r = static_cast<Record*>(args);
  uint64_t prev = r->last->exchange(r->n);
  if (prev + 1 != r->n) r->violations->fetch_add(1);
  r->ran->fetch_add(1);
  delete r;
}

}  // namespace

// Under every built-in policy, with streams of different priorities and a queue bound of 16 so
// that producers keep blocking on full streams while units complete work.
class SchedulerStress : public ::testing::TestWithParam<const char*> {};

TEST_P(SchedulerStress, ManyThreadsManyStreamsOrderHolds) {
  constexpr int kThreads = 4;
  constexpr int kTasks = 3000;
  ThreadedDevice device(3);
  PolicySpec spec;
  ASSERT_TRUE(parse_policy_spec(GetParam(), "test", &spec).ok());
  SchedulerChoice choice;
  ASSERT_TRUE(resolve_scheduler(spec, Errc::invalid_param, &choice).ok());
  Scheduler sched(&device, make_builtin_policy(choice), 0, /*queue_depth=*/16);
  std::atomic<int> violations{0};
  std::atomic<uint64_t> ran{0};
  std::vector<std::shared_ptr<Stream>> streams;
  std::vector<std::unique_ptr<std::atomic<uint64_t>>> last;
  for (int i = 0; i < kThreads; ++i) {
    streams.push_back(std::make_shared<Stream>(nullptr, &sched, i, uint32_t(i * 2), 0, false));
    sched.add_stream(streams.back());
    last.push_back(std::make_unique<std::atomic<uint64_t>>(0));
  }
  std::vector<std::thread> producers;
  for (int i = 0; i < kThreads; ++i) {
    producers.emplace_back([&, i] {
      for (uint64_t n = 1; n <= kTasks; ++n) {
        auto* t = new Task();
        t->kind = plugin::WorkKind::Kernel;
        t->kernel = &body;
        t->args = new Record{last[i].get(), &violations, &ran, n};
        t->unit_kind = (n % 3 == 0) ? plugin::UnitKind::Copy : plugin::UnitKind::Compute;
        t->stream = streams[i].get();
        sched.submit(t);
      }
      EXPECT_TRUE(sched.wait_for(*streams[i], streams[i]->submitted(), -1));
    });
  }
  for (auto& p : producers) p.join();
  EXPECT_TRUE(sched.wait_all(-1));
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(ran.load(), uint64_t(kThreads) * kTasks);
  EXPECT_EQ(sched.outstanding(), 0u);
  for (auto& s : streams) sched.remove_stream(s, false);
}

INSTANTIATE_TEST_SUITE_P(Policies, SchedulerStress,
                         ::testing::Values("priority", "priority:aging_us=50", "fifo", "round_robin", "wrr", "fair"));
