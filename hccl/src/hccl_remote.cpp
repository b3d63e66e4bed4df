// Communicators whose ranks live in several processes: the collective plugin's host-memory
// collectives (arun/collective.h, Gloo by default), kept stream ordered on the caller's stream.
//
// An operation is one task on the stream: a one-block kernel that maps the operation's device
// buffers (Block::map: device code's checked view), exchanges the operation's parameters with every
// peer (the cross-rank consistency check), makes the plugin's blocking call on the views, and fails
// the stream when the call failed. The engine reads and writes device memory through the views as a
// NIC with DMA would, so the data is not staged through host copies before and after the call (the
// engine still copies where its layout differs from HCCL's: displacements, 16-bit floats, which are
// reduced in float).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "arun/collective.h"
#include "arun/core/float16.hpp"
#include "arun/kernel.hpp"
#include "hccl_internal.hpp"
#include "hccl_nic.hpp"

namespace hccl {

struct Remote {
  const arunCollectiveOps* ops = nullptr;
  arunCollComm coll = nullptr;
  std::mutex run_mu;  // one plugin call at a time per communicator
  HcclResult broken_code = HCCL_SUCCESS;
  std::string broken;             // why, once a call failed: later calls fail at once (the links are gone)
  std::vector<char> scratch;      // host staging where a layout needs it (under run_mu); kept for reuse
  int check = 1;                  // cross-rank parameter check: 0 off, 1 first, 2 on (HCCL_DFS_CONFIG)
  std::set<std::string> checked;  // "first": signatures every rank has checked alike (under run_mu)
};

namespace {

// Root infos this process serves, with the table that made the service. Never destroyed: a
// service nobody joined stays open until the process exits, and must stay reachable till then.
std::mutex& services_mu() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::map<std::string, std::pair<const arunCollectiveOps*, arunCollServer>>& services() {
  static auto* m = new std::map<std::string, std::pair<const arunCollectiveOps*, arunCollServer>>();
  return *m;
}

const arunCollectiveOps* plugin_ops(std::string* why) {
  const arunCollectiveOps* ops = nullptr;
  if (arunGetCollectiveOps(&ops) != ACL_SUCCESS) {
    const char* msg = aclGetRecentErrMsg();
    *why = msg != nullptr ? msg : "no collective plugin";
    return nullptr;
  }
  return ops;
}

HcclResult from_coll(int32_t rc) {
  switch (rc) {
    case ARUN_COLL_OK:
      return HCCL_SUCCESS;
    case ARUN_COLL_E_INVALID:
      return HCCL_E_PARA;
    case ARUN_COLL_E_NOT_SUPPORTED:
      return HCCL_E_NOT_SUPPORT;
    case ARUN_COLL_E_TIMEOUT:
      return HCCL_E_TIMEOUT;
    case ARUN_COLL_E_CONNECT:
      return HCCL_E_TCP_CONNECT;
    case ARUN_COLL_E_REMOTE:
      return HCCL_E_REMOTE;
    default:
      return HCCL_E_INTERNAL;
  }
}

aclError stream_code(HcclResult r) {
  switch (r) {
    case HCCL_E_TIMEOUT:
      return ACL_ERROR_RT_TASK_TIMEOUT;
    case HCCL_E_REMOTE:
      return ACL_ERROR_RT_SOCKET_CLOSE;
    case HCCL_E_PARA:
      return ACL_ERROR_RT_PARAM_INVALID;
    default:
      return ACL_ERROR_RT_LINK_ERROR;
  }
}

const char* g_kind_names[] = {"AllReduce", "Reduce",   "ReduceScatter", "Broadcast", "AllGather",
                              "Scatter",   "AlltoAll", "Send/Recv",     "Barrier"};
enum OpKind { kAllReduce, kReduce, kReduceScatter, kBroadcast, kAllGather, kScatter, kAlltoAll, kP2p, kBarrier };

// What every rank must agree on for one collective (hccl-api.md: matched by issue order). Sent to
// every peer before the data moves, followed by the rank's AlltoAll(V) send and receive counts
// (n each, zero for other operations: every message has the same size, whatever the operation).
struct Desc {
  uint32_t magic = 0x48434b31;  // "HCK1"
  uint32_t kind = 0;
  int32_t type = -1;
  int32_t op = -1;
  uint64_t count = 0;
  uint32_t root = 0;
  uint32_t pad = 0;
  uint64_t counts_hash = 0;  // the V variants' counts array
};

uint64_t hash_counts(const std::vector<uint64_t>& v) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the values
  for (uint64_t x : v) h = (h ^ x) * 1099511628211ull;
  return h;
}

// A run of device memory the operation reads or writes: the kernel maps it (Block::map, the
// device's checked view) and the plugin works on that view directly where the engine's layout
// allows, so the data crosses host memory once (by the engine) instead of three times.
struct Region {
  void* dev;
  uint64_t bytes;
  bool write;
};

// A buffer as the engine wants it (contiguous, rank order) made of device segments. `direct`: the
// segments are adjacent in device memory, one region covers them and the engine uses its view.
// Otherwise each segment is a region and the kernel stages them through host scratch.
struct Layout {
  bool direct = true;
  size_t first = 0;  // index of its first region
  std::vector<uint64_t> bytes;
  uint64_t total = 0;
};

struct Job;

// What the operation's function sees inside the kernel: the mapped views, in region order.
struct Views {
  std::vector<char*> v;
  Remote* r;
  // Host memory at `offset` of the communicator's scratch (which grows to `need` first).
  char* scratch(uint64_t offset) { return r->scratch.data() + offset; }
  // The engine's input of layout L: the view, or the segments gathered into scratch at `offset`.
  char* in(const Layout& L, uint64_t offset) {
    if (L.direct) return v[L.first];
    char* dst = scratch(offset);
    uint64_t at = 0;
    for (size_t i = 0; i < L.bytes.size(); ++i) {
      if (L.bytes[i] > 0) std::memcpy(dst + at, v[L.first + i], L.bytes[i]);
      at += L.bytes[i];
    }
    return dst;
  }
  // The engine's output of layout L: the view, or scratch at `offset` (scattered by out_done).
  char* out(const Layout& L, uint64_t offset) { return L.direct ? v[L.first] : scratch(offset); }
  void out_done(const Layout& L, uint64_t offset) {
    if (L.direct) return;
    const char* src = scratch(offset);
    uint64_t at = 0;
    for (size_t i = 0; i < L.bytes.size(); ++i) {
      if (L.bytes[i] > 0) std::memcpy(v[L.first + i], src + at, L.bytes[i]);
      at += L.bytes[i];
    }
  }
};

using RunFn = std::function<int32_t(Views&, char* err, size_t n)>;

// One operation in flight.
struct Job {
  std::shared_ptr<Remote> r;
  std::shared_ptr<std::atomic<int>> async_error;
  std::string what;  // "AllReduce #3 of communicator \"x\" (rank 1)"
  uint32_t rank = 0, n = 0;
  bool check = false;
  Desc desc;
  std::vector<uint64_t> to_peer, from_peer;  // per peer (AlltoAll), else empty
  std::vector<P2pItem> p2p;                  // Send/Recv: compared pairwise (check_pairs)
  std::vector<Region> regions;
  uint64_t scratch = 0;  // host bytes the function needs
  RunFn run;
};

// Adds layout segments (device pointer, bytes) as regions of `j`.
Layout add_layout(Job& j, const std::vector<std::pair<void*, uint64_t>>& segs, bool write) {
  Layout L;
  L.first = j.regions.size();
  char* expect = nullptr;
  for (const auto& [p, b] : segs) {
    L.bytes.push_back(b);
    if (b > 0 && expect != nullptr && static_cast<char*>(p) != expect) L.direct = false;
    if (b > 0) expect = static_cast<char*>(p) + b;
    L.total += b;
  }
  if (L.direct) {
    void* base = nullptr;
    for (const auto& [p, b] : segs)
      if (b > 0 && base == nullptr) base = p;
    j.regions.push_back({base, L.total, write});
  } else {
    for (const auto& [p, b] : segs) j.regions.push_back({p, b, write});
  }
  return L;
}

const char* field_name(int i) {
  static const char* names[] = {"operation", "data type", "reduce op", "count", "root", "counts"};
  return names[i];
}

// Exchanges the descriptors with every peer (the plugin's point-to-point, posted all at once) and
// compares them. Every rank sees every peer's descriptor, so all of them find a mismatch and skip
// the operation alike: the communicator stays usable. HCCL checks at the same point, when the
// operation starts and before data moves (EI0005, "The arguments for collective communication
// are inconsistent between ranks").
int32_t check_peers(const Job& j, Remote& r, std::string* mismatch, char* err, size_t errn) {
  const size_t words = 2 * size_t(j.n), bytes = sizeof(Desc) + words * sizeof(uint64_t);
  // msgs[q]: rank q's message (this rank's own at j.rank): Desc, send counts[n], receive counts[n].
  std::vector<std::vector<char>> msgs(j.n, std::vector<char>(bytes, 0));
  std::memcpy(msgs[j.rank].data(), &j.desc, sizeof(Desc));
  if (!j.to_peer.empty()) {
    std::memcpy(msgs[j.rank].data() + sizeof(Desc), j.to_peer.data(), j.n * sizeof(uint64_t));
    std::memcpy(msgs[j.rank].data() + sizeof(Desc) + j.n * sizeof(uint64_t), j.from_peer.data(),
                j.n * sizeof(uint64_t));
  }
  std::vector<arunCollP2p> items;
  for (uint32_t q = 0; q < j.n; ++q) {
    if (q == j.rank) continue;
    items.push_back({1, q, msgs[j.rank].data(), bytes});
    items.push_back({0, q, msgs[q].data(), bytes});
  }
  const int32_t rc = r.ops->sendrecv(r.coll, items.data(), uint32_t(items.size()), err, errn);
  if (rc != ARUN_COLL_OK) return rc;
  std::vector<Desc> d(j.n);
  for (uint32_t q = 0; q < j.n; ++q) std::memcpy(&d[q], msgs[q].data(), sizeof(Desc));
  auto counts = [&](uint32_t q, int which, uint32_t i) {  // which 0: sends, 1: receives
    uint64_t v = 0;
    std::memcpy(&v, msgs[q].data() + sizeof(Desc) + (size_t(which) * j.n + i) * sizeof(uint64_t), sizeof v);
    return v;
  };
  const Desc& a = d[j.rank];
  for (uint32_t q = 0; q < j.n; ++q) {
    if (q == j.rank) continue;
    const Desc& b = d[q];
    const uint64_t la[] = {a.kind, uint64_t(a.type), uint64_t(a.op), a.count, a.root, a.counts_hash};
    const uint64_t lb[] = {b.kind, uint64_t(b.type), uint64_t(b.op), b.count, b.root, b.counts_hash};
    for (int f = 0; f < 6; ++f) {
      if (b.magic == a.magic && la[f] == lb[f]) continue;
      auto show = [&](const Desc& x, uint64_t v) -> std::string {
        if (x.magic != a.magic) return "(not an HCCL operation descriptor)";
        if (f == 0) return v < 9 ? g_kind_names[v] : std::to_string(v);
        // A peer's value: only a value of the enum's range (0..255) may become an HcclDataType.
        if (f == 1) return v > 255 ? std::to_string(int64_t(v)) : type_name(HcclDataType(v));
        if (f == 2) return int64_t(v) < 0 ? "none" : std::to_string(int64_t(v));
        if (f == 5) return "hash " + std::to_string(v);
        return std::to_string(v);
      };
      *mismatch = std::string("parameter ") + field_name(f) + ": local rank " + std::to_string(j.rank) + " has " +
                  show(a, la[f]) + ", rank " + std::to_string(q) + " has " + show(b, lb[f]);
      return ARUN_COLL_OK;
    }
  }
  // Every rank has every rank's AlltoAll(V) counts, so every rank finds the same first pair whose
  // send count (sendCounts[q] on rank p) differs from the receive count (recvCounts[p] on rank q).
  if (a.kind == kAlltoAll) {
    for (uint32_t p = 0; p < j.n; ++p) {
      for (uint32_t q = 0; q < j.n; ++q) {
        if (counts(p, 0, q) == counts(q, 1, p)) continue;
        *mismatch = "parameter sendCounts/recvCounts: rank " + std::to_string(p) + " sends " +
                    std::to_string(counts(p, 0, q)) + " elements to rank " + std::to_string(q) + ", which expects " +
                    std::to_string(counts(q, 1, p));
        return ARUN_COLL_OK;
      }
    }
  }
  return ARUN_COLL_OK;
}

// What a rank tells one peer about its Send/Recv items with that peer: counts, bytes and a hash
// of (bytes, type) per item in order, for each direction.
struct PairDesc {
  uint64_t magic = 0x48435032;  // "HCP2"
  uint64_t items[2] = {0, 0};   // [0]: sends to the peer, [1]: receives from it
  uint64_t bytes[2] = {0, 0};
  uint64_t hash[2] = {1469598103934665603ull, 1469598103934665603ull};
};

// Send/Recv (hccl-api.md: "ours: mismatch is an asynchronous error, HCCL_E_PARA"): each rank
// exchanges a PairDesc with every peer it has items with and compares its sends with the peer's
// receives and the other way round. Both sides make the same comparison, so both fail the
// operation alike and the communicator stays usable.
int32_t check_pairs(const Job& j, Remote& r, std::string* mismatch, char* err, size_t errn) {
  std::vector<PairDesc> mine(j.n), theirs(j.n);
  std::vector<bool> peer(j.n, false);
  for (const P2pItem& it : j.p2p) {
    PairDesc& d = mine[it.peer];
    const int dir = it.send ? 0 : 1;
    peer[it.peer] = true;
    d.items[dir] += 1;
    d.bytes[dir] += it.bytes;
    for (uint64_t v : {it.bytes, uint64_t(it.type)}) d.hash[dir] = (d.hash[dir] ^ v) * 1099511628211ull;
  }
  std::vector<arunCollP2p> items;
  for (uint32_t q = 0; q < j.n; ++q) {
    if (!peer[q]) continue;
    items.push_back({1, q, &mine[q], sizeof(PairDesc)});
    items.push_back({0, q, &theirs[q], sizeof(PairDesc)});
  }
  if (items.empty()) return ARUN_COLL_OK;
  const int32_t rc = r.ops->sendrecv(r.coll, items.data(), uint32_t(items.size()), err, errn);
  if (rc != ARUN_COLL_OK) return rc;
  for (uint32_t q = 0; q < j.n; ++q) {
    if (!peer[q]) continue;
    const PairDesc& a = mine[q];
    const PairDesc& b = theirs[q];
    if (b.magic != a.magic) {
      *mismatch = "rank " + std::to_string(q) + " sent no Send/Recv descriptor (a different operation)";
      return ARUN_COLL_OK;
    }
    for (int dir = 0; dir < 2; ++dir) {  // my sends vs its receives, my receives vs its sends
      if (a.items[dir] == b.items[1 - dir] && a.bytes[dir] == b.bytes[1 - dir] && a.hash[dir] == b.hash[1 - dir])
        continue;
      const uint32_t from = dir == 0 ? j.rank : q, to = dir == 0 ? q : j.rank;
      const PairDesc& s = dir == 0 ? a : b;
      const PairDesc& t = dir == 0 ? b : a;
      const uint64_t sent = s.bytes[0], expected = t.bytes[1];  // the sender's sends, the receiver's receives
      *mismatch = "rank " + std::to_string(from) + " sends " + std::to_string(sent) + " bytes in " +
                  std::to_string(s.items[0]) + " item(s) to rank " + std::to_string(to) + ", which expects " +
                  std::to_string(expected) + " bytes in " + std::to_string(t.items[1]) + " item(s)" +
                  (sent == expected ? " (their data types or item sizes differ)" : "");
      return ARUN_COLL_OK;
    }
  }
  return ARUN_COLL_OK;
}

// What "first" remembers of an operation: its descriptor, which agreeing ranks share, as bytes.
std::string signature(const Job& j) {
  return std::string(reinterpret_cast<const char*>(&j.desc), sizeof(Desc));
}

void fail_job(arun::Block b, const Job& j, HcclResult code, const std::string& message) {
  int expected = HCCL_SUCCESS;
  j.async_error->compare_exchange_strong(expected, code);
  std::fprintf(stderr, "HCCL error: %s\n", message.c_str());
  b.fail(stream_code(code), message.c_str());
}

// The operation's one task: maps its regions, checks the peers' parameters, makes the plugin's
// blocking call on the views. A kernel, not a host function: only device code may touch device
// memory, and a kernel can fail its stream with the code HCCL reports.
void op_kernel(arun::Block b, const std::shared_ptr<Job>& job, const std::shared_ptr<Token>&) {
  Job& j = *job;
  Remote& r = *j.r;
  Views views{std::vector<char*>(j.regions.size(), nullptr), &r};
  try {
    for (size_t i = 0; i < j.regions.size(); ++i) {
      const Region& g = j.regions[i];
      if (g.bytes == 0) continue;
      views.v[i] = g.write ? b.map(static_cast<char*>(g.dev), g.bytes).data()
                           : const_cast<char*>(b.map(static_cast<const char*>(g.dev), g.bytes).data());
    }
  } catch (const arun::KernelFault&) {
    // A bad device pointer failed the launch (AI Core exception). The peers wait for this rank's
    // part until their execution timeout; this rank's later operations would pair with theirs
    // out of order, so the communicator is broken from here on.
    std::lock_guard<std::mutex> lk(r.run_mu);
    if (r.broken_code == HCCL_SUCCESS) {
      r.broken_code = HCCL_E_PARA;
      r.broken = j.what + ": a buffer is not device memory of this rank (AI Core exception)";
    }
    int expected = HCCL_SUCCESS;
    j.async_error->compare_exchange_strong(expected, HCCL_E_PARA);
    throw;
  }
  std::unique_lock<std::mutex> lk(r.run_mu);
  if (r.broken_code != HCCL_SUCCESS) {
    const HcclResult code = r.broken_code;
    const std::string msg = j.what + ": the communicator failed earlier: " + r.broken;
    lk.unlock();
    fail_job(b, j, code, msg);
  }
  char err[1024] = {};
  int32_t rc = ARUN_COLL_OK;
  std::string mismatch;
  // "first" (HCCL's default): an operation is checked the first time its signature occurs. Ranks
  // that agree have the same history, so they decide alike; a rank whose mismatched operation is
  // old to it while new to a peer ends at the execution timeout instead. AlltoAll(V) is always
  // checked: its counts differ per rank, so one rank's repeat may be another's first.
  const std::string sig = signature(j);
  const bool every = r.check == 2 || j.desc.kind == kAlltoAll;
  const bool check = j.check && j.n > 1 && r.check > 0 && (every || r.checked.count(sig) == 0);
  if (check) rc = check_peers(j, r, &mismatch, err, sizeof err);
  if (j.desc.kind == kP2p && j.n > 1) rc = check_pairs(j, r, &mismatch, err, sizeof err);
  if (check && rc == ARUN_COLL_OK && mismatch.empty() && !every) {
    if (r.checked.size() >= 4096) r.checked.clear();  // bounded; every rank clears at the same point
    r.checked.insert(sig);
  }
  if (rc == ARUN_COLL_OK && mismatch.empty()) {
    try {
      if (r.scratch.size() < j.scratch) r.scratch.resize(j.scratch);
    } catch (const std::bad_alloc&) {
      rc = ARUN_COLL_E_INTERNAL;
      std::snprintf(err, sizeof err, "cannot allocate %llu bytes of host staging", (unsigned long long)j.scratch);
    }
    if (rc == ARUN_COLL_OK) rc = j.run(views, err, sizeof err);
  }
  if (!mismatch.empty()) {
    lk.unlock();
    fail_job(b, j, HCCL_E_PARA,
             j.what + ": the arguments are inconsistent between ranks: " + mismatch +
                 " (every rank must issue the same collectives in the same order)");
  }
  if (rc != ARUN_COLL_OK) {
    const HcclResult code = from_coll(rc);
    r.broken_code = code;
    r.broken = err;
    lk.unlock();
    fail_job(b, j, code, j.what + ": " + err);
  }
}

// Enqueues one operation as one kernel on the stream.
HcclResult enqueue(Comm& c, aclrtStream s, const std::shared_ptr<Job>& job) {
  // Host scratch is sized by the operation: refuse what the machine could never hold up front.
  const uint64_t phys = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (job->scratch > phys / 2) {
    log_error("%s: %llu bytes of host staging exceed half of this machine's memory", job->what.c_str(),
              (unsigned long long)job->scratch);
    return HCCL_E_MEMORY;
  }
  if (arun::launch(s, 1, op_kernel, job, std::make_shared<Token>(c.inflight)) != ACL_SUCCESS) {
    const char* msg = aclGetRecentErrMsg();
    log_error("%s: launching its task failed: %s", job->what.c_str(), msg ? msg : "");
    return HCCL_E_RUNTIME;
  }
  return HCCL_SUCCESS;
}

// type: an HcclDataType, or -1 where the operation has none (kept an integer: -1 is no enum value).
std::shared_ptr<Job> make_job(Comm& c, OpKind kind, int32_t type, int32_t op, uint64_t count, uint32_t root) {
  auto j = std::make_shared<Job>();
  j->r = c.remote;
  j->async_error = c.async_error;
  j->what = std::string(g_kind_names[kind]) + " #" + std::to_string(++c.op_seq) + " of communicator \"" + c.name +
            "\" (rank " + std::to_string(c.rank) + ")";
  j->rank = c.rank;
  j->n = c.g->n;
  j->check = kind != kP2p;  // point-to-point pairs are not all-rank operations
  j->desc.kind = kind;
  j->desc.type = type;
  j->desc.op = op;
  j->desc.count = count;
  j->desc.root = root;
  return j;
}

bool widened(HcclDataType t) {
  return t == HCCL_DATA_TYPE_FP16 || t == HCCL_DATA_TYPE_BFP16;
}

void widen(HcclDataType t, const char* src, float* dst, uint64_t n) {
  const auto* h = reinterpret_cast<const uint16_t*>(src);
  for (uint64_t i = 0; i < n; ++i)
    dst[i] = t == HCCL_DATA_TYPE_FP16 ? arun::half_to_float(h[i]) : arun::bf16_to_float(h[i]);
}

void narrow(HcclDataType t, const float* src, char* dst, uint64_t n) {
  auto* h = reinterpret_cast<uint16_t*>(dst);
  for (uint64_t i = 0; i < n; ++i)
    h[i] = t == HCCL_DATA_TYPE_FP16 ? arun::float_to_half(src[i]) : arun::float_to_bf16(src[i]);
}

int32_t engine_type(HcclDataType t) {
  return widened(t) ? ARUN_COLL_FLOAT32 : int32_t(t);
}

}  // namespace

