// Each built-in scheduling policy's order, observed on a ManualDevice with one AI core: a task runs
// until the test completes it, so the launch history is the order the policy chose. No timing: the
// aging test drives the policy's clock by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "manual_device.hpp"
#include "plugins/plugin_loader.hpp"
#include "runtime/event.hpp"
#include "sched/fair_policy.hpp"
#include "sched/fifo_policy.hpp"
#include "sched/plugin_policy.hpp"
#include "sched/policy_registry.hpp"
#include "sched/priority_policy.hpp"
#include "sched/round_robin_policy.hpp"
#include "sched/scheduler.hpp"
#include "sched/wrr_policy.hpp"

using namespace arun;
using arun::test::ManualDevice;
using arun::test::tag;

namespace {

using Tags = std::vector<void*>;

std::atomic<uint64_t> g_fake_now{0};
uint64_t fake_now() {
  return g_fake_now.load();
}

struct PolicyTest : ::testing::Test {
  void start(std::unique_ptr<SchedulerPolicy> policy, uint32_t compute = 1) {
    device = std::make_unique<ManualDevice>(compute, 1);
    policy_ = policy.get();
    sched = std::make_unique<Scheduler>(device.get(), std::move(policy));
  }
  void TearDown() override {
    if (!device) return;
    for (int guard = 0; guard < 100000 && !device->running_tags().empty(); ++guard) {
      for (void* t : device->running_tags()) device->complete(t);
    }
    for (auto& s : streams) sched->remove_stream(s, true);
  }
  std::shared_ptr<Stream> stream(uint32_t priority) {
    auto s = std::make_shared<Stream>(nullptr, sched.get(), int32_t(streams.size()), priority, 0, false);
    sched->add_stream(s);
    streams.push_back(s);
    return s;
  }
  void work(Stream& s, uintptr_t t) {
    auto* task = new Task();
    task->kind = plugin::WorkKind::Kernel;
    task->args = tag(t);
    task->stream = &s;
    ASSERT_NE(sched->submit(task), 0u);
  }
  // Completes whatever runs (one core: one task) and returns its tag.
  uintptr_t step(uint64_t run_ns = 1) {
    auto running = device->running_tags();
    EXPECT_EQ(running.size(), 1u);
    if (running.empty()) return 0;
    device->complete(running[0], 0, run_ns);
    return reinterpret_cast<uintptr_t>(running[0]);
  }
  std::vector<uintptr_t> history() const {
    std::vector<uintptr_t> out;
    for (void* t : device->history()) out.push_back(reinterpret_cast<uintptr_t>(t));
    return out;
  }

  std::unique_ptr<ManualDevice> device;
  std::unique_ptr<Scheduler> sched;
  SchedulerPolicy* policy_ = nullptr;
  std::vector<std::shared_ptr<Stream>> streams;
};

using V = std::vector<uintptr_t>;

}  // namespace

TEST_F(PolicyTest, PriorityRunsTheMostUrgentLevelFirst) {
  start(std::make_unique<PriorityPolicy>());
  auto blocker = stream(0);
  auto low = stream(7);
  auto mid = stream(3);
  auto high = stream(0);
  work(*blocker, 1);  // occupies the core while the others queue up
  work(*low, 70);
  work(*mid, 30);
  work(*high, 0);
  work(*high, 2);
  work(*mid, 31);
  for (int i = 0; i < 6; ++i) step();
  // high's second task becomes ready when its first completes and still beats mid and low.
  EXPECT_EQ(history(), (V{1, 0, 2, 30, 31, 70}));
}

TEST_F(PolicyTest, PriorityIsFifoWithinALevel) {
  start(std::make_unique<PriorityPolicy>());
  auto blocker = stream(0);
  auto a = stream(4);
  auto b = stream(4);
  auto c = stream(4);
  work(*blocker, 1);
  work(*c, 30);
  work(*a, 10);
  work(*b, 20);
  work(*c, 31);
  for (int i = 0; i < 5; ++i) step();
  EXPECT_EQ(history(), (V{1, 30, 10, 20, 31}));
}

