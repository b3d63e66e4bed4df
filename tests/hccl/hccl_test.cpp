// libhccl.so: every collective x data type x reduce op for 2, 3, 4 and 8 ranks (threads of one
// process, one simulated device each) against host references, in-place and out-of-place, odd and
// zero counts; argument errors; a missing rank, a late rank and mismatched ranks fail, not hang.
#include <gtest/gtest.h>
#include <cmath>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "hccl/hccl.h"

namespace {

class AclEnv : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override { aclFinalize(); }
};

// ---- host encodings of small integers, independent of the library's conversions --------------

// Exact for the normal values these tests use (small integers): sign, biased exponent, 10-bit fraction.
uint16_t to_fp16(double v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = m * 2^e, m in [0.5, 1)
  const auto fraction = static_cast<uint16_t>(std::lround((m * 2 - 1) * 1024));
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | fraction);
}
uint16_t to_bf16(double v) {
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16);
}

size_t size_of(HcclDataType t) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0:
      return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
      return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32:
      return 4;
    default:
      return 8;
  }
}

bool is_unsigned(HcclDataType t) {
  return t == HCCL_DATA_TYPE_UINT8 || t == HCCL_DATA_TYPE_UINT16 || t == HCCL_DATA_TYPE_UINT32 ||
         t == HCCL_DATA_TYPE_UINT64;
}

// Writes the small integer v as one element of type t.
void put(HcclDataType t, void* p, double v) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
      *static_cast<int8_t*>(p) = int8_t(v);
      break;
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0:
      *static_cast<uint8_t*>(p) = uint8_t(int64_t(v));
      break;
    case HCCL_DATA_TYPE_INT16:
      *static_cast<int16_t*>(p) = int16_t(v);
      break;
    case HCCL_DATA_TYPE_UINT16:
      *static_cast<uint16_t*>(p) = uint16_t(int64_t(v));
      break;
    case HCCL_DATA_TYPE_INT32:
      *static_cast<int32_t*>(p) = int32_t(v);
      break;
    case HCCL_DATA_TYPE_UINT32:
      *static_cast<uint32_t*>(p) = uint32_t(int64_t(v));
      break;
    case HCCL_DATA_TYPE_INT64:
      *static_cast<int64_t*>(p) = int64_t(v);
      break;
    case HCCL_DATA_TYPE_UINT64:
      *static_cast<uint64_t*>(p) = uint64_t(int64_t(v));
      break;
    case HCCL_DATA_TYPE_FP16:
      *static_cast<uint16_t*>(p) = to_fp16(v);
      break;
    case HCCL_DATA_TYPE_BFP16:
      *static_cast<uint16_t*>(p) = to_bf16(v);
      break;
    case HCCL_DATA_TYPE_FP32:
      *static_cast<float*>(p) = float(v);
      break;
    default:
      *static_cast<double*>(p) = v;
      break;
  }
}

// Input element i of rank r for a test with `salt`: small integers, exact in every type.
double input(HcclDataType t, HcclReduceOp op, uint32_t r, uint64_t i, int salt) {
  if (op == HCCL_REDUCE_PROD) {
    const int k = int((r + i + salt) % 4);
    return k == 0 ? 2.0 : (k == 3 && !is_unsigned(t) ? -1.0 : 1.0);
  }
  const double v = double(int((r * 7 + i * 3 + salt) % 11) - 5);
  return is_unsigned(t) ? v + 5 : v;
}

double combine(double a, double b, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM:
      return a + b;
    case HCCL_REDUCE_PROD:
      return a * b;
    case HCCL_REDUCE_MAX:
      return std::max(a, b);
    default:
      return std::min(a, b);
  }
}

double reduced(HcclDataType t, HcclReduceOp op, uint32_t n, uint64_t i, int salt) {
  double acc = input(t, op, 0, i, salt);
  for (uint32_t r = 1; r < n; ++r) acc = combine(acc, input(t, op, r, i, salt), op);
  return acc;
}

// Device buffer with a pinned host mirror; uploads and downloads are stream-ordered copies, so
// every case also checks that the collective waits for earlier work and later work waits for it.
struct Buf {
  size_t bytes = 0;
  void* dev = nullptr;
  void* host = nullptr;
  explicit Buf(size_t b) : bytes(std::max<size_t>(b, 1)) {
    EXPECT_EQ(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMallocHost(&host, bytes), ACL_SUCCESS);
    std::memset(host, 0x5a, bytes);
  }
  ~Buf() {
    aclrtFree(dev);
    aclrtFreeHost(host);
  }
  char* h() const { return static_cast<char*>(host); }
  char* d() const { return static_cast<char*>(dev); }
  void upload(aclrtStream s) {
    ASSERT_EQ(aclrtMemcpyAsync(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
  }
  void download(aclrtStream s) {
    ASSERT_EQ(aclrtMemcpyAsync(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
  }
};

struct Rank {
  uint32_t r = 0, n = 0;
  HcclComm comm = nullptr;
  aclrtStream stream = nullptr;
};

// Runs fn on n threads, one per device, each with a communicator and a stream of its own.
void run_ranks(uint32_t n, const std::function<void(Rank&)>& fn, const HcclCommConfig* config = nullptr) {
  HcclRootInfo root;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      Rank k;
      k.r = i;
      k.n = n;
      ASSERT_EQ(aclrtSetDevice(int32_t(i)), ACL_SUCCESS);
      if (config != nullptr) {
        ASSERT_EQ(HcclCommInitRootInfoConfig(n, &root, i, config, &k.comm), HCCL_SUCCESS);
      } else {
        ASSERT_EQ(HcclCommInitRootInfo(n, &root, i, &k.comm), HCCL_SUCCESS);
      }
      ASSERT_EQ(aclrtCreateStream(&k.stream), ACL_SUCCESS);
      fn(k);
      EXPECT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
      EXPECT_EQ(HcclCommDestroy(k.comm), HCCL_SUCCESS);
      EXPECT_EQ(aclrtDestroyStream(k.stream), ACL_SUCCESS);
    });
  }
  for (auto& t : threads) t.join();
}

const std::vector<HcclDataType> kReduceTypes = {HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,
                                                HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_FP16,
                                                HCCL_DATA_TYPE_FP32,  HCCL_DATA_TYPE_FP64,   HCCL_DATA_TYPE_BFP16};
const std::vector<HcclDataType> kMoveTypes = {
    HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_INT16,   HCCL_DATA_TYPE_INT32,   HCCL_DATA_TYPE_INT64,
    HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_UINT16,  HCCL_DATA_TYPE_UINT32,  HCCL_DATA_TYPE_UINT64,
    HCCL_DATA_TYPE_FP16,  HCCL_DATA_TYPE_FP32,    HCCL_DATA_TYPE_FP64,    HCCL_DATA_TYPE_BFP16,
    HCCL_DATA_TYPE_HIF8,  HCCL_DATA_TYPE_FP8E4M3, HCCL_DATA_TYPE_FP8E5M2, HCCL_DATA_TYPE_FP8E8M0};
const std::vector<HcclReduceOp> kOps = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};