// HCCL_DFS_CONFIG's inconsistent_check: on (every collective), first (the default: the first
// occurrence of each signature), off.
static int consistency_check() {
  const char* v = std::getenv("HCCL_DFS_CONFIG");
  if (v == nullptr) return 1;
  if (std::strstr(v, "inconsistent_check:off") != nullptr) return 0;
  if (std::strstr(v, "inconsistent_check:on") != nullptr) return 2;
  return 1;
}

HcclResult local_ip(std::string* ip) {
  std::string why;
  if (!choose_nic(host_interfaces(), std::getenv("HCCL_IF_IP"), std::getenv("HCCL_SOCKET_IFNAME"),
                  std::getenv("HCCL_SOCKET_FAMILY"), ip, &why)) {
    log_error("host NIC for HCCL: %s", why.c_str());
    return HCCL_E_PARA;
  }
  return HCCL_SUCCESS;
}

HcclResult host_ports(uint32_t* lo, uint32_t* hi) {
  *lo = 60000;
  *hi = 60031;
  if (const char* b = std::getenv("HCCL_IF_BASE_PORT"); b != nullptr && b[0] != '\0') {
    char* end = nullptr;
    const long v = std::strtol(b, &end, 10);
    if (*end != '\0' || v < 1024 || v > 65520) {
      log_error("environment variable HCCL_IF_BASE_PORT=\"%s\" is not an integer in [1024, 65520]", b);
      return HCCL_E_PARA;
    }
    *lo = uint32_t(v);
    *hi = *lo + 31;
  }
  if (const char* range = std::getenv("HCCL_HOST_SOCKET_PORT_RANGE"); range != nullptr && range[0] != '\0') {
    if (std::strcmp(range, "auto") == 0) {
      *lo = *hi = 0;
      return HCCL_SUCCESS;
    }
    // "a", "a-b" or a comma-separated list of those: the first entry is used.
    unsigned a = 0, b = 0;
    int used = 0;
    const int got = std::sscanf(range, "%u-%u%n", &a, &b, &used);
    if (got == 1) {
      used = 0;
      std::sscanf(range, "%u%n", &a, &used);
      b = a;
    }
    const char rest = range[used];
    if (got < 1 || a == 0 || b < a || b > 65535 || (rest != '\0' && rest != ',')) {
      log_error(
          "environment variable HCCL_HOST_SOCKET_PORT_RANGE=\"%s\" is not \"auto\" or ports / ranges "
          "a-b in [1, 65535], comma-separated",
          range);
      return HCCL_E_PARA;
    }
    *lo = a;
    *hi = b;
  }
  return HCCL_SUCCESS;
}

