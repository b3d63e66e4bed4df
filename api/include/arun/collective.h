/* ascend-run extension: host-memory collectives between processes, from the configured collective
 * plugin (a [[plugin]] entry of kind "collective"; the installed default.toml names "gloo").
 *
 * libhccl uses this for communicators whose ranks live in several processes: it stages device
 * data into pinned host memory on the caller's stream and runs these calls from a host function
 * on that stream. Any program may use it the same way.
 *
 *   const arunCollectiveOps* ops;
 *   arunGetCollectiveOps(&ops);          // loads the plugin on first use (after aclInit)
 *   ops->serve(...)  on the root: a rendezvous service at an address and port
 *   ops->connect(...) on every rank: joins the rendezvous, returns a communicator
 *   ops->allreduce(comm, ...) ...         blocking, host memory, rank order as issued
 *
 * Every call returns an arunCollResult and, on failure, writes a NUL-terminated message naming
 * what failed (and the rank, where one is to blame) into err (err_size bytes; err may be NULL).
 * Calls on one communicator must be made one at a time (the caller serialises them); collectives
 * match across ranks by issue order. The table and the plugin stay loaded until the process exits
 * (communicators own sockets and threads that must not lose their code).
 */
#ifndef ARUN_COLLECTIVE_H_
#define ARUN_COLLECTIVE_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2: serve_only (a rendezvous that admits listed hosts only). A version 1 table ends at barrier. */
#define ARUN_COLLECTIVE_OPS_VERSION 2

typedef enum {
  ARUN_COLL_OK = 0,
  ARUN_COLL_E_INVALID = 1,       /* bad argument (size, rank, type, op, count) */
  ARUN_COLL_E_NOT_SUPPORTED = 2, /* the engine cannot do this (type, op) */
  ARUN_COLL_E_TIMEOUT = 3,       /* a rank did not join / did not take part in time */
  ARUN_COLL_E_CONNECT = 4,       /* socket set-up failed (bind, connect) */
  ARUN_COLL_E_REMOTE = 5,        /* a peer failed or went away during a call */
  ARUN_COLL_E_INTERNAL = 6
} arunCollResult;

/* Element types of reductions: the numbering of HcclDataType (only these; 16-bit floats are the
 * caller's business: convert to float). Data movement calls count bytes. */
typedef enum {
  ARUN_COLL_INT8 = 0,
  ARUN_COLL_INT16 = 1,
  ARUN_COLL_INT32 = 2,
  ARUN_COLL_FLOAT32 = 4,
  ARUN_COLL_INT64 = 5,
  ARUN_COLL_UINT64 = 6,
  ARUN_COLL_UINT8 = 7,
  ARUN_COLL_UINT16 = 8,
  ARUN_COLL_UINT32 = 9,
  ARUN_COLL_FLOAT64 = 10
} arunCollType;

/* The numbering of HcclReduceOp. Integer sums and products wrap. */
typedef enum { ARUN_COLL_SUM = 0, ARUN_COLL_PROD = 1, ARUN_COLL_MAX = 2, ARUN_COLL_MIN = 3 } arunCollOp;

typedef struct arunCollServer_* arunCollServer;
typedef struct arunCollComm_* arunCollComm;

/* How a rank finds the others. */
typedef struct {
  uint32_t size;              /* ranks in the communicator, >= 1 */
  uint32_t rank;              /* this rank, < size */
  const char* root_address;   /* IPv4/IPv6 literal or host name of the rendezvous service */
  uint32_t root_port;         /* its port */
  const char* session;        /* unique per communicator (keys of the rendezvous), <= 127 chars */
  const char* local_address;  /* the address this rank's links bind to (NULL: the root's) */
  int64_t connect_timeout_ms; /* joining: every rank must join within this */
  int64_t exec_timeout_ms;    /* each later call: peers must take part within this (0: no limit) */
} arunCollSpec;

typedef struct {
  int32_t send; /* 1: send buf to peer; 0: receive into buf from peer */
  uint32_t peer;
  void* buf;
  uint64_t bytes;
} arunCollP2p;