bool op_allowed(HcclDataType t, HcclReduceOp op) {
  return !(op == HCCL_REDUCE_PROD && (t == HCCL_DATA_TYPE_INT16 || t == HCCL_DATA_TYPE_BFP16));
}

// Element i of `got` equals v encoded as t.
::testing::AssertionResult elem_is(HcclDataType t, const char* got, uint64_t i, double v) {
  const size_t es = size_of(t);
  char want[8];
  put(t, want, v);
  if (std::memcmp(got + i * es, want, es) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "element " << i << " of type " << int(t) << " is not " << v;
}

// Checks a whole range, reporting only the first mismatch.
template <class F>
void expect_range(HcclDataType t, const char* got, uint64_t first, uint64_t count, F want, const char* what) {
  for (uint64_t i = 0; i < count; ++i) {
    auto ok = elem_is(t, got, first + i, want(i));
    if (!ok) {
      ADD_FAILURE() << what << ": " << ok.message();
      return;
    }
  }
}

void all_reduce_case(Rank& k, HcclDataType t, HcclReduceOp op, uint64_t count, bool in_place, int salt) {
  const size_t es = size_of(t);
  Buf send(count * es), recv(count * es);
  for (uint64_t i = 0; i < count; ++i) put(t, send.h() + i * es, input(t, op, k.r, i, salt));
  send.upload(k.stream);
  void* out = in_place ? send.dev : recv.dev;
  ASSERT_EQ(HcclAllReduce(send.dev, out, count, t, op, k.comm, k.stream), HCCL_SUCCESS);
  (in_place ? send : recv).download(k.stream);
  ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
  expect_range(
      t, (in_place ? send : recv).h(), 0, count, [&](uint64_t i) { return reduced(t, op, k.n, i, salt); }, "AllReduce");
}

// AlltoAll tests: the value rank s sends rank d as element i.
double a2a_value(uint32_t s, uint32_t d, uint64_t i) {
  return double((s * 13 + d * 5 + i) % 97);
}

// AlltoAll with blocks of c elements of type t, checked on this rank.
void alltoall_case(Rank& k, HcclDataType t, uint64_t c) {
  const size_t es = size_of(t);
  Buf send(c * k.n * es), recv(c * k.n * es);
  for (uint32_t d = 0; d < k.n; ++d)
    for (uint64_t i = 0; i < c; ++i) put(t, send.h() + (d * c + i) * es, a2a_value(k.r, d, i));
  send.upload(k.stream);
  ASSERT_EQ(HcclAlltoAll(send.dev, c, t, recv.dev, c, t, k.comm, k.stream), HCCL_SUCCESS);
  recv.download(k.stream);
  ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
  for (uint32_t s = 0; s < k.n; ++s)
    expect_range(
        t, recv.h(), s * c, c, [&](uint64_t i) { return a2a_value(s, k.r, i); }, "AlltoAll");
}

// AlltoAllVC with the n x n matrix M (M[s * n + d]: elements rank s sends rank d), packed buffers.
void alltoallvc_case(Rank& k, HcclDataType t, const std::vector<uint64_t>& M) {
  const uint32_t n = k.n;
  const size_t es = size_of(t);
  uint64_t st = 0, rt = 0;
  for (uint32_t j = 0; j < n; ++j) {
    st += M[k.r * n + j];
    rt += M[j * n + k.r];
  }
  Buf send(st * es), recv(rt * es);
  uint64_t o = 0;
  for (uint32_t d = 0; d < n; ++d)
    for (uint64_t i = 0; i < M[k.r * n + d]; ++i) put(t, send.h() + (o++) * es, a2a_value(k.r, d, i));
  send.upload(k.stream);
  ASSERT_EQ(HcclAlltoAllVC(send.dev, M.data(), t, recv.dev, t, k.comm, k.stream), HCCL_SUCCESS);
  recv.download(k.stream);
  ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
  o = 0;
  for (uint32_t s = 0; s < n; ++s) {
    expect_range(
        t, recv.h(), o, M[s * n + k.r], [&](uint64_t i) { return a2a_value(s, k.r, i); }, "AlltoAllVC");
    o += M[s * n + k.r];
  }
}

class Ranks : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Ranks, AllReduceEveryTypeAndOp) {
  run_ranks(GetParam(), [](Rank& k) {
    int salt = 0;
    for (HcclDataType t : kReduceTypes)
      for (HcclReduceOp op : kOps)
        if (op_allowed(t, op)) {
          all_reduce_case(k, t, op, 37, false, ++salt);
          all_reduce_case(k, t, op, 1, true, ++salt);
        }
  });
}

TEST_P(Ranks, AllReduceRingAcrossSlices) {
  // 1 MiB staging (HCCL_BUFFSIZE=1): 300001 floats take two slices and the ring algorithm.
  run_ranks(GetParam(), [](Rank& k) {
    all_reduce_case(k, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 300001, false, 3);
    all_reduce_case(k, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_MAX, 1048583, true, 4);
  });
}

TEST_P(Ranks, AllReduceRingOnRequest) {
  // HCCL_ALGO / hcclAlgo naming the ring keeps the ring algorithm above the small-message size
  // (the default there is the full mesh); two slices of the 1 MiB staging.
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  std::snprintf(config.hcclAlgo, sizeof config.hcclAlgo, "level0:ring");
  run_ranks(
      GetParam(),
      [](Rank& k) {
        all_reduce_case(k, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 300001, false, 5);
        all_reduce_case(k, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MAX, 700001, true, 6);
      },
      &config);
}

TEST_P(Ranks, ReduceScatterAndAlltoAllAcrossSlices) {
  // Blocks larger than a scratch slot (1 MiB staging / (n-1)) take several push slices.
  run_ranks(GetParam(), [](Rank& k) {
    const uint32_t n = k.n;
    const size_t es = sizeof(float);
    for (bool in_place : {false, true}) {
      const uint64_t rc = 300007;
      Buf send(rc * n * es), recv(rc * es);
      for (uint64_t i = 0; i < rc * n; ++i)
        put(HCCL_DATA_TYPE_FP32, send.h() + i * es, input(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k.r, i, 9));
      send.upload(k.stream);
      void* out = in_place ? send.d() + k.r * rc * es : recv.dev;
      ASSERT_EQ(HcclReduceScatter(send.dev, out, rc, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k.comm, k.stream),
                HCCL_SUCCESS);
      (in_place ? send : recv).download(k.stream);
      ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
      const char* got = in_place ? send.h() + k.r * rc * es : recv.h();
      expect_range(
          HCCL_DATA_TYPE_FP32, got, 0, rc,
          [&](uint64_t i) { return reduced(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, n, k.r * rc + i, 9); },
          "ReduceScatter");
    }
    alltoall_case(k, HCCL_DATA_TYPE_FP32, 200003);
    // AlltoAllVC, blocks of very different sizes (some empty, some across slices).
    std::vector<uint64_t> M(size_t(n) * n);
    for (uint32_t s = 0; s < n; ++s)
      for (uint32_t d = 0; d < n; ++d) M[s * n + d] = ((s + d) % 3) * 150001;
    alltoallvc_case(k, HCCL_DATA_TYPE_FP32, M);
  });
}