// HCCL_WHITELIST_DISABLE / HCCL_WHITELIST_FILE, checked whether or not a plugin serves.
HcclResult read_whitelist(bool* on, std::vector<std::string>* hosts) {
  std::string why;
  if (!host_whitelist(std::getenv("HCCL_WHITELIST_DISABLE"), std::getenv("HCCL_WHITELIST_FILE"), on, hosts, &why)) {
    log_error("%s", why.c_str());
    return HCCL_E_PARA;
  }
  return HCCL_SUCCESS;
}

// Starts the plugin's rendezvous service, restricted to the whitelist's hosts when it is on.
// HCCL_E_NOT_SUPPORT when the plugin cannot restrict its service, HCCL_E_TCP_CONNECT when it
// cannot listen (`err` says why).
HcclResult serve_rendezvous(const arunCollectiveOps* ops, bool restrict, const std::vector<std::string>& hosts,
                            const std::string& ip, uint32_t lo, uint32_t hi, arunCollServer* server, uint32_t* port,
                            char* err, size_t err_size) {
  if (!restrict)
    return ops->serve(ip.c_str(), lo, hi, server, port, err, err_size) == ARUN_COLL_OK ? HCCL_SUCCESS
                                                                                       : HCCL_E_TCP_CONNECT;
  if (ops->version < 2) {
    log_error("HCCL_WHITELIST_DISABLE=0: the collective plugin (%s) cannot restrict its rendezvous to listed hosts",
              ops->engine);
    return HCCL_E_NOT_SUPPORT;
  }
  std::vector<const char*> list;
  for (const std::string& h : hosts) list.push_back(h.c_str());
  return ops->serve_only(ip.c_str(), lo, hi, list.data(), uint32_t(list.size()), server, port, err, err_size) ==
                 ARUN_COLL_OK
             ? HCCL_SUCCESS
             : HCCL_E_TCP_CONNECT;
}

