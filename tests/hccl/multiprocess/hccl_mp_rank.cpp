// One rank of the multi-process HCCL tests (hccl_mp_test.cpp starts N of these): ranks are
// processes, one simulated device each, meeting through the collective plugin on loopback.
//   hccl_mp_rank MODE NRANKS RANK FILE
// MODE: collectives (every collective x types x ops against host references; FILE: where rank 0
// publishes the root info), ranktable (FILE: a rank table; AllReduce), badranktable (FILE: a rank
// table with a bad field: init must fail with HCCL_E_INTERNAL), neverjoins (the last rank never
// calls init: the others must get HCCL_E_TIMEOUT), killed (the last rank dies after init: the
// others' AllReduce must fail on the stream and in HcclGetCommAsyncError), noplugin (one process
// whose configuration names a collective plugin that does not exist: arunGetCollectiveOps fails,
// root infos still work for this process's ranks, another process's root info is refused),
// mismatch (3 ranks issue collectives whose count / type / op / root / kind / AlltoAllV counts
// differ: each fails with HCCL_E_PARA on every rank, then an agreeing AllReduce works),
// twolocal (process 0 runs ranks 0 and 1 of a 3-rank communicator as threads, process 1 rank 2:
// every rank joins through the plugin, the AllReduce is right on all three).
// Exit 0 when every check passed; the failing check is printed.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "arun/collective.h"
#include "arun/core/float16.hpp"
#include "hccl/hccl.h"

namespace {

int g_rank = 0;
long g_checks = 0;

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "rank %d: check failed: %s: ", g_rank, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                  \
      std::fprintf(stderr, "\n");                                         \
      std::exit(1);                                                       \
    }                                                                     \
    ++g_checks;                                                           \
  } while (0)

size_t size_of(HcclDataType t) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
      return 1;
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
    case HCCL_DATA_TYPE_INT16:
      return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_FP32:
      return 4;
    default:
      return 8;
  }
}

bool is_unsigned(HcclDataType t) {
  return t == HCCL_DATA_TYPE_UINT8 || t == HCCL_DATA_TYPE_UINT64;
}

// Small integers, exact in every type (fp16 and bf16 included): products of four stay within int8.
double value(HcclDataType t, uint32_t r, uint64_t i) {
  const double v = double((r * 5 + i * 3) % 7);
  return is_unsigned(t) ? v : v - 3;
}

void put(HcclDataType t, char* p, double v) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
      *reinterpret_cast<int8_t*>(p) = int8_t(v);
      break;
    case HCCL_DATA_TYPE_UINT8:
      *reinterpret_cast<uint8_t*>(p) = uint8_t(v);
      break;
    case HCCL_DATA_TYPE_INT16:
      *reinterpret_cast<int16_t*>(p) = int16_t(v);
      break;
    case HCCL_DATA_TYPE_INT32:
      *reinterpret_cast<int32_t*>(p) = int32_t(v);
      break;
    case HCCL_DATA_TYPE_INT64:
      *reinterpret_cast<int64_t*>(p) = int64_t(v);
      break;
    case HCCL_DATA_TYPE_UINT64:
      *reinterpret_cast<uint64_t*>(p) = uint64_t(v);
      break;
    case HCCL_DATA_TYPE_FP16:
      *reinterpret_cast<uint16_t*>(p) = arun::float_to_half(float(v));
      break;
    case HCCL_DATA_TYPE_BFP16:
      *reinterpret_cast<uint16_t*>(p) = arun::float_to_bf16(float(v));
      break;
    case HCCL_DATA_TYPE_FP32:
      *reinterpret_cast<float*>(p) = float(v);
      break;
    default:
      *reinterpret_cast<double*>(p) = v;
      break;
  }
}

std::vector<char> fill(HcclDataType t, uint32_t r, uint64_t count, uint64_t shift = 0) {
  std::vector<char> out(count * size_of(t));
  for (uint64_t i = 0; i < count; ++i) put(t, out.data() + i * size_of(t), value(t, r, i + shift));
  return out;
}