TEST_P(Ranks, ReduceEveryTypeAndOp) {
  run_ranks(GetParam(), [](Rank& k) {
    int salt = 0;
    const uint32_t root = k.n - 1;
    for (HcclDataType t : kReduceTypes)
      for (HcclReduceOp op : kOps) {
        if (!op_allowed(t, op)) continue;
        ++salt;
        const size_t es = size_of(t);
        const uint64_t count = 29;
        Buf send(count * es), recv(count * es);
        for (uint64_t i = 0; i < count; ++i) put(t, send.h() + i * es, input(t, op, k.r, i, salt));
        send.upload(k.stream);
        recv.upload(k.stream);  // 0x5a filler: non-root ranks must keep it
        ASSERT_EQ(HcclReduce(send.dev, recv.dev, count, t, op, root, k.comm, k.stream), HCCL_SUCCESS);
        recv.download(k.stream);
        ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        if (k.r == root) {
          expect_range(
              t, recv.h(), 0, count, [&](uint64_t i) { return reduced(t, op, k.n, i, salt); }, "Reduce");
        } else {
          for (uint64_t i = 0; i < count * es; ++i) ASSERT_EQ(uint8_t(recv.h()[i]), 0x5a) << "non-root recvBuf written";
        }
      }
  });
}

TEST_P(Ranks, ReduceScatterEveryTypeAndOp) {
  run_ranks(GetParam(), [](Rank& k) {
    int salt = 0;
    for (HcclDataType t : kReduceTypes)
      for (HcclReduceOp op : kOps) {
        if (!op_allowed(t, op)) continue;
        for (bool in_place : {false, true}) {
          ++salt;
          const size_t es = size_of(t);
          const uint64_t rc = 13;
          Buf send(rc * k.n * es), recv(rc * es);
          for (uint64_t i = 0; i < rc * k.n; ++i) put(t, send.h() + i * es, input(t, op, k.r, i, salt));
          send.upload(k.stream);
          void* out = in_place ? send.d() + k.r * rc * es : recv.dev;
          ASSERT_EQ(HcclReduceScatter(send.dev, out, rc, t, op, k.comm, k.stream), HCCL_SUCCESS);
          (in_place ? send : recv).download(k.stream);
          ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
          const char* got = in_place ? send.h() + k.r * rc * es : recv.h();
          expect_range(
              t, got, 0, rc, [&](uint64_t i) { return reduced(t, op, k.n, k.r * rc + i, salt); }, "ReduceScatter");
        }
      }
  });
}

TEST_P(Ranks, ReduceScatterVUnevenBlocks) {
  run_ranks(GetParam(), [](Rank& k) {
    int salt = 50;
    for (HcclDataType t : {HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_BFP16})
      for (HcclReduceOp op : {HCCL_REDUCE_SUM, HCCL_REDUCE_MIN}) {
        ++salt;
        const size_t es = size_of(t);
        std::vector<uint64_t> counts(k.n), displs(k.n);
        uint64_t off = 0;
        for (uint32_t i = 0; i < k.n; ++i) {
          counts[i] = (i % 3 == 1) ? 0 : 5 + 3 * i;  // some ranks receive nothing
          displs[i] = off + 2;                       // gaps between blocks
          off = displs[i] + counts[i];
        }
        Buf send(off * es), recv(counts[k.r] * es);
        for (uint64_t i = 0; i < off; ++i) put(t, send.h() + i * es, input(t, op, k.r, i, salt));
        send.upload(k.stream);
        ASSERT_EQ(HcclReduceScatterV(send.dev, counts.data(), displs.data(), counts[k.r] ? recv.dev : nullptr,
                                     counts[k.r], t, op, k.comm, k.stream),
                  HCCL_SUCCESS);
        recv.download(k.stream);
        ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        expect_range(
            t, recv.h(), 0, counts[k.r], [&](uint64_t i) { return reduced(t, op, k.n, displs[k.r] + i, salt); },
            "ReduceScatterV");
      }
  });
}

// Data movement: element i of rank r's contribution.
double mv(HcclDataType t, uint32_t r, uint64_t i) {
  return double((r * 31 + i * 7) % 100);
}

TEST_P(Ranks, BroadcastEveryType) {
  run_ranks(GetParam(), [](Rank& k) {
    const uint32_t root = 1 % k.n;
    for (HcclDataType t : kMoveTypes) {
      for (uint64_t count : {uint64_t(37), uint64_t(600001)}) {
        if (count > 37 && t != HCCL_DATA_TYPE_UINT16) continue;  // one type crosses slices
        const size_t es = size_of(t);
        Buf buf(count * es);
        for (uint64_t i = 0; i < count; ++i) put(t, buf.h() + i * es, k.r == root ? mv(t, root, i) : 0);
        buf.upload(k.stream);
        ASSERT_EQ(HcclBroadcast(buf.dev, count, t, root, k.comm, k.stream), HCCL_SUCCESS);
        buf.download(k.stream);
        ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        expect_range(
            t, buf.h(), 0, count, [&](uint64_t i) { return mv(t, root, i); }, "Broadcast");
      }
    }
  });
}

TEST_P(Ranks, AllGatherEveryTypeInAndOutOfPlace) {
  run_ranks(GetParam(), [](Rank& k) {
    for (HcclDataType t : kMoveTypes)
      for (bool in_place : {false, true}) {
        const size_t es = size_of(t);
        const uint64_t c = 11;
        Buf send(c * es), recv(c * k.n * es);
        for (uint64_t i = 0; i < c; ++i)
          put(t, (in_place ? recv.h() + k.r * c * es : send.h()) + i * es, mv(t, k.r, i));
        (in_place ? recv : send).upload(k.stream);
        void* in = in_place ? recv.d() + k.r * c * es : send.dev;
        ASSERT_EQ(HcclAllGather(in, recv.dev, c, t, k.comm, k.stream), HCCL_SUCCESS);
        recv.download(k.stream);
        ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        for (uint32_t q = 0; q < k.n; ++q)
          expect_range(
              t, recv.h(), q * c, c, [&](uint64_t i) { return mv(t, q, i); }, "AllGather");
      }
  });
}

