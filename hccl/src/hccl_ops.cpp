// Collective and point-to-point operations (hccl.h, HcclBarrier): argument checks in CANN's order,
// then a plan of stream tasks on the caller's stream — sync points, copies, reduction kernels.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hccl_internal.hpp"
#include "hccl_reduce.hpp"

namespace hccl {

size_t type_size(HcclDataType t) {
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
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64:
      return 8;
    default:
      return 0;  // INT128 is not accepted by any operation
  }
}

const char* type_name(HcclDataType t) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
      return "int8";
    case HCCL_DATA_TYPE_INT16:
      return "int16";
    case HCCL_DATA_TYPE_INT32:
      return "int32";
    case HCCL_DATA_TYPE_FP16:
      return "float16";
    case HCCL_DATA_TYPE_FP32:
      return "float32";
    case HCCL_DATA_TYPE_INT64:
      return "int64";
    case HCCL_DATA_TYPE_UINT64:
      return "uint64";
    case HCCL_DATA_TYPE_UINT8:
      return "uint8";
    case HCCL_DATA_TYPE_UINT16:
      return "uint16";
    case HCCL_DATA_TYPE_UINT32:
      return "uint32";
    case HCCL_DATA_TYPE_FP64:
      return "float64";
    case HCCL_DATA_TYPE_BFP16:
      return "bfloat16";
    case HCCL_DATA_TYPE_INT128:
      return "int128";
    case HCCL_DATA_TYPE_HIF8:
      return "hif8";
    case HCCL_DATA_TYPE_FP8E4M3:
      return "fp8e4m3";
    case HCCL_DATA_TYPE_FP8E5M2:
      return "fp8e5m2";
    case HCCL_DATA_TYPE_FP8E8M0:
      return "fp8e8m0";
    default:
      return "unknown";
  }
}

bool movable_type(HcclDataType t) {
  return type_size(t) != 0;
}

bool reducible(HcclDataType t, HcclReduceOp op, HcclResult* why) {
  *why = HCCL_E_NOT_SUPPORT;
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_FP32:
    case HCCL_DATA_TYPE_FP64:
    case HCCL_DATA_TYPE_BFP16:
      break;
    default:
      log_error("data type %s (%d) cannot be reduced", type_name(t), int(t));
      return false;
  }
  if (op < HCCL_REDUCE_SUM || op > HCCL_REDUCE_MIN) {
    log_error("reduce operation %d is not sum, prod, max or min", int(op));
    return false;
  }
  if (op == HCCL_REDUCE_PROD && (t == HCCL_DATA_TYPE_INT16 || t == HCCL_DATA_TYPE_BFP16)) {
    log_error("HCCL_REDUCE_PROD does not support %s", type_name(t));
    return false;
  }
  return true;
}

namespace {

enum class Kind : uint64_t {
  AllReduce = 1,
  Broadcast,
  AllGather,
  AllGatherV,
  ReduceScatter,
  ReduceScatterV,
  Reduce,
  Scatter,
  AlltoAll,
  P2P,
  Barrier
};

const char* kind_name(Kind k) {
  static const char* const names[] = {"",           "AllReduce",     "Broadcast",      "AllGather",
                                      "AllGatherV", "ReduceScatter", "ReduceScatterV", "Reduce",
                                      "Scatter",    "AlltoAll",      "Send/Recv",      "Barrier"};
  return names[static_cast<uint64_t>(k)];
}

// What the ranks must agree on at each sync point (hccl-api.md 0.2: mismatches are detected).
uint64_t descriptor(Kind k, HcclDataType t, int op, uint64_t count, uint32_t root) {
  uint64_t h = 1469598103934665603ULL;
  for (uint64_t v : {uint64_t(k), uint64_t(t), uint64_t(uint32_t(op)), count, uint64_t(root)}) {
    h ^= v;
    h *= 1099511628211ULL;
  }
  return h | 1;  // never 0 (0 = nothing posted)
}

struct SyncArgs {
  std::shared_ptr<Group> g;
  std::shared_ptr<std::atomic<int>> async_error;
  uint32_t rank;
  std::vector<std::pair<uint32_t, uint64_t>> targets;  // (peer, sync count to reach)
  uint64_t desc;
  int32_t timeout_s;
  Kind kind;
  uint64_t op_seq;
};

void fail_group(Group& g, HcclResult code, const std::string& why) {
  if (!g.broken) {
    g.broken = true;
    g.broken_code = code;
    g.broken_reason = why;
  }
  g.cv.notify_all();
}

// The sync point: publish this rank's count towards each peer, then wait for theirs. Runs as a
// one-block kernel, so it starts after the stream's earlier work and holds back its later work.
void sync_kernel(arun::Block b, const SyncArgs& a) {
  Group& g = *a.g;
  std::unique_lock<std::mutex> lk(g.mu);
  for (const auto& [p, v] : a.targets) {
    // The stream-order sanitizer sees this cross-device wait as a release / acquire pair per rank
    // pair: work before a rank's sync point happens before the peer's work after its own.
    b.sync_release(&g.posted[size_t(a.rank) * g.n + p], v);
    g.posted[size_t(a.rank) * g.n + p] = v;
    g.descs[(size_t(a.rank) * g.n + p) * 4 + v % 4] = a.desc;
  }
  g.cv.notify_all();
  auto reached = [&] {
    for (const auto& [p, v] : a.targets)
      if (g.posted[size_t(p) * g.n + a.rank] < v) return false;
    return true;
  };
  const auto deadline = a.timeout_s == 0 ? std::chrono::steady_clock::time_point::max()
                                         : std::chrono::steady_clock::now() + std::chrono::seconds(a.timeout_s);
  std::string why;
  HcclResult code = HCCL_SUCCESS;
  while (!reached()) {
    if (g.broken) {
      code = g.broken_code;
      why = "communicator \"" + g.name + "\" failed earlier: " + g.broken_reason;
      break;
    }
    if (b.cancelled()) return;
    bool peer_gone = false;
    for (const auto& [p, v] : a.targets) {
      if (g.posted[size_t(p) * g.n + a.rank] < v && g.gone[p]) {
        code = HCCL_E_REMOTE;
        why = std::string(kind_name(a.kind)) + " #" + std::to_string(a.op_seq) + " of communicator \"" + g.name +
              "\": rank " + std::to_string(p) + " destroyed its communicator before arriving";
        peer_gone = true;
        break;
      }
    }
    if (peer_gone) {
      fail_group(g, code, why);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string missing;
      for (const auto& [p, v] : a.targets)
        if (g.posted[size_t(p) * g.n + a.rank] < v) missing += (missing.empty() ? "" : ", ") + std::to_string(p);
      code = HCCL_E_TIMEOUT;
      why = std::string(kind_name(a.kind)) + " #" + std::to_string(a.op_seq) + " of communicator \"" + g.name +
            "\": rank(s) " + missing + " did not arrive within HCCL_EXEC_TIMEOUT (" + std::to_string(a.timeout_s) +
            " s), rank " + std::to_string(a.rank) + " waited";
      fail_group(g, code, why);
      break;
    }
    g.cv.wait_for(lk, std::chrono::milliseconds(20));
  }
  if (code == HCCL_SUCCESS) {
    for (const auto& [p, v] : a.targets) {
      if (g.descs[(size_t(p) * g.n + a.rank) * 4 + v % 4] != a.desc) {
        code = HCCL_E_PARA;
        why = std::string(kind_name(a.kind)) + " #" + std::to_string(a.op_seq) + " of communicator \"" + g.name +
              "\" on rank " + std::to_string(a.rank) + " does not match rank " + std::to_string(p) +
              "'s operation (count, data type, reduce op or root differ)";
        fail_group(g, code, why);
        break;
      }
    }
  }
  if (code == HCCL_SUCCESS) {
    for (const auto& [p, v] : a.targets) b.sync_acquire(&g.posted[size_t(p) * g.n + a.rank], v);
  }
  lk.unlock();
  if (code != HCCL_SUCCESS) {
    int expected = HCCL_SUCCESS;
    a.async_error->compare_exchange_strong(expected, code);
    std::fprintf(stderr, "HCCL error: %s\n", why.c_str());
    b.fail(code == HCCL_E_TIMEOUT ? ACL_ERROR_RT_TASK_TIMEOUT : ACL_ERROR_RT_PARAM_INVALID, why.c_str());
  }
}

// Builds one operation on the caller's stream.
class Plan {
 public:
  Plan(Comm& c, aclrtStream s, Kind k, uint64_t desc) : c_(c), s_(s), kind_(k), desc_(desc) { seq_ = ++c.op_seq; }

