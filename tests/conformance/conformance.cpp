#include "conformance.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>

#ifndef ARUN_BUILD_CONFIG_DIR
#error "ARUN_BUILD_CONFIG_DIR must be defined (the build tree's config folder)"
#endif

namespace conformance {

const std::vector<std::string>& configPaths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> out;
    const char* env = std::getenv("ARUN_CONFORMANCE_CONFIGS");
    if (env != nullptr && *env != '\0') {
      std::string list(env);
      size_t start = 0;
      while (start <= list.size()) {
        size_t end = list.find(':', start);
        if (end == std::string::npos) end = list.size();
        if (end > start) out.push_back(list.substr(start, end - start));
        start = end + 1;
      }
    } else {
      out.push_back(std::string(ARUN_BUILD_CONFIG_DIR) + "/default.toml");
      out.push_back(std::string(ARUN_BUILD_CONFIG_DIR) + "/null.toml");
    }
    return out;
  }();
  return paths;
}

namespace {
std::string stemOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string stem = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = stem.find_last_of('.');
  if (dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  std::string name;
  for (char c : stem) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name.empty() ? std::string("config") : name;
}
}  // namespace

std::string configName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = stemOf(info.param);
  // Two configurations with the same stem (different folders) still need distinct names.
  const auto& all = configPaths();
  for (size_t i = 0; i < info.index && i < all.size(); ++i) {
    if (stemOf(all[i]) == name) return name + "_" + std::to_string(info.index);
  }
  return name;
}

// ---- Gate ----

Gate::Gate(std::chrono::milliseconds watchdog) {
  watchdog_ = std::thread([this, watchdog] {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, watchdog, [this] { return open_; })) {
      fired_ = true;
      open_ = true;
      cv_.notify_all();
    }
  });
}

Gate::~Gate() {
  open();
  watchdog_.join();
}

void Gate::open() {
  std::lock_guard lock(mutex_);
  open_ = true;
  cv_.notify_all();
}

bool Gate::waitEntered(int n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return entered_ >= n; });
}

bool Gate::waitExited(int n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return exited_ >= n; });
}

int Gate::entered() const {
  std::lock_guard lock(mutex_);
  return entered_;
}

int Gate::exited() const {
  std::lock_guard lock(mutex_);
  return exited_;
}

bool Gate::watchdogFired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

void Gate::pass() {
  std::unique_lock lock(mutex_);
  ++entered_;
  cv_.notify_all();
  cv_.wait(lock, [this] { return open_; });
  ++exited_;
  cv_.notify_all();
}

void Gate::taskFn(void* gate) {
  static_cast<Gate*>(gate)->pass();
}

// ---- AclTest ----

void AclTest::SetUp() {
  ASSERT_ACL_OK(aclInit(config())) << " (config " << GetParam() << ")";
  initialized_ = true;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&deviceCount_));
  ASSERT_GE(deviceCount_, 1u);
}

void AclTest::TearDown() {
  std::vector<std::unique_ptr<Gate>> gates;
  {
    std::lock_guard lock(ownedMutex_);
    gates.swap(gates_);
  }
  for (auto& gate : gates) gate->open();
  if (initialized_) {
    // Reset the devices as a well-behaved program does, so the leak report stays quiet about them.
    for (uint32_t d = 0; d < deviceCount_; ++d) (void)aclrtResetDeviceForce(static_cast<int32_t>(d));
    (void)aclGetRecentErrMsg();
    EXPECT_ACL_OK(aclFinalize());
    initialized_ = false;
  }
  for (auto& gate : gates) {
    EXPECT_FALSE(gate->watchdogFired())
        << "a call blocked on a gated device task until the watchdog opened the gate: it waited "
           "for device work it must not wait for (or the task never ran)";
  }
  gates.clear();
  std::lock_guard lock(ownedMutex_);
  closures_.clear();
}

void AclTest::finalize() {
  ASSERT_TRUE(initialized_);
  ASSERT_ACL_OK(aclFinalize());
  initialized_ = false;
}

void AclTest::reinitWith(const std::string& path) {
  ASSERT_FALSE(initialized_);
  ASSERT_ACL_OK(aclInit(path.c_str())) << " (config " << path << ")";
  initialized_ = true;
}

void AclTest::reinit() {
  ASSERT_FALSE(initialized_);
  ASSERT_ACL_OK(aclInit(config()));
  initialized_ = true;
}

Gate& AclTest::newGate() {
  std::lock_guard lock(ownedMutex_);
  gates_.push_back(std::make_unique<Gate>());
  return *gates_.back();
}

aclError AclTest::launchGate(aclrtStream stream, Gate& gate) {
  return arunLaunchDeviceTask(&Gate::taskFn, &gate, stream);
}

void AclTest::closureTrampoline(void* closure) {
  (*static_cast<std::function<void()>*>(closure))();
}

aclError AclTest::launch(aclrtStream stream, std::function<void()> fn) {
  std::function<void()>* raw = nullptr;
  {
    std::lock_guard lock(ownedMutex_);
    closures_.push_back(std::make_unique<std::function<void()>>(std::move(fn)));
    raw = closures_.back().get();
  }
  return arunLaunchDeviceTask(&AclTest::closureTrampoline, raw, stream);
}

aclError AclTest::launchProbe(aclrtStream stream, Probe& probe) {
  return launch(stream, [this, &probe] {
    probe.order.store(runCounter_.fetch_add(1));
    probe.ran.store(true);
  });
}

std::vector<uint8_t> AclTest::readDevice(const void* devPtr, size_t size) {
  std::vector<uint8_t> out(size, 0);
  EXPECT_ACL_OK(aclrtMemcpy(out.data(), out.size(), devPtr, size, ACL_MEMCPY_DEVICE_TO_HOST));
  return out;
}

void AclTest::writeDevice(void* devPtr, const std::vector<uint8_t>& data) {
  EXPECT_ACL_OK(aclrtMemcpy(devPtr, data.size(), data.data(), data.size(), ACL_MEMCPY_HOST_TO_DEVICE));
}

void AclDeviceTest::SetUp() {
  AclTest::SetUp();
  if (HasFatalFailure()) return;
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

std::string scratchPath(const std::string& name) {
  return ::testing::TempDir() + "arun_" + std::to_string(::getpid()) + "_" + name;
}

std::vector<uint8_t> pattern(size_t size, uint32_t seed) {
  std::vector<uint8_t> out(size);
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < size; ++i) {
    x = x * 1103515245u + 12345u;
    out[i] = static_cast<uint8_t>(x >> 16);
  }
  return out;
}

}  // namespace conformance
