// Shared fixture and helpers of the conformance suite.
//
// The suite checks what the ACL C API promises (spec/acl-api.md, sections 0.3 and 2.1-2.6) against
// every device-plugin configuration it is given; nothing here may depend on which backend runs.
// Each test gets a fresh runtime: aclInit(config) in SetUp, aclFinalize in TearDown.
//
// Ordering and "returns without waiting" are made observable without timing assertions by device
// tasks (arunLaunchDeviceTask) that block on a Gate until the test opens it. Every gate has a
// watchdog: if a call that must not wait for device work blocks on a gated task, the watchdog opens
// the gate after kWatchdog, the test continues instead of hanging, and TearDown reports the failure.
#ifndef ARUN_TESTS_CONFORMANCE_CONFORMANCE_HPP_
#define ARUN_TESTS_CONFORMANCE_CONFORMANCE_HPP_

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace conformance {

// Configuration files the suite is instantiated over: ARUN_CONFORMANCE_CONFIGS (colon-separated)
// or the build tree's default.toml and null.toml.
const std::vector<std::string>& configPaths();
// Test-name suffix for a configuration: its file stem, reduced to [A-Za-z0-9_].
std::string configName(const ::testing::TestParamInfo<std::string>& info);

using namespace std::chrono_literals;
inline constexpr std::chrono::milliseconds kWatchdog = 20s;

// A latch that device tasks block on (see the file comment).
class Gate {
 public:
  explicit Gate(std::chrono::milliseconds watchdog = kWatchdog);
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  void open();
  // Waits until at least n tasks have entered (started blocking on) / left the gate.
  bool waitEntered(int n, std::chrono::milliseconds timeout = kWatchdog);
  bool waitExited(int n, std::chrono::milliseconds timeout = kWatchdog);
  int entered() const;
  int exited() const;
  bool watchdogFired() const;

  // The device-task body: blocks until the gate opens. userData is the Gate.
  static void taskFn(void* gate);

 private:
  void pass();

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
  bool fired_ = false;
  int entered_ = 0;
  int exited_ = 0;
  std::thread watchdog_;
};

// A flag set by a device task, with the order in which tasks ran.
struct Probe {
  std::atomic<bool> ran{false};
  std::atomic<int> order{-1};
};

// Fixture: one runtime per test, initialised with the configuration under test.
class AclTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  const char* config() const { return GetParam().c_str(); }
  // aclFinalize / aclInit(config) with the outcome asserted; TearDown finalizes only if initialised.
  void finalize();
  void reinit();
  // aclInit(path) in place of the configuration under test (after finalize()).
  void reinitWith(const std::string& path);
  // The test called aclFinalize itself (it may have returned an error and still finalized).
  void finalizedByTest() { initialized_ = false; }
  bool initialized() const { return initialized_; }

  // Device count read from aclrtGetDeviceCount in SetUp.
  uint32_t deviceCount() const { return deviceCount_; }
  int32_t lastDevice() const { return static_cast<int32_t>(deviceCount_) - 1; }

  // A gate owned by the fixture: opened in TearDown before aclFinalize, destroyed after it.
  Gate& newGate();
  // Enqueues a device task that blocks on `gate`.
  aclError launchGate(aclrtStream stream, Gate& gate);
  // Enqueues fn as a device task; the closure lives until TearDown.
  aclError launch(aclrtStream stream, std::function<void()> fn);
  // Enqueues a task that marks `probe` and records its position in the fixture's run order.
  aclError launchProbe(aclrtStream stream, Probe& probe);

  // Runs f on a new thread (which has no current context) and joins it.
  template <class F>
  static void inNewThread(F&& f) {
    std::thread t(std::forward<F>(f));
    t.join();
  }

  // Device-memory helpers (current device); failures are reported, not fatal.
  std::vector<uint8_t> readDevice(const void* devPtr, size_t size);
  void writeDevice(void* devPtr, const std::vector<uint8_t>& data);

 private:
  static void closureTrampoline(void* closure);

  bool initialized_ = false;
  uint32_t deviceCount_ = 0;
  std::mutex ownedMutex_;
  std::vector<std::unique_ptr<Gate>> gates_;
  std::vector<std::unique_ptr<std::function<void()>>> closures_;
  std::atomic<int> runCounter_{0};
};

