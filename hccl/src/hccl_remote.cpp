// Communicators whose ranks live in several processes: the collective plugin's host-memory
// collectives (arun/collective.h, Gloo by default), kept stream ordered on the caller's stream.
//
// An operation is four tasks on the stream: device -> pinned host staging copies, a host function
// that makes the plugin's (blocking) call, host -> device copies, and a one-block kernel that owns
// the operation's state and fails the stream when the call failed (a host function cannot). 16-bit
// floats are reduced in float: widened on the host before the call, narrowed after it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <utility>

#include "arun/collective.h"
#include "arun/core/float16.hpp"
#include "arun/kernel.hpp"
#include "hccl_internal.hpp"

namespace hccl {

// A pinned host staging block; when the last holder lets go it returns to its pool's free list.
struct Block {
  char* p;
  size_t cap;
};

// Pinned host staging of one communicator, freed at destroy. Each stream keeps one block that its
// operations reuse: they run in stream order, so an operation's copies in start after the previous
// one's copies out ended. A bigger operation moves the stream to a bigger block. (A fresh block per
// operation would pay the first touch of its pages every time: the dominant cost at 16 MiB.)
struct Pool {
  std::mutex mu;
  std::multimap<size_t, void*> free;  // blocks nothing holds
  std::vector<void*> all;
  std::map<aclrtStream, std::shared_ptr<Block>> current;
};

struct Remote {
  const arunCollectiveOps* ops = nullptr;
  arunCollComm coll = nullptr;
  std::mutex run_mu;  // one plugin call at a time per communicator
  HcclResult broken_code = HCCL_SUCCESS;
  std::string broken;  // why, once a call failed: later calls fail at once (the links are gone)
  std::shared_ptr<Pool> pool = std::make_shared<Pool>();
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

// One operation in flight: its staging buffer and the plugin call's outcome.
struct Job {
  std::shared_ptr<Remote> r;
  std::shared_ptr<std::atomic<int>> async_error;
  std::shared_ptr<Block> block;
  char* host = nullptr;
  std::string what;  // "AllReduce #3 of communicator \"x\" (rank 1)"
  std::function<int32_t(char* host, char* err, size_t n)> run;
  HcclResult result = HCCL_SUCCESS;
  std::string message;
};

std::shared_ptr<Block> make_block(const std::shared_ptr<Pool>& pool, void* p, size_t cap) {
  return std::shared_ptr<Block>(new Block{static_cast<char*>(p), cap}, [pool](Block* b) {
    std::lock_guard<std::mutex> lk(pool->mu);
    pool->free.emplace(b->cap, b->p);
    delete b;
  });
}

void run_job(void* arg) {
  std::unique_ptr<std::shared_ptr<Job>> holder(static_cast<std::shared_ptr<Job>*>(arg));
  Job& j = **holder;
  Remote& r = *j.r;
  std::lock_guard<std::mutex> lk(r.run_mu);
  if (r.broken_code != HCCL_SUCCESS) {
    j.result = r.broken_code;
    j.message = j.what + ": the communicator failed earlier: " + r.broken;
    return;
  }
  char err[1024] = {};
  const int32_t rc = j.run(j.host, err, sizeof err);
  if (rc != ARUN_COLL_OK) {
    j.result = from_coll(rc);
    j.message = j.what + ": " + err;
    r.broken_code = j.result;
    r.broken = err;
  }
}

void finish_kernel(arun::Block b, const std::shared_ptr<Job>& job, const std::shared_ptr<Token>&) {
  if (job->result == HCCL_SUCCESS) return;
  int expected = HCCL_SUCCESS;
  job->async_error->compare_exchange_strong(expected, job->result);
  std::fprintf(stderr, "HCCL error: %s\n", job->message.c_str());
  b.fail(stream_code(job->result), job->message.c_str());
}

struct Copy {
  void* device;
  size_t host_offset;
  uint64_t bytes;
};

const char* g_kind_names[] = {"AllReduce", "Reduce",   "ReduceScatter", "Broadcast", "AllGather",
                              "Scatter",   "AlltoAll", "Send/Recv",     "Barrier"};
enum OpKind { kAllReduce, kReduce, kReduceScatter, kBroadcast, kAllGather, kScatter, kAlltoAll, kP2p, kBarrier };

// Enqueues one operation: in-copies, the call, out-copies, the finishing kernel.
HcclResult enqueue(Comm& c, aclrtStream s, OpKind kind, uint64_t host_bytes, const std::vector<Copy>& in,
                   const std::vector<Copy>& out, std::function<int32_t(char*, char*, size_t)> run) {
  Remote& r = *c.remote;
  // Staging is sized by the operation: refuse what the machine could never hold before allocating.
  const uint64_t phys = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (host_bytes > phys / 2) {
    log_error("%s: %llu bytes of host staging exceed half of this machine's memory", g_kind_names[kind],
              (unsigned long long)host_bytes);
    return HCCL_E_MEMORY;
  }
  auto job = std::make_shared<Job>();
  job->r = c.remote;
  job->async_error = c.async_error;
  job->what = std::string(g_kind_names[kind]) + " #" + std::to_string(++c.op_seq) + " of communicator \"" + c.name +
              "\" (rank " + std::to_string(c.rank) + ")";
  job->run = std::move(run);
  if (host_bytes > 0) {
    std::shared_ptr<Block> old;  // released after the lock: its deleter takes it
    {
      std::lock_guard<std::mutex> lk(r.pool->mu);
      auto& cur = r.pool->current[s];
      if (cur && cur->cap >= host_bytes) {
        job->block = cur;
      } else if (auto it = r.pool->free.lower_bound(host_bytes); it != r.pool->free.end()) {
        job->block = make_block(r.pool, it->second, it->first);
        r.pool->free.erase(it);
      }
    }
    if (!job->block) {
      void* p = nullptr;
      if (aclrtMallocHost(&p, host_bytes) != ACL_SUCCESS) {
        log_error("%s: cannot allocate %llu bytes of pinned host staging", job->what.c_str(),
                  (unsigned long long)host_bytes);
        return HCCL_E_MEMORY;
      }
      std::lock_guard<std::mutex> lk(r.pool->mu);
      r.pool->all.push_back(p);
      job->block = make_block(r.pool, p, host_bytes);
    }
    {
      std::lock_guard<std::mutex> lk(r.pool->mu);
      old = std::exchange(r.pool->current[s], job->block);
    }
    job->host = job->block->p;
  }
  auto failed = [&](const char* what) {
    const char* msg = aclGetRecentErrMsg();
    log_error("%s: %s failed: %s", job->what.c_str(), what, msg ? msg : "");
    return HCCL_E_RUNTIME;
  };
  for (const Copy& x : in) {
    if (x.bytes > 0 && aclrtMemcpyAsync(job->host + x.host_offset, x.bytes, x.device, x.bytes,
                                        ACL_MEMCPY_DEVICE_TO_HOST, s) != ACL_SUCCESS)
      return failed("aclrtMemcpyAsync (device to host)");
  }
  auto* arg = new std::shared_ptr<Job>(job);
  if (aclrtLaunchHostFunc(s, run_job, arg) != ACL_SUCCESS) {
    delete arg;
    return failed("aclrtLaunchHostFunc");
  }
  for (const Copy& x : out) {
    if (x.bytes > 0 && aclrtMemcpyAsync(x.device, x.bytes, job->host + x.host_offset, x.bytes,
                                        ACL_MEMCPY_HOST_TO_DEVICE, s) != ACL_SUCCESS)
      return failed("aclrtMemcpyAsync (host to device)");
  }
  if (arun::launch(s, 1, finish_kernel, job, std::make_shared<Token>(c.inflight)) != ACL_SUCCESS)
    return failed("the finishing kernel");
  return HCCL_SUCCESS;
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

// Host layout of a reduction of `in_n` elements into `out_n`: the plugin works on [work_in | work_out]
// in the engine's type; 16-bit floats arrive in [raw_in | raw_out] after them and are widened.
struct Reduction {
  int32_t type;
  size_t es, wes;  // element size on the device, in the engine
  uint64_t in_n, out_n;
  size_t work_in = 0, work_out, raw_in, raw_out, total;
  // in_place (AllReduce, Reduce: in_n == out_n): the result replaces the input, which halves the
  // staging and saves the engine a copy.
  Reduction(HcclDataType t, uint64_t in, uint64_t out, bool in_place = false) : in_n(in), out_n(out) {
    es = type_size(t);
    wes = widened(t) ? 4 : es;
    type = widened(t) ? ARUN_COLL_FLOAT32 : int32_t(t);
    work_out = in_place ? 0 : in_n * wes;
    const size_t work_end = in_place ? in_n * wes : work_out + out_n * wes;
    raw_in = widened(t) ? work_end : 0;
    raw_out = in_place ? raw_in : widened(t) ? raw_in + in_n * es : work_out;
    total = widened(t) ? (in_place ? raw_in + in_n * es : raw_out + out_n * es) : work_end;
  }
};

}  // namespace

std::string local_ip() {
  const char* v = std::getenv("HCCL_IF_IP");
  return v != nullptr && v[0] != '\0' ? v : "127.0.0.1";
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

// The first free port of host_ports().
void remote_serve(const std::string& ip, const std::string& id, uint32_t lo, uint32_t hi, uint32_t* port) {
  *port = 0;
  std::string why;
  const arunCollectiveOps* ops = plugin_ops(&why);
  if (ops == nullptr) return;  // ranks of this process only: they meet in memory
  arunCollServer server = nullptr;
  char err[512] = {};
  if (ops->serve(ip.c_str(), lo, hi, &server, port, err, sizeof err) != ARUN_COLL_OK) {
    std::fprintf(stderr, "HCCL warning: no rendezvous service for ranks in other processes: %s\n", err);
    *port = 0;
    return;
  }
  std::lock_guard<std::mutex> lk(services_mu());
  services()[id] = {ops, server};
}

HcclResult remote_serve_at(const std::string& ip, uint32_t port, const std::string& id) {
  std::string why;
  const arunCollectiveOps* ops = plugin_ops(&why);
  if (ops == nullptr) {
    log_error("a rank table's communicator spans processes, which needs a collective plugin: %s", why.c_str());
    return HCCL_E_NOT_SUPPORT;
  }
  arunCollServer server = nullptr;
  char err[512] = {};
  uint32_t bound = 0;
  if (ops->serve(ip.c_str(), port, port, &server, &bound, err, sizeof err) != ARUN_COLL_OK) {
    log_error("rank 0 cannot serve the rendezvous at %s:%u: %s", ip.c_str(), port, err);
    return HCCL_E_TCP_CONNECT;
  }
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
  const std::string local = local_ip();
  arunCollSpec spec{nRanks,     rank,          ip.c_str(),         port,
                    id.c_str(), local.c_str(), connect_timeout_ms, int64_t(exec_timeout_s) * 1000};
  auto r = std::make_shared<Remote>();
  r->ops = ops;
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
  std::map<aclrtStream, std::shared_ptr<Block>> current;
  std::unique_lock<std::mutex> lk(r.pool->mu);
  current.swap(r.pool->current);  // (their deleters take the lock: released below, outside it)
  lk.unlock();
  current.clear();
  lk.lock();
  for (void* p : r.pool->all) aclrtFreeHost(p);
  r.pool->all.clear();
  r.pool->free.clear();
}

HcclResult remote_allreduce(Comm& c, aclrtStream s, const void* send, void* recv, uint64_t count, HcclDataType t,
                            HcclReduceOp op, bool only_root, uint32_t root) {
  Reduction L(t, count, count, true);
  const bool gets = !only_root || c.rank == root;
  std::vector<Copy> in{{const_cast<void*>(send), L.raw_in, count * L.es}};
  std::vector<Copy> out;
  if (gets) out.push_back({recv, L.raw_out, count * L.es});
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, only_root ? kReduce : kAllReduce, L.total, in, out, [=](char* h, char* err, size_t n) {
    if (widened(t)) widen(t, h + L.raw_in, reinterpret_cast<float*>(h + L.work_in), count);
    const int32_t rc = only_root
                           ? ops->reduce(coll, h + L.work_in, h + L.work_out, count, L.type, int32_t(op), root, err, n)
                           : ops->allreduce(coll, h + L.work_in, h + L.work_out, count, L.type, int32_t(op), err, n);
    if (rc == ARUN_COLL_OK && gets && widened(t))
      narrow(t, reinterpret_cast<float*>(h + L.work_out), h + L.raw_out, count);
    return rc;
  });
}

HcclResult remote_reduce_scatter(Comm& c, aclrtStream s, const void* send, void* recv,
                                 const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                                 HcclDataType t, HcclReduceOp op) {
  uint64_t total = 0;
  std::vector<uint64_t> prefix;
  for (uint64_t v : counts) {
    prefix.push_back(total);
    total += v;
  }
  const uint64_t mine = counts[c.rank];
  Reduction L(t, total, mine);
  std::vector<Copy> in;
  for (size_t i = 0; i < counts.size(); ++i)
    in.push_back({static_cast<char*>(const_cast<void*>(send)) + displs[i] * L.es, L.raw_in + prefix[i] * L.es,
                  counts[i] * L.es});
  std::vector<Copy> out{{recv, L.raw_out, mine * L.es}};
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kReduceScatter, L.total, in, out, [=](char* h, char* err, size_t n) {
    if (widened(t)) widen(t, h + L.raw_in, reinterpret_cast<float*>(h + L.work_in), total);
    const int32_t rc =
        ops->reduce_scatter(coll, h + L.work_in, h + L.work_out, counts.data(), L.type, int32_t(op), err, n);
    if (rc == ARUN_COLL_OK && widened(t)) narrow(t, reinterpret_cast<float*>(h + L.work_out), h + L.raw_out, mine);
    return rc;
  });
}

HcclResult remote_broadcast(Comm& c, aclrtStream s, void* buf, uint64_t bytes, uint32_t root) {
  std::vector<Copy> in, out;
  if (c.rank == root) {
    in.push_back({buf, 0, bytes});
  } else {
    out.push_back({buf, 0, bytes});
  }
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kBroadcast, bytes, in, out,
                 [=](char* h, char* err, size_t n) { return ops->broadcast(coll, h, bytes, root, err, n); });
}

