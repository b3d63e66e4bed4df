// The Runtime object (init/finalize, devices, contexts, streams) with the null device plugin,
// driven through the core directly rather than through the C API.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "arun/runtime/extensions.hpp"
#include "arun/runtime/graphs.hpp"
#include "arun/runtime/hooks.hpp"
#include "arun/runtime/streams.hpp"
#include "arun/runtime/task_observer.hpp"
#include "runtime/runtime.hpp"

using namespace arun;

namespace {

std::string write_config(const std::string& name, const std::string& body) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << body;
  return path;
}

// The null device by its path; the [runtime] table that follows names its folder as a plugin
// folder (the loader takes a `path =` only inside one). `runtime` adds keys to that table.
std::string null_config(int devices = 2, const std::string& extra = "", const std::string& runtime = "") {
  return "[[plugin]]\nkind = \"device\"\nname = \"null\"\npath = \"" ARUN_NULL_PLUGIN
         "\"\n[plugin.options]\n"
         "device_count = " +
         std::to_string(devices) + "\n" + extra + "[runtime]\nplugin_search_paths = [\"" ARUN_BUILD_PLUGIN_DIR "\"]\n" +
         runtime;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

struct RuntimeTest : ::testing::Test {
  void TearDown() override {
    if (Runtime::instance()) (void)Runtime::finalize();
  }
};

}  // namespace

TEST_F(RuntimeTest, InitIsReferenceCountedAndFinalizeDropsEverything) {
  std::string cfg = write_config("a.toml", null_config());
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  ASSERT_NE(Runtime::instance(), nullptr);
  EXPECT_EQ(Runtime::instance()->device_count(), 2u);
  EXPECT_EQ(Runtime::initialize(cfg.c_str()).code(), Errc::repeat_initialize);
  std::string other = write_config("b.toml", null_config(1));
  Status differing = Runtime::initialize(other.c_str());
  EXPECT_EQ(differing.code(), Errc::invalid_param);
  EXPECT_TRUE(contains(differing.message(), "different configuration")) << differing.message();
  EXPECT_TRUE(Runtime::finalize().ok());
  EXPECT_EQ(Runtime::instance(), nullptr);
  EXPECT_EQ(Runtime::finalize().code(), Errc::repeat_finalize);
  // Sequential re-init works, with another configuration too.
  ASSERT_TRUE(Runtime::initialize(other.c_str()).ok());
  EXPECT_EQ(Runtime::instance()->device_count(), 1u);
}

TEST_F(RuntimeTest, ConfigErrorsNameTheFileKeyOrPlugin) {
  Status missing = Runtime::initialize("/nonexistent/arun.toml");
  EXPECT_EQ(missing.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(missing.message(), "/nonexistent/arun.toml")) << missing.message();

  std::string no_plugin = write_config("np.toml", "[[plugin]]\nkind = \"device\"\nname = \"absent\"\n");
  Status np = Runtime::initialize(no_plugin.c_str());
  EXPECT_EQ(np.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(np.message(), "libarun_device_absent.so")) << np.message();

  std::string bad_option = write_config("bo.toml", null_config(2, "warp_size = 32\n"));
  Status bo = Runtime::initialize(bad_option.c_str());
  EXPECT_EQ(bo.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(bo.message(), "warp_size")) << bo.message();
  EXPECT_TRUE(contains(bo.message(), "compute_units")) << bo.message();  // lists the valid keys

  std::string range = write_config("r.toml", null_config(99));
  Status r = Runtime::initialize(range.c_str());
  EXPECT_EQ(r.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(r.message(), "device_count")) << r.message();

  std::string policy = write_config("p.toml", null_config() + "[scheduler]\npolicy = \"lottery\"\n");
  Status p = Runtime::initialize(policy.c_str());
  EXPECT_EQ(p.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(p.message(), "lottery") && contains(p.message(), "fifo")) << p.message();
  EXPECT_EQ(Runtime::instance(), nullptr);  // nothing half-initialised remains
}

