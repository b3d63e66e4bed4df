// Model subscriptions (spec part 2, 4.15: aclprofModelSubscribe). A subscription is a
// rt::ModelOpObserver: the model executor opens one operator per node execution, every device task
// the node submits reports to it, and once the node is sealed and its last task is over the
// operator becomes one fixed-size record, queued for the subscription's writer thread, which writes
// whole records to the program's pipe. Operator type and name strings stay here (OpStrings), keyed
// by the record's operator index, until aclprofGetOpType / aclprofGetOpName take them.
//
// Configurations (aclprofCreateSubscribeConfig) and the string store are process-scope: a reader
// thread may decode records after aclFinalize. The subscriptions themselves are runtime-scoped
// (AclprofState::subscriptions), ended by aclprofModelUnSubscribe or the runtime's teardown.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_prof.h"
#include "arun/runtime/aclprof.hpp"

// The opaque ACL handle type, defined here.
struct aclprofSubscribeConfig {
  int8_t time_info;
  int metrics;  // aclprofAicoreMetrics value
  int* fd;      // the program's int holding the pipe's write end
};

namespace arun::prof {

// ---- the record (internal layout, little-endian, 80 bytes; the spec's 4.15 "record format")
inline constexpr size_t kOpRecordSize = 80;

struct OpRecord {
  uint32_t model_id = 0;
  uint32_t flag = 0;  // aclprofSubscribeOpFlag
  uint32_t thread_id = 0;
  uint64_t op_index = 0;
  uint64_t duration_us = 0;
  uint64_t start_us = 0;
  uint64_t end_us = 0;
  uint64_t execution_us = 0;
  uint64_t cube_fops = 0;
  uint64_t vector_fops = 0;
  uint32_t device_id = 0;
};

void encode_op_record(const OpRecord& r, unsigned char out[kOpRecordSize]);
// True when `len` is a non-zero multiple of the record size and every record's signature holds.
bool validate_op_records(const void* buf, size_t len);
// Record `index` of a validated buffer; nullopt when `index` is beyond it.
std::optional<OpRecord> read_op_record(const void* buf, size_t len, uint32_t index);
uint32_t crc32(const unsigned char* data, size_t n);

// ---- configurations (process scope)
class SubscribeConfigs {
 public:
  static SubscribeConfigs& instance();
  aclprofSubscribeConfig* create(int8_t time_info, int metrics, int* fd);  // nullptr: out of memory
  bool destroy(const aclprofSubscribeConfig* config);                      // false: not live
  // A copy of a live configuration; false when `config` is not one.
  bool get(const aclprofSubscribeConfig* config, aclprofSubscribeConfig* out);

 private:
  std::mutex mu_;
  std::map<const aclprofSubscribeConfig*, std::unique_ptr<aclprofSubscribeConfig>> live_;
};

// ---- operator strings (process scope), each handed out once
class OpStrings {
 public:
  static OpStrings& instance();
  void put(uint64_t op_index, std::string type, std::string name);
  // The string (type: `name` false) of `op_index`, if not yet taken.
  std::optional<std::string> peek(uint64_t op_index, bool name);
  // Takes it (forgets it) when `capacity` is enough (>= its length); false otherwise or if gone.
  bool take(uint64_t op_index, bool name, char* out, size_t capacity);

 private:
  struct Entry {
    std::optional<std::string> type, name;
  };
  static constexpr size_t kMaxEntries = size_t{1} << 20;  // oldest dropped beyond this
  std::mutex mu_;
  std::map<uint64_t, Entry> entries_;
};

// ---- one model's subscription
class ModelSubscription final : public rt::ModelOpObserver {
 public:
  ModelSubscription(uint32_t model, int32_t device, const aclprofSubscribeConfig& config);
  ~ModelSubscription() override;

  uint64_t begin_op(const std::string& type, const std::string& name) override;
  void end_op(uint64_t cookie) override;
  void task_submitted(uint64_t cookie) override;
  void task_finished(uint64_t cookie, bool ran, uint64_t start_ns, uint64_t end_ns) override;

  // Waits (at most `timeout_ms`) for every opened operator to be written, then stops the writer.
  // Leaves the descriptor open; the caller closes it.
  void finish(uint32_t timeout_ms);

  int32_t device() const { return device_; }
  const aclprofSubscribeConfig& config() const { return config_; }
  int fd_value() const { return fd_value_; }

 private:
  struct OpenOp {
    uint32_t pending = 0;  // tasks submitted and not over
    bool sealed = false;
    bool ran = false;
    uint64_t begin_ns = 0;
    uint64_t start_ns = UINT64_MAX, end_ns = 0, busy_ns = 0;
    uint32_t thread = 0;
  };
  void maybe_emit_locked(uint64_t cookie, OpenOp& op);  // mu_ held
  void writer_loop();

  const uint32_t model_;
  const int32_t device_;
  const aclprofSubscribeConfig config_;
  const int fd_value_;
  std::mutex mu_;
  std::condition_variable cv_;       // writer: records queued / stop
  std::condition_variable drained_;  // finish(): nothing open, nothing queued
  std::map<uint64_t, OpenOp> open_;
  std::deque<unsigned char> queue_;
  bool writing_ = false;
  bool stop_ = false;
  bool write_failed_ = false;
  std::thread writer_;
};

// Ends `s`: waits (at most `timeout_ms`) for its operators, writes their records, then closes
// its descriptor when `close_fd`, and stores -1 into the configuration's int when `clear_slot`.
void end_subscription(ModelSubscription& s, uint32_t timeout_ms, bool close_fd, bool clear_slot);

}  // namespace arun::prof

namespace arun {
// The runtime's teardown: ends every subscription and closes each descriptor once; the
// configurations' ints are left alone (the program may have let them go).
void end_subscriptions(std::map<uint32_t, std::shared_ptr<prof::ModelSubscription>>& subscriptions);
}  // namespace arun