// The first free port of host_ports().
HcclResult remote_serve(const std::string& ip, const std::string& id, uint32_t lo, uint32_t hi, uint32_t* port) {
  *port = 0;
  bool restrict = false;
  std::vector<std::string> hosts;
  if (HcclResult e = read_whitelist(&restrict, &hosts); e != HCCL_SUCCESS) return e;
  std::string why;
  const arunCollectiveOps* ops = plugin_ops(&why);
  if (ops == nullptr) return HCCL_SUCCESS;  // ranks of this process only: they meet in memory
  arunCollServer server = nullptr;
  char err[512] = {};
  const HcclResult r = serve_rendezvous(ops, restrict, hosts, ip, lo, hi, &server, port, err, sizeof err);
  if (r == HCCL_E_TCP_CONNECT) {
    std::fprintf(stderr, "HCCL warning: no rendezvous service for ranks in other processes: %s\n", err);
    *port = 0;
    return HCCL_SUCCESS;
  }
  if (r != HCCL_SUCCESS) return r;
  std::lock_guard<std::mutex> lk(services_mu());
  services()[id] = {ops, server};
  return HCCL_SUCCESS;
}

HcclResult remote_serve_at(const std::string& ip, uint32_t port, const std::string& id) {
  bool restrict = false;
  std::vector<std::string> hosts;
  if (HcclResult e = read_whitelist(&restrict, &hosts); e != HCCL_SUCCESS) return e;
  std::string why;
  const arunCollectiveOps* ops = plugin_ops(&why);
  if (ops == nullptr) {
    log_error("a rank table's communicator spans processes, which needs a collective plugin: %s", why.c_str());
    return HCCL_E_NOT_SUPPORT;
  }
  arunCollServer server = nullptr;
  char err[512] = {};
  uint32_t bound = 0;
  const HcclResult r = serve_rendezvous(ops, restrict, hosts, ip, port, port, &server, &bound, err, sizeof err);
  if (r == HCCL_E_TCP_CONNECT) log_error("rank 0 cannot serve the rendezvous at %s:%u: %s", ip.c_str(), port, err);
  if (r != HCCL_SUCCESS) return r;
  std::lock_guard<std::mutex> lk(services_mu());
  services()[id] = {ops, server};
  return HCCL_SUCCESS;
}