// [scheduler] / [allocator] errors found after parsing carry the file's line:column too.
TEST_F(RuntimeTest, PolicySectionErrorsCarryLineAndColumn) {
  // null_config(2) is 8 lines; [scheduler] is line 9, `policy` line 10 column 10.
  std::string sched = write_config("ps.toml", null_config() + "[scheduler]\npolicy = \"lottery\"\n");
  Status s = Runtime::initialize(sched.c_str());
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(s.message(), "ps.toml:10:10: scheduler.policy: unknown scheduling policy")) << s.message();

  std::string alloc = write_config("pa.toml", null_config() + "[allocator]\npolicy = \"nowhere\"\n");
  Status a = Runtime::initialize(alloc.c_str());
  EXPECT_EQ(a.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(a.message(), "pa.toml:10:10: allocator.policy: unknown allocator policy")) << a.message();

  std::string direct = write_config("pd.toml", null_config() + "[allocator]\npolicy = \"direct\"\nbins = 4\n");
  Status d = Runtime::initialize(direct.c_str());
  EXPECT_EQ(d.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(d.message(), "pd.toml:11:8: allocator.bins: the direct allocator takes no options"))
      << d.message();
  EXPECT_EQ(Runtime::instance(), nullptr);
}

TEST_F(RuntimeTest, DefaultContextIsSharedAndResetIsCounted) {
  std::string cfg = write_config("c.toml", null_config());
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  Runtime& rt = *Runtime::instance();
  EXPECT_EQ(rt.reset_device(0, false).code(), Errc::rt_context_release_error);
  EXPECT_EQ(rt.set_device(2).code(), Errc::rt_invalid_device_id);
  ASSERT_TRUE(rt.set_device(0).ok());
  Context* mine = rt.current_context();
  ASSERT_NE(mine, nullptr);
  Context* theirs = nullptr;
  std::thread([&] {
    ASSERT_TRUE(Runtime::instance()->set_device(0).ok());
    theirs = Runtime::instance()->current_context();
  }).join();
  EXPECT_EQ(mine, theirs);                      // one default context per device
  EXPECT_TRUE(rt.reset_device(0, false).ok());  // two sets, one reset: still there
  EXPECT_TRUE(rt.current_context() != nullptr);
  EXPECT_TRUE(rt.reset_device(0, false).ok());
  EXPECT_EQ(rt.current_context(), nullptr);  // released: the thread has no context now
  EXPECT_EQ(rt.reset_device(0, false).code(), Errc::rt_context_release_error);
}

TEST_F(RuntimeTest, DestroyedHandlesAreRecognised) {
  std::string cfg = write_config("d.toml", null_config());
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  Runtime& rt = *Runtime::instance();
  void* ctx = nullptr;
  ASSERT_TRUE(rt.create_context(1, &ctx).ok());
  void* stream = nullptr;
  ASSERT_TRUE(rt.create_stream(3, 0, &stream).ok());
  std::shared_ptr<Stream> s;
  ASSERT_TRUE(rt.resolve_stream(stream, &s).ok());
  EXPECT_EQ(s->priority(), 3u);
  s.reset();
  ASSERT_TRUE(rt.destroy_stream(stream, false).ok());
  EXPECT_EQ(rt.resolve_stream(stream, &s).code(), Errc::rt_invalid_handle);
  ASSERT_TRUE(rt.destroy_context(ctx).ok());
  EXPECT_EQ(rt.destroy_context(ctx).code(), Errc::rt_invalid_handle);
  EXPECT_EQ(rt.set_current_context(ctx).code(), Errc::rt_invalid_handle);
  EXPECT_EQ(rt.current_context(), nullptr);
}

namespace {

std::string sched_config(const std::string& scheduler_table, const std::string& extra_plugins = "") {
  return null_config(1) + extra_plugins + "[scheduler]\n" + scheduler_table;
}

// Sets or clears ASCEND_RUN_SCHED for one scope.
struct EnvSched {
  explicit EnvSched(const char* value) { ::setenv("ASCEND_RUN_SCHED", value, 1); }
  ~EnvSched() { ::unsetenv("ASCEND_RUN_SCHED"); }
};

// The policy the device's scheduler runs, after opening device 0.
std::string device_policy(Runtime& rt, uint32_t* queue_depth = nullptr) {
  void* ctx = nullptr;
  if (!rt.create_context(0, &ctx).ok()) return "<no context>";
  Scheduler* s = rt.device(0)->scheduler();
  std::string name = s->policy().name();
  if (queue_depth) *queue_depth = s->queue_depth();
  (void)rt.destroy_context(ctx);
  return name;
}

}  // namespace

