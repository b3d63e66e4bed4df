// Profiling overhead on the host enqueue path: 100k tiny device tasks (arunLaunchDeviceTask with an
// empty function) enqueued round-robin on 4 streams, timed from the first enqueue to the last
// (the drain is not timed). Configurations of the same build, each a fresh aclInit .. aclFinalize,
// all run back to back in every round in a shuffled order, so that each round's ratios compare
// runs that saw the same machine state:
//   none:     no [profiler] section;
//   off:      [profiler] enabled = false (profiling compiled in, switched off);
//   timeline: [profiler] enabled = true, sinks = ["timeline"] (every category);
//   api:      aclprofStart with ACL_PROF_ACL_API only (host API spans; no device-side records);
//   tasks:    aclprofStart with ACL_PROF_TASK_TIME only (device task records; no host API spans).
// `api` and `tasks` split the timeline's cost between the host thread's own records and the records
// the AI-core threads write (which compete with the host thread for this machine's CPUs).
// Two times per run: wall time, and the CPU time of the enqueuing thread (CLOCK_THREAD_CPUTIME_ID),
// which leaves out the time it was not on a CPU and so most of what other processes do to it.
// Counters, medians over the rounds: <mode>_vs_none (wall-time ratios, per round), cpu_<mode>_vs_none
// (thread-CPU-time ratios), ns_per_task_<mode>, added_ns_<mode> (wall ns a task that the mode adds to
// none in the same round), ns_two_clock_reads (the floor of an API span: its two time-stamp-counter
// reads), dropped (records the profiled runs dropped). Two variants (see BM_ProfilingOverhead):
// gated:0, the device runs the tasks meanwhile; gated:1, it holds them until the loop is over, so
// the host enqueue path is timed alone.
//   build/bin/arun_prof_bench --benchmark_repetitions=3        (15 rounds per repetition)
// The queue bound is raised to 65536 so no enqueue waits for the device (the host cost alone).
//
// Instruction counts, free of timing noise: ARUN_PROF_BENCH_CALLGRIND=<mode> runs that one
// configuration once with callgrind collecting only inside the enqueue loop of the main thread:
//   ARUN_PROF_BENCH_CALLGRIND=timeline valgrind --tool=callgrind --collect-atstart=no
//     --callgrind-out-file=/tmp/cg.timeline build/bin/arun_prof_bench   (one command line)
// (ARUN_PROF_BENCH_TASKS sets the task count, default 100000; tools/prof_overhead_callgrind.sh runs
// every mode and prints the ratios.)
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "arun/arun_ext.h"
#include "bench_common.hpp"