uint32_t remote_clients(const std::string& id) {
  std::lock_guard<std::mutex> lk(services_mu());
  auto it = services().find(id);
  if (it == services().end()) return 0;
  return it->second.first->server_clients(it->second.second);
}

void remote_close_service(const std::string& id) {
  std::pair<const arunCollectiveOps*, arunCollServer> entry;
  {
    std::lock_guard<std::mutex> lk(services_mu());
    auto it = services().find(id);
    if (it == services().end()) return;
    entry = it->second;
    services().erase(it);
  }
  entry.first->close_server(entry.second);
}

HcclResult remote_init(uint32_t nRanks, uint32_t rank, const std::string& ip, uint32_t port, const std::string& id,
                       int64_t connect_timeout_ms, int32_t exec_timeout_s, std::shared_ptr<Remote>* out) {
  std::string why;
  const arunCollectiveOps* ops = plugin_ops(&why);
  if (ops == nullptr) {
    log_error("communicator \"%s\" spans processes, which needs a collective plugin: %s", id.c_str(), why.c_str());
    return HCCL_E_NOT_SUPPORT;
  }
  if (port == 0) {
    log_error("root info \"%s\" names no rendezvous service (its process has no collective plugin)", id.c_str());
    return HCCL_E_NOT_SUPPORT;
  }
  std::string local;
  if (HcclResult e = local_ip(&local); e != HCCL_SUCCESS) return e;
  arunCollSpec spec{nRanks,     rank,          ip.c_str(),         port,
                    id.c_str(), local.c_str(), connect_timeout_ms, int64_t(exec_timeout_s) * 1000};
  auto r = std::make_shared<Remote>();
  r->ops = ops;
  r->check = consistency_check();
  char err[1024] = {};
  const int32_t rc = ops->connect(&spec, &r->coll, err, sizeof err);
  if (rc != ARUN_COLL_OK) {
    log_error("HcclCommInitRootInfo: rank %u of %u (%s): %s", rank, nRanks, ops->engine, err);
    return from_coll(rc);
  }
  *out = r;
  return HCCL_SUCCESS;
}

