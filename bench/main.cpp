// arun_bench: micro-benchmarks of ascend-run through the public C API on the default config.
// One aclInit per process; everything runs on device 0 from the main thread. See README.md.
#include <cstring>
#include <string>

#include "bench_common.hpp"

namespace bench {

namespace {
Globals g_globals;
}

Globals& g() {
  return g_globals;
}

void setup() {
  Globals& s = g_globals;
  BENCH_CHECK(aclrtCreateStream(&s.stream));
  BENCH_CHECK(aclrtCreateStream(&s.stream_b));
  BENCH_CHECK(aclrtCreateEvent(&s.event));
  BENCH_CHECK(aclrtMalloc(&s.dev_tiny, kTinyBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  BENCH_CHECK(aclrtMalloc(&s.dev_tiny_b, kTinyBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  BENCH_CHECK(aclrtMallocHost(&s.pinned_a, kMaxCopyBytes));
  BENCH_CHECK(aclrtMallocHost(&s.pinned_b, kMaxCopyBytes));
  BENCH_CHECK(aclrtMalloc(&s.dev_a, kMaxCopyBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  BENCH_CHECK(aclrtMalloc(&s.dev_b, kMaxCopyBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  s.host_a = std::aligned_alloc(4096, kMaxCopyBytes);
  s.host_b = std::aligned_alloc(4096, kMaxCopyBytes);
  if (s.host_a == nullptr || s.host_b == nullptr) {
    std::fprintf(stderr, "cannot allocate host buffers\n");
    std::exit(2);
  }

  // First touch of every page, host and (simulated) device, outside any measurement: the device
  // memory is an anonymous mapping whose pages fault in on first write.
  std::memset(s.pinned_a, 1, kMaxCopyBytes);
  std::memset(s.pinned_b, 2, kMaxCopyBytes);
  std::memset(s.host_a, 3, kMaxCopyBytes);
  std::memset(s.host_b, 4, kMaxCopyBytes);
  BENCH_CHECK(aclrtMemset(s.dev_a, kMaxCopyBytes, 5, kMaxCopyBytes));
  BENCH_CHECK(aclrtMemset(s.dev_b, kMaxCopyBytes, 6, kMaxCopyBytes));
  BENCH_CHECK(aclrtMemset(s.dev_tiny, kTinyBytes, 0, kTinyBytes));
  BENCH_CHECK(aclrtMemset(s.dev_tiny_b, kTinyBytes, 0, kTinyBytes));

  // Warm the paths the benchmarks use: every copy direction once at full size, and a burst of tiny
  // tasks and events on both streams, so that the first repetition does not pay for lazy set-up.
  BENCH_CHECK(aclrtMemcpyAsync(s.dev_a, kMaxCopyBytes, s.pinned_a, kMaxCopyBytes, ACL_MEMCPY_HOST_TO_DEVICE, s.stream));
  BENCH_CHECK(aclrtMemcpyAsync(s.dev_b, kMaxCopyBytes, s.dev_a, kMaxCopyBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s.stream));
  BENCH_CHECK(aclrtMemcpyAsync(s.pinned_b, kMaxCopyBytes, s.dev_b, kMaxCopyBytes, ACL_MEMCPY_DEVICE_TO_HOST, s.stream));
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  for (aclrtStream st : {s.stream, s.stream_b}) {
    void* tiny = st == s.stream ? s.dev_tiny : s.dev_tiny_b;
    for (int i = 0; i < 1000; ++i) {
      BENCH_CHECK(aclrtMemsetAsync(tiny, kTinyBytes, 0, kTinyBytes, st));
      BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, st));
    }
    BENCH_CHECK(aclrtRecordEvent(s.event, st));
    BENCH_CHECK(aclrtSynchronizeEvent(s.event));
    BENCH_CHECK(aclrtSynchronizeStream(st));
  }
}

void teardown() {
  Globals& s = g_globals;
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  BENCH_CHECK(aclrtSynchronizeStream(s.stream_b));
  BENCH_CHECK(aclrtFree(s.dev_tiny));
  BENCH_CHECK(aclrtFree(s.dev_tiny_b));
  BENCH_CHECK(aclrtFree(s.dev_a));
  BENCH_CHECK(aclrtFree(s.dev_b));
  BENCH_CHECK(aclrtFreeHost(s.pinned_a));
  BENCH_CHECK(aclrtFreeHost(s.pinned_b));
  std::free(s.host_a);
  std::free(s.host_b);
  BENCH_CHECK(aclrtDestroyEvent(s.event));
  BENCH_CHECK(aclrtDestroyStream(s.stream));
  BENCH_CHECK(aclrtDestroyStream(s.stream_b));
  s = Globals{};
}

}  // namespace bench

int main(int argc, char** argv) {
  // The copy table needs our console reporter; another --benchmark_format keeps Google's.
  bool console = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0 && std::strcmp(argv[i] + 19, "console") != 0)
      console = false;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  // The Enqueue benchmarks queue 10 000 tasks on one stream to measure the host cost alone: raise
  // the stream queue bound above that, or the enqueue loop would wait for the device. The default
  // policy otherwise; a policy given in ASCEND_RUN_SCHED is left alone (the API call would win).
  if (std::getenv("ASCEND_RUN_SCHED") == nullptr) BENCH_CHECK(arunSetSchedulerPolicy("priority:queue_depth=16384"));
  BENCH_CHECK(aclInit(nullptr));  // $ASCEND_RUN_CONFIG or the build tree's default config
  BENCH_CHECK(aclrtSetDevice(0));
  bench::setup();

  uint32_t devices = 0;
  BENCH_CHECK(aclrtGetDeviceCount(&devices));
  const char* soc = aclrtGetSocName();
  benchmark::AddCustomContext("arun_version", arunGetVersion());
  benchmark::AddCustomContext("arun_soc", soc != nullptr ? soc : "?");
  benchmark::AddCustomContext("arun_devices", std::to_string(devices));
  const char* cfg = std::getenv("ASCEND_RUN_CONFIG");
  benchmark::AddCustomContext("arun_config", cfg != nullptr ? cfg : "(default)");

  bench::CopyTable table;
  if (console) {
    benchmark::RunSpecifiedBenchmarks(&table);
    table.print();
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();

  bench::teardown();
  BENCH_CHECK(aclrtResetDevice(0));
  BENCH_CHECK(aclFinalize());
  return 0;
}