  // Point-to-point transfers carry their own descriptor, so both sides' items are compared.
  void set_desc(uint64_t d) { desc_ = d; }
  uint32_t n() const { return c_.g->n; }
  uint32_t rank() const { return c_.rank; }
  char* data(uint32_t r) const { return static_cast<char*>(c_.g->staging[r]); }
  char* scratch(uint32_t r) const { return data(r) + c_.g->staging_bytes; }
  uint64_t buffer_bytes() const { return c_.g->staging_bytes; }

  void copy(void* dst, const void* src, uint64_t bytes) {
    if (!ok_ || bytes == 0 || dst == src) return;
    if (aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s_) != ACL_SUCCESS)
      fail("aclrtMemcpyAsync");
  }

  // dst (and dst2 when not null) = op over srcs in their order, in one kernel that reads each
  // source once.
  void fold(std::vector<const void*> srcs, void* dst, void* dst2, uint64_t count, HcclDataType t, HcclReduceOp op) {
    if (!ok_ || count == 0) return;
    const uint32_t blocks = static_cast<uint32_t>(std::clamp<uint64_t>(count * srcs.size() / 32768, 1, 8));
    FoldArgs a{std::move(srcs), dst, dst2, size_t(count), t, op};
    if (arun::launch(s_, blocks, fold_kernel, a) != ACL_SUCCESS) fail("reduce kernel");
  }

  void sync(const std::vector<uint32_t>& peers) {
    if (!ok_) return;
    SyncArgs a{c_.g, c_.async_error, c_.rank, {}, desc_, c_.exec_timeout_s, kind_, seq_};
    for (uint32_t p : peers) {
      if (p == c_.rank) continue;
      bool dup = false;
      for (const auto& t : a.targets) dup = dup || t.first == p;
      if (!dup) a.targets.emplace_back(p, ++c_.sent[p]);
    }
    if (a.targets.empty()) return;
    if (arun::launch(s_, 1, sync_kernel, a) != ACL_SUCCESS) fail("sync kernel");
  }
  void sync_all() {
    std::vector<uint32_t> all;
    for (uint32_t p = 0; p < n(); ++p) all.push_back(p);
    sync(all);
  }

  // The last task of the operation carries the token that retires it.
  HcclResult finish() {
    if (ok_) {
      auto token = std::make_shared<Token>(c_.inflight);
      // Publishes the operation's end for the sanitizer: HcclCommDestroy waits for the token
      // (invisible to it) before the last rank frees every staging buffer.
      const void* group = c_.g.get();
      if (arun::launch(
              s_, 1, [](arun::Block b, const std::shared_ptr<Token>&, const void* g) { b.sync_release(g, 0); }, token,
              group) != ACL_SUCCESS)
        fail("completion kernel");
    }
    if (!ok_) {
      // Part of the operation is enqueued: the peers would wait for the rest.
      std::lock_guard<std::mutex> lk(c_.g->mu);
      fail_group(*c_.g, HCCL_E_RUNTIME, std::string("rank ") + std::to_string(c_.rank) + " could not enqueue " + what_);
      return HCCL_E_RUNTIME;
    }
    return HCCL_SUCCESS;
  }

