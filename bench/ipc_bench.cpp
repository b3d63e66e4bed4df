// arun_ipc_bench: copy bandwidth of device memory imported from another process
// (aclrtIpcMemImportByKey) against the same copies on memory of this process and a host memcpy of
// the same size, all in one run.
//
// The benchmark process starts a second copy of itself (`--export SIZE`: aclInit, aclrtMalloc,
// aclrtIpcMemGetExportKey without pid validation, print the key, wait for a byte on stdin), imports
// the key and runs, per size:
//   IpcCopy/H2D/{imported,local}   aclrtMemcpy host -> device
//   IpcCopy/D2H/{imported,local}   aclrtMemcpy device -> host
//   IpcCopy/D2D/{imported,local}   aclrtMemcpy device -> device (the other side local memory)
//   IpcCopy/memcpy                 std::memcpy between two host buffers
// bytes_per_second is the bandwidth. The simulated device copies through host mappings, so the
// imported buffer (a MAP_SHARED mapping of the exporter's memfd) should cost what local memory does.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace {

constexpr size_t kMaxBytes = size_t{64} << 20;

#define IPC_CHECK(expr)                                                                                 \
  do {                                                                                                  \
    const aclError rc_ = (expr);                                                                        \
    if (rc_ != ACL_SUCCESS) {                                                                           \
      std::fprintf(stderr, "%s failed: %d (%s)\n", #expr, static_cast<int>(rc_), aclGetRecentErrMsg()); \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

// The exporting process: holds the memory until the benchmark says it is done.
int export_main(size_t bytes) {
  IPC_CHECK(aclInit(nullptr));
  IPC_CHECK(aclrtSetDevice(0));
  void* dev = nullptr;
  IPC_CHECK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  IPC_CHECK(aclrtMemset(dev, bytes, 0x5a, bytes));
  char key[65] = {};
  IPC_CHECK(aclrtIpcMemGetExportKey(dev, bytes, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
  std::printf("%s\n", key);
  std::fflush(stdout);
  char done = 0;
  (void)!read(0, &done, 1);
  IPC_CHECK(aclrtFree(dev));
  IPC_CHECK(aclrtResetDevice(0));
  IPC_CHECK(aclFinalize());
  return 0;
}

struct Exporter {
  pid_t pid = -1;
  int to_child = -1;
  std::string key;
};

Exporter start_exporter(const char* self) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) std::exit(1);
  Exporter e;
  e.pid = fork();
  if (e.pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    const std::string size = std::to_string(kMaxBytes);
    execl(self, self, "--export", size.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  e.to_child = in[1];
  char buf[128] = {};
  size_t n = 0;
  while (n + 1 < sizeof buf) {
    const ssize_t r = read(out[0], buf + n, 1);
    if (r <= 0 || buf[n] == '\n') break;
    ++n;
  }
  buf[n] = 0;
  close(out[0]);
  e.key = buf;
  if (e.key.empty()) {
    std::fprintf(stderr, "the exporting process gave no key\n");
    std::exit(1);
  }
  return e;
}

void* g_imported = nullptr;
void* g_local = nullptr;
void* g_peer = nullptr;  // the other side of device-to-device copies
std::vector<char> g_host_a, g_host_b;

void BM_Copy(benchmark::State& state, aclrtMemcpyKind kind, bool imported) {
  const auto bytes = static_cast<size_t>(state.range(0));
  void* dev = imported ? g_imported : g_local;
  for (auto _ : state) {
    switch (kind) {
      case ACL_MEMCPY_HOST_TO_DEVICE:
        IPC_CHECK(aclrtMemcpy(dev, bytes, g_host_a.data(), bytes, kind));
        break;
      case ACL_MEMCPY_DEVICE_TO_HOST:
        IPC_CHECK(aclrtMemcpy(g_host_a.data(), bytes, dev, bytes, kind));
        break;
      default:
        IPC_CHECK(aclrtMemcpy(g_peer, bytes, dev, bytes, kind));
        break;
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

void BM_Memcpy(benchmark::State& state) {
  const auto bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    std::memcpy(g_host_b.data(), g_host_a.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

void register_all() {
  const struct {
    const char* name;
    aclrtMemcpyKind kind;
  } kinds[] = {
      {"H2D", ACL_MEMCPY_HOST_TO_DEVICE}, {"D2H", ACL_MEMCPY_DEVICE_TO_HOST}, {"D2D", ACL_MEMCPY_DEVICE_TO_DEVICE}};
  for (const auto& k : kinds) {
    for (bool imported : {true, false}) {
      const std::string name = std::string("IpcCopy/") + k.name + (imported ? "/imported" : "/local");
      benchmark::RegisterBenchmark(name.c_str(), BM_Copy, k.kind, imported)
          ->Arg(1 << 20)
          ->Arg(int64_t(kMaxBytes))
          ->UseRealTime();
    }
  }
  benchmark::RegisterBenchmark("IpcCopy/memcpy", BM_Memcpy)->Arg(1 << 20)->Arg(int64_t(kMaxBytes))->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--export") == 0) return export_main(std::strtoull(argv[2], nullptr, 0));
  // Before this process initialises the runtime: the exporter is a fresh process, not a fork of one.
  Exporter exporter = start_exporter("/proc/self/exe");
  IPC_CHECK(aclInit(nullptr));
  IPC_CHECK(aclrtSetDevice(0));
  IPC_CHECK(aclrtIpcMemImportByKey(&g_imported, exporter.key.c_str(), ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
  IPC_CHECK(aclrtMalloc(&g_local, kMaxBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  IPC_CHECK(aclrtMalloc(&g_peer, kMaxBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  g_host_a.assign(kMaxBytes, 1);
  g_host_b.assign(kMaxBytes, 2);
  // The import sees the exporter's bytes.
  IPC_CHECK(aclrtMemcpy(g_host_a.data(), 4096, g_imported, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  if (g_host_a[0] != 0x5a || g_host_a[4095] != 0x5a) {
    std::fprintf(stderr, "the imported memory does not hold the exporter's bytes\n");
    return 1;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  IPC_CHECK(aclrtIpcMemClose(exporter.key.c_str()));
  IPC_CHECK(aclrtFree(g_local));
  IPC_CHECK(aclrtFree(g_peer));
  IPC_CHECK(aclrtResetDevice(0));
  IPC_CHECK(aclFinalize());
  (void)!write(exporter.to_child, "x", 1);
  close(exporter.to_child);
  int status = 0;
  waitpid(exporter.pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
