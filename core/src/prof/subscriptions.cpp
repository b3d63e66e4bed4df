#include "prof/subscriptions.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

#include "arun/runtime/recorder.hpp"
#include "base/logging.hpp"

namespace arun::prof {
namespace {

uint64_t host_steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint32_t get32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Field offsets of the record (spec 4.15).
enum : size_t {
  kSignature = 0,
  kModel = 4,
  kFlag = 8,
  kThread = 12,
  kOpIndex = 16,
  kDuration = 24,
  kStart = 32,
  kEnd = 40,
  kExecution = 48,
  kCube = 56,
  kVector = 64,
  kDevice = 72,
};

}  // namespace

uint32_t crc32(const unsigned char* data, size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void encode_op_record(const OpRecord& r, unsigned char out[kOpRecordSize]) {
  std::memset(out, 0, kOpRecordSize);
  put32(out + kModel, r.model_id);
  put32(out + kFlag, r.flag);
  put32(out + kThread, r.thread_id);
  put64(out + kOpIndex, r.op_index);
  put64(out + kDuration, r.duration_us);
  put64(out + kStart, r.start_us);
  put64(out + kEnd, r.end_us);
  put64(out + kExecution, r.execution_us);
  put64(out + kCube, r.cube_fops);
  put64(out + kVector, r.vector_fops);
  put32(out + kDevice, r.device_id);
  put32(out + kSignature, crc32(out + 4, kOpRecordSize - 4));
}

bool validate_op_records(const void* buf, size_t len) {
  if (buf == nullptr || len == 0 || len % kOpRecordSize != 0) return false;
  const auto* p = static_cast<const unsigned char*>(buf);
  for (size_t off = 0; off < len; off += kOpRecordSize) {
    if (get32(p + off + kSignature) != crc32(p + off + 4, kOpRecordSize - 4)) return false;
  }
  return true;
}

std::optional<OpRecord> read_op_record(const void* buf, size_t len, uint32_t index) {
  if (static_cast<uint64_t>(index) >= len / kOpRecordSize) return std::nullopt;
  const auto* p = static_cast<const unsigned char*>(buf) + size_t{index} * kOpRecordSize;
  OpRecord r;
  r.model_id = get32(p + kModel);
  r.flag = get32(p + kFlag);
  r.thread_id = get32(p + kThread);
  r.op_index = get64(p + kOpIndex);
  r.duration_us = get64(p + kDuration);
  r.start_us = get64(p + kStart);
  r.end_us = get64(p + kEnd);
  r.execution_us = get64(p + kExecution);
  r.cube_fops = get64(p + kCube);
  r.vector_fops = get64(p + kVector);
  r.device_id = get32(p + kDevice);
  return r;
}

// ---------------------------------------------------------------- configurations

SubscribeConfigs& SubscribeConfigs::instance() {
  static SubscribeConfigs configs;
  return configs;
}

aclprofSubscribeConfig* SubscribeConfigs::create(int8_t time_info, int metrics, int* fd) {
  auto c = std::unique_ptr<aclprofSubscribeConfig>(new (std::nothrow) aclprofSubscribeConfig{time_info, metrics, fd});
  if (!c) return nullptr;
  aclprofSubscribeConfig* p = c.get();
  std::lock_guard lock(mu_);
  live_.emplace(p, std::move(c));
  return p;
}

bool SubscribeConfigs::destroy(const aclprofSubscribeConfig* config) {
  std::unique_ptr<aclprofSubscribeConfig> doomed;
  std::lock_guard lock(mu_);
  auto it = live_.find(config);
  if (it == live_.end()) return false;
  doomed = std::move(it->second);
  live_.erase(it);
  return true;
}

bool SubscribeConfigs::get(const aclprofSubscribeConfig* config, aclprofSubscribeConfig* out) {
  std::lock_guard lock(mu_);
  auto it = live_.find(config);
  if (it == live_.end()) return false;
  *out = *it->second;
  return true;
}

// ---------------------------------------------------------------- operator strings

OpStrings& OpStrings::instance() {
  static OpStrings strings;
  return strings;
}

void OpStrings::put(uint64_t op_index, std::string type, std::string name) {
  std::lock_guard lock(mu_);
  if (entries_.size() >= kMaxEntries) entries_.erase(entries_.begin());  // never read: the oldest goes
  Entry& e = entries_[op_index];
  e.type = std::move(type);
  e.name = std::move(name);
}

std::optional<std::string> OpStrings::peek(uint64_t op_index, bool name) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(op_index);
  if (it == entries_.end()) return std::nullopt;
  return name ? it->second.name : it->second.type;
}

bool OpStrings::take(uint64_t op_index, bool name, char* out, size_t capacity) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(op_index);
  if (it == entries_.end()) return false;
  std::optional<std::string>& s = name ? it->second.name : it->second.type;
  if (!s || capacity == 0 || capacity < s->size()) return false;
  // capacity == length: the last character makes room for the terminator (spec 4.15).
  const size_t n = std::min(s->size(), capacity - 1);
  std::memcpy(out, s->data(), n);
  out[n] = '\0';
  s.reset();
  if (!it->second.type && !it->second.name) entries_.erase(it);
  return true;
}

// ---------------------------------------------------------------- subscriptions

namespace {
std::atomic<uint64_t> g_next_op_index{1};
}  // namespace