 private:
  void fail(const char* what) {
    ok_ = false;
    what_ = what;
    const char* msg = aclGetRecentErrMsg();
    log_error("%s #%llu: %s failed: %s", kind_name(kind_), (unsigned long long)seq_, what, msg ? msg : "");
  }
  Comm& c_;
  aclrtStream s_;
  Kind kind_;
  uint64_t desc_;
  uint64_t seq_ = 0;
  bool ok_ = true;
  std::string what_;
};

char* at(const void* base, uint64_t elems, size_t es) {
  return static_cast<char*>(const_cast<void*>(base)) + elems * es;
}

// ---- algorithms; staging data region = B bytes per rank, scratch = B bytes --------------------

// Where rank `from` pushes its part for rank `owner`: one of the owner's n-1 scratch slots of
// `slot` elements each, in rank order without the owner itself.
char* slot_of(const Plan& p, uint32_t owner, uint32_t from, uint64_t slot, size_t es) {
  return p.scratch(owner) + uint64_t(from < owner ? from : from - 1) * slot * es;
}

// Direct: everyone pulls every peer's slice into its scratch and folds them with its own in rank
// order with one kernel (the same bits on every rank). Two sync points: the choice for small data.
void allreduce_direct(Plan& p, const void* send, void* recv, uint64_t count, HcclDataType t, HcclReduceOp op,
                      bool only_root, uint32_t root) {
  const size_t es = type_size(t);
  const uint32_t n = p.n(), r = p.rank();
  const uint64_t L = p.buffer_bytes() / es / (n - 1);  // n-1 peer slices fit the scratch half
  for (uint64_t off = 0; off < count; off += L) {
    const uint64_t m = std::min(L, count - off);
    p.copy(p.data(r), at(send, off, es), m * es);
    p.sync_all();
    if (!only_root || r == root) {
      std::vector<const void*> srcs;
      for (uint32_t q = 0; q < n; ++q) {
        if (q != r) p.copy(slot_of(p, r, q, m, es), p.data(q), m * es);
        srcs.push_back(q == r ? at(send, off, es) : slot_of(p, r, q, m, es));
      }
      p.fold(std::move(srcs), at(recv, off, es), nullptr, m, t, op);
    }
    p.sync_all();
  }
}

// Ring: reduce-scatter then all-gather in n-1 steps each, syncing only with the two neighbours;
// every rank moves 2(n-1)/n of the data instead of (n-1) times it.
void allreduce_ring(Plan& p, const void* send, void* recv, uint64_t count, HcclDataType t, HcclReduceOp op) {
  const size_t es = type_size(t);
  const uint32_t n = p.n(), r = p.rank();
  const uint32_t prev = (r + n - 1) % n, next = (r + 1) % n;
  const uint64_t L = p.buffer_bytes() / es;
  for (uint64_t off = 0; off < count; off += L) {
    const uint64_t m = std::min(L, count - off);
    const uint64_t chunk = (m + n - 1) / n;
    auto lo = [&](uint32_t c) { return std::min<uint64_t>(m, uint64_t(c) * chunk); };
    auto len = [&](uint32_t c) { return std::min<uint64_t>(m, uint64_t(c + 1) * chunk) - lo(c); };
    p.copy(p.data(r), at(send, off, es), m * es);
    p.sync({prev, next});
    for (uint32_t k = 0; k + 1 < n; ++k) {
      const uint32_t c = (r + 2 * n - k - 1) % n;
      p.copy(p.scratch(r), p.data(prev) + lo(c) * es, len(c) * es);
      p.fold({p.data(r) + lo(c) * es, p.scratch(r)}, p.data(r) + lo(c) * es, nullptr, len(c), t, op);
      p.sync({prev, next});
    }
    for (uint32_t k = 0; k + 1 < n; ++k) {
      const uint32_t c = (r + n - k) % n;
      p.copy(p.data(r) + lo(c) * es, p.data(prev) + lo(c) * es, len(c) * es);
      p.sync({prev, next});
    }
    p.copy(at(recv, off, es), p.data(r), m * es);
  }
}

// One push slice: after a sync, this rank copies elements [off, off + slot) of its block for each
// peer q (counts[q] at displs[q] of send) into its slot of q's scratch, then syncs again.
void push_slice(Plan& p, const void* send, const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                uint64_t off, uint64_t slot, size_t es) {
  const uint32_t n = p.n(), r = p.rank();
  p.sync_all();  // every peer is done reading its scratch
  for (uint32_t q = 0; q < n; ++q) {
    if (q != r && counts[q] > off)
      p.copy(slot_of(p, q, r, slot, es), at(send, displs[q] + off, es), std::min(slot, counts[q] - off) * es);
  }
  p.sync_all();
}

// Full mesh (HCCL's single-server "fullmesh"), the default above the small-message size: a
// reduce-scatter by pushes, then an all-gather by pulls. A rank cannot address its peers' user
// buffers when it enqueues (they are not known yet), only their staging, so each rank pushes its
// chunk q of the slice into rank q's scratch, folds its own chunk from its send buffer and the
// n-1 pushed copies in rank order into its recv and its staging data, and pulls every other
// reduced chunk from the owner's staging data. Per rank that moves ~2.4x the bytes its result
// needs (the ring ~5x), with five sync points per slice instead of 2(n-1)+1.
void allreduce_mesh(Plan& p, const void* send, void* recv, uint64_t count, HcclDataType t, HcclReduceOp op) {
  const size_t es = type_size(t);
  const uint32_t n = p.n(), r = p.rank();
  const uint64_t slot = p.buffer_bytes() / es / (n - 1);  // n-1 slots fill the scratch half
  const uint64_t L = slot * n;
  for (uint64_t off = 0; off < count; off += L) {
    const uint64_t m = std::min(L, count - off);
    const uint64_t chunk = (m + n - 1) / n;
    auto lo = [&](uint32_t c) { return off + std::min<uint64_t>(m, uint64_t(c) * chunk); };
    auto len = [&](uint32_t c) {
      return std::min<uint64_t>(m, uint64_t(c + 1) * chunk) - std::min<uint64_t>(m, uint64_t(c) * chunk);
    };
    p.sync_all();  // every peer is past its earlier use of its scratch and staging data
    for (uint32_t q = 0; q < n; ++q)
      if (q != r) p.copy(slot_of(p, q, r, slot, es), at(send, lo(q), es), len(q) * es);
    p.sync_all();
    std::vector<const void*> srcs;
    for (uint32_t q = 0; q < n; ++q) srcs.push_back(q == r ? at(send, lo(r), es) : slot_of(p, r, q, slot, es));
    p.fold(std::move(srcs), at(recv, lo(r), es), p.data(r), len(r), t, op);
    p.sync_all();
    for (uint32_t q = 0; q < n; ++q)
      if (q != r) p.copy(at(recv, lo(q), es), p.data(q), len(q) * es);
  }
  p.sync_all();  // the peers have pulled from this rank's staging data before anything reuses it
}