void remote_destroy(Comm& c) {
  Remote& r = *c.remote;
  // A call still running (its stream was aborted, so the token went early) ends at its timeout.
  std::lock_guard<std::mutex> run(r.run_mu);
  r.ops->destroy(r.coll);
  r.coll = nullptr;
  std::vector<char>().swap(r.scratch);
}

HcclResult remote_allreduce(Comm& c, aclrtStream s, const void* send, void* recv, uint64_t count, HcclDataType t,
                            HcclReduceOp op, bool only_root, uint32_t root) {
  auto j = make_job(c, only_root ? kReduce : kAllReduce, int32_t(t), int32_t(op), count, only_root ? root : 0);
  const bool gets = !only_root || c.rank == root;
  const size_t es = type_size(t);
  const uint64_t bytes = count * es;
  const bool same = gets && send == recv;
  const Layout in = add_layout(*j, {{const_cast<void*>(send), bytes}}, same);
  const Layout out = same ? in : add_layout(*j, {{gets ? recv : nullptr, gets ? bytes : 0}}, true);
  const bool wide = widened(t);
  j->scratch = wide ? count * sizeof(float) : 0;
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  const int32_t type = engine_type(t);
  j->run = [=](Views& v, char* err, size_t n) {
    const char* src = v.in(in, 0);
    char* dst = gets ? v.out(out, 0) : nullptr;
    if (wide) {  // 16-bit floats are reduced in float, in place in scratch, and narrowed once after
      auto* f = reinterpret_cast<float*>(v.scratch(0));
      widen(t, src, f, count);
      src = dst = reinterpret_cast<char*>(f);
    }
    const int32_t rc = only_root ? ops->reduce(coll, src, dst, count, type, int32_t(op), root, err, n)
                                 : ops->allreduce(coll, src, dst, count, type, int32_t(op), err, n);
    if (rc == ARUN_COLL_OK && gets && wide) narrow(t, reinterpret_cast<float*>(dst), v.out(out, 0), count);
    return rc;
  };
  return enqueue(c, s, j);
}

