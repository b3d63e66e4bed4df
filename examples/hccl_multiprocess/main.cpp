// AllReduce across processes, one rank (and one device) per process, as CANN's multi-process HCCL
// samples do it: rank 0 creates the root info and hands it to the others out of band (here a
// file; MPI programs broadcast the 4108 bytes), every rank joins and enqueues the operation on a
// stream. Each rank contributes 0, 1, 2, ...; after the sum every rank holds N times that.
//
//   hccl_multiprocess RANK NRANKS ROOT_INFO_FILE      (start NRANKS processes; run.sh does)
//   hccl_multiprocess --rank-table FILE RANK          (every process reads the same rank table)
//
//   c++ -std=c++17 -I<prefix>/include main.cpp -L<prefix>/lib64 -Wl,-rpath,<prefix>/lib64 -lhccl -lascendcl
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
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
      return 1;                                                                                        \
    }                                                                                                  \
  } while (0)

#define HCCLCHECK(expr)                                                                                 \
  do {                                                                                                  \
    HcclResult ret_ = (expr);                                                                           \
    if (ret_ != HCCL_SUCCESS) {                                                                         \
      std::printf("hccl interface return err %s:%d, retcode: %d (%s)\n", __FILE__, __LINE__, int(ret_), \
                  HcclGetErrorString(ret_));                                                            \
      return 1;                                                                                         \
    }                                                                                                   \
  } while (0)

namespace {

constexpr uint64_t kCount = 8;

// Rank 0 writes the root info whole and renames it into place; the others wait for it.
bool share_root_info(uint32_t rank, const std::string& file, HcclRootInfo* root) {
  if (rank == 0) {
    const std::string tmp = file + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(root->internal, HCCL_ROOT_INFO_BYTES);
    return std::rename(tmp.c_str(), file.c_str()) == 0;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(file, std::ios::binary);
    if (in && in.read(root->internal, HCCL_ROOT_INFO_BYTES)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const bool table = argc == 4 && std::strcmp(argv[1], "--rank-table") == 0;
  if (argc != 4) {
    std::printf("usage: %s RANK NRANKS ROOT_INFO_FILE | --rank-table FILE RANK\n", argv[0]);
    return 2;
  }
  const uint32_t rank = static_cast<uint32_t>(std::atoi(table ? argv[3] : argv[1]));
  ACLCHECK(aclInit(nullptr));
  ACLCHECK(aclrtSetDevice(0));  // each process has devices of its own
  HcclComm comm = nullptr;
  if (table) {
    HCCLCHECK(HcclCommInitClusterInfo(argv[2], rank, &comm));
  } else {
    const uint32_t nranks = static_cast<uint32_t>(std::atoi(argv[2]));
    HcclRootInfo root;
    if (rank == 0) HCCLCHECK(HcclGetRootInfo(&root));
    if (!share_root_info(rank, argv[3], &root)) {
      std::printf("rank %u: no root info in %s\n", rank, argv[3]);
      return 1;
    }
    HCCLCHECK(HcclCommInitRootInfo(nranks, &root, rank, &comm));
  }
  uint32_t nranks = 0;
  HCCLCHECK(HcclGetRankSize(comm, &nranks));

  const size_t bytes = kCount * sizeof(float);
  void* send = nullptr;
  void* recv = nullptr;
  ACLCHECK(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  ACLCHECK(aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  std::vector<float> host(kCount);
  for (uint64_t i = 0; i < kCount; ++i) host[i] = static_cast<float>(i);
  ACLCHECK(aclrtMemcpy(send, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtStream stream = nullptr;
  ACLCHECK(aclrtCreateStream(&stream));
  HCCLCHECK(HcclAllReduce(send, recv, kCount, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
  ACLCHECK(aclrtSynchronizeStream(stream));
  ACLCHECK(aclrtMemcpy(host.data(), bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));

  // Ordered output, as the CANN samples do it: rank i waits i x 100 ms.
  std::this_thread::sleep_for(std::chrono::milliseconds(100 * rank));
  bool correct = true;
  std::printf("rankId: %u, output: [", rank);
  for (uint64_t i = 0; i < kCount; ++i) {
    std::printf(" %g", host[i]);
    correct = correct && host[i] == static_cast<float>(i * nranks);
  }
  std::printf(" ]\n");

  HCCLCHECK(HcclCommDestroy(comm));
  ACLCHECK(aclrtDestroyStream(stream));
  ACLCHECK(aclrtFree(send));
  ACLCHECK(aclrtFree(recv));
  ACLCHECK(aclrtResetDevice(0));
  ACLCHECK(aclFinalize());
  std::printf("rank %u: hccl multiprocess allreduce: %s\n", rank, correct ? "OK" : "WRONG");
  return correct ? 0 : 1;
}