// Each rank's blocks for `counts[i]` elements at `displs[i]`, reduced over all ranks into rank i:
// per slice, every rank pushes its block for rank q into q's scratch, then q folds its own block and
// the pushed ones in rank order straight into its recv.
void reduce_scatter_v(Plan& p, const void* send, void* recv, const std::vector<uint64_t>& counts,
                      const std::vector<uint64_t>& displs, HcclDataType t, HcclReduceOp op) {
  const size_t es = type_size(t);
  const uint32_t n = p.n(), r = p.rank();
  if (n == 1) {
    p.copy(recv, at(send, displs[0], es), counts[0] * es);
    return;
  }
  const uint64_t slot = p.buffer_bytes() / es / (n - 1);
  const uint64_t most = *std::max_element(counts.begin(), counts.end());
  for (uint64_t off = 0; off < most; off += slot) {
    push_slice(p, send, counts, displs, off, slot, es);
    if (counts[r] > off) {
      std::vector<const void*> srcs;
      for (uint32_t q = 0; q < n; ++q)
        srcs.push_back(q == r ? at(send, displs[r] + off, es) : slot_of(p, r, q, slot, es));
      p.fold(std::move(srcs), at(recv, off, es), nullptr, std::min(slot, counts[r] - off), t, op);
    }
  }
}

// Rank i's counts[i] elements land at displs[i] of every rank's recv.
void all_gather_v(Plan& p, const void* send, void* recv, const std::vector<uint64_t>& counts,
                  const std::vector<uint64_t>& displs, size_t es) {
  const uint32_t n = p.n(), r = p.rank();
  const uint64_t L = p.buffer_bytes() / es;
  const uint64_t most = *std::max_element(counts.begin(), counts.end());
  for (uint64_t off = 0; off < most; off += L) {
    if (counts[r] > off) p.copy(p.data(r), at(send, off, es), std::min(L, counts[r] - off) * es);
    p.sync_all();
    for (uint32_t q = 0; q < n; ++q) {
      if (counts[q] > off) p.copy(at(recv, displs[q] + off, es), p.data(q), std::min(L, counts[q] - off) * es);
    }
    p.sync_all();
  }
}

// One transfer between this rank and a peer (a send or a receive of `count` elements).
struct Transfer {
  bool send;
  char* buf;
  uint64_t count;
  HcclDataType type;
};

// Point-to-point: pairs are served in ascending peer order (a global order of rank pairs, so no
// cycle of waits); within a pair the lower rank's sends go first. Each chunk: the sender stages it,
// sync, the receiver pulls it, sync.
void p2p(Comm& c, Plan& p, std::vector<std::vector<Transfer>>& per_peer) {
  const uint32_t r = c.rank;
  for (uint32_t q = 0; q < p.n(); ++q) {
    auto& list = per_peer[q];
    if (list.empty()) continue;
    std::stable_sort(list.begin(), list.end(),
                     [&](const Transfer& a, const Transfer& b) { return (a.send == (r < q)) > (b.send == (r < q)); });
    for (const Transfer& x : list) {
      const size_t es = type_size(x.type);
      p.set_desc(descriptor(Kind::P2P, x.type, 0, x.count, 0));
      const uint64_t L = p.buffer_bytes() / es;
      for (uint64_t off = 0; off < x.count; off += L) {
        const uint64_t m = std::min(L, x.count - off);
        if (x.send) p.copy(p.data(r), x.buf + off * es, m * es);
        p.sync({q});
        if (!x.send) p.copy(x.buf + off * es, p.data(q), m * es);
        p.sync({q});
      }
    }
  }
}

// ---- argument checks ------------------------------------------------------------------------

struct Issue {
  std::shared_ptr<Comm> comm;
  std::unique_lock<std::mutex> lock;
};

// The checks every operation shares after its NULL checks: a live communicator, a stream.
HcclResult begin(HcclComm comm, aclrtStream stream, Issue* out) {
  if (comm == nullptr || stream == nullptr) return HCCL_E_PTR;
  out->comm = find_comm(comm);
  if (!out->comm) return HCCL_E_PARA;
  out->lock = std::unique_lock<std::mutex>(out->comm->issue_mu);
  return HCCL_SUCCESS;
}

HcclResult check_count(uint64_t count, const char* what) {
  if (count > kMaxCount) {
    log_error("%s %llu exceeds the maximum 0x7FFFFFFFF", what, (unsigned long long)count);
    return HCCL_E_PARA;
  }
  return HCCL_SUCCESS;
}

HcclResult check_align(const void* p, size_t es, const char* what) {
  if (p != nullptr && es != 0 && reinterpret_cast<uintptr_t>(p) % es != 0) {
    log_error("%s %p is not aligned to its %zu-byte elements", what, p, es);
    return HCCL_E_PARA;
  }
  return HCCL_SUCCESS;
}

HcclResult check_move_type(HcclDataType t) {
  if (!movable_type(t)) {
    log_error("data type %s (%d) is not supported", type_name(t), int(t));
    return HCCL_E_NOT_SUPPORT;
  }
  return HCCL_SUCCESS;
}