namespace {

namespace fs = std::filesystem;

constexpr int kStreams = 4;
constexpr int kRoundsPerRepetition = 15;

int task_count() {
  const char* env = std::getenv("ARUN_PROF_BENCH_TASKS");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 100000;
}

enum Mode { kNone = 0, kOff, kTimeline, kApi, kTasks, kModes };
const char* const kModeNames[kModes] = {"none", "off", "timeline", "api", "tasks"};

fs::path work_dir() {
  static fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("arun-prof-bench-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string config_for(Mode mode) {
  fs::path file = work_dir() / (std::string(kModeNames[mode]) + ".toml");
  if (!fs::exists(file)) {
    std::ofstream out(file);
    out << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[scheduler]\nqueue_depth = 65536\n";
    if (mode == kOff) out << "\n[profiler]\nenabled = false\n";
    // api / tasks: no session at aclInit; aclprofStart takes its sinks from this list.
    if (mode == kTimeline || mode == kApi || mode == kTasks) {
      out << "\n[profiler]\nenabled = " << (mode == kTimeline ? "true" : "false");
      if (const char* b = std::getenv("ARUN_PROF_BENCH_BUFFER")) out << "\nbuffer_size = \"" << b << "\"";
      out << "\nsinks = [\"" << (std::getenv("ARUN_PROF_BENCH_SINK") ? std::getenv("ARUN_PROF_BENCH_SINK") : "timeline")
          << "\"]\noutput_dir = \"" << (work_dir() / "out").string() << "\"\n";
    }
  }
  return file.string();
}

void empty_task(void*) {}

// The gate: a device task that sleeps (no CPU) until the timed loop is over. With every stream
// waiting on an event recorded after it, no task of the loop can start while the loop runs.
std::atomic<bool> g_gate_open{false};
void gate_task(void*) {
  g_gate_open.wait(false);
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The dropped count the timeline wrote, then the output removed.
uint64_t take_dropped() {
  uint64_t dropped = 0;
  std::error_code ec;
  for (auto& e : fs::recursive_directory_iterator(work_dir() / "out", ec)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    auto pos = head.find("\"dropped\":");
    if (pos != std::string::npos) dropped += std::strtoull(head.c_str() + pos + 10, nullptr, 10);
  }
  fs::remove_all(work_dir() / "out", ec);
  return dropped;
}

// The physical floor of an API span: the two time-stamp-counter reads it takes (what prof::ticks()
// executes once the record clock is calibrated), per pair, timed over `pairs` back-to-back pairs.
double two_clock_reads_ns(int pairs) {
#if defined(__x86_64__)
  uint64_t sink = 0;
  const int64_t t0 = now_ns();
  for (int i = 0; i < pairs; ++i) sink += __builtin_ia32_rdtsc() - __builtin_ia32_rdtsc();
  const int64_t t1 = now_ns();
  benchmark::DoNotOptimize(sink);
  return double(t1 - t0) / pairs;
#else
  (void)pairs;
  return 0.0;
#endif
}

struct Timing {
  int64_t wall_ns, cpu_ns;
};

// Kept out of line so callgrind's collection and the timers cover exactly the enqueue loop.
__attribute__((noinline)) Timing enqueue_loop(aclrtStream* streams, int tasks, bool callgrind) {
  if (callgrind) CALLGRIND_TOGGLE_COLLECT;
  const int64_t t0 = now_ns(), c0 = thread_cpu_ns();
  for (int i = 0; i < tasks; ++i) BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, streams[i % kStreams]));
  const int64_t t1 = now_ns(), c1 = thread_cpu_ns();
  if (callgrind) CALLGRIND_TOGGLE_COLLECT;
  return {t1 - t0, c1 - c0};
}

// One aclInit .. aclFinalize. gated: the device runs nothing while the loop enqueues (see gate_task).
Timing run_once(Mode mode, bool gated, bool callgrind = false) {
  BENCH_CHECK(aclInit(config_for(mode).c_str()));
  BENCH_CHECK(aclrtSetDevice(0));
  aclprofConfig* prof = nullptr;
  if (mode == kApi || mode == kTasks) {
    const std::string dir = (work_dir() / "out").string();
    BENCH_CHECK(aclprofInit(dir.c_str(), dir.size()));
    uint32_t device = 0;
    prof =
        aclprofCreateConfig(&device, 1, ACL_AICORE_NONE, nullptr, mode == kApi ? ACL_PROF_ACL_API : ACL_PROF_TASK_TIME);
    if (prof == nullptr) std::exit(3);
    BENCH_CHECK(aclprofStart(prof));
  }
  aclrtStream streams[kStreams];
  for (auto& s : streams) BENCH_CHECK(aclrtCreateStream(&s));
  for (int i = 0; i < 1000; ++i) BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, streams[i % kStreams]));
  for (auto& s : streams) BENCH_CHECK(aclrtSynchronizeStream(s));
  aclrtStream gate_stream = nullptr;
  aclrtEvent gate_event = nullptr;
  if (gated) {
    g_gate_open.store(false);
    BENCH_CHECK(aclrtCreateStream(&gate_stream));
    BENCH_CHECK(aclrtCreateEvent(&gate_event));
    BENCH_CHECK(arunLaunchDeviceTask(&gate_task, nullptr, gate_stream));
    BENCH_CHECK(aclrtRecordEvent(gate_event, gate_stream));
    for (auto& s : streams) BENCH_CHECK(aclrtStreamWaitEvent(s, gate_event));
  }
  const Timing t = enqueue_loop(streams, task_count(), callgrind);
  if (gated) {
    g_gate_open.store(true);
    g_gate_open.notify_all();
    BENCH_CHECK(aclrtSynchronizeStream(gate_stream));
    BENCH_CHECK(aclrtDestroyEvent(gate_event));
    BENCH_CHECK(aclrtDestroyStream(gate_stream));
  }
  for (auto& s : streams) BENCH_CHECK(aclrtSynchronizeStream(s));
  for (auto& s : streams) BENCH_CHECK(aclrtDestroyStream(s));
  if (prof != nullptr) {
    BENCH_CHECK(aclprofStop(prof));
    BENCH_CHECK(aclprofDestroyConfig(prof));
    BENCH_CHECK(aclprofFinalize());
  }
  BENCH_CHECK(aclrtResetDevice(0));
  BENCH_CHECK(aclFinalize());
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

