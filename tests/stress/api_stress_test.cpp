// Stress tests of the C API under concurrency, meant to run under ThreadSanitizer.
//
// ManyThreadsStreamsAndTaskMixes: several host threads, each bound to a device, create several
// streams and submit a seeded random mix of work to them: H2D / D2D / D2H copies between
// aclrtMallocHost memory and device buffers, aclrtMemsetAsync, device tasks (arunLaunchDeviceTask)
// that compute a checksum, host callbacks (blocking and not, served by one aclrtSubscribeReport
// thread per stream), host functions (run by the runtime, or by an aclrtSubscribeHostFunc thread),
// and event handshakes between streams (record / aclrtStreamWaitEvent both ways around a
// cross-stream copy). While enqueueing, each thread replays the same operations on a host model of
// its device buffers, so after synchronizing it can verify every byte copied back, every checksum,
// the order in which ordered host code ran, and how many callbacks ran and on which thread.
// EventsAcrossThreadsPipeline: events recorded by one thread's stream and waited for by another's.
// ThreadsShareOneStream: many threads submitting to, and synchronizing, one stream.
//
// The logs and counters the tasks write are plain (non-atomic) data, ordered only by the runtime:
// a missing happens-before edge between consecutive tasks of a stream, across an event wait, or
// between completion and aclrtSynchronizeStream, is what TSan reports here.
//
// Bounded by iteration counts, not time. ARUN_STRESS_CONFIG picks the configuration (default: the
// build tree's default.toml), ARUN_STRESS_SEED the seed (printed, to reproduce a failure).
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace {

constexpr int kThreads = 8;
constexpr int kStreamsPerThread = 4;
constexpr int kOpsPerStream = 500;
constexpr size_t kBufBytes = 2048;  // each device buffer, and each arena slice
// At most one download per op, plus the final read-back of both buffers.
constexpr size_t kDownloadSlices = kOpsPerStream + 2;

std::string configPath() {
  const char* env = std::getenv("ARUN_STRESS_CONFIG");
  return env != nullptr && *env != '\0' ? env : ARUN_BUILD_CONFIG_DIR "/default.toml";
}

uint32_t seed() {
  const char* env = std::getenv("ARUN_STRESS_SEED");
  return env != nullptr && *env != '\0' ? static_cast<uint32_t>(std::strtoul(env, nullptr, 0)) : 20261203u;
}

uint64_t selfId() {
  return static_cast<uint64_t>(pthread_self());
}

// Collects failures from any thread; the test body reports them.
struct Failures {
  std::mutex mutex;
  std::vector<std::string> list;
  void add(std::string what) {
    std::lock_guard lock(mutex);
    list.push_back(std::move(what));
  }
};
Failures g_failures;

#define STRESS_CHECK(call)                                                                                 \
  do {                                                                                                     \
    aclError rc_ = (call);                                                                                 \
    if (rc_ != ACL_SUCCESS) {                                                                              \
      const char* msg_ = aclGetRecentErrMsg();                                                             \
      g_failures.add(std::string(#call) + " -> " + std::to_string(rc_) + " (" + (msg_ ? msg_ : "") + ")"); \
      return;                                                                                              \
    }                                                                                                      \
  } while (0)

// The "verifiable host computation" of a device task: FNV-1a over a xorshift sequence.
uint64_t checksum(uint64_t s, int rounds) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < rounds; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    h = (h ^ s) * 1099511628211ull;
  }
  return h;
}

struct StreamState;

// One piece of host code the stream runs (device task, callback or host function).
struct HostWork {
  StreamState* stream = nullptr;
  int id = 0;                          // position among the stream's ordered (or non-blocking) host work
  uint64_t input = 0;                  // device task: checksum input
  int rounds = 0;                      // device task: checksum length
  uint64_t result = 0;                 // device task: written by the task
  const uint8_t* check_ptr = nullptr;  // a D2H slice that must have landed before this runs
  const uint8_t* check_want = nullptr;
  size_t check_len = 0;
  bool check_ok = true;  // written by the host code
  uint64_t ran_on = 0;   // host calls: the thread that ran it
};

struct StreamState {
  aclrtStream stream = nullptr;
  // How the stream's host calls run. The spec forbids mixing callbacks and host functions on a stream.
  bool callbacks = false;                // aclrtLaunchCallback, served by `reporter` (else aclrtLaunchHostFunc)
  bool reported = false;                 // `reporter` serves the stream (callbacks, or host functions subscribed to)
  uint8_t* dev[2] = {nullptr, nullptr};  // A and B
  std::vector<uint8_t> model[2];         // what A and B must hold
  uint8_t *upload = nullptr, *download = nullptr;  // pinned arenas, one slice per op
  int next_slice = 0;                              // next upload slice
  struct Download {
    const uint8_t* at;
    std::vector<uint8_t> want;
  };
  std::deque<Download> downloads;
  std::deque<HostWork> work;          // stable addresses
  std::vector<int> ordered_expected;  // ids of work that runs in stream order
  std::vector<int> ordered_log;       // appended by the work itself, in stream order
  std::vector<int> nonblocking_expected;
  std::vector<int> nonblocking_log;  // appended by the report thread only
  std::atomic<int> nonblocking_done{0};
  // The report thread of a callback stream.
  std::thread reporter;
  std::atomic<bool> stop{false};
  std::atomic<bool> subscribed{false};
  uint64_t reporter_id = 0;
};

void checkLanded(HostWork* w) {
  if (w->check_ptr != nullptr) w->check_ok = std::memcmp(w->check_ptr, w->check_want, w->check_len) == 0;
}

void deviceTask(void* arg) {
  auto* w = static_cast<HostWork*>(arg);
  w->result = checksum(w->input, w->rounds);
  checkLanded(w);
  w->stream->ordered_log.push_back(w->id);
}

void orderedHostCall(void* arg) {  // blocking callbacks and host functions
  auto* w = static_cast<HostWork*>(arg);
  w->ran_on = selfId();
  checkLanded(w);
  w->stream->ordered_log.push_back(w->id);
}

void nonBlockingCallback(void* arg) {
  auto* w = static_cast<HostWork*>(arg);
  w->ran_on = selfId();
  checkLanded(w);
  w->stream->nonblocking_log.push_back(w->id);
  w->stream->nonblocking_done.fetch_add(1, std::memory_order_release);
}

class Worker {
 public:
  Worker(int index, int32_t device) : index_(index), device_(device), rng_(seed() + 7919u * index) {}

  void run() {
    STRESS_CHECK(aclrtSetDevice(device_));
    STRESS_CHECK(aclrtGetCurrentContext(&context_));
    for (int i = 0; i < kStreamsPerThread; ++i) {
      auto s = std::make_unique<StreamState>();
      s->callbacks = (i % 2) == 0;
      s->reported = s->callbacks || (i % 4) == 3;  // every other host-function stream has its own thread
      STRESS_CHECK(aclrtCreateStream(&s->stream));
      for (auto& d : s->dev)
        STRESS_CHECK(aclrtMalloc(reinterpret_cast<void**>(&d), kBufBytes, ACL_MEM_MALLOC_HUGE_FIRST));
      STRESS_CHECK(aclrtMallocHost(reinterpret_cast<void**>(&s->upload), kBufBytes * kOpsPerStream));
      STRESS_CHECK(aclrtMallocHost(reinterpret_cast<void**>(&s->download), kBufBytes * kDownloadSlices));
      // Start from known contents, on the device and in the model.
      for (int b = 0; b < 2; ++b) {
        s->model[b].assign(kBufBytes, static_cast<uint8_t>(index_ * 16 + i * 2 + b));
        STRESS_CHECK(aclrtMemset(s->dev[b], kBufBytes, s->model[b][0], kBufBytes));
      }
      if (s->reported) startReporter(*s);
      streams_.push_back(std::move(s));
    }
    for (auto& s : streams_) {
      while (s->reported && !s->subscribed.load()) std::this_thread::yield();
    }

    // Round-robin over the streams so their work interleaves on the device.
    for (int op = 0; op < kOpsPerStream; ++op) {
      for (int i = 0; i < kStreamsPerThread; ++i) {
        if (!enqueueRandom(i)) return;
      }
    }
    // A final read-back of both buffers of every stream.
    for (auto& s : streams_) {
      for (int b = 0; b < 2; ++b) {
        if (!download(*s, b, 0, kBufBytes)) return;
      }
    }
    for (auto& s : streams_) STRESS_CHECK(aclrtSynchronizeStream(s->stream));
    verify();
    teardown();
  }

 private:
  int indexOf(const StreamState& s) const {
    for (size_t i = 0; i < streams_.size(); ++i)
      if (streams_[i].get() == &s) return static_cast<int>(i);
    return -1;
  }

  // The thread that serves the stream's host calls: aclrtSubscribeReport + aclrtProcessReport for
  // callbacks, aclrtSubscribeHostFunc + aclrtProcessHostFunc for host functions.
  void startReporter(StreamState& s) {
    aclrtContext ctx = context_;
    s.reporter = std::thread([ctx, &s] {
      const bool cb = s.callbacks;
      aclError rc = aclrtSetCurrentContext(ctx);
      if (rc == ACL_SUCCESS)
        rc = cb ? aclrtSubscribeReport(selfId(), s.stream) : aclrtSubscribeHostFunc(selfId(), s.stream);
      s.reporter_id = selfId();
      s.subscribed.store(true);  // on failure too: the launches then fail and the worker reports it
      if (rc != ACL_SUCCESS) {
        g_failures.add("report thread: subscribing -> " + std::to_string(rc));
        return;
      }
      while (!s.stop.load()) {
        rc = cb ? aclrtProcessReport(5) : aclrtProcessHostFunc(5);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT) {
          g_failures.add("report thread: processing -> " + std::to_string(rc));
          return;
        }
      }
      STRESS_CHECK(cb ? aclrtUnSubscribeReport(selfId(), s.stream) : aclrtUnSubscribeHostFunc(selfId(), s.stream));
    });
  }

  size_t pick(size_t lo, size_t hi) { return std::uniform_int_distribution<size_t>(lo, hi)(rng_); }

  // A random [offset, offset + len) within a buffer.
  void range(size_t* off, size_t* len) {
    *len = pick(1, kBufBytes);
    *off = pick(0, kBufBytes - *len);
  }

  uint8_t* upload(StreamState& s) {
    // Each upload has its own slice: a pending async copy's host memory is never rewritten.
    return s.upload + kBufBytes * static_cast<size_t>(s.next_slice++);
  }

  bool download(StreamState& s, int b, size_t off, size_t len) {
    // Every download gets its own slice (kDownloadSlices covers the worst case), and its record
    // stays alive to the end: host code that checks it may run after the stream completes.
    uint8_t* dst = s.download + kBufBytes * s.downloads.size();
    aclError rc = aclrtMemcpyAsync(dst, len, s.dev[b] + off, len, ACL_MEMCPY_DEVICE_TO_HOST, s.stream);
    if (rc != ACL_SUCCESS) return fail("D2H aclrtMemcpyAsync", rc);
    s.downloads.push_back({dst, std::vector<uint8_t>(s.model[b].begin() + off, s.model[b].begin() + off + len)});
    return true;
  }

  // The last download of the stream, for host code that runs after it to check.
  void attachLastDownload(StreamState& s, HostWork& w) {
    if (s.downloads.empty()) return;
    const auto& d = s.downloads.back();
    w.check_ptr = d.at;
    w.check_want = d.want.data();
    w.check_len = d.want.size();
  }

  bool fail(const char* what, aclError rc) {
    const char* msg = aclGetRecentErrMsg();
    g_failures.add(std::string(what) + " -> " + std::to_string(rc) + " (" + (msg ? msg : "") + ")");
    return false;
  }

  bool enqueueRandom(int i) {
    StreamState& s = *streams_[i];
    const size_t kind = pick(0, 99);
    size_t off = 0, len = 0;
    range(&off, &len);
    const int b = static_cast<int>(pick(0, 1));
    aclError rc = ACL_SUCCESS;
    if (kind < 20) {  // H2D from a fresh pinned slice
      uint8_t* src = upload(s);
      for (size_t k = 0; k < len; ++k) src[k] = static_cast<uint8_t>(rng_());
      rc = aclrtMemcpyAsync(s.dev[b] + off, len, src, len, ACL_MEMCPY_HOST_TO_DEVICE, s.stream);
      if (rc != ACL_SUCCESS) return fail("H2D aclrtMemcpyAsync", rc);
      std::memcpy(s.model[b].data() + off, src, len);
    } else if (kind < 32) {  // D2D between the stream's own buffers
      const size_t dst_off = pick(0, kBufBytes - len);
      rc = aclrtMemcpyAsync(s.dev[1 - b] + dst_off, len, s.dev[b] + off, len, ACL_MEMCPY_DEVICE_TO_DEVICE, s.stream);
      if (rc != ACL_SUCCESS) return fail("D2D aclrtMemcpyAsync", rc);
      std::memcpy(s.model[1 - b].data() + dst_off, s.model[b].data() + off, len);
    } else if (kind < 47) {  // D2H into a fresh pinned slice, checked after synchronizing
      if (!download(s, b, off, len)) return false;
    } else if (kind < 57) {  // memset
      const auto value = static_cast<uint8_t>(rng_());
      rc = aclrtMemsetAsync(s.dev[b] + off, len, value, len, s.stream);
      if (rc != ACL_SUCCESS) return fail("aclrtMemsetAsync", rc);
      std::memset(s.model[b].data() + off, value, len);
    } else if (kind < 72) {  // device task computing a checksum
      HostWork& w = newWork(s, true);
      w.input = (static_cast<uint64_t>(rng_()) << 32) | rng_() | 1;
      w.rounds = static_cast<int>(pick(16, 512));
      attachLastDownload(s, w);
      rc = arunLaunchDeviceTask(&deviceTask, &w, s.stream);
      if (rc != ACL_SUCCESS) return fail("arunLaunchDeviceTask", rc);
    } else if (kind < 87) {  // host call: a callback (either kind) or a host function
      if (s.callbacks && pick(0, 1) == 0) {
        HostWork& w = newWork(s, false);
        attachLastDownload(s, w);
        rc = aclrtLaunchCallback(&nonBlockingCallback, &w, ACL_CALLBACK_NO_BLOCK, s.stream);
        if (rc != ACL_SUCCESS) return fail("aclrtLaunchCallback(NO_BLOCK)", rc);
      } else {
        HostWork& w = newWork(s, true);
        attachLastDownload(s, w);
        rc = s.callbacks ? aclrtLaunchCallback(&orderedHostCall, &w, ACL_CALLBACK_BLOCK, s.stream)
                         : aclrtLaunchHostFunc(s.stream, &orderedHostCall, &w);
        if (rc != ACL_SUCCESS) return fail(s.callbacks ? "aclrtLaunchCallback(BLOCK)" : "aclrtLaunchHostFunc", rc);
      }
    } else {  // cross-stream handshake: the next stream copies our buffer into its own
      return handshake(s, *streams_[(i + 1) % kStreamsPerThread], b, off, len);
    }
    return true;
  }

  HostWork& newWork(StreamState& s, bool ordered) {
    HostWork& w = s.work.emplace_back();
    w.stream = &s;
    if (ordered) {
      w.id = static_cast<int>(s.ordered_expected.size());
      s.ordered_expected.push_back(w.id);
    } else {
      w.id = static_cast<int>(s.nonblocking_expected.size());
      s.nonblocking_expected.push_back(w.id);
    }
    return w;
  }

  // from: record E1; to: wait E1, copy from.dev[b] -> to.dev[1-b], record E2; from: wait E2.
  // The second wait keeps `from` from overwriting its buffer before `to` has read it.
  bool handshake(StreamState& from, StreamState& to, int b, size_t off, size_t len) {
    aclrtEvent e1 = nullptr, e2 = nullptr;
    aclError rc = aclrtCreateEvent(&e1);
    if (rc != ACL_SUCCESS) return fail("aclrtCreateEvent", rc);
    events_.push_back(e1);
    rc = aclrtCreateEvent(&e2);
    if (rc != ACL_SUCCESS) return fail("aclrtCreateEvent", rc);
    events_.push_back(e2);
    const size_t dst_off = pick(0, kBufBytes - len);
    if ((rc = aclrtRecordEvent(e1, from.stream)) != ACL_SUCCESS) return fail("aclrtRecordEvent", rc);
    if ((rc = aclrtStreamWaitEvent(to.stream, e1)) != ACL_SUCCESS) return fail("aclrtStreamWaitEvent", rc);
    rc = aclrtMemcpyAsync(to.dev[1 - b] + dst_off, len, from.dev[b] + off, len, ACL_MEMCPY_DEVICE_TO_DEVICE, to.stream);
    if (rc != ACL_SUCCESS) return fail("cross-stream D2D aclrtMemcpyAsync", rc);
    if ((rc = aclrtRecordEvent(e2, to.stream)) != ACL_SUCCESS) return fail("aclrtRecordEvent", rc);
    if ((rc = aclrtStreamWaitEvent(from.stream, e2)) != ACL_SUCCESS) return fail("aclrtStreamWaitEvent", rc);
    std::memcpy(to.model[1 - b].data() + dst_off, from.model[b].data() + off, len);
    ++handshakes_;
    return true;
  }

  void verifyDownloads(StreamState& s) {
    const int si = indexOf(s);
    for (size_t k = 0; k < s.downloads.size(); ++k) {
      const auto& d = s.downloads[k];
      if (std::memcmp(d.at, d.want.data(), d.want.size()) != 0) {
        g_failures.add("thread " + std::to_string(index_) + " stream " + std::to_string(si) + ": download " +
                       std::to_string(k) + " (" + std::to_string(d.want.size()) + " bytes) differs from the model");
      }
    }
  }

  void verify() {
    for (auto& sp : streams_) {
      StreamState& s = *sp;
      const std::string at = "thread " + std::to_string(index_) + " stream " + std::to_string(indexOf(s)) + ": ";
      verifyDownloads(s);
      // Non-blocking callbacks may still be running after the stream is complete: wait for the
      // count (a hang guard only; nothing is timed).
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (s.nonblocking_done.load(std::memory_order_acquire) < static_cast<int>(s.nonblocking_expected.size()) &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (s.nonblocking_done.load(std::memory_order_acquire) != static_cast<int>(s.nonblocking_expected.size())) {
        g_failures.add(at + std::to_string(s.nonblocking_done.load()) + " of " +
                       std::to_string(s.nonblocking_expected.size()) + " non-blocking callbacks ran");
        continue;
      }
      if (s.ordered_log != s.ordered_expected) {
        g_failures.add(at + "ordered host work ran " + std::to_string(s.ordered_log.size()) + " times, want " +
                       std::to_string(s.ordered_expected.size()) + ", or out of stream order");
      }
      if (s.nonblocking_log != s.nonblocking_expected) {
        g_failures.add(at + "non-blocking callbacks ran out of order");
      }
      for (const HostWork& w : s.work) {
        if (!w.check_ok)
          g_failures.add(at + "host work " + std::to_string(w.id) +
                         " found the D2H ahead of it not (correctly) landed");
        if (w.rounds != 0 && w.result != checksum(w.input, w.rounds)) {
          g_failures.add(at + "device task " + std::to_string(w.id) + " computed a wrong checksum");
        }
        if (s.reported && w.rounds == 0 && w.ran_on != s.reporter_id) {
          g_failures.add(at + "a host call ran on a thread other than the one subscribed to the stream");
        }
      }
      ordered_ += s.ordered_expected.size();
      nonblocking_ += s.nonblocking_expected.size();
    }
  }

  void teardown() {
    for (auto& s : streams_) {
      if (s->reported) {
        s->stop.store(true);
        s->reporter.join();
      }
    }
    for (aclrtEvent e : events_) STRESS_CHECK(aclrtDestroyEvent(e));
    for (auto& s : streams_) {
      for (auto* d : s->dev) STRESS_CHECK(aclrtFree(d));
      STRESS_CHECK(aclrtFreeHost(s->upload));
      STRESS_CHECK(aclrtFreeHost(s->download));
      STRESS_CHECK(aclrtDestroyStream(s->stream));
    }
    STRESS_CHECK(aclrtResetDevice(device_));
    done_ = true;
  }

 public:
  // Joins report threads left running by an early failure.
  ~Worker() {
    for (auto& s : streams_) {
      s->stop.store(true);
      if (s->reporter.joinable()) s->reporter.join();
    }
  }
  bool done() const { return done_; }
  size_t ordered() const { return ordered_; }
  size_t nonblocking() const { return nonblocking_; }
  int handshakes() const { return handshakes_; }

 private:
  int index_;
  int32_t device_;
  std::mt19937 rng_;
  aclrtContext context_ = nullptr;
  std::vector<std::unique_ptr<StreamState>> streams_;
  std::vector<aclrtEvent> events_;
  size_t ordered_ = 0, nonblocking_ = 0;
  int handshakes_ = 0;
  bool done_ = false;
};

// Turns the failures collected from other threads into test failures, and clears them.
void reportFailures() {
  std::lock_guard lock(g_failures.mutex);
  for (size_t i = 0; i < g_failures.list.size() && i < 20; ++i) ADD_FAILURE() << g_failures.list[i];
  EXPECT_TRUE(g_failures.list.empty()) << g_failures.list.size() << " failure(s)";
  g_failures.list.clear();
}

TEST(ApiStress, ManyThreadsStreamsAndTaskMixes) {
  const std::string config = configPath();
  std::printf("config %s, seed %u (ARUN_STRESS_SEED to reproduce)\n", config.c_str(), seed());
  ASSERT_EQ(ACL_SUCCESS, aclInit(config.c_str())) << aclGetRecentErrMsg();
  uint32_t devices = 0;
  ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&devices));
  ASSERT_GT(devices, 0u);

  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.push_back(std::make_unique<Worker>(t, static_cast<int32_t>(t % devices)));
  }
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->run(); });
  for (auto& t : threads) t.join();

  size_t ordered = 0, nonblocking = 0;
  int handshakes = 0;
  for (auto& w : workers) {
    EXPECT_TRUE(w->done()) << "a worker stopped early";
    ordered += w->ordered();
    nonblocking += w->nonblocking();
    handshakes += w->handshakes();
  }
  workers.clear();
  EXPECT_EQ(ACL_SUCCESS, aclFinalize());
  std::printf("%d threads x %d streams x %d ops: %zu ordered host calls, %zu non-blocking callbacks, %d handshakes\n",
              kThreads, kStreamsPerThread, kOpsPerStream, ordered, nonblocking, handshakes);
  // The mix must have exercised everything it claims to (a fixed seed makes these deterministic).
  EXPECT_GT(ordered, 0u);
  EXPECT_GT(nonblocking, 0u);
  EXPECT_GT(handshakes, 0);

  reportFailures();
}

