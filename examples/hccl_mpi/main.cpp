// AllReduce across processes started by mpirun, as CANN's MPI samples do it: every process calls
// MPI_Init, rank 0 creates the root info and MPI_Bcast's its 4108 bytes, every rank joins with
// HcclCommInitRootInfo and enqueues the AllReduce on a stream. MPI only launches the processes and
// carries the root info; the data goes through HCCL. Rank r contributes i + r at index i, so after
// the sum every rank holds N*i + N(N-1)/2.
//
//   mpirun -n 3 ./hccl_mpi                       (root info through MPI_Bcast)
//   mpirun -n 2 ./hccl_mpi --rank-table FILE     (every rank reads the same rank table instead)
//
//   mpicxx -std=c++17 -I<prefix>/include main.cpp -L<prefix>/lib64 -Wl,-rpath,<prefix>/lib64 -lhccl -lascendcl
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define ACLCHECK(expr)                                                                                 \
  do {                                                                                                 \
    aclError ret_ = (expr);                                                                            \
    if (ret_ != ACL_SUCCESS) {                                                                         \
      std::printf("acl interface return err %s:%d, retcode: %d (%s)\n", __FILE__, __LINE__, int(ret_), \
                  aclGetRecentErrMsg());                                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
    }                                                                                                  \
  } while (0)

#define HCCLCHECK(expr)                                                                                 \
  do {                                                                                                  \
    HcclResult ret_ = (expr);                                                                           \
    if (ret_ != HCCL_SUCCESS) {                                                                         \
      std::printf("hccl interface return err %s:%d, retcode: %d (%s)\n", __FILE__, __LINE__, int(ret_), \
                  HcclGetErrorString(ret_));                                                            \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                     \
    }                                                                                                   \
  } while (0)

namespace {
constexpr uint64_t kCount = 8;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* table = (argc == 3 && std::strcmp(argv[1], "--rank-table") == 0) ? argv[2] : nullptr;

  ACLCHECK(aclInit(nullptr));
  uint32_t devices = 0;
  ACLCHECK(aclrtGetDeviceCount(&devices));
  // One process per device on a real server; here each process has a simulated NPU of its own.
  const int32_t device = devices > 0 ? rank % int32_t(devices) : 0;
  ACLCHECK(aclrtSetDevice(device));

  HcclComm comm = nullptr;
  if (table != nullptr) {
    HCCLCHECK(HcclCommInitClusterInfo(table, uint32_t(rank), &comm));
  } else {
    HcclRootInfo root;
    if (rank == 0) HCCLCHECK(HcclGetRootInfo(&root));
    MPI_Bcast(root.internal, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
    HCCLCHECK(HcclCommInitRootInfo(uint32_t(size), &root, uint32_t(rank), &comm));
  }

  const size_t bytes = kCount * sizeof(float);
  void* send = nullptr;
  void* recv = nullptr;
  ACLCHECK(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  ACLCHECK(aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_ONLY));
  std::vector<float> host(kCount);
  for (uint64_t i = 0; i < kCount; ++i) host[i] = float(i + uint64_t(rank));
  ACLCHECK(aclrtMemcpy(send, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  aclrtStream stream = nullptr;
  ACLCHECK(aclrtCreateStream(&stream));
  HCCLCHECK(HcclAllReduce(send, recv, kCount, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
  ACLCHECK(aclrtSynchronizeStream(stream));
  ACLCHECK(aclrtMemcpy(host.data(), bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST));

  bool correct = true;
  for (uint64_t i = 0; i < kCount; ++i)
    correct = correct && host[i] == float(uint64_t(size) * i + uint64_t(size) * (size - 1) / 2);
  // Ordered output: each rank prints in its turn between barriers.
  for (int r = 0; r < size; ++r) {
    if (r == rank) {
      std::printf("rankId: %d, device %d, output: [", rank, device);
      for (uint64_t i = 0; i < kCount; ++i) std::printf(" %g", host[i]);
      std::printf(" ] %s\n", correct ? "OK" : "WRONG");
      std::fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  HCCLCHECK(HcclCommDestroy(comm));
  ACLCHECK(aclrtDestroyStream(stream));
  ACLCHECK(aclrtFree(send));
  ACLCHECK(aclrtFree(recv));
  ACLCHECK(aclrtResetDevice(device));
  ACLCHECK(aclFinalize());
  int all = correct ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("hccl mpi allreduce, %d ranks: %s\n", size, every ? "OK" : "WRONG");
  MPI_Finalize();
  return every ? 0 : 1;
}