double fold(HcclReduceOp op, double a, double b) {
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

// The reduction over all ranks of element i (offset by `shift`), encoded.
std::vector<char> reduced(HcclDataType t, HcclReduceOp op, uint32_t n, uint64_t count, uint64_t shift = 0) {
  std::vector<char> out(count * size_of(t));
  for (uint64_t i = 0; i < count; ++i) {
    double acc = value(t, 0, i + shift);
    for (uint32_t r = 1; r < n; ++r) acc = fold(op, acc, value(t, r, i + shift));
    put(t, out.data() + i * size_of(t), acc);
  }
  return out;
}

struct Dev {
  void* p = nullptr;
  size_t bytes = 0;
  explicit Dev(size_t b) : bytes(b) {
    if (b > 0) CHECK(aclrtMalloc(&p, b, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc %zu", b);
  }
  ~Dev() {
    if (p != nullptr) aclrtFree(p);
  }
  void put(const std::vector<char>& h) {
    if (!h.empty()) CHECK(aclrtMemcpy(p, bytes, h.data(), h.size(), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "H2D");
  }
  std::vector<char> get(size_t n) {
    std::vector<char> h(n);
    if (n > 0) CHECK(aclrtMemcpy(h.data(), n, p, n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "D2H");
    return h;
  }
};

struct Ctx {
  HcclComm comm;
  aclrtStream stream;
  uint32_t n, rank;
};

void sync_ok(Ctx& c, const char* what) {
  const aclError e = aclrtSynchronizeStream(c.stream);
  CHECK(e == ACL_SUCCESS, "%s: aclrtSynchronizeStream %d", what, int(e));
}

void expect_same(const std::vector<char>& got, const std::vector<char>& want, const char* what, int type, int op,
                 uint64_t count) {
  CHECK(got == want, "%s type %d op %d count %llu: result differs from the host reference", what, type, op,
        (unsigned long long)count);
}

const HcclDataType kReduceTypes[] = {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_INT64,
                                     HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_BFP16, HCCL_DATA_TYPE_FP32,
                                     HCCL_DATA_TYPE_FP64, HCCL_DATA_TYPE_UINT64};
const HcclDataType kMoveTypes[] = {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64};
const HcclReduceOp kOps[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};
const uint64_t kCounts[] = {0, 7, 1001};  // zero, odd, odd and above a cache line of every type

void test_reductions(Ctx& c) {
  for (HcclDataType t : kReduceTypes) {
    const size_t es = size_of(t);
    for (HcclReduceOp op : kOps) {
      if (op == HCCL_REDUCE_PROD && t == HCCL_DATA_TYPE_BFP16) continue;  // not an HCCL combination
      for (uint64_t count : kCounts) {
        // AllReduce out of place, then in place.
        Dev in(count * es), out(count * es);
        in.put(fill(t, c.rank, count));
        CHECK(HcclAllReduce(in.p, out.p, count, t, op, c.comm, c.stream) == HCCL_SUCCESS, "HcclAllReduce");
        CHECK(HcclAllReduce(in.p, in.p, count, t, op, c.comm, c.stream) == HCCL_SUCCESS, "HcclAllReduce in place");
        sync_ok(c, "AllReduce");
        const auto want = reduced(t, op, c.n, count);
        expect_same(out.get(count * es), want, "AllReduce", t, op, count);
        expect_same(in.get(count * es), want, "AllReduce in place", t, op, count);
        // Reduce to the last rank.
        const uint32_t root = c.n - 1;
        in.put(fill(t, c.rank, count));
        Dev rout(count * es);
        CHECK(HcclReduce(in.p, rout.p, count, t, op, root, c.comm, c.stream) == HCCL_SUCCESS, "HcclReduce");
        sync_ok(c, "Reduce");
        if (c.rank == root) expect_same(rout.get(count * es), want, "Reduce", t, op, count);
        // ReduceScatter: block r of every rank's n*count elements, reduced, lands on rank r.
        Dev rsin(c.n * count * es), rsout(count * es);
        rsin.put(fill(t, c.rank, c.n * count));
        CHECK(HcclReduceScatter(rsin.p, rsout.p, count, t, op, c.comm, c.stream) == HCCL_SUCCESS, "HcclReduceScatter");
        sync_ok(c, "ReduceScatter");
        expect_same(rsout.get(count * es), reduced(t, op, c.n, count, c.rank * count), "ReduceScatter", t, op, count);
      }
    }
  }
}

void test_movement(Ctx& c) {
  for (HcclDataType t : kMoveTypes) {
    const size_t es = size_of(t);
    for (uint64_t count : kCounts) {
      // Broadcast from rank 1.
      Dev b(count * es);
      b.put(fill(t, c.rank, count));
      CHECK(HcclBroadcast(b.p, count, t, 1, c.comm, c.stream) == HCCL_SUCCESS, "HcclBroadcast");
      sync_ok(c, "Broadcast");
      expect_same(b.get(count * es), fill(t, 1, count), "Broadcast", t, -1, count);
      // AllGather.
      Dev gin(count * es), gout(c.n * count * es);
      gin.put(fill(t, c.rank, count));
      CHECK(HcclAllGather(gin.p, gout.p, count, t, c.comm, c.stream) == HCCL_SUCCESS, "HcclAllGather");
      sync_ok(c, "AllGather");
      std::vector<char> want;
      for (uint32_t r = 0; r < c.n; ++r) {
        auto part = fill(t, r, count);
        want.insert(want.end(), part.begin(), part.end());
      }
      expect_same(gout.get(c.n * count * es), want, "AllGather", t, -1, count);
      // Scatter from rank 0: block r of rank 0's n*count elements to rank r.
      Dev sin(c.n * count * es), sout(count * es);
      sin.put(fill(t, c.rank, c.n * count));
      CHECK(HcclScatter(sin.p, sout.p, count, t, 0, c.comm, c.stream) == HCCL_SUCCESS, "HcclScatter");
      sync_ok(c, "Scatter");
      expect_same(sout.get(count * es), fill(t, 0, count, c.rank * count), "Scatter", t, -1, count);
      // AlltoAll: block j of rank i goes to block i of rank j.
      Dev ain(c.n * count * es), aout(c.n * count * es);
      ain.put(fill(t, c.rank, c.n * count));
      CHECK(HcclAlltoAll(ain.p, count, t, aout.p, count, t, c.comm, c.stream) == HCCL_SUCCESS, "HcclAlltoAll");
      sync_ok(c, "AlltoAll");
      want.clear();
      for (uint32_t r = 0; r < c.n; ++r) {
        auto part = fill(t, r, count, c.rank * count);
        want.insert(want.end(), part.begin(), part.end());
      }
      expect_same(aout.get(c.n * count * es), want, "AlltoAll", t, -1, count);
      // Send / Recv around the ring.
      const uint32_t next = (c.rank + 1) % c.n, prev = (c.rank + c.n - 1) % c.n;
      Dev sbuf(count * es), rbuf(count * es);
      sbuf.put(fill(t, c.rank, count));
      HcclSendRecvItem items[2] = {{HCCL_SEND, sbuf.p, count, t, next}, {HCCL_RECV, rbuf.p, count, t, prev}};
      CHECK(HcclBatchSendRecv(items, 2, c.comm, c.stream) == HCCL_SUCCESS, "HcclBatchSendRecv");
      sync_ok(c, "BatchSendRecv");
      expect_same(rbuf.get(count * es), fill(t, prev, count), "BatchSendRecv", t, -1, count);
    }
  }
  // V forms: rank r contributes r + 1 elements (displacements leave gaps of one element).
  const HcclDataType t = HCCL_DATA_TYPE_INT32;
  std::vector<uint64_t> counts(c.n), displs(c.n);
  uint64_t total = 0;
  for (uint32_t r = 0; r < c.n; ++r) {
    counts[r] = r + 1;
    displs[r] = total;
    total += counts[r] + 1;
  }
  Dev vin(counts[c.rank] * 4), vout(total * 4);
  vin.put(fill(t, c.rank, counts[c.rank]));
  vout.put(std::vector<char>(total * 4, 0));
  CHECK(
      HcclAllGatherV(vin.p, counts[c.rank], vout.p, counts.data(), displs.data(), t, c.comm, c.stream) == HCCL_SUCCESS,
      "HcclAllGatherV");
  sync_ok(c, "AllGatherV");
  std::vector<char> want(total * 4, 0);
  for (uint32_t r = 0; r < c.n; ++r) {
    auto part = fill(t, r, counts[r]);
    std::memcpy(want.data() + displs[r] * 4, part.data(), part.size());
  }
  expect_same(vout.get(total * 4), want, "AllGatherV", t, -1, total);
  // ReduceScatterV (sum) over the same layout: rank r gets the sum of every rank's block r.
  Dev rin(total * 4), rout(counts[c.rank] * 4);
  std::vector<char> mine(total * 4, 0);
  for (uint32_t r = 0; r < c.n; ++r) {
    auto part = fill(t, c.rank, counts[r], displs[r]);
    std::memcpy(mine.data() + displs[r] * 4, part.data(), part.size());
  }
  rin.put(mine);
  CHECK(HcclReduceScatterV(rin.p, counts.data(), displs.data(), rout.p, counts[c.rank], t, HCCL_REDUCE_SUM, c.comm,
                           c.stream) == HCCL_SUCCESS,
        "HcclReduceScatterV");
  sync_ok(c, "ReduceScatterV");
  expect_same(rout.get(counts[c.rank] * 4), reduced(t, HCCL_REDUCE_SUM, c.n, counts[c.rank], displs[c.rank]),
              "ReduceScatterV", t, 0, counts[c.rank]);
  // Send / Recv as separate calls: even ranks send to the next first.
  Dev s1(64), r1(64);
  s1.put(fill(t, c.rank, 16));
  const uint32_t next = (c.rank + 1) % c.n, prev = (c.rank + c.n - 1) % c.n;
  if (c.rank % 2 == 0) {
    CHECK(HcclSend(s1.p, 16, t, next, c.comm, c.stream) == HCCL_SUCCESS, "HcclSend");
    CHECK(HcclRecv(r1.p, 16, t, prev, c.comm, c.stream) == HCCL_SUCCESS, "HcclRecv");
  } else {
    CHECK(HcclRecv(r1.p, 16, t, prev, c.comm, c.stream) == HCCL_SUCCESS, "HcclRecv");
    CHECK(HcclSend(s1.p, 16, t, next, c.comm, c.stream) == HCCL_SUCCESS, "HcclSend");
  }
  sync_ok(c, "Send/Recv");
  expect_same(r1.get(64), fill(t, prev, 16), "Send/Recv", t, -1, 16);
  CHECK(HcclBarrier(c.comm, c.stream) == HCCL_SUCCESS, "HcclBarrier");
  sync_ok(c, "Barrier");
}

// Rank 0 publishes the root info in `file` (written whole, then renamed); the others wait for it.
void root_info(const std::string& file, uint32_t rank, HcclRootInfo* info) {
  if (rank == 0) {
    CHECK(HcclGetRootInfo(info) == HCCL_SUCCESS, "HcclGetRootInfo");
    const std::string tmp = file + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(info->internal, HCCL_ROOT_INFO_BYTES);
    CHECK(std::rename(tmp.c_str(), file.c_str()) == 0, "rename %s", file.c_str());
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    std::ifstream in(file, std::ios::binary);
    if (in && in.read(info->internal, HCCL_ROOT_INFO_BYTES)) return;
    CHECK(std::chrono::steady_clock::now() < deadline, "no root info in %s", file.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Collectives whose parameters differ between ranks: each fails on every rank's stream with
// HcclGetCommAsyncError HCCL_E_PARA (the message, naming rank and field, goes to stderr, which
// hccl_mp_test checks), and the communicator stays usable. Needs 3 ranks.
void test_mismatch(Ctx& c) {
  const uint64_t count = 8;
  Dev a(64 * 8), b(64 * 8);
  a.put(fill(HCCL_DATA_TYPE_FP32, c.rank, count));
  auto expect_para = [&](const char* what) {
    const aclError e = aclrtSynchronizeStream(c.stream);
    CHECK(e != ACL_SUCCESS, "%s: the stream reports success for mismatched parameters", what);
    HcclResult r = HCCL_SUCCESS;
    CHECK(HcclGetCommAsyncError(c.comm, &r) == HCCL_SUCCESS && r == HCCL_E_PARA, "%s: async error %d", what, int(r));
  };
  const bool r0 = c.rank == 0, r1 = c.rank == 1, r2 = c.rank == 2;
  CHECK(
      HcclAllReduce(a.p, b.p, r1 ? 16 : count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.comm, c.stream) == HCCL_SUCCESS,
      "AllReduce enqueue");
  expect_para("count");
  CHECK(HcclAllReduce(a.p, b.p, count, r2 ? HCCL_DATA_TYPE_INT32 : HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.comm,
                      c.stream) == HCCL_SUCCESS,
        "AllReduce enqueue");
  expect_para("data type");
  CHECK(HcclAllReduce(a.p, b.p, count, HCCL_DATA_TYPE_FP32, r0 ? HCCL_REDUCE_MAX : HCCL_REDUCE_SUM, c.comm, c.stream) ==
            HCCL_SUCCESS,
        "AllReduce enqueue");
  expect_para("reduce op");
  CHECK(HcclBroadcast(a.p, count, HCCL_DATA_TYPE_FP32, r2 ? 1 : 0, c.comm, c.stream) == HCCL_SUCCESS, "Broadcast");
  expect_para("root");
  if (r1) {
    CHECK(HcclBroadcast(a.p, count, HCCL_DATA_TYPE_FP32, 0, c.comm, c.stream) == HCCL_SUCCESS, "Broadcast");
  } else {
    CHECK(HcclAllReduce(a.p, b.p, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.comm, c.stream) == HCCL_SUCCESS,
          "AllReduce");
  }
  expect_para("operation");
  // AlltoAllV: rank 0 sends rank 2 two elements, rank 2 expects one.
  std::vector<uint64_t> sc(3, 1), sd{0, 1, 2}, rc(3, 1), rd{0, 1, 2};
  if (r0) sc = {1, 1, 2};
  CHECK(HcclAlltoAllV(a.p, sc.data(), sd.data(), HCCL_DATA_TYPE_FP32, b.p, rc.data(), rd.data(), HCCL_DATA_TYPE_FP32,
                      c.comm, c.stream) == HCCL_SUCCESS,
        "AlltoAllV");
  expect_para("AlltoAllV counts");
  // Send/Recv: rank 0 sends rank 1 eight floats, rank 1 expects four; then the same byte count
  // with another data type. Rank 2 has no part in them.
  if (r0) CHECK(HcclSend(a.p, count, HCCL_DATA_TYPE_FP32, 1, c.comm, c.stream) == HCCL_SUCCESS, "HcclSend");
  if (r1) CHECK(HcclRecv(b.p, count / 2, HCCL_DATA_TYPE_FP32, 0, c.comm, c.stream) == HCCL_SUCCESS, "HcclRecv");
  if (!r2) expect_para("Send/Recv count");
  if (r0) CHECK(HcclSend(a.p, count, HCCL_DATA_TYPE_FP32, 1, c.comm, c.stream) == HCCL_SUCCESS, "HcclSend");
  if (r1) CHECK(HcclRecv(b.p, count, HCCL_DATA_TYPE_INT32, 0, c.comm, c.stream) == HCCL_SUCCESS, "HcclRecv");
  if (!r2) expect_para("Send/Recv data type");
  // Agreeing parameters still work, on the same communicator and stream.
  CHECK(HcclAllReduce(a.p, b.p, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.comm, c.stream) == HCCL_SUCCESS,
        "AllReduce");
  sync_ok(c, "AllReduce after the mismatches");
  expect_same(b.get(count * 4), reduced(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.n, count), "AllReduce", 4, 0, count);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s MODE NRANKS RANK FILE\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const uint32_t n = uint32_t(std::atoi(argv[2])), rank = uint32_t(std::atoi(argv[3]));
  const std::string file = argv[4];
  g_rank = int(rank);
  CHECK(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  Ctx c{nullptr, nullptr, n, rank};
  CHECK(aclrtCreateStream(&c.stream) == ACL_SUCCESS, "aclrtCreateStream");
  if (mode == "noplugin") {
    const arunCollectiveOps* ops = nullptr;
    CHECK(arunGetCollectiveOps(nullptr) == ACL_ERROR_INVALID_PARAM, "arunGetCollectiveOps(NULL)");
    const aclError e = arunGetCollectiveOps(&ops);
    const char* msg = aclGetRecentErrMsg();
    CHECK(e != ACL_SUCCESS && ops == nullptr, "arunGetCollectiveOps returned %d", int(e));
    CHECK(msg != nullptr && std::strstr(msg, "nosuch") != nullptr, "message \"%s\" names no plugin", msg);
    HcclRootInfo info;
    // Malformed port settings are HCCL_E_PARA (hccl-api.md section 3), plugin or not.
    for (const char* v : {"5", "65521", "x"}) {
      ::setenv("HCCL_IF_BASE_PORT", v, 1);
      CHECK(HcclGetRootInfo(&info) == HCCL_E_PARA, "HCCL_IF_BASE_PORT=%s", v);
    }
    ::unsetenv("HCCL_IF_BASE_PORT");
    for (const char* v : {"x", "70000", "9-3", "7-9z"}) {
      ::setenv("HCCL_HOST_SOCKET_PORT_RANGE", v, 1);
      CHECK(HcclGetRootInfo(&info) == HCCL_E_PARA, "HCCL_HOST_SOCKET_PORT_RANGE=%s", v);
    }
    // No NIC matching HCCL_SOCKET_IFNAME, an unknown HCCL_SOCKET_FAMILY: HCCL_E_PARA, named on stderr.
    ::setenv("HCCL_HOST_SOCKET_PORT_RANGE", "auto", 1);
    ::setenv("HCCL_SOCKET_IFNAME", "=nosuch0", 1);
    CHECK(HcclGetRootInfo(&info) == HCCL_E_PARA, "HCCL_SOCKET_IFNAME==nosuch0");
    ::setenv("HCCL_SOCKET_IFNAME", "lo", 1);
    ::setenv("HCCL_SOCKET_FAMILY", "AF_PACKET", 1);
    CHECK(HcclGetRootInfo(&info) == HCCL_E_PARA, "HCCL_SOCKET_FAMILY=AF_PACKET");
    ::unsetenv("HCCL_SOCKET_FAMILY");
    ::setenv("HCCL_HOST_SOCKET_PORT_RANGE", "auto", 1);
    CHECK(HcclGetRootInfo(&info) == HCCL_SUCCESS, "HCCL_SOCKET_IFNAME=lo");
    CHECK(std::strncmp(info.internal + 8, "127.0.0.1", 10) == 0, "HCCL_SOCKET_IFNAME=lo gave %.64s", info.internal + 8);
    ::unsetenv("HCCL_SOCKET_IFNAME");
    ::setenv("HCCL_HOST_SOCKET_PORT_RANGE", "61000-61031,62000", 1);
    CHECK(HcclGetRootInfo(&info) == HCCL_SUCCESS, "a port list");
    ::setenv("HCCL_HOST_SOCKET_PORT_RANGE", "auto", 1);
    CHECK(HcclGetRootInfo(&info) == HCCL_SUCCESS, "HcclGetRootInfo without a collective plugin");
    info.internal[80] ^= 1;  // now an identifier this process did not make: "another process's"
    const HcclResult r = HcclCommInitRootInfo(2, &info, 1, &c.comm);
    CHECK(r == HCCL_E_NOT_SUPPORT, "HcclCommInitRootInfo returned %d, not HCCL_E_NOT_SUPPORT", int(r));
  } else if (mode == "badranktable") {
    const HcclResult r = HcclCommInitClusterInfo(file.c_str(), rank, &c.comm);
    CHECK(r == HCCL_E_INTERNAL, "HcclCommInitClusterInfo returned %d, not HCCL_E_INTERNAL", int(r));
  } else if (mode == "ranktable") {
    CHECK(HcclCommInitClusterInfo(file.c_str(), rank, &c.comm) == HCCL_SUCCESS, "HcclCommInitClusterInfo");
    char name[COMM_NAME_MAX_LENGTH] = {};
    CHECK(HcclGetCommName(c.comm, name) == HCCL_SUCCESS && std::strcmp(name, "hccl_world_group") == 0, "name %s", name);
    const uint64_t count = 513;
    Dev in(count * 4);
    in.put(fill(HCCL_DATA_TYPE_FP32, rank, count));
    CHECK(HcclAllReduce(in.p, in.p, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.comm, c.stream) == HCCL_SUCCESS,
          "HcclAllReduce");
    sync_ok(c, "AllReduce");
    expect_same(in.get(count * 4), reduced(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, n, count), "AllReduce", 4, 0, count);
    CHECK(HcclCommDestroy(c.comm) == HCCL_SUCCESS, "HcclCommDestroy");
  } else {
    HcclRootInfo info;
    root_info(file, rank, &info);
    if (mode == "twolocal") {
      // Process 0 runs ranks 0 and 1 as threads (devices 0 and 1), process 1 rank 2.
      std::atomic<int> good{0};
      auto run = [&](uint32_t r, int32_t dev) {
        if (aclrtSetDevice(dev) != ACL_SUCCESS) return;
        HcclComm comm = nullptr;
        aclrtStream st = nullptr;
        if (HcclCommInitRootInfo(3, &info, r, &comm) != HCCL_SUCCESS || aclrtCreateStream(&st) != ACL_SUCCESS) return;
        const uint64_t count = 257;
        Dev in(count * 4);
        in.put(fill(HCCL_DATA_TYPE_FP32, r, count));
        if (HcclAllReduce(in.p, in.p, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st) == HCCL_SUCCESS &&
            aclrtSynchronizeStream(st) == ACL_SUCCESS &&
            in.get(count * 4) == reduced(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 3, count))
          ++good;
        HcclCommDestroy(comm);
        aclrtDestroyStream(st);
      };
      if (rank == 0) {
        std::thread t1(run, 1u, 1);
        run(0, 0);
        t1.join();
        CHECK(good == 2, "%d of 2 local ranks got the right AllReduce", good.load());
      } else {
        run(2, 0);
        CHECK(good == 1, "rank 2 did not get the right AllReduce");
      }
      aclrtDestroyStream(c.stream);
      aclFinalize();
      std::printf("rank %u: twolocal OK (%ld checks)\n", rank, g_checks);
      return 0;
    }
    if (mode == "neverjoins" && rank == n - 1) {
      std::printf("rank %u: not joining\n", rank);
      return 0;  // no aclFinalize either: a rank that vanished
    }
    const auto t0 = std::chrono::steady_clock::now();
    const HcclResult r = HcclCommInitRootInfo(n, &info, rank, &c.comm);
    if (mode == "refused") {
      // HCCL_WHITELIST_FILE does not list this host: the rendezvous turns every rank away.
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      CHECK(r != HCCL_SUCCESS, "HcclCommInitRootInfo succeeded although this host is not whitelisted");
      CHECK(s < 10, "the refusal took %.1f s", s);
    } else if (mode == "neverjoins") {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      CHECK(r == HCCL_E_TIMEOUT, "HcclCommInitRootInfo returned %d, not HCCL_E_TIMEOUT", int(r));
      CHECK(s < 10, "the timeout took %.1f s", s);
    } else {
      CHECK(r == HCCL_SUCCESS, "HcclCommInitRootInfo returned %d", int(r));
      uint32_t size = 0, id = 0;
      CHECK(HcclGetRankSize(c.comm, &size) == HCCL_SUCCESS && size == n, "rank size %u", size);
      CHECK(HcclGetRankId(c.comm, &id) == HCCL_SUCCESS && id == rank, "rank id %u", id);
      if (mode == "killed") {
        if (rank == n - 1) {
          std::printf("rank %u: dying\n", rank);
          std::fflush(stdout);
          ::_exit(9);
        }
        const auto t1 = std::chrono::steady_clock::now();
        Dev in(4096 * 4);
        in.put(fill(HCCL_DATA_TYPE_FP32, rank, 4096));
        HcclResult a = HCCL_SUCCESS;
        // Rounds until the death is seen (the first may complete before the peer exits).
        for (int i = 0; i < 50 && a == HCCL_SUCCESS; ++i) {
          CHECK(HcclAllReduce(in.p, in.p, 4096, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c.comm, c.stream) == HCCL_SUCCESS,
                "HcclAllReduce enqueue");
          const aclError e = aclrtSynchronizeStream(c.stream);
          CHECK(HcclGetCommAsyncError(c.comm, &a) == HCCL_SUCCESS, "HcclGetCommAsyncError");
          if (a != HCCL_SUCCESS) CHECK(e != ACL_SUCCESS, "the stream reports success for a failed AllReduce");
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        CHECK(a != HCCL_SUCCESS, "no async error after the peer died");
        CHECK(s < 10, "the failure took %.1f s", s);
        std::printf("rank %u: peer death seen as HCCL error %d after %.2f s\n", rank, int(a), s);
        // Stay a moment: a survivor that exits at once would close its links too, and the other
        // survivor, if it had not seen the death yet, would blame it instead.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      } else if (mode == "mismatch") {
        test_mismatch(c);
      } else {
        test_reductions(c);
        test_movement(c);
      }
      CHECK(HcclCommDestroy(c.comm) == HCCL_SUCCESS, "HcclCommDestroy");
    }
  }
  aclrtDestroyStream(c.stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("rank %u: %s OK (%ld checks)\n", rank, mode.c_str(), g_checks);
  return 0;
}