typedef struct arunCollectiveOps {
  uint32_t struct_size; /* sizeof(arunCollectiveOps) of the provider */
  uint32_t version;     /* ARUN_COLLECTIVE_OPS_VERSION */
  const char* engine;   /* e.g. "gloo 0.5.0" */

  /* Rendezvous service: listens on address, on the first free port of [port_lo, port_hi]
   * (0, 0: any port the system assigns); *port receives the port. Serves until close_server,
   * or until every rank of a communicator that joined through it has finished joining. */
  int32_t (*serve)(const char* address, uint32_t port_lo, uint32_t port_hi, arunCollServer* server, uint32_t* port,
                   char* err, size_t err_size);
  /* Ranks that have contacted the service so far (tells a root whether anyone joined remotely). */
  uint32_t (*server_clients)(arunCollServer server);
  void (*close_server)(arunCollServer server);

  /* Joins the communicator `spec` describes; returns when every rank has joined (or fails after
   * connect_timeout_ms naming the ranks that did not join: ARUN_COLL_E_TIMEOUT). */
  int32_t (*connect)(const arunCollSpec* spec, arunCollComm* comm, char* err, size_t err_size);
  void (*destroy)(arunCollComm comm);

  /* Collectives on host memory; in and out may be the same buffer where noted. */
  int32_t (*allreduce)(arunCollComm comm, const void* in, void* out, uint64_t count, int32_t type, int32_t op,
                       char* err, size_t err_size); /* in == out allowed */
  int32_t (*reduce)(arunCollComm comm, const void* in, void* out, uint64_t count, int32_t type, int32_t op,
                    uint32_t root, char* err, size_t err_size); /* out used on root only */
  /* in: sum(counts) elements in rank order; out: counts[rank] elements, the reduction of this rank's block */
  int32_t (*reduce_scatter)(arunCollComm comm, const void* in, void* out, const uint64_t* counts, int32_t type,
                            int32_t op, char* err, size_t err_size);
  int32_t (*broadcast)(arunCollComm comm, void* buf, uint64_t bytes, uint32_t root, char* err, size_t err_size);
  /* out: every rank's block, concatenated in rank order (bytes[i] from rank i; bytes[rank] from in) */
  int32_t (*allgatherv)(arunCollComm comm, const void* in, void* out, const uint64_t* bytes, char* err,
                        size_t err_size);
  /* root's in: size blocks of `bytes`, block i to rank i; out: this rank's block */
  int32_t (*scatter)(arunCollComm comm, const void* in, void* out, uint64_t bytes, uint32_t root, char* err,
                     size_t err_size);
  /* in: send_bytes[i] for rank i, concatenated in rank order; out: recv_bytes[i] from rank i, likewise */
  int32_t (*alltoallv)(arunCollComm comm, const void* in, const uint64_t* send_bytes, void* out,
                       const uint64_t* recv_bytes, char* err, size_t err_size);
  /* Point-to-point: every item is posted, then all are waited for (no ordering deadlock). */
  int32_t (*sendrecv)(arunCollComm comm, const arunCollP2p* items, uint32_t count, char* err, size_t err_size);
  int32_t (*barrier)(arunCollComm comm, char* err, size_t err_size);

  /* Version 2. serve(), admitting only clients whose source address is one of hosts[0..count)
   * (numeric IPv4 / IPv6 addresses; an IPv4 client seen through an IPv6 socket counts as its IPv4
   * address). Any other client is disconnected before it can read or write a key. */
  int32_t (*serve_only)(const char* address, uint32_t port_lo, uint32_t port_hi, const char* const* hosts,
                        uint32_t count, arunCollServer* server, uint32_t* port, char* err, size_t err_size);
} arunCollectiveOps;

/* The configured collective plugin's table. ACL_ERROR_UNINITIALIZE before aclInit;
 * ACL_ERROR_INVALID_PARAM for ops NULL; ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) when the configuration
 * names no collective plugin; the loader's codes when it does not load (aclGetRecentErrMsg). */
ACL_FUNC_VISIBILITY aclError arunGetCollectiveOps(const arunCollectiveOps** ops);

#ifdef __cplusplus
}
#endif

#endif /* ARUN_COLLECTIVE_H_ */
