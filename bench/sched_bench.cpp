// arun_sched_bench: the scheduler, policy by policy, and the same measurements on the peer runtimes
// (PoCL's OpenCL CPU device, StarPU) in the same run, with ratios printed at the end.
//
//   build/bin/arun_sched_bench [--policies=priority,fifo,...] [--peers=0] [benchmark flags]
//
// For each policy the runtime is initialised afresh (arunSetSchedulerPolicy before aclInit, the
// build tree's default config: 20 AI cores, 4 copy engines), the benchmarks run, and the runtime is
// finalised; then the peers run, one after the other. See bench/README.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "peer_bench.hpp"

#define CHECK_ACL(call)                                                                                    \
  do {                                                                                                     \
    aclError rc_ = (call);                                                                                 \
    if (rc_ != ACL_SUCCESS) {                                                                              \
      std::fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, rc_, aclGetRecentErrMsg()); \
      std::exit(2);                                                                                        \
    }                                                                                                      \
  } while (0)

namespace sched_bench {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void report_quantiles(benchmark::State& state, std::vector<int64_t>& ns) {
  if (ns.empty()) return;
  std::sort(ns.begin(), ns.end());
  auto q = [&](double p) { return double(ns[size_t(p * double(ns.size() - 1))]) / 1e3; };
  state.counters["p50_us"] = q(0.5);
  state.counters["p90_us"] = q(0.9);
  state.counters["p99_us"] = q(0.99);
}

namespace {

constexpr int64_t kHostBatch = 1000;      // below the default queue bound (1024): the loop never blocks
constexpr int64_t kThroughputTasks = 100000;
constexpr int kLatencyIters = 2000;
constexpr int kLowStreams = 24;           // more than the 20 AI cores: some low heads always wait
constexpr int kLowTaskUs = 500;           // duration of one low-priority task
constexpr int kLoadIters = 300;

void empty_task(void*) {}

std::atomic<int64_t> g_low_ns{0};
std::atomic<int64_t> g_low_count{0};
void low_task(void*) {
  // Sleeps rather than spins: the simulated cores are host threads, and 20 spinning threads on a
  // 2-CPU machine would measure the host's time slicing instead of the scheduler.
  int64_t t0 = now_ns();
  std::this_thread::sleep_for(std::chrono::microseconds(kLowTaskUs));
  g_low_ns += now_ns() - t0;
  ++g_low_count;
}

struct Env {
  aclrtStream a = nullptr, b = nullptr, high = nullptr;
  std::vector<aclrtStream> low;
  aclrtEvent event = nullptr;
} g_env;

void launch(aclrtStream s) { CHECK_ACL(arunLaunchDeviceTask(&empty_task, nullptr, s)); }

// Host cost per enqueued empty device task: 1000 enqueues timed, the drain not.
void BM_HostCost(benchmark::State& state) {
  measure_host_cost(state, kHostBatch, [] { launch(g_env.a); }, [] { CHECK_ACL(aclrtSynchronizeStream(g_env.a)); });
}

// Tasks per second through one stream: 100 000 empty tasks enqueued (blocking on the queue bound
// when the device falls behind) and synchronized.
void BM_Throughput(benchmark::State& state) {
  measure_throughput(state, kThroughputTasks, [] { launch(g_env.a); },
                     [] { CHECK_ACL(aclrtSynchronizeStream(g_env.a)); });
}

void BM_RoundTrip(benchmark::State& state) {
  measure_latency(state, [] {
    launch(g_env.a);
    CHECK_ACL(aclrtSynchronizeStream(g_env.a));
  });
}

// A task on A, A records, B waits and runs a task, the host synchronizes B (PoCL's
// crossqueue_event_dep).
void BM_CrossStream(benchmark::State& state) {
  measure_latency(state, [] {
    launch(g_env.a);
    CHECK_ACL(aclrtRecordEvent(g_env.event, g_env.a));
    CHECK_ACL(aclrtStreamWaitEvent(g_env.b, g_env.event));
    launch(g_env.b);
    CHECK_ACL(aclrtSynchronizeStream(g_env.b));
  });
  CHECK_ACL(aclrtSynchronizeStream(g_env.a));
}

// Latency of one task on a priority-0 stream while 24 priority-7 streams keep all 20 AI cores busy
// with 500 us tasks (each low stream is topped up to 3 queued tasks before every measurement).
void BM_HighPriorityUnderLoad(benchmark::State& state) {
  std::vector<int64_t> lat;
  lat.reserve(kLoadIters);
  g_low_ns = 0;
  g_low_count = 0;
  auto top_up = [] {
    for (aclrtStream s : g_env.low) {
      uint32_t depth = 0;
      CHECK_ACL(arunStreamGetQueueDepth(s, &depth, nullptr));
      for (uint32_t d = depth; d < 3; ++d) CHECK_ACL(arunLaunchDeviceTask(&low_task, nullptr, s));
    }
  };
  top_up();
  std::this_thread::sleep_for(std::chrono::microseconds(2 * kLowTaskUs));  // every core busy
  for (auto _ : state) {
    top_up();
    int64_t t0 = now_ns();
    launch(g_env.high);
    CHECK_ACL(aclrtSynchronizeStream(g_env.high));
    lat.push_back(now_ns() - t0);
  }
  for (aclrtStream s : g_env.low) CHECK_ACL(aclrtSynchronizeStream(s));
  report_quantiles(state, lat);
  double low_us = g_low_count > 0 ? double(g_low_ns) / double(g_low_count) / 1e3 : 0;
  state.counters["low_task_us"] = low_us;
  state.counters["p50_minus_low_task_us"] = state.counters["p50_us"].value - low_us;
}

void setup_runtime(const std::string& policy) {
  CHECK_ACL(arunSetSchedulerPolicy(policy.c_str()));
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  CHECK_ACL(aclrtCreateStream(&g_env.a));
  CHECK_ACL(aclrtCreateStream(&g_env.b));
  CHECK_ACL(aclrtCreateStreamWithConfig(&g_env.high, 0, 0));
  g_env.low.resize(kLowStreams);
  for (auto& s : g_env.low) CHECK_ACL(aclrtCreateStreamWithConfig(&s, 7, 0));
  CHECK_ACL(aclrtCreateEvent(&g_env.event));
  for (int i = 0; i < 2000; ++i) launch(g_env.a);  // warm the task paths
  CHECK_ACL(aclrtSynchronizeStream(g_env.a));
}

void teardown_runtime() {
  CHECK_ACL(aclrtSynchronizeDevice());
  CHECK_ACL(aclrtDestroyEvent(g_env.event));
  for (aclrtStream s : g_env.low) CHECK_ACL(aclrtDestroyStream(s));
  CHECK_ACL(aclrtDestroyStream(g_env.high));
  CHECK_ACL(aclrtDestroyStream(g_env.b));
  CHECK_ACL(aclrtDestroyStream(g_env.a));
  g_env = Env{};
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  CHECK_ACL(arunSetSchedulerPolicy(nullptr));
}

// "wrr:weights=4,2,1" -> "wrr_weights_4_2_1": a benchmark-name-safe label.
std::string label_of(const std::string& spec) {
  std::string l = spec;
  for (char& ch : l) {
    if (ch == ':' || ch == '=' || ch == ',') ch = '_';
  }
  return l;
}

void register_runtime(const std::string& policy) {
  std::string p = "arun." + label_of(policy) + "/";
  benchmark::RegisterBenchmark((p + "host_cost").c_str(), BM_HostCost)->UseManualTime()->Iterations(20);
  benchmark::RegisterBenchmark((p + "throughput").c_str(), BM_Throughput)->UseManualTime()->Iterations(3)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((p + "round_trip").c_str(), BM_RoundTrip)->UseRealTime()->Iterations(kLatencyIters)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((p + "cross_stream").c_str(), BM_CrossStream)->UseRealTime()
      ->Iterations(kLatencyIters)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((p + "high_prio_under_load").c_str(), BM_HighPriorityUnderLoad)->UseRealTime()
      ->Iterations(kLoadIters)->Unit(benchmark::kMicrosecond);
}

// Keeps, for every benchmark, the median over repetitions (or the single run) of each counter.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (r.run_type == Run::RT_Aggregate && !median) continue;
      std::string name = r.run_name.function_name;
      auto& m = results[name];
      if (!median && m.from_median) continue;
      m.from_median = median;
      for (const auto& [k, c] : r.counters) m.values[k] = c.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  struct Result {
    bool from_median = false;
    std::map<std::string, double> values;
  };
  std::map<std::string, Result> results;
  double get(const std::string& bench, const std::string& counter) const {
    auto it = results.find(bench);
    if (it == results.end()) return -1;
    auto c = it->second.values.find(counter);
    return c == it->second.values.end() ? -1 : c->second;
  }
};

void print_summary(const Collector& c, const std::vector<std::string>& policies) {
  std::printf("\n== summary (median over repetitions)\n");
  std::printf("%-24s %12s %12s %14s %14s %16s %14s\n", "runtime", "host ns/task", "tasks/s", "round trip p50",
              "cross dep p50", "high-prio p50", "low task");
  auto row = [&](const std::string& key, const std::string& label) {
    auto v = [&](const char* b, const char* k) { return c.get(key + "/" + b, k); };
    std::printf("%-24s %12.0f %12.0f %12.2fus %12.2fus %14.2fus %12.1fus\n", label.c_str(), v("host_cost", "ns_per_task"),
                v("throughput", "tasks_per_s"), v("round_trip", "p50_us"), v("cross_stream", "p50_us"),
                v("high_prio_under_load", "p50_us"), v("high_prio_under_load", "low_task_us"));
  };
  for (const auto& p : policies) row("arun." + label_of(p), label_of(p));
  for (const char* peer : {"pocl", "starpu"}) {
    if (c.results.count(std::string(peer) + "/round_trip")) row(peer, peer);
  }
  std::printf("\n== ratios: ascend-run / peer (lower is better for times, higher for tasks/s)\n");
  for (const auto& p : policies) {
    std::string k = "arun." + label_of(p);
    for (const char* peer : {"pocl", "starpu"}) {
      std::string pk = peer;
      if (!c.results.count(pk + "/round_trip")) continue;
      auto ratio = [&](const char* b, const char* n) {
        double ours = c.get(k + "/" + b, n), theirs = c.get(pk + "/" + b, n);
        return ours > 0 && theirs > 0 ? ours / theirs : -1;
      };
      std::printf("%-24s vs %-7s host ns/task %.2fx  tasks/s %.2fx  round trip %.2fx  cross dep %.2fx\n",
                  label_of(p).c_str(), peer, ratio("host_cost", "ns_per_task"),
                  ratio("throughput", "tasks_per_s"), ratio("round_trip", "p50_us"), ratio("cross_stream", "p50_us"));
    }
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(';', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace
}  // namespace sched_bench

int main(int argc, char** argv) {
  using namespace sched_bench;
  // Policies are separated by ';' since a spec may hold commas ("wrr:weights=4,2,1").
  std::vector<std::string> policies{"priority", "priority:aging_us=1000", "fifo", "round_robin", "wrr", "fair", "sjf"};
  bool peers = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--policies=", 11) == 0) {
      policies = split(argv[i] + 11);
    } else if (std::strcmp(argv[i], "--peers=0") == 0) {
      peers = false;
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::AddCustomContext("arun_version", arunGetVersion());
  Collector collector;
  for (const auto& policy : policies) {
    setup_runtime(policy);
    register_runtime(policy);
    benchmark::RunSpecifiedBenchmarks(&collector);
    benchmark::ClearRegisteredBenchmarks();
    teardown_runtime();
  }
  if (peers) {
    for (const auto& peer : peer_benchmarks()) {
      std::string why;
      if (!peer.setup(&why)) {
        std::printf("peer %s skipped: %s\n", peer.name, why.c_str());
        continue;
      }
      peer.register_all();
      benchmark::RunSpecifiedBenchmarks(&collector);
      benchmark::ClearRegisteredBenchmarks();
      peer.teardown();
    }
  }
  print_summary(collector, policies);
  benchmark::Shutdown();
  return 0;
}
