// An unmodified CANN-style ACL program, in C++. It uses only the CANN headers (acl/acl.h) and the
// libascendcl C API, and is built with nothing but
//     c++ -I<prefix>/include acl_smoke.cpp -L<prefix>/lib64 -Wl,-rpath,<prefix>/lib64 -lascendcl
// It drives every device from its own thread (aclrtSetDevice is per thread), with RAII owners for
// streams, events and memory, pinned and pageable host buffers, async and sync copies and memsets,
// event timing and aclrtGetMemInfo, and verifies the data. Any failing call prints the call, its
// error code and aclGetRecentErrMsg(); the program then exits 1.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace {

struct AclFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(aclError rc, const char* what, int line) {
  if (rc == ACL_SUCCESS) return;
  const char* msg = aclGetRecentErrMsg();
  throw AclFailure("line " + std::to_string(line) + ": " + what + " returned " + std::to_string(rc) + ": " +
                   (msg ? msg : "(no message)"));
}
#define CHECK(call) check((call), #call, __LINE__)

void expect(bool ok, const std::string& what) {
  if (!ok) throw AclFailure(what);
}

// Owners: each releases its resource with the matching ACL call, in reverse order of creation.
class Stream {
 public:
  Stream() { CHECK(aclrtCreateStream(&s_)); }
  ~Stream() { aclrtDestroyStream(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  aclrtStream get() const { return s_; }

 private:
  aclrtStream s_ = nullptr;
};

class Event {
 public:
  Event() { CHECK(aclrtCreateEvent(&e_)); }
  ~Event() { aclrtDestroyEvent(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  aclrtEvent get() const { return e_; }

 private:
  aclrtEvent e_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { CHECK(aclrtMalloc(&p_, bytes, ACL_MEM_MALLOC_HUGE_FIRST)); }
  ~DeviceBuffer() { aclrtFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }
  size_t size() const { return bytes_; }

 private:
  void* p_ = nullptr;
  size_t bytes_;
};

template <typename T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t count) : count_(count) {
    void* p = nullptr;
    CHECK(aclrtMallocHost(&p, count * sizeof(T)));
    p_ = static_cast<T*>(p);
  }
  ~PinnedBuffer() { aclrtFreeHost(p_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* data() const { return p_; }
  size_t bytes() const { return count_ * sizeof(T); }
  T& operator[](size_t i) const { return p_[i]; }

 private:
  T* p_ = nullptr;
  size_t count_;
};

struct MemInfo {
  size_t free = 0, total = 0;
};
MemInfo mem_info() {
  MemInfo m;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &m.free, &m.total));
  return m;
}

std::string device_work(int32_t device) {
  constexpr size_t n = size_t{1} << 20;  // 1 Mi int32 = 4 MiB
  CHECK(aclrtSetDevice(device));
  int32_t current = -1;
  CHECK(aclrtGetDevice(&current));
  expect(current == device, "aclrtGetDevice gave " + std::to_string(current));
  const char* soc_name = aclrtGetSocName();
  expect(soc_name != nullptr && *soc_name != '\0', "aclrtGetSocName gave no name");
  const std::string soc = soc_name;
  const MemInfo before = mem_info();
  expect(before.total > 0 && before.free <= before.total, "aclrtGetMemInfo is inconsistent");
  float ms = -1;
  MemInfo during;
  {
    Stream stream;
    Event start, stop;
    PinnedBuffer<int32_t> in(n), out(n);
    std::vector<int32_t> pageable(n, -1);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<int32_t>(i * 2654435761u) ^ device;
    DeviceBuffer a(in.bytes()), b(in.bytes());
    during = mem_info();
    expect(during.free < before.free, "free device memory did not drop after aclrtMalloc");

    CHECK(aclrtRecordEvent(start.get(), stream.get()));
    CHECK(aclrtMemcpyAsync(a.get(), a.size(), in.data(), in.bytes(), ACL_MEMCPY_HOST_TO_DEVICE, stream.get()));
    CHECK(aclrtMemsetAsync(b.get(), b.size(), 0xFF, b.size(), stream.get()));
    CHECK(aclrtMemcpyAsync(out.data(), out.bytes(), b.get(), b.size(), ACL_MEMCPY_DEVICE_TO_HOST, stream.get()));
    CHECK(aclrtRecordEvent(stop.get(), stream.get()));
    CHECK(aclrtSynchronizeStream(stream.get()));
    CHECK(aclrtEventElapsedTime(&ms, start.get(), stop.get()));
    expect(ms >= 0, "negative elapsed time");
    for (size_t i = 0; i < n; ++i) expect(out[i] == -1, "memset 0xFF: element " + std::to_string(i) + " wrong");

    // Pageable host memory, synchronous copies: device a -> host vector -> device b -> pinned out.
    CHECK(aclrtMemcpy(pageable.data(), pageable.size() * sizeof(int32_t), a.get(), a.size(),
                      ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(aclrtMemcpy(b.get(), b.size(), pageable.data(), pageable.size() * sizeof(int32_t),
                      ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemset(a.get(), a.size(), 0, a.size()));
    CHECK(aclrtMemcpy(out.data(), out.bytes(), b.get(), b.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    expect(std::memcmp(out.data(), in.data(), in.bytes()) == 0, "round trip through pageable memory differs");
    CHECK(aclrtMemcpy(out.data(), out.bytes(), a.get(), a.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; ++i) expect(out[i] == 0, "memset 0: element " + std::to_string(i) + " wrong");
  }  // everything released here
  const MemInfo after = mem_info();
  expect(after.free == before.free, "device memory not all returned after the owners released it");
  CHECK(aclrtResetDevice(device));
  char line[200];
  std::snprintf(line, sizeof line, "device %d (%s): %.3f ms, %zu MiB free of %zu MiB while allocated: OK", device,
                soc.c_str(), static_cast<double>(ms), during.free >> 20, during.total >> 20);
  return line;
}

}  // namespace

int main() {
  try {
    CHECK(aclInit(nullptr));
    uint32_t devices = 0;
    CHECK(aclrtGetDeviceCount(&devices));
    expect(devices >= 1, "no device");

    std::vector<std::string> reports(devices), errors(devices);
    std::vector<std::thread> threads;
    for (uint32_t d = 0; d < devices; ++d) {
      threads.emplace_back([d, &reports, &errors] {
        try {
          reports[d] = device_work(static_cast<int32_t>(d));
        } catch (const std::exception& e) {
          errors[d] = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    bool ok = true;
    for (uint32_t d = 0; d < devices; ++d) {
      if (!errors[d].empty()) {
        std::fprintf(stderr, "FAIL device %u: %s\n", d, errors[d].c_str());
        ok = false;
      } else {
        std::printf("%s\n", reports[d].c_str());
      }
    }
    CHECK(aclFinalize());
    if (!ok) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL %s\n", e.what());
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