TEST_P(Ranks, AllGatherVWithGapsAndEmptyRanks) {
  run_ranks(GetParam(), [](Rank& k) {
    for (HcclDataType t : {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_UINT64}) {
      const size_t es = size_of(t);
      std::vector<uint64_t> counts(k.n), displs(k.n);
      uint64_t end = 0;
      for (uint32_t i = 0; i < k.n; ++i) {
        counts[i] = i == 0 ? 0 : 2 * i + 1;
        displs[i] = end + 1;
        end = displs[i] + counts[i];
      }
      Buf send(counts[k.r] * es), recv(end * es);
      for (uint64_t i = 0; i < counts[k.r]; ++i) put(t, send.h() + i * es, mv(t, k.r, i));
      send.upload(k.stream);
      ASSERT_EQ(HcclAllGatherV(counts[k.r] ? send.dev : nullptr, counts[k.r], recv.dev, counts.data(), displs.data(), t,
                               k.comm, k.stream),
                HCCL_SUCCESS);
      recv.download(k.stream);
      ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
      for (uint32_t q = 0; q < k.n; ++q)
        expect_range(
            t, recv.h(), displs[q], counts[q], [&](uint64_t i) { return mv(t, q, i); }, "AllGatherV");
    }
  });
}

TEST_P(Ranks, ScatterEveryType) {
  run_ranks(GetParam(), [](Rank& k) {
    const uint32_t root = k.n / 2;
    for (HcclDataType t : kMoveTypes) {
      const size_t es = size_of(t);
      const uint64_t c = 9;
      Buf send(c * k.n * es), recv(c * es);
      for (uint64_t i = 0; i < c * k.n; ++i) put(t, send.h() + i * es, mv(t, root, i));
      send.upload(k.stream);
      ASSERT_EQ(HcclScatter(k.r == root ? send.dev : nullptr, recv.dev, c, t, root, k.comm, k.stream), HCCL_SUCCESS);
      recv.download(k.stream);
      ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
      expect_range(
          t, recv.h(), 0, c, [&](uint64_t i) { return mv(t, root, k.r * c + i); }, "Scatter");
    }
  });
}

TEST_P(Ranks, AlltoAllFamily) {
  run_ranks(GetParam(), [](Rank& k) {
    const uint32_t n = k.n;
    for (HcclDataType t : {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_BFP16, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_UINT64}) {
      const size_t es = size_of(t);
      alltoall_case(k, t, 5);
      // counts rank s sends to rank d
      auto cnt = [&](uint32_t s, uint32_t d) { return uint64_t((s + 2 * d) % 4); };
      {  // AlltoAllV, displacements with gaps
        std::vector<uint64_t> sc(n), sd(n), rc(n), rd(n);
        uint64_t so = 0, ro = 0;
        for (uint32_t j = 0; j < n; ++j) {
          sc[j] = cnt(k.r, j);
          sd[j] = so + 1;
          so = sd[j] + sc[j];
          rc[j] = cnt(j, k.r);
          rd[j] = ro + 2;
          ro = rd[j] + rc[j];
        }
        Buf send(so * es), recv(ro * es);
        for (uint32_t d = 0; d < n; ++d)
          for (uint64_t i = 0; i < sc[d]; ++i) put(t, send.h() + (sd[d] + i) * es, a2a_value(k.r, d, i));
        send.upload(k.stream);
        ASSERT_EQ(HcclAlltoAllV(send.dev, sc.data(), sd.data(), t, recv.dev, rc.data(), rd.data(), t, k.comm, k.stream),
                  HCCL_SUCCESS);
        recv.download(k.stream);
        ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        for (uint32_t s = 0; s < n; ++s)
          expect_range(
              t, recv.h(), rd[s], rc[s], [&](uint64_t i) { return a2a_value(s, k.r, i); }, "AlltoAllV");
      }
      // AlltoAllVC: one global matrix, packed buffers.
      std::vector<uint64_t> M(size_t(n) * n);
      for (uint32_t s = 0; s < n; ++s)
        for (uint32_t d = 0; d < n; ++d) M[s * n + d] = cnt(s, d) + 1;
      alltoallvc_case(k, t, M);
    }
  });
}

TEST_P(Ranks, SendRecvAndBatchRing) {
  run_ranks(GetParam(), [](Rank& k) {
    const uint32_t n = k.n;
    for (HcclDataType t : {HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_INT64}) {
      const size_t es = size_of(t);
      const uint64_t c = 1001;
      // Pairs (0,1), (2,3), ...: even ranks send, odd ranks receive; a lone last rank sits out.
      Buf a(c * es), b(c * es);
      for (uint64_t i = 0; i < c; ++i) put(t, a.h() + i * es, mv(t, k.r, i));
      a.upload(k.stream);
      if (k.r % 2 == 0 && k.r + 1 < n) {
        ASSERT_EQ(HcclSend(a.dev, c, t, k.r + 1, k.comm, k.stream), HCCL_SUCCESS);
      } else if (k.r % 2 == 1) {
        ASSERT_EQ(HcclRecv(b.dev, c, t, k.r - 1, k.comm, k.stream), HCCL_SUCCESS);
      }
      b.download(k.stream);
      ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
      if (k.r % 2 == 1)
        expect_range(
            t, b.h(), 0, c, [&](uint64_t i) { return mv(t, k.r - 1, i); }, "Send/Recv");
      // Ring exchange as one batch: send to r+1, receive from r-1 (would deadlock as Send then Recv).
      HcclSendRecvItem items[2] = {{HCCL_SEND, a.dev, c, t, (k.r + 1) % n},
                                   {HCCL_RECV, b.dev, c, t, (k.r + n - 1) % n}};
      ASSERT_EQ(HcclBatchSendRecv(items, 2, k.comm, k.stream), HCCL_SUCCESS);
      b.download(k.stream);
      ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
      expect_range(
          t, b.h(), 0, c, [&](uint64_t i) { return mv(t, (k.r + n - 1) % n, i); }, "BatchSendRecv");
    }
  });
}

TEST_P(Ranks, BarrierOrdersStreams) {
  // Rank 0 writes a host flag in a host function before the barrier; every other rank's work
  // after the barrier must observe it.
  static std::atomic<int> flag;
  flag = 0;
  run_ranks(GetParam(), [](Rank& k) {
    if (k.r == 0) {
      ASSERT_EQ(aclrtLaunchHostFunc(
                    k.stream,
                    [](void*) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(30));
                      flag = 1;
                    },
                    nullptr),
                ACL_SUCCESS);
    }
    ASSERT_EQ(HcclBarrier(k.comm, k.stream), HCCL_SUCCESS);
    ASSERT_EQ(
        aclrtLaunchHostFunc(
            k.stream, [](void*) { EXPECT_EQ(flag.load(), 1) << "work after the barrier ran too early"; }, nullptr),
        ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
    HcclResult err = HCCL_E_INTERNAL;
    EXPECT_EQ(HcclGetCommAsyncError(k.comm, &err), HCCL_SUCCESS);
    EXPECT_EQ(err, HCCL_SUCCESS);
  });
}