HcclResult remote_reduce_scatter(Comm& c, aclrtStream s, const void* send, void* recv,
                                 const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                                 HcclDataType t, HcclReduceOp op) {
  uint64_t sum = 0;  // the per-rank counts differ (V variants): compare the total and the array
  for (uint64_t v : counts) sum += v;
  auto j = make_job(c, kReduceScatter, int32_t(t), int32_t(op), sum, 0);
  j->desc.counts_hash = hash_counts(counts);
  const size_t es = type_size(t);
  uint64_t total = 0;
  std::vector<std::pair<void*, uint64_t>> segs;
  for (size_t i = 0; i < counts.size(); ++i) {
    segs.push_back({static_cast<char*>(const_cast<void*>(send)) + displs[i] * es, counts[i] * es});
    total += counts[i];
  }
  const uint64_t mine = counts[c.rank];
  const Layout in = add_layout(*j, segs, false);
  const Layout out = add_layout(*j, {{recv, mine * es}}, true);
  const bool wide = widened(t);
  const size_t wes = wide ? sizeof(float) : es;
  // Scratch: [engine input (gathered or widened) | engine output (widened)].
  const uint64_t in_at = 0, out_at = (wide || !in.direct) ? total * wes : 0;
  j->scratch = out_at + (wide ? mine * wes : 0);
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  const int32_t type = engine_type(t);
  j->run = [=](Views& v, char* err, size_t n) {
    const char* src = v.in(in, in_at);
    char* dst = v.out(out, 0);
    if (wide) {
      widen(t, src, reinterpret_cast<float*>(v.scratch(in_at)), total);
      src = v.scratch(in_at);
      dst = v.scratch(out_at);
    }
    const int32_t rc = ops->reduce_scatter(coll, src, dst, counts.data(), type, int32_t(op), err, n);
    if (rc == ARUN_COLL_OK && wide) narrow(t, reinterpret_cast<float*>(dst), v.out(out, 0), mine);
    return rc;
  };
  return enqueue(c, s, j);
}