TEST_F(PolicyTest, PriorityWithoutAgingStarvesALowStreamWhileUrgentWorkIsReady) {
  g_fake_now = 0;
  start(std::make_unique<PriorityPolicy>(/*aging_ns=*/0));
  policy_->set_clock(&fake_now);
  auto high = stream(0);
  auto low = stream(7);
  for (uintptr_t i = 1; i <= 20; ++i) work(*high, i);
  work(*low, 99);
  for (int i = 0; i < 20; ++i) {
    g_fake_now += 1'000'000;
    step();
  }
  auto h = history();
  EXPECT_EQ(h.back(), 99u) << "without aging the low task waits for every urgent one";
}

TEST_F(PolicyTest, PriorityAgingBoundsTheWaitOfALowPriorityTask) {
  g_fake_now = 0;
  start(std::make_unique<PriorityPolicy>(/*aging_ns=*/100'000));
  policy_->set_clock(&fake_now);
  auto high = stream(0);
  auto low = stream(7);
  for (uintptr_t i = 1; i <= 20; ++i) work(*high, i);
  work(*low, 99);  // ready at t = 0, behind high's queue
  g_fake_now = 50'000;
  step();  // 1 completes; low waited 50 us < 100 us: 2 runs
  EXPECT_EQ(device->running_tags(), Tags{tag(2)});
  g_fake_now = 100'000;
  step();  // low has now waited the bound: it goes before the urgent task
  EXPECT_EQ(device->running_tags(), Tags{tag(99)});
  step();
  EXPECT_EQ(device->running_tags(), Tags{tag(3)});  // and strict priority resumes
  auto h = history();
  EXPECT_EQ(h, (V{1, 2, 99, 3}));
}

TEST_F(PolicyTest, PriorityAgingServesOverdueTasksOldestFirst) {
  g_fake_now = 0;
  start(std::make_unique<PriorityPolicy>(/*aging_ns=*/10));
  policy_->set_clock(&fake_now);
  auto blocker = stream(0);
  auto high = stream(0);
  auto p5 = stream(5);
  auto p6 = stream(6);
  work(*blocker, 1);
  g_fake_now = 1;
  work(*p6, 60);  // the oldest
  g_fake_now = 2;
  work(*p5, 50);
  g_fake_now = 3;
  work(*high, 10);
  g_fake_now = 100;  // everything is overdue
  for (int i = 0; i < 4; ++i) step();
  EXPECT_EQ(history(), (V{1, 60, 50, 10}));
}

TEST_F(PolicyTest, FifoIgnoresPriority) {
  start(std::make_unique<FifoPolicy>());
  auto blocker = stream(0);
  auto low = stream(7);
  auto high = stream(0);
  work(*blocker, 1);
  work(*low, 70);
  work(*high, 0);
  work(*low, 71);
  for (int i = 0; i < 4; ++i) step();
  // 71 became ready only when 70 completed, after 0.
  EXPECT_EQ(history(), (V{1, 70, 0, 71}));
}

TEST_F(PolicyTest, RoundRobinTakesOneTaskPerStreamInTurn) {
  start(std::make_unique<RoundRobinPolicy>());
  auto a = stream(7);
  auto b = stream(0);
  auto c = stream(3);
  for (uintptr_t i = 0; i < 3; ++i) {
    work(*a, 10 + i);
    work(*b, 20 + i);
    work(*c, 30 + i);
  }
  for (int i = 0; i < 9; ++i) step();
  EXPECT_EQ(history(), (V{10, 20, 30, 11, 21, 31, 12, 22, 32}));
}

TEST_F(PolicyTest, RoundRobinSkipsStreamsWithNothingReady) {
  start(std::make_unique<RoundRobinPolicy>());
  auto a = stream(0);
  auto b = stream(0);
  auto c = stream(0);
  work(*a, 10);
  work(*a, 11);
  work(*c, 30);
  work(*a, 12);
  for (int i = 0; i < 4; ++i) step();
  EXPECT_EQ(history(), (V{10, 30, 11, 12}));
}

TEST_F(PolicyTest, WrrGivesEachStreamItsWeightPerTurn) {
  std::array<uint32_t, kPriorityLevels> w{3, 1, 1, 1, 1, 1, 1, 1};
  start(std::make_unique<WrrPolicy>(w));
  auto a = stream(0);  // weight 3
  auto b = stream(1);  // weight 1
  for (uintptr_t i = 0; i < 6; ++i) work(*a, 10 + i);
  for (uintptr_t i = 0; i < 3; ++i) work(*b, 20 + i);
  for (int i = 0; i < 9; ++i) step();
  EXPECT_EQ(history(), (V{10, 11, 12, 20, 13, 14, 15, 21, 22}));
}

TEST_F(PolicyTest, WrrWeightsComeFromTheOptionString) {
  PolicySpec spec;
  ASSERT_TRUE(parse_policy_spec("wrr:weights=2,1", "test", &spec).ok());
  SchedulerChoice choice;
  ASSERT_TRUE(resolve_scheduler(spec, Errc::invalid_param, &choice).ok());
  EXPECT_EQ(choice.weights, (std::vector<uint32_t>{2, 1, 1, 1, 1, 1, 1, 1}));
  start(make_builtin_policy(choice));
  auto a = stream(0);
  auto b = stream(5);
  for (uintptr_t i = 0; i < 4; ++i) work(*a, 10 + i);
  for (uintptr_t i = 0; i < 2; ++i) work(*b, 20 + i);
  for (int i = 0; i < 6; ++i) step();
  EXPECT_EQ(history(), (V{10, 11, 20, 12, 13, 21}));
}

TEST_F(PolicyTest, FairSharesTheCoreByMeasuredTaskTime) {
  start(std::make_unique<FairPolicy>());
  auto slow = stream(4);
  auto fast = stream(4);
  for (uintptr_t i = 0; i < 40; ++i) work(*slow, 1000 + i);
  for (uintptr_t i = 0; i < 200; ++i) work(*fast, 2000 + i);
  // Equal weights: slow tasks take 3 units, fast ones 1, so fast runs about 3 tasks per slow one.
  uint64_t slow_time = 0, fast_time = 0;
  for (int i = 0; i < 80; ++i) {
    bool is_slow = device->running_tags().front() < tag(2000);
    step(is_slow ? 3000 : 1000);
    (is_slow ? slow_time : fast_time) += is_slow ? 3000 : 1000;
  }
  // Device time is split evenly, within one slow task.
  EXPECT_LE(std::max(slow_time, fast_time) - std::min(slow_time, fast_time), 3000u)
      << "slow " << slow_time << " fast " << fast_time;
}

TEST_F(PolicyTest, FairWeightsByPriorityAndNeverStarvesTheLowStream) {
  start(std::make_unique<FairPolicy>());
  auto high = stream(0);
  auto low = stream(7);
  for (uintptr_t i = 0; i < 200; ++i) work(*high, 1000 + i);
  for (uintptr_t i = 0; i < 200; ++i) work(*low, 5000 + i);
  const double ratio = double(FairPolicy::weight_of(0)) / FairPolicy::weight_of(7);  // ~4.77
  int low_runs = 0, first_low = -1;
  const int picks = 120;
  for (int i = 0; i < picks; ++i) {
    if (step() >= 5000) {
      if (first_low < 0) first_low = i;
      ++low_runs;
    }
  }
  // The low stream gets its weighted share: 1 in (1 + ratio) picks, give or take one.
  double expected = picks / (1 + ratio);
  EXPECT_NEAR(low_runs, expected, 2.0) << low_runs;
  // And it waits at most about `ratio` urgent tasks, not the urgent stream's whole backlog.
  EXPECT_GE(first_low, 0);
  EXPECT_LE(first_low, int(ratio) + 2);
}

TEST_F(PolicyTest, FairNewStreamStartsAtTheCurrentMinimumVirtualTime) {
  start(std::make_unique<FairPolicy>());
  auto old_stream = stream(4);
  for (uintptr_t i = 0; i < 50; ++i) work(*old_stream, 100 + i);
  for (int i = 0; i < 30; ++i) step();
  auto* fair = static_cast<FairPolicy*>(policy_);
  auto late = stream(4);
  // A stream that joins late does not get 30 tasks' worth of catching up: it alternates.
  EXPECT_GT(fair->vruntime(*late), 0u);
  for (uintptr_t i = 0; i < 4; ++i) work(*late, 900 + i);
  for (int i = 0; i < 8; ++i) step();
  auto h = history();
  std::vector<uintptr_t> tail(h.begin() + 30, h.begin() + 38);
  int late_runs = static_cast<int>(std::count_if(tail.begin(), tail.end(), [](uintptr_t t) { return t >= 900; }));
  EXPECT_EQ(late_runs, 4);
  EXPECT_LE(std::count_if(tail.begin(), tail.begin() + 4, [](uintptr_t t) { return t >= 900; }), 3);
}

// The sjf scheduler plugin, loaded as the runtime loads it and run behind PluginPolicy.
TEST_F(PolicyTest, SjfPluginRunsTheStreamWithShorterMeasuredTasksFirst) {
  LoadedPlugin loaded;
  plugin::PluginKind kind = plugin::PluginKind::Scheduler;
  std::string name = "sjf";
  Status st = load_plugin_library(ARUN_BUILD_PLUGIN_DIR "/libarun_scheduler_sjf.so", &kind, &name, &loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  std::shared_ptr<plugin::SchedulerPlugin> sjf;
  ASSERT_TRUE(create_plugin_object(loaded, plugin::OptionValues{}, &sjf).ok());
  char error[128] = {0};
  std::unique_ptr<plugin::SchedulingPolicy> p(sjf->create_policy({}, error, sizeof error));
  ASSERT_NE(p, nullptr) << error;
  start(std::make_unique<PluginPolicy>("sjf", sjf, std::move(p)));
  EXPECT_STREQ(policy_->name(), "sjf");
  auto long_tasks = stream(0);
  auto short_tasks = stream(7);  // sjf ignores priority
  work(*long_tasks, 100);
  for (uintptr_t i = 1; i <= 4; ++i) work(*short_tasks, i);
  work(*long_tasks, 101);
  work(*long_tasks, 102);
  // Each task reports its cost through its tag: 100+ take 1000 ns, the others 10 ns. An unmeasured
  // stream counts as 0, so the short stream's first task goes before long's second; from then on
  // its measured mean (10) beats long's (1000).
  for (int i = 0; i < 7; ++i) {
    bool is_long = reinterpret_cast<uintptr_t>(device->running_tags().front()) >= 100;
    step(is_long ? 1000 : 10);
  }
  EXPECT_EQ(history(), (V{100, 1, 2, 3, 4, 101, 102}));
}

TEST(PolicyUnits, EveryPolicyKeepsCopiesOnCopyUnitsAndStreamsInOrder) {
  for (const char* name : {"priority", "fifo", "round_robin", "wrr", "fair"}) {
    SCOPED_TRACE(name);
    PolicySpec spec;
    ASSERT_TRUE(parse_policy_spec(name, "test", &spec).ok());
    SchedulerChoice choice;
    ASSERT_TRUE(resolve_scheduler(spec, Errc::invalid_param, &choice).ok());
    ManualDevice dev(2, 1);
    Scheduler s(&dev, make_builtin_policy(choice));
    auto a = std::make_shared<Stream>(nullptr, &s, 0, 3, 0, false);
    auto b = std::make_shared<Stream>(nullptr, &s, 1, 0, 0, false);
    s.add_stream(a);
    s.add_stream(b);
    auto submit = [&](Stream& st, uintptr_t t, plugin::UnitKind kind) {
      auto* task = new Task();
      task->kind = plugin::WorkKind::Kernel;
      task->args = tag(t);
      task->unit_kind = kind;
      task->stream = &st;
      s.submit(task);
    };
    submit(*a, 1, plugin::UnitKind::Compute);
    submit(*a, 2, plugin::UnitKind::Copy);
    submit(*b, 3, plugin::UnitKind::Copy);
    submit(*b, 4, plugin::UnitKind::Compute);
    // a's kernel and b's copy run at once, on a compute unit and the copy engine.
    auto running = dev.running();
    ASSERT_EQ(running.size(), 2u);
    for (int guard = 0; guard < 100 && !dev.running_tags().empty(); ++guard) {
      for (void* t : dev.running_tags()) dev.complete(t);
    }
    auto h = dev.history();
    ASSERT_EQ(h.size(), 4u);
    auto pos = [&](uintptr_t t) { return std::find(h.begin(), h.end(), tag(t)) - h.begin(); };
    EXPECT_LT(pos(1), pos(2));
    EXPECT_LT(pos(3), pos(4));
    s.remove_stream(a, false);
    s.remove_stream(b, false);
  }
}

TEST(PolicySpecTest, ParsesNamesAndOptions) {
  PolicySpec spec;
  ASSERT_TRUE(parse_policy_spec("priority:aging_us=250,queue_depth=64", "ENV", &spec).ok());
  SchedulerChoice c;
  ASSERT_TRUE(resolve_scheduler(spec, Errc::invalid_param, &c).ok());
  EXPECT_EQ(c.name, "priority");
  EXPECT_EQ(c.aging_ns, 250'000u);
  EXPECT_EQ(c.queue_depth, 64u);
  EXPECT_EQ(c.describe(), "priority (aging_us=250, queue_depth=64)");

  ASSERT_TRUE(parse_policy_spec("fair", "ENV", &spec).ok());
  ASSERT_TRUE(resolve_scheduler(spec, Errc::invalid_param, &c).ok());
  EXPECT_EQ(c.queue_depth, 1024u);
}

TEST(PolicySpecTest, RejectsUnknownOptionsAndBadValuesWithTheValidOnes) {
  struct Case {
    const char* spec;
    const char* expect;
  } cases[] = {
      {"fifo:aging_us=5", "unknown option of the \"fifo\" policy (valid: queue_depth)"},
      {"priority:speed=5", "valid: aging_us, queue_depth"},
      {"priority:queue_depth=0", "queue_depth: 0 is out of range [1, 1048576]"},
      {"priority:aging_us=abc", "aging_us: expected an integer"},
      {"wrr:weights=1,x", "\"x\" is not an integer"},
      {"wrr:weights=1,2,3,4,5,6,7,8,9", "at most 8"},
      {"wrr:weights=0", "out of range [1, 1000]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    PolicySpec spec;
    ASSERT_TRUE(parse_policy_spec(c.spec, "ENV", &spec).ok());
    SchedulerChoice choice;
    Status st = resolve_scheduler(spec, Errc::invalid_param, &choice);
    EXPECT_EQ(st.code(), Errc::invalid_param);
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << st.message();
    EXPECT_EQ(st.message().rfind("ENV", 0), 0u) << st.message();
  }
  PolicySpec spec;
  EXPECT_EQ(parse_policy_spec(":x=1", "ENV", &spec).code(), Errc::invalid_param);
  EXPECT_EQ(parse_policy_spec("fair:novalue", "ENV", &spec).code(), Errc::invalid_param);
  EXPECT_EQ(parse_policy_spec("fair:a=1,a=2", "ENV", &spec).code(), Errc::invalid_param);
}