ModelSubscription::ModelSubscription(uint32_t model, int32_t device, const aclprofSubscribeConfig& config)
    : model_(model), device_(device), config_(config), fd_value_(config.fd != nullptr ? *config.fd : -1) {
  writer_ = std::thread([this] { writer_loop(); });
}

ModelSubscription::~ModelSubscription() {
  finish(0);
}

uint64_t ModelSubscription::begin_op(const std::string& type, const std::string& name) {
  const uint64_t index = g_next_op_index.fetch_add(1, std::memory_order_relaxed);
  OpStrings::instance().put(index, type, name);
  std::lock_guard lock(mu_);
  OpenOp& op = open_[index];
  op.begin_ns = host_steady_ns();
  op.thread = thread_id();
  return index;
}

void ModelSubscription::end_op(uint64_t cookie) {
  std::lock_guard lock(mu_);
  auto it = open_.find(cookie);
  if (it == open_.end()) return;
  it->second.sealed = true;
  maybe_emit_locked(cookie, it->second);
}

void ModelSubscription::task_submitted(uint64_t cookie) {
  std::lock_guard lock(mu_);
  auto it = open_.find(cookie);
  if (it != open_.end()) ++it->second.pending;
}

void ModelSubscription::task_finished(uint64_t cookie, bool ran, uint64_t start_ns, uint64_t end_ns) {
  std::lock_guard lock(mu_);
  auto it = open_.find(cookie);
  if (it == open_.end()) return;
  OpenOp& op = it->second;
  if (op.pending > 0) --op.pending;
  if (ran) {
    op.ran = true;
    op.start_ns = std::min(op.start_ns, start_ns);
    op.end_ns = std::max(op.end_ns, end_ns);
    op.busy_ns += end_ns >= start_ns ? end_ns - start_ns : 0;
  }
  maybe_emit_locked(cookie, op);
}

void ModelSubscription::maybe_emit_locked(uint64_t cookie, OpenOp& op) {
  if (!op.sealed || op.pending != 0) return;
  if (!op.ran) {
    // Nothing of the operator reached the device (an op with no task, or all dropped): a zero-length
    // operator at the time it ended.
    op.start_ns = op.end_ns = std::max(op.begin_ns, host_steady_ns());
  }
  OpRecord r;
  r.model_id = model_;
  r.flag = ACL_SUBSCRIBE_OP;
  r.thread_id = op.thread;
  r.op_index = cookie;
  r.start_us = op.start_ns / 1000;
  r.end_us = op.end_ns / 1000;
  // Duration: scheduling (from the enqueue of the operator) plus execution.
  const uint64_t from = std::min(op.begin_ns, op.start_ns);
  r.duration_us = op.end_ns / 1000 - from / 1000;
  r.execution_us = op.busy_ns / 1000;
  r.device_id = static_cast<uint32_t>(device_);
  unsigned char bytes[kOpRecordSize];
  encode_op_record(r, bytes);
  open_.erase(cookie);
  queue_.insert(queue_.end(), bytes, bytes + kOpRecordSize);
  cv_.notify_one();
}

void ModelSubscription::writer_loop() {
  // A reader that closed its end must not kill the process: the write fails with EPIPE instead.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) break;  // stop_ and nothing left
    std::vector<unsigned char> chunk(queue_.begin(), queue_.end());
    queue_.clear();
    writing_ = true;
    lock.unlock();
    size_t done = 0;
    bool failed = false;
    while (done < chunk.size()) {
      const ssize_t n = ::write(fd_value_, chunk.data() + done, chunk.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed = true;
        break;
      }
      done += static_cast<size_t>(n);
    }
    if (failed) {
      // Consume the SIGPIPE the failed write left pending on this thread.
      const timespec zero{0, 0};
      (void)sigtimedwait(&set, nullptr, &zero);
    }
    lock.lock();
    writing_ = false;
    if (failed && !write_failed_) {
      write_failed_ = true;
      log().warn("model {} subscription: writing records to fd {} failed ({}); records are dropped", model_, fd_value_,
                 std::strerror(errno));
    }
    drained_.notify_all();
  }
  drained_.notify_all();
}

void ModelSubscription::finish(uint32_t timeout_ms) {
  {
    std::unique_lock lock(mu_);
    if (!writer_.joinable()) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    // Every opened operator becomes a record once its tasks are over; wait for them to be written.
    if (!drained_.wait_until(lock, deadline, [&] { return open_.empty() && queue_.empty() && !writing_; })) {
      log().warn("model {} subscription: {} operator(s) still running at unsubscribe; their records are dropped",
                 model_, open_.size());
    }
    open_.clear();
    stop_ = true;
    cv_.notify_one();
  }
  writer_.join();
}

void end_subscription(ModelSubscription& s, uint32_t timeout_ms, bool close_fd, bool clear_slot) {
  s.finish(timeout_ms);
  if (close_fd && s.fd_value() >= 0) ::close(s.fd_value());
  if (clear_slot && s.config().fd != nullptr) *s.config().fd = -1;
}

}  // namespace arun::prof

namespace arun {

void end_subscriptions(std::map<uint32_t, std::shared_ptr<prof::ModelSubscription>>& subscriptions) {
  std::set<int> closed;
  for (auto& [model, s] : subscriptions) {
    const bool first = closed.insert(s->fd_value()).second;
    prof::end_subscription(*s, 1000, first, false);
  }
  subscriptions.clear();
}

}  // namespace arun