HcclResult remote_all_gather(Comm& c, aclrtStream s, const void* send, void* recv, const std::vector<uint64_t>& counts,
                             const std::vector<uint64_t>& displs, size_t es) {
  std::vector<uint64_t> bytes, prefix;
  uint64_t total = 0;
  for (uint64_t v : counts) {
    prefix.push_back(total);
    bytes.push_back(v * es);
    total += v * es;
  }
  const uint64_t mine = bytes[c.rank];
  std::vector<Copy> in{{const_cast<void*>(send), 0, mine}};
  std::vector<Copy> out;
  for (size_t i = 0; i < counts.size(); ++i)
    out.push_back({static_cast<char*>(recv) + displs[i] * es, mine + prefix[i], bytes[i]});
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kAllGather, mine + total, in, out, [=](char* h, char* err, size_t n) {
    return ops->allgatherv(coll, h, h + mine, bytes.data(), err, n);
  });
}

HcclResult remote_scatter(Comm& c, aclrtStream s, const void* send, void* recv, uint64_t bytes, uint32_t root) {
  const uint64_t n_ranks = c.g->n;
  const bool is_root = c.rank == root;
  const uint64_t in_bytes = is_root ? n_ranks * bytes : 0;
  std::vector<Copy> in;
  if (is_root) in.push_back({const_cast<void*>(send), 0, in_bytes});
  std::vector<Copy> out{{recv, in_bytes, bytes}};
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kScatter, in_bytes + bytes, in, out, [=](char* h, char* err, size_t n) {
    return ops->scatter(coll, h, h + in_bytes, bytes, root, err, n);
  });
}

