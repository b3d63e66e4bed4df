// hccl_bench: HCCL AllReduce (and AllGather, ReduceScatter, AlltoAll) across the devices of one
// process, in the style of nccl-tests: per size, the time of one operation, algbw = bytes / time
// and busbw = algbw x the operation's bus factor (AllReduce 2(n-1)/n, the others (n-1)/n), beside
// the bandwidth of a device-local aclrtMemcpyAsync of the same size measured in the same run, and
// the floor: every rank making that copy at once.
//
//   ASCEND_RUN_CONFIG=build/tests/hccl/hccl8.toml build/bin/hccl_bench [max_bytes] [iterations] [ops] [min_bytes]
// ops: a comma-separated subset of allreduce,allgather,reducescatter,alltoall (default: all).
#include <barrier>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

namespace {

using Clock = std::chrono::steady_clock;

enum class Op { AllReduce, AllGather, ReduceScatter, AlltoAll };
const char* op_name(Op o) {
  switch (o) {
    case Op::AllReduce:
      return "AllReduce";
    case Op::AllGather:
      return "AllGather";
    case Op::ReduceScatter:
      return "ReduceScatter";
    default:
      return "AlltoAll";
  }
}

#define CHECK(expr)                                                          \
  do {                                                                       \
    if ((expr) != 0) {                                                       \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #expr); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

// Seconds per round of issue(r) on every rank's thread at once, after one warm-up round: each rank
// issues `iters` in a row and synchronizes; the round ends when the last rank is done.
template <class Issue>
double time_ranks(uint32_t n, std::vector<aclrtStream>& streams, int iters, Issue issue) {
  std::barrier sync(n);
  double seconds = 0;
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      CHECK(aclrtSetDevice(int32_t(r)));
      issue(r);  // warm-up
      CHECK(aclrtSynchronizeStream(streams[r]));
      sync.arrive_and_wait();
      const auto t0 = Clock::now();
      for (int i = 0; i < iters; ++i) issue(r);
      CHECK(aclrtSynchronizeStream(streams[r]));
      sync.arrive_and_wait();
      if (r == 0) seconds = std::chrono::duration<double>(Clock::now() - t0).count() / iters;
    });
  }
  for (auto& t : threads) t.join();
  return seconds;
}

// Seconds per operation of `op` on `bytes` (per-rank buffer).
double time_op(uint32_t n, std::vector<HcclComm>& comms, std::vector<aclrtStream>& streams, std::vector<void*>& send,
               std::vector<void*>& recv, Op op, uint64_t bytes, int iters) {
  const uint64_t count = bytes / sizeof(float);
  return time_ranks(n, streams, iters, [&](uint32_t r) {
    switch (op) {
      case Op::AllReduce:
        CHECK(HcclAllReduce(send[r], recv[r], count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[r], streams[r]));
        break;
      case Op::AllGather:
        CHECK(HcclAllGather(send[r], recv[r], count / n, HCCL_DATA_TYPE_FP32, comms[r], streams[r]));
        break;
      case Op::ReduceScatter:
        CHECK(
            HcclReduceScatter(send[r], recv[r], count / n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[r], streams[r]));
        break;
      case Op::AlltoAll:
        CHECK(HcclAlltoAll(send[r], count / n, HCCL_DATA_TYPE_FP32, recv[r], count / n, HCCL_DATA_TYPE_FP32, comms[r],
                           streams[r]));
        break;
    }
  });
}

// Seconds for every rank to copy `bytes` device-locally at once: the floor of an operation whose
// every rank must write `bytes` and read as many (AllReduce, AllGather, AlltoAll) when all ranks
// share one machine's memory and CPUs.
double time_parallel_memcpy(uint32_t n, std::vector<aclrtStream>& streams, std::vector<void*>& send,
                            std::vector<void*>& recv, uint64_t bytes, int iters) {
  return time_ranks(n, streams, iters, [&](uint32_t r) {
    CHECK(aclrtMemcpyAsync(recv[r], bytes, send[r], bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, streams[r]));
  });
}

double time_memcpy(void* dst, void* src, uint64_t bytes, aclrtStream s, int iters) {
  CHECK(aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  CHECK(aclrtSynchronizeStream(s));
  const auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) CHECK(aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  CHECK(aclrtSynchronizeStream(s));
  return std::chrono::duration<double>(Clock::now() - t0).count() / iters;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (64ull << 20);
  const int iters = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string only = argc > 3 ? argv[3] : "allreduce,allgather,reducescatter,alltoall";
  const uint64_t min_bytes = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 0;
  CHECK(aclInit(nullptr));
  uint32_t n = 0;
  CHECK(aclrtGetDeviceCount(&n));
  std::vector<HcclComm> comms(n);
  std::vector<int32_t> devices(n);
  for (uint32_t i = 0; i < n; ++i) devices[i] = int32_t(i);
  CHECK(aclrtSetDevice(0));
  CHECK(HcclCommInitAll(n, devices.data(), comms.data()));
  std::vector<aclrtStream> streams(n);
  std::vector<void*> send(n), recv(n);
  for (uint32_t r = 0; r < n; ++r) {
    CHECK(aclrtSetDevice(int32_t(r)));
    CHECK(aclrtCreateStream(&streams[r]));
    CHECK(aclrtMalloc(&send[r], max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&recv[r], max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(send[r], max_bytes, 0, max_bytes));
    CHECK(aclrtMemset(recv[r], max_bytes, 0, max_bytes));
  }
  CHECK(aclrtSetDevice(0));
  std::printf("# hccl_bench: %u ranks (threads, one device each), float32, %d iterations per size\n", n, iters);
  std::printf(
      "# floor: every rank copying the size at once on its own device (the traffic AllReduce, AllGather\n"
      "# and AlltoAll cannot avoid); floor/time = 1 is as fast as this machine's memory allows\n");
  std::printf("# %-13s %12s %10s %10s %10s %12s %8s %10s %10s\n", "op", "size(B)", "time(us)", "algbw", "busbw",
              "memcpy GB/s", "bus/mem", "floor(us)", "floor/time");
  for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::AlltoAll}) {
    std::string name = op_name(op);
    for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (only.find(name) == std::string::npos) continue;
    for (uint64_t bytes = 8 * n; bytes <= max_bytes; bytes *= 4) {
      if (bytes < min_bytes) continue;
      const uint64_t b = bytes / (4 * n) * (4 * n);  // whole float blocks per rank
      const double t = time_op(n, comms, streams, send, recv, op, b, iters);
      const double mt = time_memcpy(recv[0], send[0], b, streams[0], iters);
      const double algbw = double(b) / t / 1e9;
      const double factor = op == Op::AllReduce ? 2.0 * (n - 1) / n : double(n - 1) / n;
      const double mem = double(b) / mt / 1e9;
      const double floor = time_parallel_memcpy(n, streams, send, recv, b, iters);
      std::printf("  %-13s %12llu %10.1f %10.2f %10.2f %12.2f %8.2f %10.1f %10.2f\n", op_name(op),
                  (unsigned long long)b, t * 1e6, algbw, algbw * factor, mem, algbw * factor / mem, floor * 1e6,
                  floor / t);
    }
  }
  for (uint32_t r = 0; r < n; ++r) {
    CHECK(aclrtSetDevice(int32_t(r)));
    CHECK(HcclCommDestroy(comms[r]));
    CHECK(aclrtDestroyStream(streams[r]));
    CHECK(aclrtFree(send[r]));
    CHECK(aclrtFree(recv[r]));
  }
  aclFinalize();
  return 0;
}