INSTANTIATE_TEST_SUITE_P(N, Ranks, ::testing::Values(2u, 3u, 4u, 8u),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

// ---- communicator management -----------------------------------------------------------------

TEST(Comm, QueriesNamesAndConfig) {
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  std::strcpy(config.hcclCommName, "my_world");
  config.hcclBufferSize = 2;
  run_ranks(
      2,
      [](Rank& k) {
        uint32_t v = 99;
        EXPECT_EQ(HcclGetRankSize(k.comm, &v), HCCL_SUCCESS);
        EXPECT_EQ(v, 2u);
        EXPECT_EQ(HcclGetRankId(k.comm, &v), HCCL_SUCCESS);
        EXPECT_EQ(v, k.r);
        char name[COMM_NAME_MAX_LENGTH];
        EXPECT_EQ(HcclGetCommName(k.comm, name), HCCL_SUCCESS);
        EXPECT_STREQ(name, "my_world");
        HcclComm found = nullptr;
        EXPECT_EQ(HcclCommGetHandleWithName("my_world", &found), HCCL_SUCCESS);
        EXPECT_EQ(found, k.comm);
        EXPECT_EQ(HcclCommGetHandleWithName("nope", &found), HCCL_E_PARA);
        HcclCommStatus st = HCCL_COMM_STATUS_INVALID;
        EXPECT_EQ(HcclCommGetStatus("my_world", &st), HCCL_SUCCESS);
        EXPECT_EQ(st, HCCL_COMM_STATUS_READY);
        char algo[HCCL_COMM_ALGO_MAX_LENGTH];
        EXPECT_EQ(HcclConfigGetInfo(k.comm, HCCL_CONFIG_TYPE_HCCL_ALGO, sizeof algo, algo), HCCL_SUCCESS);
        EXPECT_EQ(HcclConfigGetInfo(k.comm, HCCL_CONFIG_TYPE_HCCL_ALGO, 10, algo), HCCL_E_PARA);
        HcclConfigTypeOpExpansionMode mode;
        EXPECT_EQ(HcclConfigGetInfo(k.comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, sizeof mode, &mode), HCCL_SUCCESS);
        EXPECT_EQ(HcclGetRankSize(nullptr, &v), HCCL_E_PTR);
        EXPECT_EQ(HcclGetRankId(k.comm, nullptr), HCCL_E_PTR);
        all_reduce_case(k, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 1000, false, 1);
      },
      &config);
  EXPECT_EQ(HcclGetCommConfigCapability(), uint32_t(HCCL_COMM_CONFIG_RESERVED));
}

TEST(Comm, ErrorStrings) {
  EXPECT_STREQ(HcclGetErrorString(HCCL_SUCCESS), "no error");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_PARA), "parameter error");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_OOM), "out of memory");
  EXPECT_STREQ(HcclGetErrorString(HcclResult(25)), "unknown err");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_IN_STATUS), "unknown err");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_RESERVED), "unknown error");
  EXPECT_STREQ(HcclGetErrorString(HcclResult(-1)), "unknown error");
}

TEST(Comm, ProcessWideDeterministicSetting) {
  HcclConfigValue v;
  v.value = 3;
  EXPECT_EQ(HcclSetConfig(HCCL_DETERMINISTIC, v), HCCL_E_PARA);
  v.value = 1;
  EXPECT_EQ(HcclSetConfig(HCCL_DETERMINISTIC, v), HCCL_SUCCESS);
  HcclConfigValue got;
  got.value = -7;
  EXPECT_EQ(HcclGetConfig(HCCL_DETERMINISTIC, &got), HCCL_SUCCESS);
  EXPECT_EQ(got.value, 1);
  EXPECT_EQ(HcclSetConfig(HCCL_CONFIG_RESERVED, v), HCCL_SUCCESS);  // other settings: no-op
  EXPECT_EQ(HcclGetConfig(HCCL_DETERMINISTIC, nullptr), HCCL_E_PTR);
  v.value = 0;
  EXPECT_EQ(HcclSetConfig(HCCL_DETERMINISTIC, v), HCCL_SUCCESS);
}

TEST(Comm, UnsupportedFeaturesCheckArgumentsFirst) {
  run_ranks(2, [](Rank& k) {
    int x = 0;
    void* p = &x;
    uint32_t ranks[1] = {5};
    bool backup[1] = {false};
    EXPECT_EQ(HcclCommWorkingDevNicSet(k.comm, nullptr, backup, 1), HCCL_E_PTR);
    EXPECT_EQ(HcclCommWorkingDevNicSet(k.comm, ranks, backup, 1), HCCL_E_PARA);
    ranks[0] = 1;
    EXPECT_EQ(HcclCommWorkingDevNicSet(k.comm, ranks, backup, 1), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommSetMemoryRange(k.comm, nullptr, 4096, 0, 0), HCCL_E_PTR);
    EXPECT_EQ(HcclCommSetMemoryRange(k.comm, p, 0, 0, 0), HCCL_E_PARA);
    EXPECT_EQ(HcclCommSetMemoryRange(k.comm, p, 4096, 0, 0), HCCL_E_NOT_SUPPORT);
    HcclCommSymWindow win = nullptr;
    EXPECT_EQ(HcclCommSymWinRegister(k.comm, p, 64, &win, 0), HCCL_E_PARA);
    EXPECT_EQ(HcclCommSymWinRegister(k.comm, p, 64, &win, 1), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclCommRegCommStateCallback(
                  "", [](HcclComm, HcclCommStatePhase, void*) { return HCCL_SUCCESS; }, nullptr),
              HCCL_E_PARA);
    EXPECT_EQ(HcclCommRegCommStateCallback("x", nullptr, nullptr), HCCL_E_PTR);
    HcclComm sub = nullptr;
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    EXPECT_EQ(HcclCreateSubCommConfig(&k.comm, 1, ranks, 1, 0, &config, &sub), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclCreateSubCommConfig(nullptr, 1, ranks, 1, 0, &config, &sub), HCCL_E_PTR);
  });
}