HcclResult check_root(uint32_t root, uint32_t n) {
  if (root >= n) {
    log_error("root %u is not a rank of a %u-rank communicator", root, n);
    return HCCL_E_PARA;
  }
  return HCCL_SUCCESS;
}

#define HCCL_TRY(expr)                                         \
  do {                                                         \
    if (HcclResult r_ = (expr); r_ != HCCL_SUCCESS) return r_; \
  } while (0)

HcclResult device_first() {
  int32_t d = 0;
  return current_device(&d);
}

// HCCL_ALGO (or the config's hcclAlgo) naming "ring" or "fullmesh" picks that algorithm for every
// size; otherwise small messages go direct (two sync points: latency wins) and larger ones through
// the full mesh (less data moved).
bool small_allreduce(const Comm& c, uint64_t bytes) {
  if (c.algo.find("ring") != std::string::npos || c.algo.find("fullmesh") != std::string::npos) return false;
  return bytes <= 32 * 1024;
}

std::vector<uint64_t> read_u64(const void* p, uint32_t n) {
  const auto* a = static_cast<const uint64_t*>(p);
  return std::vector<uint64_t>(a, a + n);
}

// AlltoAll when every rank knows the largest block any rank sends (AlltoAll, AlltoAllVC), so all
// run the same number of slices: per slice, each rank pushes its block for rank q into q's
// scratch, then copies what its peers pushed into its recv. Two sync points per slice; `shape`
// (the counts or the whole matrix) is in the descriptor, so the ranks' counts are compared.
void alltoall_push(Plan& p, const void* send, void* recv, const std::vector<uint64_t>& sc,
                   const std::vector<uint64_t>& sd, const std::vector<uint64_t>& rc, const std::vector<uint64_t>& rd,
                   uint64_t most, size_t es) {
  const uint32_t n = p.n(), r = p.rank();
  p.copy(at(recv, rd[r], es), at(send, sd[r], es), std::min(sc[r], rc[r]) * es);
  if (n == 1) return;
  const uint64_t slot = p.buffer_bytes() / es / (n - 1);
  for (uint64_t off = 0; off < most; off += slot) {
    push_slice(p, send, sc, sd, off, slot, es);
    for (uint32_t q = 0; q < n; ++q) {
      if (q != r && rc[q] > off)
        p.copy(at(recv, rd[q] + off, es), slot_of(p, r, q, slot, es), std::min(slot, rc[q] - off) * es);
    }
  }
}

// `most`: the largest block any rank sends, when every rank knows it (0: unknown, AlltoAllV, whose
// ranks know only their own counts: pairwise transfers, each pair checking its counts).
HcclResult alltoall_matrix(Issue& is, const void* sendBuf, const void* recvBuf, const std::vector<uint64_t>& sc,
                           const std::vector<uint64_t>& sd, const std::vector<uint64_t>& rc,
                           const std::vector<uint64_t>& rd, HcclDataType t, aclrtStream stream, uint64_t most,
                           uint64_t shape) {
  Comm& c = *is.comm;
  const size_t es = type_size(t);
  if (c.remote) return remote_alltoall(c, stream, sendBuf, const_cast<void*>(recvBuf), sc, sd, rc, rd, t);
  Plan p(c, stream, Kind::AlltoAll, descriptor(Kind::AlltoAll, t, 0, shape, 0));
  if (most > 0) {
    alltoall_push(p, sendBuf, const_cast<void*>(recvBuf), sc, sd, rc, rd, most, es);
    return p.finish();
  }
  const uint32_t r = c.rank;
  p.copy(at(recvBuf, rd[r], es), at(sendBuf, sd[r], es), std::min(sc[r], rc[r]) * es);
  std::vector<std::vector<Transfer>> per(c.g->n);
  for (uint32_t q = 0; q < c.g->n; ++q) {
    if (q == r) continue;
    if (sc[q] > 0) per[q].push_back({true, at(sendBuf, sd[q], es), sc[q], t});
    if (rc[q] > 0) per[q].push_back({false, at(recvBuf, rd[q], es), rc[q], t});
  }
  p2p(c, p, per);
  return p.finish();
}

}  // namespace

}  // namespace hccl

using namespace hccl;