// Arg 0 (live): the device runs the tasks while the loop enqueues them, as a program sees it; the
// host's time then also depends on how the unit threads interleave with it on this machine's two
// CPUs (wake-ups, lock hand-offs), which differs from run to run by more than the profiler costs.
// Arg 1 (gated): the device holds every task until the loop is over (gate_task), so the loop times
// the host enqueue path alone: the profiler's own cost on it, without that interleaving.
void BM_ProfilingOverhead(benchmark::State& state) {
  const bool gated = state.range(0) != 0;
  std::vector<double> ns[kModes], wall_ratio[kModes], cpu_ratio[kModes], added_ns[kModes], floor_ns;
  uint64_t dropped = 0;
  std::mt19937 rng(12345);
  for (auto _ : state) {
    Timing t[kModes] = {};
    const char* only = std::getenv("ARUN_PROF_BENCH_MODES");  // e.g. "none,api": skip the others
    // A fresh order each round: a run is affected by the one before it (the memory and the file
    // the timeline left), and a fixed rotation would always put the same mode after a profiled one.
    Mode order[kModes];
    for (int m = 0; m < kModes; ++m) order[m] = static_cast<Mode>(m);
    std::shuffle(order, order + kModes, rng);
    for (int k = 0; k < kModes; ++k) {
      const Mode mode = order[k];
      if (only != nullptr && mode != kNone && std::strstr(only, kModeNames[mode]) == nullptr) {
        t[mode] = {1, 1};
        continue;
      }
      t[mode] = run_once(mode, gated);
      if (mode >= kTimeline) dropped += take_dropped();
    }
    floor_ns.push_back(two_clock_reads_ns(task_count()));
    int64_t total = 0;
    for (int m = 0; m < kModes; ++m) {
      ns[m].push_back(double(t[m].wall_ns) / task_count());
      added_ns[m].push_back(double(t[m].wall_ns - t[kNone].wall_ns) / task_count());
      wall_ratio[m].push_back(double(t[m].wall_ns) / double(t[kNone].wall_ns));
      cpu_ratio[m].push_back(double(t[m].cpu_ns) / double(t[kNone].cpu_ns));
      total += t[m].wall_ns;
    }
    state.SetIterationTime(double(total) / 1e9);
  }
  for (int m = 0; m < kModes; ++m) {
    state.counters[std::string("ns_per_task_") + kModeNames[m]] = median(ns[m]);
    if (m == kNone) continue;
    state.counters[std::string(kModeNames[m]) + "_vs_none"] = median(wall_ratio[m]);
    state.counters[std::string("cpu_") + kModeNames[m] + "_vs_none"] = median(cpu_ratio[m]);
    state.counters[std::string("added_ns_") + kModeNames[m]] = median(added_ns[m]);
  }
  state.counters["ns_two_clock_reads"] = median(floor_ns);
  state.counters["dropped"] = double(dropped);
}
BENCHMARK(BM_ProfilingOverhead)
    ->ArgName("gated")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(kRoundsPerRepetition)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (const char* mode = std::getenv("ARUN_PROF_BENCH_CALLGRIND")) {
    for (int m = 0; m < kModes; ++m) {
      if (std::strcmp(mode, kModeNames[m]) != 0) continue;
      const char* gated = std::getenv("ARUN_PROF_BENCH_GATED");
      run_once(static_cast<Mode>(m), gated != nullptr && std::strcmp(gated, "1") == 0, true);
      take_dropped();
      std::printf("ran %s once (%d tasks) with callgrind collecting in the enqueue loop\n", mode, task_count());
      return 0;
    }
    std::fprintf(stderr, "ARUN_PROF_BENCH_CALLGRIND=%s: not one of none, off, timeline, api, tasks\n", mode);
    return 2;
  }
  // Freed memory stays in this process: otherwise a run after one that freed a lot (the timeline's
  // records and text) pays page faults for its task allocations that other runs do not.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest it may be
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  fs::remove_all(work_dir());
  return 0;
}