TEST(Comm, InitArgumentErrors) {
  HcclRootInfo root;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  EXPECT_EQ(HcclGetRootInfo(nullptr), HCCL_E_PTR);
  HcclComm comm = nullptr;
  EXPECT_EQ(HcclCommInitRootInfo(0, &root, 0, &comm), HCCL_E_PARA);
  EXPECT_EQ(HcclCommInitRootInfo(2, &root, 2, &comm), HCCL_E_PARA);
  EXPECT_EQ(HcclCommInitRootInfo(2, &root, 0, nullptr), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitRootInfo(2, nullptr, 0, &comm), HCCL_E_PTR);
  HcclRootInfo bad;
  std::memset(&bad, 0, sizeof bad);
  EXPECT_EQ(HcclCommInitRootInfo(2, &bad, 0, &comm), HCCL_E_PARA);
  EXPECT_EQ(HcclCommInitRootInfoConfig(2, &root, 0, nullptr, &comm), HCCL_E_PARA);
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  config.hcclBufferSize = 0;
  EXPECT_EQ(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA);
  HcclCommConfigInit(&config);
  config.hcclDeterministic = 3;
  EXPECT_EQ(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA);
  std::memset(&config, 0, sizeof config);  // never initialised: wrong magic word
  EXPECT_EQ(HcclCommInitRootInfoConfig(2, &root, 0, &config, &comm), HCCL_E_PARA);
  EXPECT_EQ(HcclCommDestroy(nullptr), HCCL_SUCCESS);
  EXPECT_EQ(HcclCommDestroy(reinterpret_cast<HcclComm>(0x1234)), HCCL_E_PARA);
  // Rank tables: a path that does not resolve is a load error (hccl-api.md 2.1).
  EXPECT_EQ(HcclCommInitClusterInfo("/nonexistent.json", 0, &comm), HCCL_E_INTERNAL);
  EXPECT_EQ(HcclCommInitClusterInfo("", 0, &comm), HCCL_E_INTERNAL);
  EXPECT_EQ(HcclCommInitClusterInfo(nullptr, 0, &comm), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitClusterInfoConfig("/nonexistent.json", 0, nullptr, &comm), HCCL_E_PTR);
  // No current device on this thread: HCCL_E_RUNTIME before any argument check.
  std::thread([] {
    HcclRootInfo r;
    EXPECT_EQ(HcclGetRootInfo(&r), HCCL_E_RUNTIME);
    EXPECT_EQ(HcclCommInitRootInfo(0, nullptr, 0, nullptr), HCCL_E_RUNTIME);
    EXPECT_EQ(HcclAllReduce(nullptr, nullptr, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, nullptr),
              HCCL_E_RUNTIME);
  }).join();
}

TEST(Comm, MissingRankTimesOutNamingIt) {
  setenv("ARUN_HCCL_CONNECT_TIMEOUT_MS", "300", 1);
  HcclRootInfo root;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  HcclComm comm = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(HcclCommInitRootInfo(3, &root, 0, &comm), HCCL_E_TIMEOUT);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("rank(s) 1, 2 of 3 did not join"), std::string::npos) << err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(comm, nullptr);
  unsetenv("ARUN_HCCL_CONNECT_TIMEOUT_MS");
}

TEST(Comm, InitAllThenOneThreadPerDevice) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int32_t devices[4] = {3, 1, 2, 0};
  HcclComm comms[4] = {};
  ASSERT_EQ(HcclCommInitAll(4, devices, comms), HCCL_SUCCESS);
  int32_t cur = -1;
  EXPECT_EQ(aclrtGetDevice(&cur), ACL_SUCCESS);
  EXPECT_EQ(cur, 0);  // the caller's device is left alone
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      ASSERT_EQ(aclrtSetDevice(devices[i]), ACL_SUCCESS);
      Rank k;
      k.r = i;
      k.n = 4;
      k.comm = comms[i];
      uint32_t id = 9;
      EXPECT_EQ(HcclGetRankId(k.comm, &id), HCCL_SUCCESS);
      EXPECT_EQ(id, i);
      ASSERT_EQ(aclrtCreateStream(&k.stream), ACL_SUCCESS);
      all_reduce_case(k, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, 77, false, 9);
      EXPECT_EQ(HcclCommDestroy(k.comm), HCCL_SUCCESS);
      EXPECT_EQ(HcclCommDestroy(k.comm), HCCL_E_PARA);  // now a dead handle
      aclrtDestroyStream(k.stream);
    });
  }
  for (auto& t : threads) t.join();
  int32_t dup[2] = {1, 1};
  EXPECT_EQ(HcclCommInitAll(2, dup, comms), HCCL_E_PARA);
  int32_t bad[1] = {42};
  EXPECT_EQ(HcclCommInitAll(1, bad, comms), HCCL_E_RUNTIME);
  EXPECT_EQ(HcclCommInitAll(0, devices, comms), HCCL_E_PARA);
  EXPECT_EQ(HcclCommInitAll(2, nullptr, comms), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitAll(2, devices, nullptr), HCCL_E_PTR);
}

// ---- group calls ------------------------------------------------------------------------------

TEST(Groups, SendAndRecvInOneGroupFormARing) {
  run_ranks(4, [](Rank& k) {
    const uint64_t c = 333;
    const HcclDataType t = HCCL_DATA_TYPE_INT32;
    Buf a(c * 4), b(c * 4);
    for (uint64_t i = 0; i < c; ++i) put(t, a.h() + i * 4, mv(t, k.r, i));
    a.upload(k.stream);
    ASSERT_EQ(HcclGroupStart(), HCCL_SUCCESS);
    bool grouped = false;
    EXPECT_EQ(HcclGroupStatusGet(&grouped), HCCL_SUCCESS);
    EXPECT_TRUE(grouped);
    // Alone, Send then Recv on every rank would wait forever (rendezvous); grouped they are one batch.
    ASSERT_EQ(HcclSend(a.dev, c, t, (k.r + 1) % 4, k.comm, k.stream), HCCL_SUCCESS);
    ASSERT_EQ(HcclRecv(b.dev, c, t, (k.r + 3) % 4, k.comm, k.stream), HCCL_SUCCESS);
    HcclSendRecvItem item{HCCL_SEND, a.dev, c, t, (k.r + 1) % 4};
    EXPECT_EQ(HcclBatchSendRecv(&item, 1, k.comm, k.stream), HCCL_E_NOT_SUPPORT);
    ASSERT_EQ(HcclGroupEnd(), HCCL_SUCCESS);
    b.download(k.stream);
    ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
    expect_range(
        t, b.h(), 0, c, [&](uint64_t i) { return mv(t, (k.r + 3) % 4, i); }, "grouped Send/Recv");
  });
}

TEST(Groups, OneThreadInitialisesEveryRank) {
  HcclRootInfo root;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  HcclComm comms[4] = {};
  ASSERT_EQ(HcclGroupStart(), HCCL_SUCCESS);
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_EQ(aclrtSetDevice(int32_t(i)), ACL_SUCCESS);
    ASSERT_EQ(HcclCommInitRootInfo(4, &root, i, &comms[i]), HCCL_SUCCESS);
  }
  EXPECT_EQ(comms[0], nullptr);  // recorded, not yet run
  ASSERT_EQ(HcclGroupEnd(), HCCL_SUCCESS);
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t id = 99;
    ASSERT_EQ(HcclGetRankId(comms[i], &id), HCCL_SUCCESS);
    EXPECT_EQ(id, i);
  }
  ASSERT_EQ(HcclGroupStart(), HCCL_SUCCESS);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(HcclCommDestroy(comms[i]), HCCL_SUCCESS);
  ASSERT_EQ(HcclGroupEnd(), HCCL_SUCCESS);
  uint32_t n = 0;
  EXPECT_EQ(HcclGetRankSize(comms[0], &n), HCCL_E_PARA);  // destroyed at HcclGroupEnd
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}

// ---- operation argument errors (spec order: device, zero count, NULLs, then values) -----------