extern "C" {

HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (count == 0) return HCCL_SUCCESS;
  if (sendBuf == nullptr || recvBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HcclResult why;
  if (!reducible(dataType, op, &why)) return why;
  HCCL_TRY(check_count(count, "count"));
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  Comm& c = *is.comm;
  if (c.remote) return remote_allreduce(c, stream, sendBuf, recvBuf, count, dataType, op, false, 0);
  Plan p(c, stream, Kind::AllReduce, descriptor(Kind::AllReduce, dataType, op, count, 0));
  if (c.g->n == 1) {
    p.copy(recvBuf, sendBuf, count * es);
  } else if (small_allreduce(c, count * es)) {
    allreduce_direct(p, sendBuf, recvBuf, count, dataType, op, false, 0);
  } else if (c.algo.find("ring") != std::string::npos) {
    allreduce_ring(p, sendBuf, recvBuf, count, dataType, op);
  } else {
    allreduce_mesh(p, sendBuf, recvBuf, count, dataType, op);
  }
  return p.finish();
}

HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                      uint32_t root, HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (count == 0) return HCCL_SUCCESS;
  if (sendBuf == nullptr || recvBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HCCL_TRY(check_root(root, is.comm->g->n));
  HcclResult why;
  if (!reducible(dataType, op, &why)) return why;
  HCCL_TRY(check_count(count, "count"));
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  Comm& c = *is.comm;
  if (c.remote) return remote_allreduce(c, stream, sendBuf, recvBuf, count, dataType, op, true, root);
  Plan p(c, stream, Kind::Reduce, descriptor(Kind::Reduce, dataType, op, count, root));
  if (c.g->n == 1) {
    p.copy(recvBuf, sendBuf, count * es);
  } else {
    allreduce_direct(p, sendBuf, recvBuf, count, dataType, op, true, root);
  }
  return p.finish();
}

HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                             HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (recvCount == 0) return HCCL_SUCCESS;
  if (sendBuf == nullptr || recvBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HcclResult why;
  if (!reducible(dataType, op, &why)) return why;
  HCCL_TRY(check_count(recvCount, "recvCount"));
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  Comm& c = *is.comm;
  const uint32_t n = c.g->n;
  std::vector<uint64_t> counts(n, recvCount), displs(n);
  for (uint32_t i = 0; i < n; ++i) displs[i] = uint64_t(i) * recvCount;
  if (c.remote) return remote_reduce_scatter(c, stream, sendBuf, recvBuf, counts, displs, dataType, op);
  Plan p(c, stream, Kind::ReduceScatter, descriptor(Kind::ReduceScatter, dataType, op, recvCount, 0));
  reduce_scatter_v(p, sendBuf, recvBuf, counts, displs, dataType, op);
  return p.finish();
}

HcclResult HcclReduceScatterV(void* sendBuf, const void* sendCounts, const void* sendDispls, void* recvBuf,
                              uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                              aclrtStream stream) {
  HCCL_TRY(device_first());
  if (stream == nullptr || sendCounts == nullptr || sendDispls == nullptr || comm == nullptr) return HCCL_E_PTR;
  if (recvCount > 0 && recvBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  const uint32_t n = is.comm->g->n;
  const auto counts = read_u64(sendCounts, n);
  const auto displs = read_u64(sendDispls, n);
  uint64_t total = 0;
  for (uint64_t v : counts) {
    HCCL_TRY(check_count(v, "sendCounts[i]"));
    total += v;
  }
  if (total == 0) return HCCL_SUCCESS;
  if (sendBuf == nullptr) return HCCL_E_PTR;
  if (recvCount != counts[is.comm->rank]) {
    log_error("recvCount %llu differs from sendCounts[%u] = %llu", (unsigned long long)recvCount, is.comm->rank,
              (unsigned long long)counts[is.comm->rank]);
    return HCCL_E_PARA;
  }
  HcclResult why;
  if (!reducible(dataType, op, &why)) return why;
  if (sendBuf == recvBuf) {
    log_error("ReduceScatterV: sendBuf and recvBuf are the same buffer");
    return HCCL_E_PARA;
  }
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  if (is.comm->remote) return remote_reduce_scatter(*is.comm, stream, sendBuf, recvBuf, counts, displs, dataType, op);
  Plan p(*is.comm, stream, Kind::ReduceScatterV, descriptor(Kind::ReduceScatterV, dataType, op, 0, 0));
  reduce_scatter_v(p, sendBuf, recvBuf, counts, displs, dataType, op);
  return p.finish();
}

HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                         aclrtStream stream) {
  HCCL_TRY(device_first());
  if (count == 0) return HCCL_SUCCESS;
  if (buf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HCCL_TRY(check_root(root, is.comm->g->n));
  HCCL_TRY(check_move_type(dataType));
  HCCL_TRY(check_count(count, "count"));
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(buf, es, "buf"));
  Comm& c = *is.comm;
  if (c.remote) return remote_broadcast(c, stream, buf, count, dataType, root);
  Plan p(c, stream, Kind::Broadcast, descriptor(Kind::Broadcast, dataType, 0, count, root));
  const uint64_t L = p.buffer_bytes() / es;
  for (uint64_t off = 0; off < count && c.g->n > 1; off += L) {
    const uint64_t m = std::min(L, count - off);
    if (c.rank == root) p.copy(p.data(root), at(buf, off, es), m * es);
    p.sync_all();
    if (c.rank != root) p.copy(at(buf, off, es), p.data(root), m * es);
    p.sync_all();
  }
  return p.finish();
}

HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                         aclrtStream stream) {
  HCCL_TRY(device_first());
  if (sendCount == 0) return HCCL_SUCCESS;
  if (sendBuf == nullptr || recvBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HCCL_TRY(check_move_type(dataType));
  HCCL_TRY(check_count(sendCount, "sendCount"));
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  Comm& c = *is.comm;
  const uint32_t n = c.g->n;
  std::vector<uint64_t> counts(n, sendCount), displs(n);
  for (uint32_t i = 0; i < n; ++i) displs[i] = uint64_t(i) * sendCount;
  if (c.remote) return remote_all_gather(c, stream, sendBuf, recvBuf, counts, displs, dataType);
  Plan p(c, stream, Kind::AllGather, descriptor(Kind::AllGather, dataType, 0, sendCount, 0));
  all_gather_v(p, sendBuf, recvBuf, counts, displs, es);
  return p.finish();
}

HcclResult HcclAllGatherV(void* sendBuf, uint64_t sendCount, void* recvBuf, const void* recvCounts,
                          const void* recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (comm == nullptr || stream == nullptr || recvCounts == nullptr || recvDispls == nullptr) return HCCL_E_PTR;
  if (sendCount > 0 && sendBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  const uint32_t n = is.comm->g->n;
  const auto counts = read_u64(recvCounts, n);
  const auto displs = read_u64(recvDispls, n);
  uint64_t total = 0;
  for (uint64_t v : counts) {
    HCCL_TRY(check_count(v, "recvCounts[i]"));
    total += v;
  }
  HCCL_TRY(check_count(sendCount, "sendCount"));
  if (total == 0) return HCCL_SUCCESS;
  if (recvBuf == nullptr) return HCCL_E_PTR;
  if (sendCount != counts[is.comm->rank]) {
    log_error("sendCount %llu differs from recvCounts[%u] = %llu", (unsigned long long)sendCount, is.comm->rank,
              (unsigned long long)counts[is.comm->rank]);
    return HCCL_E_PARA;
  }
  if (sendBuf == recvBuf) {
    log_error("AllGatherV: sendBuf and recvBuf are the same buffer");
    return HCCL_E_PARA;
  }
  HCCL_TRY(check_move_type(dataType));
  const size_t es = type_size(dataType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  if (is.comm->remote) return remote_all_gather(*is.comm, stream, sendBuf, recvBuf, counts, displs, dataType);
  Plan p(*is.comm, stream, Kind::AllGatherV, descriptor(Kind::AllGatherV, dataType, 0, 0, 0));
  all_gather_v(p, sendBuf, recvBuf, counts, displs, es);
  return p.finish();
}

HcclResult HcclScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                       HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (recvCount == 0) return HCCL_SUCCESS;
  if (recvBuf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HCCL_TRY(check_root(root, is.comm->g->n));
  Comm& c = *is.comm;
  if (c.rank == root && sendBuf == nullptr) return HCCL_E_PTR;
  HCCL_TRY(check_move_type(dataType));
  HCCL_TRY(check_count(recvCount, "recvCount"));
  const size_t es = type_size(dataType);
  if (c.rank == root) HCCL_TRY(check_align(sendBuf, es, "sendBuf"));  // ignored elsewhere
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  const uint32_t n = c.g->n;
  if (c.remote) return remote_scatter(c, stream, sendBuf, recvBuf, recvCount, dataType, root);
  Plan p(c, stream, Kind::Scatter, descriptor(Kind::Scatter, dataType, 0, recvCount, root));
  const uint64_t S = (p.buffer_bytes() / es) / n;
  for (uint64_t off = 0; off < recvCount; off += S) {
    const uint64_t m = std::min(S, recvCount - off);
    if (c.rank == root) {
      for (uint32_t i = 0; i < n; ++i) p.copy(p.data(root) + i * S * es, at(sendBuf, i * recvCount + off, es), m * es);
    }
    p.sync_all();
    p.copy(at(recvBuf, off, es), p.data(root) + c.rank * S * es, m * es);
    p.sync_all();
  }
  return p.finish();
}

HcclResult HcclAlltoAll(const void* sendBuf, uint64_t sendCount, HcclDataType sendType, const void* recvBuf,
                        uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (sendCount == 0 && recvCount == 0) return HCCL_SUCCESS;
  if (sendBuf == nullptr || recvBuf == nullptr) return HCCL_E_PTR;
  if (sendCount != recvCount) {
    log_error("AlltoAll: sendCount %llu != recvCount %llu", (unsigned long long)sendCount,
              (unsigned long long)recvCount);
    return HCCL_E_PARA;
  }
  if (sendType != recvType) {
    log_error("AlltoAll: sendType %s != recvType %s", type_name(sendType), type_name(recvType));
    return HCCL_E_PARA;
  }
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  if (sendBuf == recvBuf) {
    log_error("AlltoAll: sendBuf and recvBuf are the same buffer");
    return HCCL_E_PARA;
  }
  HCCL_TRY(check_move_type(sendType));
  HCCL_TRY(check_count(sendCount, "sendCount"));
  const size_t es = type_size(sendType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  const uint32_t n = is.comm->g->n;
  std::vector<uint64_t> cnt(n, sendCount), d(n);
  for (uint32_t i = 0; i < n; ++i) d[i] = uint64_t(i) * sendCount;
  return alltoall_matrix(is, sendBuf, recvBuf, cnt, d, cnt, d, sendType, stream, sendCount, sendCount);
}

HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls, HcclDataType sendType,
                         const void* recvBuf, const void* recvCounts, const void* rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (sendCounts == nullptr || sdispls == nullptr || recvCounts == nullptr || rdispls == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  if (sendBuf != nullptr && sendBuf == recvBuf) {
    log_error("AlltoAllV: sendBuf and recvBuf are the same buffer");
    return HCCL_E_PARA;
  }
  const uint32_t n = is.comm->g->n;
  const auto sc = read_u64(sendCounts, n), sd = read_u64(sdispls, n);
  const auto rc = read_u64(recvCounts, n), rd = read_u64(rdispls, n);
  uint64_t st = 0, rt = 0;
  for (uint32_t i = 0; i < n; ++i) {
    HCCL_TRY(check_count(sc[i], "sendCounts[i]"));
    HCCL_TRY(check_count(rc[i], "recvCounts[i]"));
    st += sc[i];
    rt += rc[i];
  }
  if ((st > 0 && sendBuf == nullptr) || (rt > 0 && recvBuf == nullptr)) return HCCL_E_PTR;
  HCCL_TRY(check_move_type(sendType));
  HCCL_TRY(check_move_type(recvType));
  if (sendType != recvType) {
    log_error("AlltoAllV: sendType %s != recvType %s", type_name(sendType), type_name(recvType));
    return HCCL_E_PARA;
  }
  const size_t es = type_size(sendType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  if (st == 0 && rt == 0) return HCCL_SUCCESS;
  return alltoall_matrix(is, sendBuf, recvBuf, sc, sd, rc, rd, sendType, stream, 0, 0);
}

HcclResult HcclAlltoAllVC(const void* sendBuf, const void* sendCountMatrix, HcclDataType sendType, const void* recvBuf,
                          HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (sendCountMatrix == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  if (sendBuf != nullptr && sendBuf == recvBuf) {
    log_error("AlltoAllVC: sendBuf and recvBuf are the same buffer");
    return HCCL_E_PARA;
  }
  const uint32_t n = is.comm->g->n, r = is.comm->rank;
  const auto M = read_u64(sendCountMatrix, n * n);
  for (uint64_t v : M) HCCL_TRY(check_count(v, "sendCountMatrix entry"));
  std::vector<uint64_t> sc(n), sd(n), rc(n), rd(n);
  uint64_t st = 0, rt = 0;
  for (uint32_t j = 0; j < n; ++j) {
    sc[j] = M[size_t(r) * n + j];
    sd[j] = st;
    st += sc[j];
    rc[j] = M[size_t(j) * n + r];
    rd[j] = rt;
    rt += rc[j];
  }
  if ((st > 0 && sendBuf == nullptr) || (rt > 0 && recvBuf == nullptr)) return HCCL_E_PTR;
  HCCL_TRY(check_move_type(sendType));
  HCCL_TRY(check_move_type(recvType));
  if (sendType != recvType) {
    log_error("AlltoAllVC: sendType %s != recvType %s", type_name(sendType), type_name(recvType));
    return HCCL_E_PARA;
  }
  const size_t es = type_size(sendType);
  HCCL_TRY(check_align(sendBuf, es, "sendBuf"));
  HCCL_TRY(check_align(recvBuf, es, "recvBuf"));
  // Every rank holds the whole matrix: the largest off-diagonal block sets the slices, and a
  // hash of the matrix goes into the descriptor.
  uint64_t most = 0, shape = 1469598103934665603ULL;
  for (uint32_t i = 0; i < n * n; ++i) {
    if (i / n != i % n) most = std::max(most, M[i]);
    shape = (shape ^ M[i]) * 1099511628211ULL;
  }
  bool any = false;
  for (uint64_t v : M) any = any || v != 0;
  if (!any) return HCCL_SUCCESS;
  return alltoall_matrix(is, sendBuf, recvBuf, sc, sd, rc, rd, sendType, stream, std::max<uint64_t>(most, 1), shape);
}

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  if (is.comm->remote) return remote_barrier(*is.comm, stream);
  Plan p(*is.comm, stream, Kind::Barrier, descriptor(Kind::Barrier, HCCL_DATA_TYPE_FP32, 0, 8, 0));
  p.sync_all();
  return p.finish();
}

namespace {

HcclResult p2p_one(void* buf, uint64_t count, HcclDataType dataType, uint32_t peer, HcclComm comm, aclrtStream stream,
                   bool send) {
  HCCL_TRY(device_first());
  if (count == 0) return HCCL_SUCCESS;
  if (buf == nullptr) return HCCL_E_PTR;
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  HCCL_TRY(check_count(count, "count"));
  Comm& c = *is.comm;
  if (peer >= c.g->n) {
    log_error("%s rank %u is not a rank of a %u-rank communicator", send ? "destRank" : "srcRank", peer, c.g->n);
    return HCCL_E_PARA;
  }
  if (peer == c.rank) {
    log_error("%s to itself (rank %u) is not supported", send ? "HcclSend" : "HcclRecv", peer);
    return HCCL_E_NOT_SUPPORT;
  }
  HCCL_TRY(check_move_type(dataType));
  HCCL_TRY(check_align(buf, type_size(dataType), "buffer"));
  if (in_group()) {  // runs at HcclGroupEnd, with the group's other Send/Recv, as one batch
    defer_p2p(comm, stream, HcclSendRecvItem{send ? HCCL_SEND : HCCL_RECV, buf, count, dataType, peer});
    return HCCL_SUCCESS;
  }
  if (c.remote) return remote_p2p(c, stream, {P2pItem{send, peer, buf, count * type_size(dataType), dataType}});
  Plan p(c, stream, Kind::P2P, descriptor(Kind::P2P, dataType, 0, count, 0));
  std::vector<std::vector<Transfer>> per(c.g->n);
  per[peer].push_back({send, static_cast<char*>(buf), count, dataType});
  p2p(c, p, per);
  return p.finish();
}

}  // namespace

HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                    aclrtStream stream) {
  return p2p_one(sendBuf, count, dataType, destRank, comm, stream, true);
}

HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                    aclrtStream stream) {
  return p2p_one(recvBuf, count, dataType, srcRank, comm, stream, false);
}

HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm, aclrtStream stream) {
  HCCL_TRY(device_first());
  if (itemNum == 0) return HCCL_SUCCESS;
  if (sendRecvInfo == nullptr) return HCCL_E_PTR;
  if (in_group()) {
    log_error("HcclBatchSendRecv cannot be called inside HcclGroupStart/HcclGroupEnd");
    return HCCL_E_NOT_SUPPORT;
  }
  Issue is;
  HCCL_TRY(begin(comm, stream, &is));
  Comm& c = *is.comm;
  std::vector<std::vector<Transfer>> per(c.g->n);
  for (uint32_t i = 0; i < itemNum; ++i) {
    const HcclSendRecvItem& it = sendRecvInfo[i];
    HCCL_TRY(check_move_type(it.dataType));
    HCCL_TRY(check_count(it.count, "item count"));
    if (it.remoteRank >= c.g->n) {
      log_error("item %u: remoteRank %u is not a rank of a %u-rank communicator", i, it.remoteRank, c.g->n);
      return HCCL_E_PARA;
    }
    // Read as an integer: a value outside the enum's range must not be loaded as the enum (UB).
    int32_t kind = 0;
    std::memcpy(&kind, &it.sendRecvType, sizeof kind);
    if (kind != HCCL_SEND && kind != HCCL_RECV) {
      log_error("item %u: sendRecvType %d is not HCCL_SEND or HCCL_RECV", i, kind);
      return HCCL_E_PARA;
    }
    if (it.buf == nullptr && it.count > 0) return HCCL_E_PTR;
    if (it.remoteRank == c.rank) {
      log_error("item %u: a transfer to itself (rank %u) is not supported", i, c.rank);
      return HCCL_E_NOT_SUPPORT;
    }
    HCCL_TRY(check_align(it.buf, type_size(it.dataType), "item buf"));
    if (it.count > 0)
      per[it.remoteRank].push_back({kind == HCCL_SEND, static_cast<char*>(it.buf), it.count, it.dataType});
  }
  if (c.remote) {
    std::vector<P2pItem> items;
    for (uint32_t q = 0; q < c.g->n; ++q)
      for (const Transfer& x : per[q]) items.push_back({x.send, q, x.buf, x.count * type_size(x.type), x.type});
    return remote_p2p(c, stream, items);
  }
  Plan p(c, stream, Kind::P2P, 0);
  p2p(c, p, per);
  return p.finish();
}

}  // extern "C"
