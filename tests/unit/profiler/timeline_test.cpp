// The timeline sink's output, parsed with a real JSON parser: structure (complete events, flows,
// nesting per track, counters, track names) and content (one slice per task of a known workload,
// each linked to the API call that launched it).
#include <gtest/gtest.h>

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "arun/kernel.h"
#include "profiler_workload.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace arun::test {
namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("arun-prof-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<fs::path> files_matching(const fs::path& dir, const std::string& prefix, const std::string& ext) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.path().extension() == ext) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

json load_single_timeline(const fs::path& dir) {
  auto files = files_matching(dir, "timeline-", ".json");
  EXPECT_EQ(files.size(), 1u) << "in " << dir;
  if (files.empty()) return json();
  std::ifstream in(files[0]);
  return json::parse(in);  // throws (and fails the test) on invalid JSON
}

// Everything the Trace Event Format and Perfetto need, checked on any timeline.
void check_structure(const json& doc) {
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc.contains("traceEvents"));
  const json& events = doc["traceEvents"];
  ASSERT_TRUE(events.is_array());
  EXPECT_EQ(doc["otherData"]["dropped"].get<uint64_t>(), 0u) << "records were dropped";

  using Track = std::pair<int64_t, int64_t>;
  std::map<Track, std::vector<std::pair<double, double>>> slices;
  std::map<std::string, std::pair<int, int>> flows;  // cat:id -> (starts, finishes)
  std::set<Track> named_threads;
  for (const auto& e : events) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid")) << e.dump();
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "thread_name") named_threads.insert({e["pid"].get<int64_t>(), e["tid"].get<int64_t>()});
      continue;
    }
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e.dump();
    EXPECT_GE(e["ts"].get<double>(), 0.0) << e.dump();
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << e.dump();
      ASSERT_TRUE(e.contains("tid") && e["tid"].is_number()) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      slices[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}].push_back(
          {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
    } else if (ph == "s" || ph == "f") {
      ASSERT_TRUE(e.contains("id") && e.contains("tid")) << e.dump();
      auto& f = flows[e["cat"].get<std::string>() + ":" + std::to_string(e["id"].get<uint64_t>())];
      (ph == "s" ? f.first : f.second)++;
      if (ph == "f") {
        EXPECT_EQ(e["bp"], "e");
      }
    } else if (ph == "C") {
      ASSERT_TRUE(e.contains("args") && e["args"].is_object() && !e["args"].empty()) << e.dump();
    }
  }
  for (auto& [id, f] : flows) EXPECT_TRUE(f.first == 1 && f.second == 1) << "flow " << id << " does not pair up";
  // Spans nest per track: sorted by start (longer first at a tie), each lies inside the open
  // span or after it. Times are printed with 3 decimals, so allow 1 ns of rounding.
  constexpr double kSlack = 0.0011;
  for (auto& [track, v] : slices) {
    EXPECT_TRUE(named_threads.count(track)) << "track pid " << track.first << " tid " << track.second << " has no name";
    std::sort(v.begin(), v.end(),
              [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<double> open_ends;
    for (auto& [start, end] : v) {
      while (!open_ends.empty() && start >= open_ends.back() - kSlack) open_ends.pop_back();
      if (!open_ends.empty()) {
        EXPECT_LE(end, open_ends.back() + kSlack)
            << "span [" << start << ", " << end << "] crosses its parent's end " << open_ends.back() << " on pid "
            << track.first << " tid " << track.second;
      }
      open_ends.push_back(end);
    }
  }
}

std::vector<json> events_where(const json& doc, const std::string& ph, const std::string& cat) {
  std::vector<json> out;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == ph && (cat.empty() || (e.contains("cat") && e["cat"] == cat))) out.push_back(e);
  }
  return out;
}

