// StarPU: empty CPU-codelet tasks with no data, on 2 CPU workers and the eager policy (the
// configuration of the StarPU rows in shared/research/peer-baselines.md).
#include <starpu.h>

#include <atomic>
#include <thread>

#include "peer_bench.hpp"

namespace sched_bench {
namespace {

void empty_cpu(void**, void*) {}

starpu_codelet g_cl;

// Gate tasks, one per worker, hold every worker until the timed loop is over.
constexpr int kWorkers = 2;
starpu_codelet g_gate_cl;
std::atomic<bool> g_gate_open{false};
std::atomic<int> g_gates_running{0};
void gate_cpu(void**, void*) {
  ++g_gates_running;
  g_gate_open.wait(false);
}

starpu_task* make_task() {
  starpu_task* t = starpu_task_create();
  t->cl = &g_cl;
  return t;
}

void submit(starpu_task* t) {
  int rc = starpu_task_submit(t);
  if (rc != 0) {
    std::fprintf(stderr, "starpu_task_submit failed: %d\n", rc);
    std::exit(2);
  }
}

bool setup(std::string* why) {
  starpu_codelet_init(&g_cl);
  g_cl.cpu_funcs[0] = &empty_cpu;
  g_cl.nbuffers = 0;
  g_cl.name = "empty";
  starpu_conf conf;
  starpu_conf_init(&conf);
  starpu_codelet_init(&g_gate_cl);
  g_gate_cl.cpu_funcs[0] = &gate_cpu;
  g_gate_cl.nbuffers = 0;
  g_gate_cl.name = "gate";
  conf.ncpus = kWorkers;
  conf.ncuda = 0;
  conf.nopencl = 0;
  conf.sched_policy_name = "eager";
  int rc = starpu_init(&conf);
  if (rc != 0) {
    *why = "starpu_init failed: " + std::to_string(rc);
    return false;
  }
  for (int i = 0; i < 2000; ++i) submit(make_task());
  starpu_task_wait_for_all();
  return true;
}

void teardown() {
  starpu_task_wait_for_all();
  starpu_shutdown();
}

void BM_HostCost(benchmark::State& state) {
  measure_host_cost(
      state, kPeerHostBatch, [] { submit(make_task()); }, [] { starpu_task_wait_for_all(); });
}

void BM_HostCostHeld(benchmark::State& state) {
  measure_host_cost_held(
      state, kPeerHostBatch,
      [] {
        g_gate_open.store(false);
        g_gates_running.store(0);
        for (int i = 0; i < kWorkers; ++i) {
          starpu_task* t = starpu_task_create();
          t->cl = &g_gate_cl;
          submit(t);
        }
        while (g_gates_running.load() < kWorkers) std::this_thread::yield();
      },
      [] { submit(make_task()); },
      [] {
        g_gate_open.store(true);
        g_gate_open.notify_all();
        starpu_task_wait_for_all();
      });
}

void BM_HostCostDraining(benchmark::State& state) {
  measure_host_cost(
      state, kPeerDrainBatch, [] { submit(make_task()); }, [] { starpu_task_wait_for_all(); });
}

void BM_Throughput(benchmark::State& state) {
  measure_throughput(
      state, kPeerThroughputTasks, [] { submit(make_task()); }, [] { starpu_task_wait_for_all(); });
}

void BM_RoundTrip(benchmark::State& state) {
  measure_latency(state, [] {
    starpu_task* t = make_task();
    t->synchronous = 1;
    submit(t);
  });
}

// Task B depends on task A (an explicit task dependency, StarPU's counterpart of an event).
void BM_CrossStream(benchmark::State& state) {
  measure_latency(state, [] {
    starpu_task* a = make_task();
    starpu_task* b = make_task();
    b->detach = 0;
    starpu_task_declare_deps_array(b, 1, &a);
    submit(a);
    submit(b);
    if (starpu_task_wait(b) != 0) std::exit(2);
  });
}

void register_all() {
  benchmark::RegisterBenchmark("starpu/host_cost", BM_HostCost)->UseManualTime()->Iterations(20);
  benchmark::RegisterBenchmark("starpu/host_cost_held", BM_HostCostHeld)->UseManualTime()->Iterations(20);
  benchmark::RegisterBenchmark("starpu/host_cost_draining", BM_HostCostDraining)->UseManualTime()->Iterations(10);
  benchmark::RegisterBenchmark("starpu/throughput", BM_Throughput)
      ->UseManualTime()
      ->Iterations(3)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("starpu/round_trip", BM_RoundTrip)
      ->UseRealTime()
      ->Iterations(kPeerLatencyIters)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("starpu/cross_stream", BM_CrossStream)
      ->UseRealTime()
      ->Iterations(kPeerLatencyIters)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

Peer starpu_peer() {
  return {"starpu", &setup, &register_all, &teardown};
}

}  // namespace sched_bench