TEST(Ops, ArgumentErrors) {
  run_ranks(2, [](Rank& k) {
    if (k.r != 0) return;  // checks fail before anything is enqueued: rank 1 need not take part
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&b, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const auto F = HCCL_DATA_TYPE_FP32;
    const auto S = HCCL_REDUCE_SUM;
    HcclComm c = k.comm;
    aclrtStream s = k.stream;
    // zero counts succeed before the NULL checks
    EXPECT_EQ(HcclAllReduce(nullptr, nullptr, 0, F, S, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclBroadcast(nullptr, 0, F, 0, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclAllGather(nullptr, nullptr, 0, F, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclReduceScatter(nullptr, nullptr, 0, F, S, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclReduce(nullptr, nullptr, 0, F, S, 0, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclScatter(nullptr, nullptr, 0, F, 0, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclAlltoAll(nullptr, 0, F, nullptr, 0, F, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclSend(nullptr, 0, F, 1, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclRecv(nullptr, 0, F, 1, nullptr, nullptr), HCCL_SUCCESS);
    EXPECT_EQ(HcclBatchSendRecv(nullptr, 0, nullptr, nullptr), HCCL_SUCCESS);
    // NULL pointers
    EXPECT_EQ(HcclAllReduce(nullptr, b, 4, F, S, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclAllReduce(a, nullptr, 4, F, S, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclAllReduce(a, b, 4, F, S, nullptr, s), HCCL_E_PTR);
    EXPECT_EQ(HcclAllReduce(a, b, 4, F, S, c, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclBroadcast(nullptr, 4, F, 0, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclScatter(nullptr, b, 4, F, 0, c, s), HCCL_E_PTR);  // root's sendBuf
    EXPECT_EQ(HcclBarrier(nullptr, s), HCCL_E_PTR);
    EXPECT_EQ(HcclBarrier(c, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclBatchSendRecv(nullptr, 1, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclAllGatherV(a, 1, b, nullptr, nullptr, F, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclAlltoAllV(a, nullptr, nullptr, F, b, nullptr, nullptr, F, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclAlltoAllVC(a, nullptr, F, b, F, c, s), HCCL_E_PTR);
    EXPECT_EQ(HcclGetCommAsyncError(c, nullptr), HCCL_E_PTR);
    // dead handle
    EXPECT_EQ(HcclAllReduce(a, b, 4, F, S, reinterpret_cast<HcclComm>(0x77), s), HCCL_E_PARA);
    // types and ops
    EXPECT_EQ(HcclAllReduce(a, b, 4, HCCL_DATA_TYPE_INT128, S, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclAllReduce(a, b, 4, HCCL_DATA_TYPE_UINT8, S, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclAllReduce(a, b, 4, HcclDataType(13), S, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclAllReduce(a, b, 4, F, HcclReduceOp(4), c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclAllReduce(a, b, 4, HCCL_DATA_TYPE_INT16, HCCL_REDUCE_PROD, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclReduceScatter(a, b, 4, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_PROD, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclBroadcast(a, 4, HCCL_DATA_TYPE_INT128, 0, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclBroadcast(a, 4, HCCL_DATA_TYPE_RESERVED, 0, c, s), HCCL_E_NOT_SUPPORT);
    // counts, roots, ranks, alignment, buffers
    EXPECT_EQ(HcclAllReduce(a, b, 0x800000000ULL, F, S, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclBroadcast(a, 4, F, 2, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclReduce(a, b, 4, F, S, 5, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclScatter(a, b, 4, F, 2, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclSend(a, 4, F, 2, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclSend(a, 4, F, 0, c, s), HCCL_E_NOT_SUPPORT);  // to itself
    EXPECT_EQ(HcclRecv(a, 4, F, 0, c, s), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclAllReduce(static_cast<char*>(a) + 2, b, 4, F, S, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclAlltoAll(a, 4, F, b, 5, F, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclAlltoAll(a, 4, F, b, 4, HCCL_DATA_TYPE_INT32, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclAlltoAll(a, 4, F, a, 4, F, c, s), HCCL_E_PARA);
    uint64_t counts[2] = {1, 2}, displs[2] = {0, 4};
    EXPECT_EQ(HcclAllGatherV(a, 2, b, counts, displs, F, c, s), HCCL_E_PARA);  // sendCount != recvCounts[0]
    EXPECT_EQ(HcclAllGatherV(a, 1, a, counts, displs, F, c, s), HCCL_E_PARA);  // same buffer
    EXPECT_EQ(HcclReduceScatterV(a, counts, displs, b, 2, F, S, c, s), HCCL_E_PARA);
    uint64_t huge[2] = {0x800000000ULL, 0};
    EXPECT_EQ(HcclAlltoAllV(a, huge, displs, F, b, counts, displs, F, c, s), HCCL_E_PARA);
    uint64_t matrix[4] = {1, 1, 1, 1};
    EXPECT_EQ(HcclAlltoAllVC(a, matrix, F, a, F, c, s), HCCL_E_PARA);
    EXPECT_EQ(HcclAlltoAllVC(nullptr, matrix, F, b, F, c, s), HCCL_E_PTR);
    HcclSendRecvItem items[1] = {{HCCL_SEND, a, 4, F, 9}};
    EXPECT_EQ(HcclBatchSendRecv(items, 1, c, s), HCCL_E_PARA);
    items[0] = {HCCL_SEND, a, 4, F, 1};
    const int32_t bad_kind = 7;  // written as bytes: an out-of-range enum value may not be formed
    std::memcpy(&items[0].sendRecvType, &bad_kind, sizeof bad_kind);
    EXPECT_EQ(HcclBatchSendRecv(items, 1, c, s), HCCL_E_PARA);
    items[0] = {HCCL_SEND, nullptr, 4, F, 1};
    EXPECT_EQ(HcclBatchSendRecv(items, 1, c, s), HCCL_E_PTR);
    items[0] = {HCCL_SEND, a, 4, F, 0};
    EXPECT_EQ(HcclBatchSendRecv(items, 1, c, s), HCCL_E_NOT_SUPPORT);
    items[0] = {HCCL_SEND, a, 4, HCCL_DATA_TYPE_INT128, 1};
    EXPECT_EQ(HcclBatchSendRecv(items, 1, c, s), HCCL_E_NOT_SUPPORT);
    bool grouped = true;
    EXPECT_EQ(HcclGroupStatusGet(&grouped), HCCL_SUCCESS);
    EXPECT_FALSE(grouped);
    EXPECT_EQ(HcclGroupEnd(), HCCL_E_PARA);
    EXPECT_EQ(HcclGroupStatusGet(nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclCommSuspend(c), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcclCommSymWinGet(c, a, 4, reinterpret_cast<HcclCommSymWindow*>(&b), reinterpret_cast<size_t*>(&b)),
              HCCL_E_NOT_FOUND);
    aclrtFree(a);
    aclrtFree(b);
  });
}

// ---- failures across ranks: an error, never a hang ----------------------------------------------

TEST(Failures, LateRankTimesOutOnTheStream) {
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  config.hcclExecTimeOut = 2;  // seconds
  static std::atomic<bool> done;
  done = false;
  run_ranks(
      2,
      [](Rank& k) {
        if (k.r != 0) {  // rank 1 never issues the AllReduce, but keeps its communicator
          while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          return;
        }
        void* a = nullptr;
        ASSERT_EQ(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        const auto t0 = std::chrono::steady_clock::now();
        ::testing::internal::CaptureStderr();
        ASSERT_EQ(HcclAllReduce(a, a, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k.comm, k.stream), HCCL_SUCCESS);
        EXPECT_NE(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        const std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(15));
        EXPECT_NE(err.find("rank(s) 1 did not arrive"), std::string::npos) << err;
        HcclResult async = HCCL_SUCCESS;
        EXPECT_EQ(HcclGetCommAsyncError(k.comm, &async), HCCL_SUCCESS);
        EXPECT_EQ(async, HCCL_E_TIMEOUT);
        // The communicator stays failed: the next operation fails at once instead of waiting again.
        const auto t1 = std::chrono::steady_clock::now();
        ::testing::internal::CaptureStderr();
        ASSERT_EQ(HcclBarrier(k.comm, k.stream), HCCL_SUCCESS);
        EXPECT_NE(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
        ::testing::internal::GetCapturedStderr();
        EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::milliseconds(1500));  // < the timeout
        aclrtFree(a);
        aclrtSynchronizeStream(k.stream);  // clear the stream's error for run_ranks' check
        done = true;
      },
      &config);
}

TEST(Failures, MismatchedCountsAreDetected) {
  run_ranks(2, [](Rank& k) {
    void* a = nullptr;
    ASSERT_EQ(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (k.r == 0) ::testing::internal::CaptureStderr();  // process-wide: one rank captures
    ASSERT_EQ(HcclAllReduce(a, a, k.r == 0 ? 10 : 11, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k.comm, k.stream),
              HCCL_SUCCESS);
    EXPECT_NE(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
    const std::string err = k.r == 0 ? ::testing::internal::GetCapturedStderr() : "does not match";
    HcclResult async = HCCL_SUCCESS;
    EXPECT_EQ(HcclGetCommAsyncError(k.comm, &async), HCCL_SUCCESS);
    EXPECT_EQ(async, HCCL_E_PARA);
    EXPECT_NE(err.find("does not match"), std::string::npos) << err;
    aclrtFree(a);
    aclrtSynchronizeStream(k.stream);
  });
}

// ---- the stream-order sanitizer sees collectives as synchronisation -----------------------------
// Run by the ctest sanitizer.hccl_races (ASCEND_RUN_STREAM_SANITIZER=report); skipped otherwise.

uint32_t race_count() {
  uint32_t n = 0;
  EXPECT_EQ(arunStreamSanitizerReportCount(&n), ACL_SUCCESS);
  return n;
}

// Rank 0 fills a buffer of its device before an allreduce; rank 1 copies it (peer access) after
// the allreduce, on its own stream (ordered by the collective) or on another one (a race).
void cross_rank_case(bool ordered) {
  constexpr size_t kX = 4096;
  void* x = nullptr;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&x, kX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::atomic<int> seen{0};
  run_ranks(2, [&](Rank& k) {
    // A thread the sanitizer sees for the first time inherits every host thread's clock: both
    // ranks make themselves seen before either can synchronise with the race's second access.
    ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
    ++seen;
    while (seen.load() < 2) std::this_thread::yield();
    constexpr uint64_t count = 1000;
    Buf send(count * 4), recv(count * 4);
    for (uint64_t i = 0; i < count; ++i) put(HCCL_DATA_TYPE_FP32, send.h() + i * 4, double(k.r + 1));
    send.upload(k.stream);
    if (k.r == 0) {
      ASSERT_EQ(aclrtMemsetAsync(x, kX, 7, kX, k.stream), ACL_SUCCESS);
    }
    ASSERT_EQ(HcclAllReduce(send.dev, recv.dev, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, k.comm, k.stream),
              HCCL_SUCCESS);
    recv.download(k.stream);
    if (k.r == 1) {
      aclrtStream side = k.stream;
      if (!ordered) {
        ASSERT_EQ(aclrtCreateStream(&side), ACL_SUCCESS);
      }
      Buf copy(kX);
      ASSERT_EQ(aclrtMemcpyAsync(copy.dev, kX, x, kX, ACL_MEMCPY_DEVICE_TO_DEVICE, side), ACL_SUCCESS);
      copy.download(side);
      ASSERT_EQ(aclrtSynchronizeStream(side), ACL_SUCCESS);
      if (ordered) {
        EXPECT_EQ(copy.h()[kX - 1], 7);
      }
      if (!ordered) {
        ASSERT_EQ(aclrtDestroyStream(side), ACL_SUCCESS);
      }
    }
    ASSERT_EQ(aclrtSynchronizeStream(k.stream), ACL_SUCCESS);
    expect_range(
        HCCL_DATA_TYPE_FP32, recv.h(), 0, count, [](uint64_t) { return 3.0; }, "AllReduce");
  });
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(x), ACL_SUCCESS);  // the rank threads synchronised and exited: ordered
}

TEST(Sanitizer, CollectiveOrdersEveryRanksWork) {
  const char* mode = std::getenv("ASCEND_RUN_STREAM_SANITIZER");
  if (mode == nullptr || std::string(mode) != "report") GTEST_SKIP() << "needs ASCEND_RUN_STREAM_SANITIZER=report";
  const uint32_t before = race_count();
  cross_rank_case(true);
  EXPECT_EQ(race_count(), before);
}

TEST(Sanitizer, WorkNotOrderedAfterTheCollectiveIsReported) {
  const char* mode = std::getenv("ASCEND_RUN_STREAM_SANITIZER");
  if (mode == nullptr || std::string(mode) != "report") GTEST_SKIP() << "needs ASCEND_RUN_STREAM_SANITIZER=report";
  const uint32_t before = race_count();
  cross_rank_case(false);
  ASSERT_EQ(race_count(), before + 1);
  std::vector<char> text(16384);
  uint64_t occurrences = 0;
  ASSERT_EQ(arunStreamSanitizerGetReport(before, text.data(), text.size(), &occurrences), ACL_SUCCESS);
  const std::string r(text.data());
  EXPECT_NE(r.find("stream sanitizer: cross-stream"), std::string::npos) << r;
  EXPECT_NE(r.find("aclrtMemsetAsync (memset) on stream"), std::string::npos) << r;
  EXPECT_NE(r.find("aclrtMemcpyAsync (copy device->device) on stream"), std::string::npos) << r;
  EXPECT_NE(r.find("(device 1)"), std::string::npos) << r;
  EXPECT_EQ(occurrences, 1u);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new AclEnv);
  return RUN_ALL_TESTS();
}
