// libhccl internals: communicators of ranks in one process, built on the public ACL C API only.
//
// Ranks meet through "sync points": a one-block kernel on the rank's stream that publishes how many
// syncs it has reached towards each peer and waits until each peer has reached the same count (a
// device-side notify record + wait across devices, which the runtime's notifies and value waits,
// being single-device, cannot express). Data moves between the ranks' staging buffers with
// aclrtMemcpyAsync (device to device, peer access) and is reduced by kernels on the receiving device.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hccl/hccl.h"

namespace hccl {

// What all ranks of one communicator share.
struct Group {
  uint32_t n = 0;
  std::string name;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<uint64_t> posted;  // n*n: posted[a*n+b] = sync count rank a has reached towards b
  std::vector<uint64_t> descs;   // n*n*4: the operation descriptor of each of the last 4 syncs
  std::vector<void*> staging;    // per rank: device buffer of 2*staging_bytes (data, scratch)
  std::vector<int32_t> devices;
  uint64_t staging_bytes = 0;  // the smallest of the ranks' buffers
  uint32_t links_ready = 0;    // ranks that enabled peer access to every other rank's device
  std::vector<bool> gone;      // ranks whose communicator was destroyed
  uint32_t live_ranks = 0;     // the last rank to be destroyed frees every staging buffer
  bool broken = false;         // a sync failed: later syncs fail at once instead of waiting again
  std::string broken_reason;
  HcclResult broken_code = HCCL_SUCCESS;
};

// Operations in flight; a token's destruction (its kernel ran or was dropped) retires one.
struct InFlight {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t count = 0;
};

// Retires one in-flight operation when the last task of the operation is destroyed (ran or dropped).
struct Token {
  std::shared_ptr<InFlight> f;
  explicit Token(std::shared_ptr<InFlight> in) : f(std::move(in)) {
    std::lock_guard<std::mutex> lk(f->mu);
    ++f->count;
  }
  ~Token() {
    std::lock_guard<std::mutex> lk(f->mu);
    if (--f->count == 0) f->cv.notify_all();
  }
};

struct Remote;  // hccl_remote.cpp: a communicator whose ranks live in several processes

struct Comm {
  std::shared_ptr<Group> g;
  std::shared_ptr<Remote> remote;  // set: the operations go through the collective plugin
  uint32_t rank = 0;
  int32_t device = 0;
  std::string name;
  std::mutex issue_mu;         // operations of one communicator are issued one at a time
  std::vector<uint64_t> sent;  // per peer: syncs issued towards it
  uint64_t op_seq = 0;
  std::shared_ptr<InFlight> inflight = std::make_shared<InFlight>();
  std::shared_ptr<std::atomic<int>> async_error = std::make_shared<std::atomic<int>>(HCCL_SUCCESS);
  int32_t exec_timeout_s = 1836;
  uint32_t deterministic = 0;
  uint32_t expansion_mode = 0;
  std::string algo;
  uint32_t suspended = 0;
};

// Registry of live communicators: handles are never-reused ids, so a stale handle is HCCL_E_PARA.
std::shared_ptr<Comm> find_comm(HcclComm handle);

// Error log line (CANN writes these to its plog; we write them to stderr).
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Element size of a data type, 0 for an unknown or unsupported one.
size_t type_size(HcclDataType t);
const char* type_name(HcclDataType t);
bool movable_type(HcclDataType t);  // data movement
bool reducible(HcclDataType t, HcclReduceOp op, HcclResult* why);

constexpr uint64_t kMaxCount = 0x7FFFFFFFFULL;

// The calling thread's current device, or HCCL_E_RUNTIME.
HcclResult current_device(int32_t* dev);

// Group calls (HcclGroupStart/End, per thread): inside a group, init, destroy and Send/Recv are
// recorded after their argument checks and run at the outermost HcclGroupEnd.
bool in_group();
void defer_p2p(HcclComm comm, aclrtStream stream, const HcclSendRecvItem& item);

// ---- ranks in several processes (hccl_remote.cpp) ----
// Each operation: one kernel on the caller's stream that maps the operation's device buffers, checks
// the peers' parameters and makes the collective plugin's call on the mapped views; it fails the
// stream (and sets the async error) when the call failed. Stream ordered like any task.

// Joins communicator `id` through the collective plugin (the rendezvous service at ip:port).
HcclResult remote_init(uint32_t nRanks, uint32_t rank, const std::string& ip, uint32_t port, const std::string& id,
                       int64_t connect_timeout_ms, int32_t exec_timeout_s, std::shared_ptr<Remote>* out);
void remote_destroy(Comm& c);  // after the communicator's operations ended
// Starts a rendezvous service for a root info (port 0 and no service when no plugin is usable or
// it cannot listen). Errors: the whitelist's (HCCL_E_PARA, HCCL_E_NOT_SUPPORT), logged.
HcclResult remote_serve(const std::string& ip, const std::string& id, uint32_t lo, uint32_t hi, uint32_t* port);
// The host ports a rendezvous may use: HCCL_HOST_SOCKET_PORT_RANGE ("auto": 0, 0), else
// HCCL_IF_BASE_PORT's 32 ports (60000 by default). A malformed value: HCCL_E_PARA.
HcclResult host_ports(uint32_t* lo, uint32_t* hi);
// A rendezvous service at exactly ip:port (a rank table's rank 0); HCCL_E_TCP_CONNECT when it cannot
// listen, the whitelist's errors as remote_serve.
HcclResult remote_serve_at(const std::string& ip, uint32_t port, const std::string& id);
uint32_t remote_clients(const std::string& id);  // ranks of other processes that contacted it
void remote_close_service(const std::string& id);
// The host NIC's address (hccl_nic.hpp: HCCL_IF_IP > HCCL_SOCKET_IFNAME > the default order, of
// HCCL_SOCKET_FAMILY); HCCL_E_PARA, logged, for a bad value or when no interface matches.
HcclResult local_ip(std::string* ip);

HcclResult remote_allreduce(Comm& c, aclrtStream s, const void* send, void* recv, uint64_t count, HcclDataType t,
                            HcclReduceOp op, bool only_root, uint32_t root);
HcclResult remote_reduce_scatter(Comm& c, aclrtStream s, const void* send, void* recv,
                                 const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                                 HcclDataType t, HcclReduceOp op);
HcclResult remote_broadcast(Comm& c, aclrtStream s, void* buf, uint64_t count, HcclDataType t, uint32_t root);
HcclResult remote_all_gather(Comm& c, aclrtStream s, const void* send, void* recv, const std::vector<uint64_t>& counts,
                             const std::vector<uint64_t>& displs, HcclDataType t);
HcclResult remote_scatter(Comm& c, aclrtStream s, const void* send, void* recv, uint64_t count, HcclDataType t,
                          uint32_t root);
HcclResult remote_alltoall(Comm& c, aclrtStream s, const void* send, void* recv, const std::vector<uint64_t>& sc,
                           const std::vector<uint64_t>& sd, const std::vector<uint64_t>& rc,
                           const std::vector<uint64_t>& rd, HcclDataType t);
struct P2pItem {
  bool send;
  uint32_t peer;
  void* buf;
  uint64_t bytes;
  HcclDataType type;  // with bytes, compared against the peer's matching item
};
HcclResult remote_p2p(Comm& c, aclrtStream s, const std::vector<P2pItem>& items);
HcclResult remote_barrier(Comm& c, aclrtStream s);

// Rank tables (hccl_ranktable.cpp): loads and checks the table, then calls `join` with the
// communicator's size, the caller's rank, the rendezvous address, whether this rank serves it, and
// a session id every rank derives alike. Load errors: HCCL_E_INTERNAL; rank not listed: HCCL_E_PARA.
HcclResult init_cluster(const char* path, uint32_t rank, const HcclCommConfig* config, HcclComm* comm,
                        const std::function<HcclResult(uint32_t n, uint32_t rank, const std::string& ip, uint32_t port,
                                                       bool serve, const std::string& id)>& join);

}  // namespace hccl