// Fixture whose SetUp also makes device 0 current on the test thread.
class AclDeviceTest : public AclTest {
 protected:
  void SetUp() override;
};

// AclDeviceTest that owns the streams and device buffers a test makes through it, and helpers to
// fill and read those buffers. Fixtures that release other things first (models, binaries) call
// release_resources() from their own TearDown.
class AclResourceTest : public AclDeviceTest {
 protected:
  void TearDown() override {
    release_resources();
    AclDeviceTest::TearDown();
  }
  void release_resources() {
    for (void* p : mem_) aclrtFree(p);
    for (aclrtStream s : streams_) aclrtDestroyStream(s);
    mem_.clear();
    streams_.clear();
  }
  aclrtStream stream(uint32_t flags = 0) {
    aclrtStream s = nullptr;
    EXPECT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&s, 0, flags));
    streams_.push_back(s);
    return s;
  }
  // n zeroed elements of device memory.
  template <class T>
  T* dmalloc(size_t n) {
    void* p = nullptr;
    EXPECT_EQ(ACL_SUCCESS, aclrtMalloc(&p, n * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_EQ(ACL_SUCCESS, aclrtMemset(p, n * sizeof(T), 0, n * sizeof(T)));
    mem_.push_back(p);
    return static_cast<T*>(p);
  }
  template <class T>
  void put(T* dev, const std::vector<T>& v) {
    EXPECT_EQ(ACL_SUCCESS,
              aclrtMemcpy(dev, v.size() * sizeof(T), v.data(), v.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE));
  }
  template <class T>
  std::vector<T> get(const T* dev, size_t n) {
    std::vector<T> v(n);
    EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(v.data(), n * sizeof(T), dev, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }

  std::vector<void*> mem_;
  std::vector<aclrtStream> streams_;
};

// Deterministic byte pattern of `size` bytes that depends on `seed`.
std::vector<uint8_t> pattern(size_t size, uint32_t seed);

// A path for a scratch file `name` in the test temporary folder, unique to this process: the test
// job runs several suites at once, and a shared name lets one overwrite another's file mid-test.
std::string scratchPath(const std::string& name);

}  // namespace conformance

// Every fixture of the suite is instantiated over the same configurations.
#define ARUN_CONFORMANCE_INSTANTIATE(Fixture)                                                   \
  INSTANTIATE_TEST_SUITE_P(Configs, Fixture, ::testing::ValuesIn(::conformance::configPaths()), \
                           ::conformance::configName)

// Assertions on ACL return codes. The codes are spelled as in the spec (static const int for the
// ACL_* group, macros for ACL_ERROR_RT_*), so compare as aclError.
#define EXPECT_ACL(expected, expr) EXPECT_EQ(static_cast<aclError>(expected), static_cast<aclError>(expr)) << #expr
#define ASSERT_ACL(expected, expr) ASSERT_EQ(static_cast<aclError>(expected), static_cast<aclError>(expr)) << #expr
#define EXPECT_ACL_OK(expr) EXPECT_ACL(ACL_SUCCESS, expr)
#define ASSERT_ACL_OK(expr) ASSERT_ACL(ACL_SUCCESS, expr)
// For the places where the spec itself lists two acceptable codes.
#define EXPECT_ACL_EITHER(a, b, expr) \
  EXPECT_TRUE(                        \
      ::conformance::isEither(static_cast<aclError>(expr), static_cast<aclError>(a), static_cast<aclError>(b), #expr))

namespace conformance {
inline ::testing::AssertionResult isEither(aclError rc, aclError a, aclError b, const char* expr) {
  if (rc == a || rc == b) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expr << " returned " << rc << ", expected " << a << " or " << b;
}
}  // namespace conformance

#endif  // ARUN_TESTS_CONFORMANCE_CONFORMANCE_HPP_