TEST_F(RuntimeTest, SchedulerPolicyPrecedenceIsApiThenEnvThenConfigThenDefault) {
  std::string dflt = write_config("sd.toml", null_config(1));
  ASSERT_TRUE(Runtime::initialize(dflt.c_str()).ok());
  EXPECT_EQ(Runtime::instance()->scheduler().describe(), "priority (aging_us=0, queue_depth=1024)");
  EXPECT_EQ(device_policy(*Runtime::instance()), "priority");
  ASSERT_TRUE(Runtime::finalize().ok());

  std::string cfg = write_config("sc.toml", sched_config("policy = \"fair\"\nqueue_depth = 16\n"));
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  uint32_t depth = 0;
  EXPECT_EQ(device_policy(*Runtime::instance(), &depth), "fair");
  EXPECT_EQ(depth, 16u);
  EXPECT_EQ(Runtime::instance()->scheduler().source, "config");
  ASSERT_TRUE(Runtime::finalize().ok());

  {
    EnvSched env("round_robin:queue_depth=8");
    ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
    EXPECT_EQ(device_policy(*Runtime::instance(), &depth), "round_robin");
    EXPECT_EQ(depth, 8u);  // taken whole: the config's queue_depth is not merged in
    EXPECT_EQ(Runtime::instance()->scheduler().source, "ASCEND_RUN_SCHED");
    ASSERT_TRUE(Runtime::finalize().ok());

    ASSERT_TRUE(Runtime::set_scheduler_override("wrr:weights=4,2").ok());
    ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
    EXPECT_EQ(device_policy(*Runtime::instance(), &depth), "wrr");
    EXPECT_EQ(depth, 1024u);
    EXPECT_EQ(Runtime::instance()->scheduler().describe(), "wrr (weights=4,2,2,2,2,2,2,2, queue_depth=1024)");
    EXPECT_EQ(Runtime::instance()->scheduler().source, "arunSetSchedulerPolicy");
    ASSERT_TRUE(Runtime::finalize().ok());
    ASSERT_TRUE(Runtime::set_scheduler_override(nullptr).ok());
  }
  EXPECT_EQ(Runtime::set_scheduler_override("fair:oops").code(), Errc::invalid_param);
}

TEST_F(RuntimeTest, UnknownSchedulerPolicyOrOptionFailsInitListingTheValidOnes) {
  {
    EnvSched env("lottery");
    std::string cfg = write_config("su.toml", sched_config("policy = \"fifo\"\n"));
    Status st = Runtime::initialize(cfg.c_str());
    EXPECT_EQ(st.code(), Errc::invalid_param);
    EXPECT_TRUE(contains(st.message(), "ASCEND_RUN_SCHED=\"lottery\": unknown scheduling policy \"lottery\""))
        << st.message();
    EXPECT_TRUE(contains(st.message(), "valid: priority, fifo, round_robin, wrr, fair, sjf")) << st.message();
    EXPECT_EQ(Runtime::instance(), nullptr);
  }
  {
    EnvSched env("priority:aging=5");
    std::string cfg = write_config("su2.toml", null_config(1));
    Status st = Runtime::initialize(cfg.c_str());
    EXPECT_EQ(st.code(), Errc::invalid_param);
    EXPECT_TRUE(
        contains(st.message(), "aging: unknown option of the \"priority\" policy (valid: aging_us, queue_depth)"))
        << st.message();
  }
  std::string bad = write_config("so.toml", sched_config("policy = \"fifo\"\naging_us = 5\n"));
  Status st = Runtime::initialize(bad.c_str());
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  // The file, line and column of the key, and the key as written in the file.
  EXPECT_TRUE(contains(st.message(), "so.toml:11:12: scheduler.aging_us: unknown option of the \"fifo\" policy"))
      << st.message();
  std::string range = write_config("sr.toml", sched_config("queue_depth = 0\n"));
  st = Runtime::initialize(range.c_str());
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "scheduler.queue_depth: 0 is out of range [1, 1048576]")) << st.message();
  EXPECT_EQ(Runtime::instance(), nullptr);
}