// Events across threads: a pipeline of stages, one host thread and stream each, on one device.
// Stage 0 uploads item j into its slot j and records an event; stage k waits (on the device) for
// stage k-1's event of item j, copies the slot into its own buffer, runs a device task on the
// item and records its own event. The host only tells stage k that the event is recorded (an
// atomic counter); everything else is ordered by the events. Each item's hop count is a plain int
// that the stage tasks of different threads' streams read and write in turn, so a wait that does
// not order the waiting stream after the recorded work is a TSan report (or a wrong count).
TEST(ApiStress, EventsAcrossThreadsPipeline) {
  constexpr int kStages = 4;
  constexpr int kItems = 300;
  constexpr size_t kSlot = 512;
  g_failures.list.clear();
  const std::string config = configPath();
  ASSERT_EQ(ACL_SUCCESS, aclInit(config.c_str())) << aclGetRecentErrMsg();
  ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
  aclrtContext ctx = nullptr;
  ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&ctx));

  struct Hop {
    int* count;
    int stage;
    bool ok = true;
  };
  std::vector<int> hops(kItems, 0);
  std::deque<Hop> hop_records;  // written only by stage threads before they launch (one per stage)
  std::mutex hop_mutex;
  uint8_t *input = nullptr, *output = nullptr;
  ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(reinterpret_cast<void**>(&input), kSlot * kItems));
  ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(reinterpret_cast<void**>(&output), kSlot * kItems));
  std::mt19937 rng(seed());
  for (size_t i = 0; i < kSlot * kItems; ++i) input[i] = static_cast<uint8_t>(rng());
  std::memset(output, 0, kSlot * kItems);
  std::vector<uint8_t*> buffers(kStages, nullptr);
  for (auto& b : buffers) {
    ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(reinterpret_cast<void**>(&b), kSlot * kItems, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  std::vector<std::vector<aclrtEvent>> events(kStages, std::vector<aclrtEvent>(kItems, nullptr));
  for (auto& stage : events) {
    for (auto& e : stage) ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
  }
  // recorded[k]: how many of stage k's events have been recorded (host-side publication only).
  std::vector<std::atomic<int>> recorded(kStages);
  for (auto& r : recorded) r.store(0);

  auto stage_main = [&](int k) {
    // However this stage ends, the next one must not wait for it forever.
    struct Publish {
      std::atomic<int>& r;
      ~Publish() { r.store(kItems, std::memory_order_release); }
    } publish{recorded[k]};
    STRESS_CHECK(aclrtSetCurrentContext(ctx));
    aclrtStream stream = nullptr;
    STRESS_CHECK(aclrtCreateStream(&stream));
    for (int j = 0; j < kItems; ++j) {
      uint8_t* slot = buffers[k] + kSlot * j;
      if (k == 0) {
        STRESS_CHECK(aclrtMemcpyAsync(slot, kSlot, input + kSlot * j, kSlot, ACL_MEMCPY_HOST_TO_DEVICE, stream));
      } else {
        while (recorded[k - 1].load(std::memory_order_acquire) <= j) std::this_thread::yield();
        STRESS_CHECK(aclrtStreamWaitEvent(stream, events[k - 1][j]));
        STRESS_CHECK(
            aclrtMemcpyAsync(slot, kSlot, buffers[k - 1] + kSlot * j, kSlot, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
      }
      Hop* hop = nullptr;
      {
        std::lock_guard lock(hop_mutex);
        hop = &hop_records.emplace_back(Hop{&hops[j], k});
      }
      STRESS_CHECK(arunLaunchDeviceTask(
          [](void* arg) {
            auto* h = static_cast<Hop*>(arg);
            h->ok = *h->count == h->stage;  // every earlier stage has run on this item
            *h->count = h->stage + 1;
          },
          hop, stream));
      if (k == kStages - 1) {
        STRESS_CHECK(aclrtMemcpyAsync(output + kSlot * j, kSlot, slot, kSlot, ACL_MEMCPY_DEVICE_TO_HOST, stream));
      }
      STRESS_CHECK(aclrtRecordEvent(events[k][j], stream));
      recorded[k].store(j + 1, std::memory_order_release);
    }
    STRESS_CHECK(aclrtSynchronizeStream(stream));
    STRESS_CHECK(aclrtDestroyStream(stream));
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < kStages; ++k) threads.emplace_back(stage_main, k);
  for (auto& t : threads) t.join();

  int wrong_hops = 0;
  for (int j = 0; j < kItems; ++j) wrong_hops += hops[j] != kStages;
  for (const Hop& h : hop_records) wrong_hops += h.ok ? 0 : 1;
  EXPECT_EQ(0, wrong_hops) << "items that a stage saw before the stage ahead of it had finished";
  EXPECT_EQ(0, std::memcmp(input, output, kSlot * kItems)) << "the last stage did not see the first stage's data";
  for (auto& stage : events) {
    for (auto& e : stage) EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
  }
  for (auto& b : buffers) EXPECT_EQ(ACL_SUCCESS, aclrtFree(b));
  EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(input));
  EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(output));
  EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
  EXPECT_EQ(ACL_SUCCESS, aclFinalize());
  std::printf("%d stages x %d items through cross-thread events\n", kStages, kItems);
  reportFailures();
}

// Many threads share one stream: they submit device tasks and copies to it concurrently and
// synchronize it while the others keep submitting. The stream runs its tasks one at a time, so the
// tasks' plain counter needs no lock, and each thread's tasks must run in that thread's order.
TEST(ApiStress, ThreadsShareOneStream) {
  constexpr int kSharers = 6;
  constexpr int kTasksEach = 300;
  g_failures.list.clear();
  const std::string config = configPath();
  ASSERT_EQ(ACL_SUCCESS, aclInit(config.c_str())) << aclGetRecentErrMsg();
  ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
  aclrtContext ctx = nullptr;
  ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&ctx));
  aclrtStream shared = nullptr;
  ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&shared));

  struct Shared {
    int runs = 0;                          // touched only by the stream's tasks
    std::vector<std::pair<int, int>> log;  // (thread, sequence) in run order
  } state;
  struct Item {
    Shared* state;
    int thread, seq;
  };
  std::vector<std::vector<Item>> items(kSharers, std::vector<Item>(kTasksEach));
  // One pinned and one device slot per thread, rewritten only after a synchronize.
  uint8_t *host = nullptr, *dev = nullptr;
  ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(reinterpret_cast<void**>(&host), 64 * kSharers));
  ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(reinterpret_cast<void**>(&dev), 64 * kSharers, ACL_MEM_MALLOC_HUGE_FIRST));

  auto sharer = [&](int t) {
    STRESS_CHECK(aclrtSetCurrentContext(ctx));
    std::mt19937 rng(seed() + 31u * t);
    for (int i = 0; i < kTasksEach; ++i) {
      items[t][i] = Item{&state, t, i};
      STRESS_CHECK(arunLaunchDeviceTask(
          [](void* arg) {
            auto* it = static_cast<Item*>(arg);
            ++it->state->runs;
            it->state->log.emplace_back(it->thread, it->seq);
          },
          &items[t][i], shared));
      if (rng() % 16 == 0) {  // a memset + read-back of this thread's slot, checked after a synchronize
        const auto value = static_cast<uint8_t>(rng());
        STRESS_CHECK(aclrtMemsetAsync(dev + 64 * t, 64, value, 64, shared));
        STRESS_CHECK(aclrtMemcpyAsync(host + 64 * t, 64, dev + 64 * t, 64, ACL_MEMCPY_DEVICE_TO_HOST, shared));
        STRESS_CHECK(aclrtSynchronizeStream(shared));
        for (int b = 0; b < 64; ++b) {
          if (host[64 * t + b] != value) {
            g_failures.add("thread " + std::to_string(t) + ": read-back after aclrtSynchronizeStream is wrong");
            return;
          }
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kSharers; ++t) threads.emplace_back(sharer, t);
  for (auto& th : threads) th.join();
  ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(shared));

  EXPECT_EQ(kSharers * kTasksEach, state.runs);
  std::vector<int> next(kSharers, 0);
  int out_of_order = 0;
  for (auto [t, seq] : state.log) out_of_order += seq != next[t]++;
  EXPECT_EQ(0, out_of_order) << "tasks of one thread ran out of that thread's submission order";
  EXPECT_EQ(ACL_SUCCESS, aclrtFree(dev));
  EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(host));
  EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(shared));
  EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
  EXPECT_EQ(ACL_SUCCESS, aclFinalize());
  reportFailures();
}

}  // namespace