void check_workload_content(const json& doc, const WorkloadCounts& n, bool marks) {
  auto tasks = events_where(doc, "X", "task");
  auto units = events_where(doc, "X", "unit");
  EXPECT_EQ(tasks.size(), size_t(n.tasks()));
  EXPECT_EQ(units.size(), size_t(n.tasks()));
  std::map<std::string, int> by_type, by_task_type;
  std::map<std::string, int> by_direction;
  for (auto& t : tasks) {
    by_type[t["args"]["type"]]++;
    by_task_type[t["args"]["task_type"]]++;  // msprof's vocabulary, as msprof_csv's
    if (t["args"].contains("direction")) by_direction[t["args"]["direction"]]++;
  }
  EXPECT_EQ(by_type["MEMCPY"], n.copies_h2d + n.copies_d2h);
  EXPECT_EQ(by_type["DEVICE_TASK"], n.device_tasks);
  EXPECT_EQ(by_type["MEMSET"], n.memsets);
  EXPECT_EQ(by_task_type["KERNEL_AICORE"], n.device_tasks);
  EXPECT_EQ(by_task_type["MEMCPY_ASYNC"], n.copies_h2d + n.copies_d2h + n.memsets);
  EXPECT_EQ(by_task_type.size(), 2u);
  EXPECT_EQ(by_direction["H2D"], n.copies_h2d);
  EXPECT_EQ(by_direction["D2H"], n.copies_d2h);

  // Every task links to the API span that launched it, by correlation id and by a flow.
  std::map<uint64_t, std::string> api;
  for (auto& a : events_where(doc, "X", "api")) api[a["args"]["correlation"]] = a["name"];
  for (auto& t : tasks) {
    uint64_t c = t["args"]["correlation"];
    ASSERT_TRUE(api.count(c)) << "task without its API span: " << t.dump();
    const std::string& launcher = api[c];
    const std::string type = t["args"]["type"];
    // One expected launcher per task type (EXPECT_* is an if/else: no bare ifs around it).
    const std::map<std::string, std::string> want = {
        {"MEMCPY", "aclrtMemcpyAsync"}, {"DEVICE_TASK", "arunLaunchDeviceTask"}, {"MEMSET", "aclrtMemsetAsync"}};
    if (auto w = want.find(type); w != want.end()) {
      EXPECT_EQ(launcher, w->second) << type;
    }
  }
  auto sync = events_where(doc, "X", "sync");
  ASSERT_EQ(sync.size(), size_t(n.sync_copies));
  for (auto& c : sync) {
    EXPECT_EQ(c["args"]["direction"], "H2D");
    EXPECT_EQ(api[c["args"]["correlation"].get<uint64_t>()], "aclrtMemcpy");
  }
  EXPECT_EQ(events_where(doc, "s", "launch").size(), size_t(n.tasks() + n.sync_copies));
  EXPECT_EQ(events_where(doc, "s", "event").size(), size_t(n.waits));
  EXPECT_EQ(events_where(doc, "X", "event").size(), size_t(n.waits + n.records));

  std::set<std::string> counters;
  for (auto& c : events_where(doc, "C", "")) counters.insert(c["name"]);
  EXPECT_TRUE(counters.count("busy AI cores"));
  EXPECT_TRUE(counters.count("busy copy engines"));
  EXPECT_TRUE(counters.count("device memory"));
  int depth_tracks = 0;
  for (auto& c : counters) depth_tracks += c.rfind("queue depth stream ", 0) == 0;
  EXPECT_EQ(depth_tracks, n.streams);

  int stream_tracks = 0;
  for (auto& m : events_where(doc, "M", "")) {
    if (m["name"] == "thread_name" && m["args"]["name"].get<std::string>().rfind("stream ", 0) == 0) ++stream_tracks;
  }
  EXPECT_EQ(stream_tracks, n.streams);

  if (marks) {
    int mark_count = 0;
    for (auto& m : events_where(doc, "i", "mark")) mark_count += m["name"] == "rounds";
    EXPECT_EQ(mark_count, 6);
    EXPECT_EQ(events_where(doc, "X", "range").size(), 1u);
    EXPECT_EQ(events_where(doc, "b", "range").size(), 1u);
    EXPECT_EQ(events_where(doc, "e", "range").size(), 1u);
  }
}

