// AllReduce across every device of the process, as CANN's HCCL single-server samples do it: one
// thread per device, the root info created once and shared, the operation enqueued on a stream.
// Each rank contributes 0, 1, 2, ...; after the sum every rank holds N times that.
//
//   c++ -std=c++17 -I<prefix>/include main.cpp -L<prefix>/lib64 -Wl,-rpath,<prefix>/lib64 -lhccl -lascendcl
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define ACLCHECK(expr)                                                                                 \
  do {                                                                                                 \
    aclError ret_ = (expr);                                                                            \
    if (ret_ != ACL_SUCCESS) {                                                                         \
      std::printf("acl interface return err %s:%d, retcode: %d (%s)\n", __FILE__, __LINE__, int(ret_), \
                  aclGetRecentErrMsg());                                                               \
      return false;                                                                                    \
    }                                                                                                  \
  } while (0)

#define HCCLCHECK(expr)                                                                                 \
  do {                                                                                                  \
    HcclResult ret_ = (expr);                                                                           \
    if (ret_ != HCCL_SUCCESS) {                                                                         \
      std::printf("hccl interface return err %s:%d, retcode: %d (%s)\n", __FILE__, __LINE__, int(ret_), \
                  HcclGetErrorString(ret_));                                                            \
      return false;                                                                                     \
    }                                                                                                   \
  } while (0)

namespace {

constexpr uint64_t kCount = 8;
std::mutex print_mutex;

bool run_rank(uint32_t rank, uint32_t nranks, const HcclRootInfo* root, bool* correct) {
  ACLCHECK(aclrtSetDevice(static_cast<int32_t>(rank)));
  void* send = nullptr;
  void* recv = nullptr;
  const size_t bytes = kCount * sizeof(float);
  ACLCHECK(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  ACLCHECK(aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  std::vector<float> host(kCount);
  for (uint64_t i = 0; i < kCount; ++i) host[i] = static_cast<float>(i);
  ACLCHECK(aclrtMemcpy(send, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

  HcclComm comm = nullptr;
  HCCLCHECK(HcclCommInitRootInfo(nranks, root, rank, &comm));
  aclrtStream stream = nullptr;
  ACLCHECK(aclrtCreateStream(&stream));
  HCCLCHECK(HcclAllReduce(send, recv, kCount, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
  ACLCHECK(aclrtSynchronizeStream(stream));

  ACLCHECK(aclrtMemcpy(host.data(), bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  {
    std::lock_guard<std::mutex> lock(print_mutex);
    std::printf("rankId: %u, output: [", rank);
    for (float v : host) std::printf(" %g", v);
    std::printf(" ]\n");
  }
  *correct = true;
  for (uint64_t i = 0; i < kCount; ++i) *correct = *correct && host[i] == static_cast<float>(i * nranks);

  HCCLCHECK(HcclCommDestroy(comm));
  ACLCHECK(aclrtFree(send));
  ACLCHECK(aclrtFree(recv));
  ACLCHECK(aclrtDestroyStream(stream));
  return true;
}

}  // namespace

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS) return 1;
  uint32_t ndev = 0;
  if (aclrtGetDeviceCount(&ndev) != ACL_SUCCESS || ndev == 0) return 1;
  std::printf("Found %u NPU device(s) available\n", ndev);
  if (aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  // The root info travels to every rank; here the ranks are threads, so a pointer will do.
  void* root_mem = nullptr;
  if (aclrtMallocHost(&root_mem, sizeof(HcclRootInfo)) != ACL_SUCCESS) return 1;
  HcclRootInfo* root = static_cast<HcclRootInfo*>(root_mem);
  if (HcclGetRootInfo(root) != HCCL_SUCCESS) return 1;

  std::vector<std::thread> threads;
  std::vector<char> ok(ndev, 0), correct(ndev, 0);
  for (uint32_t r = 0; r < ndev; ++r) {
    threads.emplace_back([&, r] {
      bool c = false;
      ok[r] = run_rank(r, ndev, root, &c);
      correct[r] = c;
    });
  }
  for (auto& t : threads) t.join();
  aclrtFreeHost(root_mem);
  aclFinalize();
  for (uint32_t r = 0; r < ndev; ++r) {
    if (!ok[r] || !correct[r]) {
      std::printf("hccl allreduce: FAILED on rank %u\n", r);
      return 1;
    }
  }
  std::printf("hccl allreduce: OK\n");
  return 0;
}