TEST_F(RuntimeTest, SchedulerPluginIsLoadedByPolicyName) {
  std::string cfg = write_config("sp.toml", sched_config("policy = \"sjf\"\nqueue_depth = 32\n"));
  Status st = Runtime::initialize(cfg.c_str());
  ASSERT_TRUE(st.ok()) << st.message();
  uint32_t depth = 0;
  EXPECT_EQ(device_policy(*Runtime::instance(), &depth), "sjf");
  EXPECT_EQ(depth, 32u);
  EXPECT_TRUE(Runtime::instance()->scheduler().plugin);
  bool listed = false;
  for (const auto& p : Runtime::instance()->plugins()) listed = listed || (p.kind == "scheduler" && p.name == "sjf");
  EXPECT_TRUE(listed);
  ASSERT_TRUE(Runtime::finalize().ok());

  // Its own options go in its [[plugin]] entry and are checked against its schema.
  std::string entry = "[[plugin]]\nkind = \"scheduler\"\nname = \"sjf\"\n[plugin.options]\newma = 2.0\n";
  std::string bad = write_config("sp2.toml", sched_config("policy = \"sjf\"\n", entry));
  st = Runtime::initialize(bad.c_str());
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "ewma")) << st.message();
  // A plugin policy takes only queue_depth in [scheduler].
  std::string extra = write_config("sp3.toml", sched_config("policy = \"sjf\"\naging_us = 1\n"));
  st = Runtime::initialize(extra.c_str());
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "(valid: queue_depth)")) << st.message();
}

// aclFinalize with a host function that never returns gives up after [runtime] finalize_timeout_ms
// with an error naming the stream, instead of waiting forever.
TEST_F(RuntimeTest, FinalizeWithAHungHostFunctionReturnsAfterTheConfiguredWait) {
  std::string cfg = write_config("hung.toml", null_config(1, "", "finalize_timeout_ms = 200\n"));
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  ASSERT_TRUE(Runtime::instance()->set_device(0).ok());
  static std::atomic<bool> release{false};
  static std::atomic<bool> returned{false};
  release = false;
  returned = false;
  ASSERT_TRUE(rt::launch_host_call(
                  rt::HostCallApi::HostFunc, nullptr,
                  [](void*) {
                    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    returned = true;
                  },
                  nullptr, true)
                  .ok());
  const auto start = std::chrono::steady_clock::now();
  Status st = Runtime::finalize();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.code(), Errc::rt_stream_sync_timeout) << st.message();
  EXPECT_TRUE(contains(st.message(), "stream ")) << st.message();
  EXPECT_TRUE(contains(st.message(), "of device 0")) << st.message();
  EXPECT_GE(waited, std::chrono::milliseconds(150));
  EXPECT_LT(waited, std::chrono::seconds(20));
  EXPECT_EQ(Runtime::instance(), nullptr);  // finalized as far as the program is concerned
  // The hung function may still finish afterwards without harm.
  release = true;
  for (int i = 0; i < 2000 && !returned; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(returned.load());
  // And the process can initialise again.
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  EXPECT_TRUE(Runtime::finalize().ok());
}

// Control characters from the config (here a terminal escape in a plugin folder's name) are escaped
// in the runtime report `ascend-run info` prints.
TEST_F(RuntimeTest, ReportEscapesControlCharactersFromTheConfig) {
  std::string cfg = write_config("esc.toml",
                                 "[[plugin]]\nkind = \"device\"\nname = \"null\"\n[runtime]\nplugin_search_paths = "
                                 "[\"/nonexistent/evil\\u001b[2Jdir\\rx\", \"" ARUN_BUILD_PLUGIN_DIR "\"]\n");
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  std::string report = rt::runtime_report();
  EXPECT_EQ(report.find('\x1b'), std::string::npos) << report;
  EXPECT_EQ(report.find('\r'), std::string::npos) << report;
  EXPECT_TRUE(contains(report, "/nonexistent/evil\\x1b[2Jdir\\x0dx")) << report;
}