HcclResult remote_alltoall(Comm& c, aclrtStream s, const void* send, void* recv, const std::vector<uint64_t>& sc,
                           const std::vector<uint64_t>& sd, const std::vector<uint64_t>& rc,
                           const std::vector<uint64_t>& rd, size_t es) {
  std::vector<uint64_t> sb, rb;
  std::vector<Copy> in, out;
  uint64_t st = 0;
  for (size_t i = 0; i < sc.size(); ++i) {
    sb.push_back(sc[i] * es);
    in.push_back({static_cast<char*>(const_cast<void*>(send)) + sd[i] * es, st, sc[i] * es});
    st += sc[i] * es;
  }
  uint64_t rt = st;
  for (size_t i = 0; i < rc.size(); ++i) {
    rb.push_back(rc[i] * es);
    out.push_back({static_cast<char*>(recv) + rd[i] * es, rt, rc[i] * es});
    rt += rc[i] * es;
  }
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kAlltoAll, rt, in, out, [=](char* h, char* err, size_t n) {
    return ops->alltoallv(coll, h, sb.data(), h + st, rb.data(), err, n);
  });
}

HcclResult remote_p2p(Comm& c, aclrtStream s, const std::vector<P2pItem>& items) {
  std::vector<Copy> in, out;
  std::vector<size_t> offsets;
  uint64_t total = 0;
  for (const P2pItem& it : items) {
    offsets.push_back(total);
    (it.send ? in : out).push_back({it.buf, total, it.bytes});
    total += it.bytes;
  }
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kP2p, total, in, out, [=](char* h, char* err, size_t n) {
    std::vector<arunCollP2p> list;
    for (size_t i = 0; i < items.size(); ++i)
      list.push_back({items[i].send ? 1 : 0, items[i].peer, h + offsets[i], items[i].bytes});
    return ops->sendrecv(coll, list.data(), uint32_t(list.size()), err, n);
  });
}

HcclResult remote_barrier(Comm& c, aclrtStream s) {
  auto ops = c.remote->ops;
  auto coll = c.remote->coll;
  return enqueue(c, s, kBarrier, 0, {}, {}, [=](char*, char* err, size_t n) { return ops->barrier(coll, err, n); });
}

}  // namespace hccl
