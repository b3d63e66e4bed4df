// hccl_mp_bench: HCCL AllReduce across N processes on loopback (one rank and device each, through
// the collective plugin), nccl-tests style, beside the plugin's own allreduce on host memory called
// directly in the same run (arunCollectiveOps: Gloo's ring allreduce, without the device <-> host
// staging or the stream). Per size: time, algbw = bytes / time, busbw = algbw x 2(n-1)/n; times are
// medians over the iterations, HCCL's and the engine's operations alternating.
//
//   build/bin/hccl_mp_bench [ranks] [max_bytes] [iterations]     (starts the ranks itself)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "arun/collective.h"
#include "hccl/hccl.h"

namespace {

using Clock = std::chrono::steady_clock;

#define CHECK(expr)                                                          \
  do {                                                                       \
    if ((expr) != 0) {                                                       \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #expr); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

// Rank 0 writes `bytes` to `file` (whole, then renamed); the others wait for it.
void share(uint32_t rank, const std::string& file, void* data, size_t bytes) {
  if (rank == 0) {
    std::ofstream(file + ".tmp", std::ios::binary).write(static_cast<char*>(data), std::streamsize(bytes));
    CHECK(std::rename((file + ".tmp").c_str(), file.c_str()));
    return;
  }
  for (int i = 0; i < 3000; ++i) {
    std::ifstream in(file, std::ios::binary);
    if (in && in.read(static_cast<char*>(data), std::streamsize(bytes))) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::fprintf(stderr, "rank %u: nothing in %s\n", rank, file.c_str());
  std::exit(1);
}

int rank_main(uint32_t n, uint32_t rank, uint64_t max_bytes, int iters, const std::string& base) {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  HcclRootInfo root;
  if (rank == 0) CHECK(HcclGetRootInfo(&root));
  share(rank, base + ".root", root.internal, HCCL_ROOT_INFO_BYTES);
  HcclComm comm = nullptr;
  CHECK(HcclCommInitRootInfo(n, &root, rank, &comm));
  // The engine directly: a second communicator of the same plugin on host memory.
  const arunCollectiveOps* ops = nullptr;
  CHECK(arunGetCollectiveOps(&ops));
  uint32_t port = 0;
  arunCollServer server = nullptr;
  char err[512] = {};
  if (rank == 0) CHECK(ops->serve("127.0.0.1", 0, 0, &server, &port, err, sizeof err));
  share(rank, base + ".port", &port, sizeof port);
  const std::string session = base + "_direct";
  arunCollSpec spec{n, rank, "127.0.0.1", port, session.c_str(), "127.0.0.1", 60000, 60000};
  arunCollComm direct = nullptr;
  CHECK(ops->connect(&spec, &direct, err, sizeof err));
  if (server != nullptr) ops->close_server(server);

  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));
  void *send = nullptr, *recv = nullptr;
  CHECK(aclrtMalloc(&send, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&recv, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemset(send, max_bytes, 0, max_bytes));
  std::vector<float> host(max_bytes / sizeof(float), 1.0f);
  if (rank == 0) {
    std::printf(
        "# hccl_mp_bench: %u processes on loopback (one rank, one device each), float32 sum, medians of %d alternating "
        "iterations\n",
        n, iters);
    std::printf("# engine: %s\n", ops->engine);
    std::printf("# %12s %12s %10s %10s %12s %10s %10s %8s\n", "size(B)", "hccl(us)", "algbw", "busbw", "engine(us)",
                "algbw", "busbw", "ratio");
  }
  // HCCL and the engine alternate, one operation each, and each reports its median: on a shared
  // machine the load drifts, and alternating exposes both to the same drift.
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (uint64_t bytes = 8;; bytes = std::min(bytes * 8, max_bytes)) {
    const uint64_t count = bytes / sizeof(float);
    // Warm-up: first touch of the buffers, the engine's segment buffers.
    CHECK(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(ops->allreduce(direct, host.data(), host.data(), count, ARUN_COLL_FLOAT32, ARUN_COLL_SUM, err, sizeof err));
    std::vector<double> hs, es;
    for (int i = 0; i < iters; ++i) {
      // HCCL on the stream (out of place, as training does), until every rank's stream is done.
      CHECK(ops->barrier(direct, err, sizeof err));
      auto t0 = Clock::now();
      CHECK(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
      CHECK(aclrtSynchronizeStream(stream));
      CHECK(ops->barrier(direct, err, sizeof err));
      hs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      // The engine's allreduce on host memory, in place.
      t0 = Clock::now();
      CHECK(ops->allreduce(direct, host.data(), host.data(), count, ARUN_COLL_FLOAT32, ARUN_COLL_SUM, err, sizeof err));
      CHECK(ops->barrier(direct, err, sizeof err));
      es.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double th = median(hs), te = median(es);
    if (rank == 0) {
      const double f = 2.0 * (n - 1) / n;
      const double ah = double(bytes) / th / 1e9, ae = double(bytes) / te / 1e9;
      std::printf("  %12llu %12.1f %10.3f %10.3f %12.1f %10.3f %10.3f %8.2f\n", (unsigned long long)bytes, th * 1e6, ah,
                  ah * f, te * 1e6, ae, ae * f, te / th);
      std::fflush(stdout);
    }
    if (bytes == max_bytes) break;
  }
  ops->destroy(direct);
  CHECK(HcclCommDestroy(comm));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtFree(send));
  CHECK(aclrtFree(recv));
  CHECK(aclrtResetDevice(0));
  aclFinalize();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? uint32_t(std::atoi(argv[1])) : 4;
  const uint64_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : (64ull << 20);
  const int iters = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::string base = "/tmp/hccl_mp_bench_" + std::to_string(::getpid());
  std::vector<pid_t> pids;
  for (uint32_t r = 0; r < n; ++r) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(rank_main(n, r, max_bytes, iters, base));
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  std::remove((base + ".root").c_str());
  std::remove((base + ".port").c_str());
  return failed == 0 ? 0 : 1;
}