namespace {
// Counts what a task observer (aclprofModelSubscribe's interface) hears under one cookie.
struct CountingObserver : rt::TaskObserver {
  static constexpr uint64_t kCookie = 42;
  std::atomic<int> submitted{0}, ran{0}, dropped{0}, other_cookie{0}, bad_times{0};
  void task_submitted(uint64_t cookie) override { (cookie == kCookie ? submitted : other_cookie)++; }
  void task_finished(uint64_t cookie, bool did_run, uint64_t start_ns, uint64_t end_ns) override {
    if (cookie != kCookie) {
      ++other_cookie;
    } else if (!did_run) {
      ++dropped;
    } else {
      ++ran;
      if (start_ns == 0 || end_ns < start_ns) ++bad_times;
    }
  }
  // Every submitted task was reported (a retired launcher's start call is reported after its
  // stream moved on, so a synchronize may return just before).
  bool settled() const {
    for (int i = 0; i < 5000; ++i) {
      if (submitted.load() == ran.load() + dropped.load()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }
};

void count_up(void* p) {
  static_cast<std::atomic<int>*>(p)->fetch_add(1);
}
}  // namespace

// An execution launched inside a TaskObserverScope reports every node it runs to the observer,
// with device times, on the prebuilt-task path of captured instances and on the launcher path of
// built ones alike.
TEST_F(RuntimeTest, ATaskObserverHearsOfEveryReplayedNode) {
  std::string cfg = write_config("observer.toml", null_config(1));
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  ASSERT_TRUE(Runtime::instance()->set_device(0).ok());
  constexpr int kNodes = 3, kBuiltNodes = 2, kRuns = 4;
  std::atomic<int> ran{0};
  aclrtStream s = nullptr, bound = nullptr;
  ASSERT_TRUE(rt::create_stream(0, 0, &s).ok());
  ASSERT_TRUE(rt::create_stream(0, ACL_STREAM_PERSISTENT, &bound).ok());
  aclmdlRI captured = nullptr, built = nullptr;
  ASSERT_TRUE(rt::capture_begin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED).ok());
  for (int i = 0; i < kNodes; ++i) ASSERT_TRUE(rt::launch_device_task(&count_up, &ran, s).ok());
  ASSERT_TRUE(rt::capture_end(s, &captured).ok());
  ASSERT_TRUE(rt::graph_build_begin(&built).ok());
  ASSERT_TRUE(rt::graph_bind_stream(built, bound, ACL_MODEL_STREAM_FLAG_HEAD).ok());
  for (int i = 0; i < kBuiltNodes; ++i) ASSERT_TRUE(rt::launch_device_task(&count_up, &ran, bound).ok());
  ASSERT_TRUE(rt::graph_end_task(built, bound).ok());
  ASSERT_TRUE(rt::graph_build_end(built).ok());

  auto captured_obs = std::make_shared<CountingObserver>();
  {
    rt::TaskObserverScope scope(captured_obs.get(), CountingObserver::kCookie);
    for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(rt::graph_execute_async(captured, s).ok());
  }
  ASSERT_TRUE(rt::graph_execute_async(captured, s).ok());  // outside the scope: not observed
  ASSERT_TRUE(rt::synchronize_stream(s, -1).ok());
  EXPECT_EQ(ran.load(), kNodes * (kRuns + 1));
  ASSERT_TRUE(captured_obs->settled());
  EXPECT_EQ(captured_obs->ran.load(), kNodes * kRuns);
  EXPECT_EQ(captured_obs->dropped.load(), 0);
  EXPECT_EQ(captured_obs->bad_times.load(), 0);
  EXPECT_EQ(captured_obs->other_cookie.load(), 0);

  auto built_obs = std::make_shared<CountingObserver>();
  {
    rt::TaskObserverScope scope(built_obs.get(), CountingObserver::kCookie);
    for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(rt::graph_execute_async(built, s).ok());
  }
  ASSERT_TRUE(rt::synchronize_stream(s, -1).ok());
  EXPECT_EQ(ran.load(), kNodes * (kRuns + 1) + kBuiltNodes * kRuns);
  ASSERT_TRUE(built_obs->settled());
  EXPECT_EQ(built_obs->ran.load(), kBuiltNodes * kRuns);
  EXPECT_EQ(built_obs->bad_times.load(), 0);
  EXPECT_EQ(built_obs->other_cookie.load(), 0);
  ASSERT_TRUE(rt::graph_destroy(captured).ok());
  ASSERT_TRUE(rt::graph_destroy(built).ok());
  ASSERT_TRUE(rt::destroy_stream(bound, false).ok());
  ASSERT_TRUE(rt::destroy_stream(s, false).ok());
}
