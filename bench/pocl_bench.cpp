// PoCL (OpenCL on the CPU): empty kernels (1 work-item) on in-order queues, as the peer baselines
// in shared/research/peer-baselines.md measure them.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstring>

#include "peer_bench.hpp"

namespace sched_bench {
namespace {

struct Cl {
  cl_context ctx = nullptr;
  cl_command_queue qa = nullptr, qb = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
} g_cl;

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "OpenCL: %s failed: %d\n", what, rc);
    std::exit(2);
  }
}

void enqueue(cl_command_queue q, cl_uint nwait = 0, const cl_event* wait = nullptr, cl_event* ev = nullptr) {
  size_t global = 1;
  check(clEnqueueNDRangeKernel(q, g_cl.kernel, 1, nullptr, &global, nullptr, nwait, wait, ev), "enqueue");
}

bool setup(std::string* why) {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) {
    *why = "no OpenCL platform (install pocl-opencl-icd)";
    return false;
  }
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  cl_platform_id platform = nullptr;
  for (auto p : platforms) {
    char name[256] = {0};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::strstr(name, "Portable Computing Language") != nullptr) platform = p;
  }
  if (platform == nullptr) {
    *why = "no PoCL platform among the OpenCL platforms";
    return false;
  }
  cl_device_id dev = nullptr;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &dev, nullptr) != CL_SUCCESS) {
    *why = "PoCL has no CPU device";
    return false;
  }
  cl_int rc = 0;
  g_cl.ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  g_cl.qa = clCreateCommandQueue(g_cl.ctx, dev, 0, &rc);
  check(rc, "clCreateCommandQueue");
  g_cl.qb = clCreateCommandQueue(g_cl.ctx, dev, 0, &rc);
  check(rc, "clCreateCommandQueue");
  const char* src = "__kernel void empty(void) {}";
  g_cl.program = clCreateProgramWithSource(g_cl.ctx, 1, &src, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  check(clBuildProgram(g_cl.program, 1, &dev, "", nullptr, nullptr), "clBuildProgram");
  g_cl.kernel = clCreateKernel(g_cl.program, "empty", &rc);
  check(rc, "clCreateKernel");
  for (int i = 0; i < 2000; ++i) enqueue(g_cl.qa);  // warm up (and compile the work-group function)
  clFinish(g_cl.qa);
  return true;
}

void teardown() {
  clFinish(g_cl.qa);
  clFinish(g_cl.qb);
  clReleaseKernel(g_cl.kernel);
  clReleaseProgram(g_cl.program);
  clReleaseCommandQueue(g_cl.qa);
  clReleaseCommandQueue(g_cl.qb);
  clReleaseContext(g_cl.ctx);
  g_cl = Cl{};
}

void BM_HostCost(benchmark::State& state) {
  measure_host_cost(
      state, kPeerHostBatch, [] { enqueue(g_cl.qa); }, [] { clFinish(g_cl.qa); });
}

// The first kernel waits on a user event; the queue is in order, so everything after it waits too.
void BM_HostCostHeld(benchmark::State& state) {
  cl_event gate = nullptr;
  measure_host_cost_held(
      state, kPeerHostBatch,
      [&] {
        cl_int rc = 0;
        gate = clCreateUserEvent(g_cl.ctx, &rc);
        check(rc, "clCreateUserEvent");
        enqueue(g_cl.qa, 1, &gate);
      },
      [] { enqueue(g_cl.qa); },
      [&] {
        check(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
        clFinish(g_cl.qa);
        clReleaseEvent(gate);
      });
}

void BM_HostCostDraining(benchmark::State& state) {
  measure_host_cost(
      state, kPeerDrainBatch, [] { enqueue(g_cl.qa); }, [] { clFinish(g_cl.qa); });
}

void BM_Throughput(benchmark::State& state) {
  measure_throughput(
      state, kPeerThroughputTasks, [] { enqueue(g_cl.qa); }, [] { clFinish(g_cl.qa); });
}

void BM_RoundTrip(benchmark::State& state) {
  measure_latency(state, [] {
    enqueue(g_cl.qa);
    clFinish(g_cl.qa);
  });
}

void BM_CrossStream(benchmark::State& state) {
  std::vector<cl_event> events;  // released after the timing
  measure_latency(state, [&] {
    cl_event ev = nullptr;
    enqueue(g_cl.qa, 0, nullptr, &ev);
    clFlush(g_cl.qa);
    enqueue(g_cl.qb, 1, &ev);
    clFinish(g_cl.qb);
    events.push_back(ev);
  });
  for (cl_event ev : events) clReleaseEvent(ev);
  clFinish(g_cl.qa);
}

void register_all() {
  benchmark::RegisterBenchmark("pocl/host_cost", BM_HostCost)->UseManualTime()->Iterations(20);
  benchmark::RegisterBenchmark("pocl/host_cost_held", BM_HostCostHeld)->UseManualTime()->Iterations(20);
  benchmark::RegisterBenchmark("pocl/host_cost_draining", BM_HostCostDraining)->UseManualTime()->Iterations(10);
  benchmark::RegisterBenchmark("pocl/throughput", BM_Throughput)
      ->UseManualTime()
      ->Iterations(3)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("pocl/round_trip", BM_RoundTrip)
      ->UseRealTime()
      ->Iterations(kPeerLatencyIters)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("pocl/cross_stream", BM_CrossStream)
      ->UseRealTime()
      ->Iterations(kPeerLatencyIters)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

Peer pocl_peer() {
  return {"pocl", &setup, &register_all, &teardown};
}

}  // namespace sched_bench