TEST(Timeline, AclprofSessionHasEveryTaskLinkedToItsLaunch) {
  fs::path dir = fresh_dir("api");
  ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
  const std::string path = dir.string();
  ASSERT_EQ(aclprofInit(path.c_str(), path.size()), ACL_SUCCESS);
  uint32_t devices[] = {0};
  aclprofConfig* cfg =
      aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr,
                          ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX | ACL_PROF_TASK_MEMORY);
  ASSERT_NE(cfg, nullptr) << aclGetRecentErrMsg();
  ASSERT_EQ(aclprofStart(cfg), ACL_SUCCESS) << aclGetRecentErrMsg();
  WorkloadCounts n = run_workload(6, /*marks=*/true);
  ASSERT_EQ(aclprofStop(cfg), ACL_SUCCESS);
  ASSERT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
  ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  json doc = load_single_timeline(dir);
  check_structure(doc);
  check_workload_content(doc, n, true);
  fs::remove_all(dir);
}

TEST(Timeline, ConfigSectionProfilesFromInitToFinalize) {
  fs::path dir = fresh_dir("config");
  fs::path cfg = dir / "profiled.toml";
  std::ofstream(cfg) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[profiler]\nenabled = true\n"
                     << "sinks = [\"timeline\"]\noutput_dir = \"" << (dir / "out").string() << "\"\n"
                     << "buffer_size = \"1MiB\"\n";
  ASSERT_EQ(aclInit(cfg.string().c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  WorkloadCounts n = run_workload(4, /*marks=*/false);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  json doc = load_single_timeline(dir / "out");
  check_structure(doc);
  check_workload_content(doc, n, false);
  // From aclInit on: the device was opened inside the session.
  bool set_device = false;
  for (auto& a : events_where(doc, "X", "api")) set_device = set_device || a["name"] == "aclrtSetDevice";
  EXPECT_TRUE(set_device);
  fs::remove_all(dir);
}

// unix_time and slice_args = false: timestamps on the epoch (so traces of several processes line
// up), the process's real pid, and slices whose args are the same for every call of a name (viewers
// such as speedscope key frames by name and args), still joined by flows.
TEST(Timeline, UnixTimeAndStableArgsForFlameGraphViewers) {
  fs::path dir = fresh_dir("unix");
  fs::path cfg = dir / "unix.toml";
  std::ofstream(cfg) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[[plugin]]\nkind = \"profiler\"\n"
                     << "name = \"timeline\"\n[plugin.options]\nunix_time = true\nslice_args = false\n\n"
                     << "[profiler]\nenabled = true\nsinks = [\"timeline\"]\noutput_dir = \"" << (dir / "out").string()
                     << "\"\n";
  const auto unix_us = [] {
    return double(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
  };
  const double before = unix_us();
  ASSERT_EQ(aclInit(cfg.string().c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  WorkloadCounts n = run_workload(3, /*marks=*/false);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  const double after = unix_us();
  json doc = load_single_timeline(dir / "out");
  std::map<std::string, std::set<std::string>> args_by_frame;  // name + cat -> the distinct args
  std::set<int64_t> pids;
  std::map<uint64_t, int> launch_flows;
  size_t tasks = 0;  // on their streams (synchronous copies are on their thread's track)
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M") continue;
    pids.insert(e["pid"].get<int64_t>());
    if (e.contains("ts")) {
      EXPECT_GE(e["ts"].get<double>(), before - 1) << e.dump();
      EXPECT_LE(e["ts"].get<double>(), after + 1) << e.dump();
    }
    if (e["ph"] == "X") {
      args_by_frame[e["name"].get<std::string>() + "/" + e["cat"].get<std::string>()].insert(
          e.contains("args") ? e["args"].dump() : "");
      tasks += e["cat"] == "task";
    }
    if ((e["ph"] == "s" || e["ph"] == "f") && e["cat"] == "launch") ++launch_flows[e["id"].get<uint64_t>()];
  }
  EXPECT_EQ(tasks, size_t(n.tasks()));
  EXPECT_TRUE(pids.count(::getpid())) << "the host is not the real pid";
  for (const auto& [frame, variants] : args_by_frame) {
    // A copy's args hold its direction, so "memcpy" has one variant per direction (H2D, D2H).
    EXPECT_LE(variants.size(), frame.rfind("memcpy", 0) == 0 ? 2u : 1u) << frame << " has per-call args";
    for (const auto& a : variants) EXPECT_EQ(a.find("correlation"), std::string::npos) << frame << ": " << a;
  }
  EXPECT_EQ(launch_flows.size(), size_t(n.tasks() + n.sync_copies));
  for (const auto& [id, ends] : launch_flows) EXPECT_EQ(ends, 2) << "launch flow " << id << " does not pair up";
  fs::remove_all(dir);
}

TEST(Timeline, OperatorKernelsAreNamedAfterTheirOpType) {
  fs::path dir = fresh_dir("ops");
  ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  const std::string path = dir.string();
  ASSERT_EQ(aclprofInit(path.c_str(), path.size()), ACL_SUCCESS);
  uint32_t devices[] = {0};
  aclprofConfig* cfg = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME | ACL_PROF_ACL_API);
  ASSERT_NE(cfg, nullptr) << aclGetRecentErrMsg();
  ASSERT_EQ(aclprofStart(cfg), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const int64_t dims[] = {64};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  void* x = nullptr;
  void* y = nullptr;
  ASSERT_EQ(aclrtMalloc(&x, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&y, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(x, 256, 0, 256), ACL_SUCCESS);
  aclDataBuffer* xb = aclCreateDataBuffer(x, 256);
  aclDataBuffer* yb = aclCreateDataBuffer(y, 256);
  aclopAttr* attr = aclopCreateAttr();
  aclTensorDesc* in_desc[] = {desc, desc};
  aclDataBuffer* in_buf[] = {xb, xb};
  aclTensorDesc* out_desc[] = {desc};
  aclDataBuffer* out_buf[] = {yb};
  ASSERT_EQ(aclopExecuteV2("Relu", 1, in_desc, in_buf, 1, out_desc, out_buf, attr, stream), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclopExecuteV2("Add", 2, in_desc, in_buf, 1, out_desc, out_buf, attr, stream), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  // A task of the same thread right after, ordered behind the ops: unnamed.
  ASSERT_EQ(aclrtMemsetAsync(y, 256, 0, 256, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclprofStop(cfg), ACL_SUCCESS);
  aclopDestroyAttr(attr);
  aclDestroyDataBuffer(xb);
  aclDestroyDataBuffer(yb);
  aclDestroyTensorDesc(desc);
  aclrtFree(x);
  aclrtFree(y);
  aclrtDestroyStream(stream);
  ASSERT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
  ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  json doc = load_single_timeline(dir);
  check_structure(doc);
  std::map<std::string, int> kernels;
  std::map<std::string, int> memsets;
  for (auto& t : events_where(doc, "X", "task")) {
    if (t["args"]["type"] == "KERNEL") kernels[t["name"]]++;
    if (t["args"]["type"] == "MEMSET") memsets[t["name"]]++;
  }
  EXPECT_EQ(kernels, (std::map<std::string, int>{{"Add", 1}, {"Relu", 1}}));
  EXPECT_EQ(memsets.count("Add") + memsets.count("Relu"), 0u) << "a name is taken by one task only";
  // An operator is one call through the front door: its kernel links straight to the
  // aclopExecuteV2 span, and no inner arunLaunchKernel call is made (or recorded) on the way.
  std::map<uint64_t, std::string> api;
  for (auto& a : events_where(doc, "X", "api")) {
    api[a["args"]["correlation"]] = a["name"];
    EXPECT_NE(a["name"], "arunLaunchKernel") << "an operator crossed the C API twice";
  }
  for (auto& t : events_where(doc, "X", "task")) {
    if (t["args"]["type"] != "KERNEL") continue;
    EXPECT_EQ(api[t["args"]["correlation"].get<uint64_t>()], "aclopExecuteV2") << t.dump();
  }
  fs::remove_all(dir);
}

TEST(Timeline, EnvironmentVariableProfilesAnUnmodifiedExample) {
  fs::path dir = fresh_dir("env");
  // cross_stream_events knows nothing about profiling; it runs from `dir`, so the default
  // output folder lands there.
  std::string cmd = "cd '" + dir.string() +
                    "' && ASCEND_RUN_CONFIG='" ARUN_TEST_CONFIG "' ASCEND_RUN_PROFILING=timeline '" ARUN_EXAMPLE_BIN
                    "' > example.log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << dir / "example.log";
  json doc = load_single_timeline(dir / "ascend-run-profile");
  check_structure(doc);
  EXPECT_FALSE(events_where(doc, "X", "task").empty());
  EXPECT_FALSE(events_where(doc, "s", "event").empty()) << "the example's cross-stream event has no flow";
  fs::remove_all(dir);
}

TEST(TimelineDeathTest, WrittenAtExitWhenTheProgramNeverFinalizes) {
  fs::path dir = fresh_dir("exit");
  const std::string out = (dir / "out").string();
  EXPECT_EXIT(
      {
        fs::path cfg = dir / "exit.toml";
        std::ofstream(cfg) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n[profiler]\nenabled = true\n"
                           << "output_dir = \"" << out << "\"\n";
        if (aclInit(cfg.string().c_str()) != ACL_SUCCESS) std::exit(3);
        aclrtSetDevice(0);
        aclrtStream s = nullptr;
        aclrtCreateStream(&s);
        int ran = 0;
        for (int i = 0; i < 10; ++i) arunLaunchDeviceTask(&bump, &ran, s);
        aclrtSynchronizeStream(s);
        std::exit(ran == 10 ? 0 : 4);  // no aclFinalize
      },
      ::testing::ExitedWithCode(0), "");
  json doc = load_single_timeline(out);
  check_structure(doc);
  EXPECT_EQ(events_where(doc, "X", "task").size(), 10u);
  fs::remove_all(dir);
}

TEST(Timeline, UnknownSinkInTheEnvironmentFailsInitWithTheInstalledOnes) {
  ASSERT_EQ(setenv("ASCEND_RUN_PROFILING", "timeline, nosuchsink", 1), 0);
  aclError e = aclInit(ARUN_TEST_CONFIG);
  unsetenv("ASCEND_RUN_PROFILING");
  ASSERT_EQ(e, ACL_ERROR_INVALID_PARAM);
  std::string msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find("unknown profiler sink \"nosuchsink\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("timeline"), std::string::npos) << msg;
  // Nothing is left running: a clean init works.
  ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
}

// Host calls are tasks: on their stream's track (with a flow from the launch) and on the track of
// the host thread that ran them; a callback run by a user thread nests inside its
// aclrtProcessReport span (check_structure checks the nesting).
TEST(Timeline, HostCallsAreTasksOnTheirStreamAndTheThreadThatRanThem) {
  fs::path dir = fresh_dir("hostcalls");
  ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
  const std::string path = dir.string();
  ASSERT_EQ(aclprofInit(path.c_str(), path.size()), ACL_SUCCESS);
  uint32_t devices[] = {0};
  aclprofConfig* cfg = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  ASSERT_NE(cfg, nullptr) << aclGetRecentErrMsg();
  ASSERT_EQ(aclprofStart(cfg), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  constexpr int kFuncs = 3, kCallbacks = 2;
  int ran = 0;
  for (int i = 0; i < kFuncs; ++i) ASSERT_EQ(aclrtLaunchHostFunc(s, &bump, &ran), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  // Callbacks: a user thread subscribed to the stream runs them through aclrtProcessReport.
  std::atomic<uint32_t> reporter_tid{0};
  std::atomic<uint64_t> reporter_id{0};
  std::atomic<bool> subscribed{false};
  std::atomic<int> processed{0};
  std::thread reporter([&] {
    reporter_tid = static_cast<uint32_t>(::gettid());
    reporter_id = static_cast<uint64_t>(pthread_self());
    while (!subscribed) std::this_thread::yield();
    for (int i = 0; i < kCallbacks; ++i) processed += aclrtProcessReport(5000) == ACL_SUCCESS;
  });
  while (reporter_id == 0) std::this_thread::yield();
  ASSERT_EQ(aclrtSubscribeReport(reporter_id, s), ACL_SUCCESS) << aclGetRecentErrMsg();
  subscribed = true;
  for (int i = 0; i < kCallbacks; ++i) ASSERT_EQ(aclrtLaunchCallback(&bump, &ran, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  reporter.join();
  EXPECT_EQ(processed.load(), kCallbacks);
  EXPECT_EQ(ran, kFuncs + kCallbacks);
  ASSERT_EQ(aclrtUnSubscribeReport(reporter_id, s), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclprofStop(cfg), ACL_SUCCESS);
  ASSERT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
  ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  json doc = load_single_timeline(dir);
  check_structure(doc);
  std::map<uint64_t, std::string> api;
  for (auto& a : events_where(doc, "X", "api")) api[a["args"]["correlation"]] = a["name"];
  std::map<std::string, int> on_stream;
  for (auto& t : events_where(doc, "X", "task")) {
    if (t["args"]["type"] != "HOST_CALL") continue;
    const std::string name = t["name"];
    ++on_stream[name];
    const std::string launcher = api[t["args"]["correlation"].get<uint64_t>()];
    EXPECT_EQ(launcher, name == "callback" ? "aclrtLaunchCallback" : "aclrtLaunchHostFunc") << t.dump();
    EXPECT_GE(t["args"]["queued_us"].get<double>(), 0.0);
  }
  EXPECT_EQ(on_stream["host_func"], kFuncs);
  EXPECT_EQ(on_stream["callback"], kCallbacks);
  auto on_threads = events_where(doc, "X", "host_call");
  ASSERT_EQ(on_threads.size(), size_t(kFuncs + kCallbacks));
  int on_reporter = 0;
  for (auto& h : on_threads) {
    EXPECT_EQ(h["pid"], ::getpid()) << h.dump();  // the host process, by its real pid
    if (h["name"] == "callback") {
      EXPECT_EQ(h["tid"].get<uint32_t>(), reporter_tid.load()) << h.dump();
      ++on_reporter;
    }
  }
  EXPECT_EQ(on_reporter, kCallbacks);
  // One launch flow per host call besides the other tasks', and no execution-unit slice for them.
  EXPECT_EQ(events_where(doc, "s", "launch").size(), size_t(kFuncs + kCallbacks));
  EXPECT_TRUE(events_where(doc, "X", "unit").empty());
  fs::remove_all(dir);
}

std::atomic<bool> g_release{false};
void hold_until_released(void*) {
  while (!g_release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
}

// A runtime whose profiler writes a timeline into dir/out, device 0 current, and a stream on it.
void start_timeline_session(const fs::path& dir, aclrtStream* s) {
  fs::path cfg = dir / "timeline.toml";
  std::ofstream(cfg) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[profiler]\nenabled = true\n"
                     << "sinks = [\"timeline\"]\noutput_dir = \"" << (dir / "out").string() << "\"\n";
  ASSERT_EQ(aclInit(cfg.string().c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(s), ACL_SUCCESS);
}

// The counter tracks are derived by the sink from the task records (see docs/profiler-sinks.md):
// with one task holding a stream's head while kQueued more are enqueued behind it, the stream's
// queue-depth track must reach kQueued + 1 and come back to 0, and busy AI cores must reach 1.
TEST(Timeline, QueueDepthCounterFollowsTheStreamBacklog) {
  fs::path dir = fresh_dir("depth");
  aclrtStream s = nullptr;
  ASSERT_NO_FATAL_FAILURE(start_timeline_session(dir, &s));
  constexpr int kQueued = 20;
  g_release = false;
  ASSERT_EQ(arunLaunchDeviceTask(&hold_until_released, nullptr, s), ACL_SUCCESS);
  int ran = 0;
  for (int i = 0; i < kQueued; ++i) ASSERT_EQ(arunLaunchDeviceTask(&bump, &ran, s), ACL_SUCCESS);
  g_release = true;
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(ran, kQueued);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  json doc = load_single_timeline(dir / "out");
  check_structure(doc);
  std::map<std::string, std::vector<int64_t>> tracks;  // counter name -> values in file order
  for (auto& c : events_where(doc, "C", "")) {
    for (auto& [key, value] : c["args"].items()) tracks[c["name"]].push_back(value.get<int64_t>());
  }
  std::vector<int64_t> depth;
  for (auto& [name, values] : tracks) {
    if (name.rfind("queue depth stream ", 0) == 0) depth = values;
  }
  ASSERT_FALSE(depth.empty()) << "no queue depth track";
  EXPECT_EQ(*std::max_element(depth.begin(), depth.end()), kQueued + 1);
  EXPECT_EQ(depth.back(), 0);
  ASSERT_TRUE(tracks.count("busy AI cores"));
  EXPECT_EQ(*std::max_element(tracks["busy AI cores"].begin(), tracks["busy AI cores"].end()), 1);
  EXPECT_EQ(tracks["busy AI cores"].back(), 0);
  fs::remove_all(dir);
}

void sleepy_block(arunBlock*, void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

// Issue 16: the blocks of one kernel run on the AI cores that are free, and the timeline shows the
// kernel on each of their tracks (Blocks records), so busy AI cores rises above 1.
TEST(Timeline, AManyBlockKernelAppearsOnTheCoresThatRanItsBlocks) {
  fs::path dir = fresh_dir("blocks");
  aclrtStream s = nullptr;
  ASSERT_NO_FATAL_FAILURE(start_timeline_session(dir, &s));
  ASSERT_EQ(arunLaunchKernel(s, 20, &sleepy_block, nullptr, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  json doc = load_single_timeline(dir / "out");
  check_structure(doc);
  std::set<int64_t> unit_tracks;
  for (auto& e : events_where(doc, "X", "unit")) unit_tracks.insert(e["tid"].get<int64_t>());
  EXPECT_GE(unit_tracks.size(), 2u) << "the kernel's 20 blocks appear on one core only";
  int64_t busy = 0;
  for (auto& c : events_where(doc, "C", "")) {
    if (c["name"] == "busy AI cores") busy = std::max(busy, c["args"]["units"].get<int64_t>());
  }
  EXPECT_GE(busy, 2);
  fs::remove_all(dir);
}

// A replay is one "graph" slice on the stream it was launched on, named after its instance and
// linked to its aclmdlRIExecuteAsync call; its nodes are tasks of the instance's hidden stream
// with the same correlation, inside the replay's span, on the AI cores that ran them. Captured
// instances (prebuilt tasks) and built ones (the launcher path) alike.
TEST(Timeline, AGraphReplayIsOneLaunchWithItsNodesOnTheirUnits) {
  fs::path dir = fresh_dir("graph");
  aclrtStream s = nullptr, bound = nullptr;
  ASSERT_NO_FATAL_FAILURE(start_timeline_session(dir, &s));
  constexpr int kNodes = 4, kRuns = 3, kBuiltNodes = 2;
  int ran = 0;
  aclmdlRI captured = nullptr, built = nullptr;
  ASSERT_EQ(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_SUCCESS);
  for (int i = 0; i < kNodes; ++i) ASSERT_EQ(arunLaunchDeviceTask(&bump, &ran, s), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRICaptureEnd(s, &captured), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRISetName(captured, "replayed"), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStreamWithConfig(&bound, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIBuildBegin(&built, 0), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIBindStream(built, bound, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
  for (int i = 0; i < kBuiltNodes; ++i) ASSERT_EQ(arunLaunchDeviceTask(&bump, &ran, bound), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIEndTask(built, bound), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIBuildEnd(built, nullptr), ACL_SUCCESS);
  for (int i = 0; i < kRuns; ++i) ASSERT_EQ(aclmdlRIExecuteAsync(captured, s), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIExecuteAsync(built, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(ran, kNodes * kRuns + kBuiltNodes);
  uint32_t captured_id = 0, built_id = 0;
  int32_t stream_id = -1;
  ASSERT_EQ(aclmdlRIGetId(captured, &captured_id), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIGetId(built, &built_id), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamGetId(s, &stream_id), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIDestroy(captured), ACL_SUCCESS);
  ASSERT_EQ(aclmdlRIDestroy(built), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(bound), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  json doc = load_single_timeline(dir / "out");
  check_structure(doc);
  std::map<uint64_t, std::string> api;
  for (auto& a : events_where(doc, "X", "api")) api[a["args"]["correlation"]] = a["name"];
  const auto tasks = events_where(doc, "X", "task");
  const auto units = events_where(doc, "X", "unit");
  const auto graphs = events_where(doc, "X", "graph");
  ASSERT_EQ(graphs.size(), size_t(kRuns + 1)) << "one slice per execution";
  constexpr double kSlack = 0.0011;  // 3 printed decimals of a microsecond
  int named = 0;
  for (const auto& g : graphs) {
    const bool is_built = g["args"]["model_ri"].get<uint32_t>() == built_id;
    const int nodes = is_built ? kBuiltNodes : kNodes;
    named += g["name"] == "replayed";
    EXPECT_EQ(g["name"], is_built ? "modelRI " + std::to_string(built_id) : "replayed");
    EXPECT_EQ(g["args"]["model_ri"].get<uint32_t>(), is_built ? built_id : captured_id);
    EXPECT_EQ(g["args"]["nodes"].get<int>(), nodes);
    EXPECT_EQ(g["args"]["lanes"].get<int>(), 1);
    EXPECT_EQ(g["tid"].get<int64_t>(), 1000 + stream_id) << "on the launching stream's track";
    const uint64_t c = g["args"]["correlation"];
    EXPECT_EQ(api[c], "aclmdlRIExecuteAsync") << g.dump();
    const double begin = g["ts"], end = begin + g["dur"].get<double>();
    int on_stream = 0, on_cores = 0;
    for (const auto& t : tasks) {
      if (t["args"]["correlation"].get<uint64_t>() != c) continue;
      ++on_stream;
      EXPECT_EQ(t["args"]["type"], "DEVICE_TASK") << t.dump();
      EXPECT_NE(t["tid"], g["tid"]) << "a node on a hidden stream, not the launching one";
      EXPECT_GE(t["ts"].get<double>(), begin - kSlack) << t.dump();
      EXPECT_LE(t["ts"].get<double>() + t["dur"].get<double>(), end + kSlack) << t.dump();
    }
    for (const auto& u : units) {
      if (u["args"]["correlation"].get<uint64_t>() != c) continue;
      ++on_cores;
      EXPECT_GE(u["tid"].get<int64_t>(), 100000) << "an AI core track";
      EXPECT_LT(u["tid"].get<int64_t>(), 200000) << "an AI core track";
    }
    EXPECT_EQ(on_stream, nodes);
    EXPECT_EQ(on_cores, nodes);
  }
  EXPECT_EQ(named, kRuns);
  EXPECT_EQ(tasks.size(), size_t(kNodes * kRuns + kBuiltNodes)) << "the built instance's start call is no task";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace arun::test