HcclResult remote_broadcast(Comm& c, aclrtStream s, void* buf, uint64_t count, HcclDataType t, uint32_t root) {
  auto j = make_job(c, kBroadcast, int32_t(t), -1, count, root);
  const uint64_t bytes = count * type_size(t);
  const Layout L = add_layout(*j, {{buf, bytes}}, c.rank != root);
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  j->run = [=](Views& v, char* err, size_t n) { return ops->broadcast(coll, v.out(L, 0), bytes, root, err, n); };
  return enqueue(c, s, j);
}

HcclResult remote_all_gather(Comm& c, aclrtStream s, const void* send, void* recv, const std::vector<uint64_t>& counts,
                             const std::vector<uint64_t>& displs, HcclDataType t) {
  uint64_t sum = 0;
  for (uint64_t v : counts) sum += v;
  auto j = make_job(c, kAllGather, int32_t(t), -1, sum, 0);
  j->desc.counts_hash = hash_counts(counts);
  const size_t es = type_size(t);
  std::vector<uint64_t> bytes;
  std::vector<std::pair<void*, uint64_t>> segs;
  for (size_t i = 0; i < counts.size(); ++i) {
    bytes.push_back(counts[i] * es);
    segs.push_back({static_cast<char*>(recv) + displs[i] * es, counts[i] * es});
  }
  const uint64_t mine = bytes[c.rank];
  const Layout in = add_layout(*j, {{const_cast<void*>(send), mine}}, false);
  const Layout out = add_layout(*j, segs, true);
  j->scratch = out.direct ? 0 : out.total;
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  j->run = [=](Views& v, char* err, size_t n) {
    char* dst = v.out(out, 0);
    const int32_t rc = ops->allgatherv(coll, v.in(in, 0), dst, bytes.data(), err, n);
    if (rc == ARUN_COLL_OK) v.out_done(out, 0);
    return rc;
  };
  return enqueue(c, s, j);
}

HcclResult remote_scatter(Comm& c, aclrtStream s, const void* send, void* recv, uint64_t count, HcclDataType t,
                          uint32_t root) {
  auto j = make_job(c, kScatter, int32_t(t), -1, count, root);
  const uint64_t bytes = count * type_size(t);
  const bool is_root = c.rank == root;
  const Layout in = add_layout(*j, {{const_cast<void*>(send), is_root ? uint64_t(c.g->n) * bytes : 0}}, false);
  const Layout out = add_layout(*j, {{recv, bytes}}, true);
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  j->run = [=](Views& v, char* err, size_t n) {
    return ops->scatter(coll, is_root ? v.in(in, 0) : nullptr, v.out(out, 0), bytes, root, err, n);
  };
  return enqueue(c, s, j);
}

HcclResult remote_alltoall(Comm& c, aclrtStream s, const void* send, void* recv, const std::vector<uint64_t>& sc,
                           const std::vector<uint64_t>& sd, const std::vector<uint64_t>& rc,
                           const std::vector<uint64_t>& rd, HcclDataType t) {
  auto j = make_job(c, kAlltoAll, int32_t(t), -1, 0, 0);
  j->to_peer = sc;
  j->from_peer = rc;
  const size_t es = type_size(t);
  std::vector<uint64_t> sb, rb;
  std::vector<std::pair<void*, uint64_t>> ss, rs;
  for (size_t i = 0; i < sc.size(); ++i) {
    sb.push_back(sc[i] * es);
    ss.push_back({static_cast<char*>(const_cast<void*>(send)) + sd[i] * es, sc[i] * es});
    rb.push_back(rc[i] * es);
    rs.push_back({static_cast<char*>(recv) + rd[i] * es, rc[i] * es});
  }
  const Layout in = add_layout(*j, ss, false);
  const Layout out = add_layout(*j, rs, true);
  const uint64_t out_at = in.direct ? 0 : in.total;
  j->scratch = out_at + (out.direct ? 0 : out.total);
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  j->run = [=](Views& v, char* err, size_t n) {
    char* dst = v.out(out, out_at);
    const int32_t r = ops->alltoallv(coll, v.in(in, 0), sb.data(), dst, rb.data(), err, n);
    if (r == ARUN_COLL_OK) v.out_done(out, out_at);
    return r;
  };
  return enqueue(c, s, j);
}

HcclResult remote_p2p(Comm& c, aclrtStream s, const std::vector<P2pItem>& items) {
  auto j = make_job(c, kP2p, -1, -1, 0, 0);
  j->p2p = items;
  std::vector<Layout> layouts;
  for (const P2pItem& it : items) layouts.push_back(add_layout(*j, {{it.buf, it.bytes}}, !it.send));
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  j->run = [=](Views& v, char* err, size_t n) {
    std::vector<arunCollP2p> list;
    for (size_t i = 0; i < items.size(); ++i)
      list.push_back({items[i].send ? 1 : 0, items[i].peer, v.out(layouts[i], 0), items[i].bytes});
    return ops->sendrecv(coll, list.data(), uint32_t(list.size()), err, n);
  };
  return enqueue(c, s, j);
}

HcclResult remote_barrier(Comm& c, aclrtStream s) {
  auto j = make_job(c, kBarrier, -1, -1, 0, 0);
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  j->run = [=](Views&, char* err, size_t n) { return ops->barrier(coll, err, n); };
  return enqueue(c, s, j);
}

}  // namespace hccl
