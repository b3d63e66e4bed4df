// libFuzzer target: sequences of ACL runtime calls. Each input is decoded into up to 64 calls with
// small arguments on a few handles (streams, events, device and pinned buffers on two devices):
// create / destroy, memcpy and memset (sync and async, ranges in and out of bounds), event record /
// wait / query / synchronize, kernels through arunLaunchKernel that map device ranges (in and out
// of bounds), stream and device synchronize, and stale or made-up handles. Every call must return
// a code; nothing may crash, corrupt memory or hang. What an input created is released after it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "arun/kernel.h"

namespace {

constexpr int kSlots = 4;
constexpr size_t kHostBytes = 4096;

// Host memory the harness owns for the whole process, so queued async copies never outlive it.
unsigned char g_host[2][kHostBytes];

struct Input {
  const uint8_t* p;
  size_t n;
  uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  uint16_t u16() { return static_cast<uint16_t>(u8() | u8() << 8); }
};

struct State {
  aclrtStream streams[kSlots] = {};
  aclrtEvent events[kSlots] = {};
  void* dev[kSlots] = {};
  size_t dev_size[kSlots] = {};
  void* pinned[kSlots] = {};
  bool device_set[2] = {};
};

struct KernelArgs {
  void* ptr;
  size_t bytes;
  unsigned char value;
};

void kernel(arunBlock* block, void* raw) {
  auto* a = static_cast<KernelArgs*>(raw);
  if (void* view = arunBlockMap(block, a->ptr, a->bytes)) std::memset(view, a->value, a->bytes);
}

void free_args(void* raw) {
  delete static_cast<KernelArgs*>(raw);
}

// A stream argument: a live slot (maybe NULL = default stream), or sometimes a made-up handle.
aclrtStream pick_stream(State& s, uint8_t b) {
  if (b == 0xff) return reinterpret_cast<aclrtStream>(uintptr_t(0x1000) + b);
  return s.streams[b % kSlots];
}
aclrtEvent pick_event(State& s, uint8_t b) {
  if (b == 0xff) return reinterpret_cast<aclrtEvent>(uintptr_t(0x2000) + b);
  return s.events[b % kSlots];
}

// A device range: inside a slot's buffer or past its end; count small.
void* dev_ptr(State& s, Input& in, size_t* room) {
  const int slot = in.u8() % kSlots;
  const size_t off = in.u8() * 16u;
  *room = s.dev_size[slot] > off ? s.dev_size[slot] - off : 0;
  return s.dev[slot] == nullptr ? nullptr : static_cast<unsigned char*>(s.dev[slot]) + off;
}

// A host range the harness owns (or a pinned buffer), always valid for `count` bytes.
void* host_ptr(State& s, Input& in, size_t count) {
  const uint8_t which = in.u8();
  if (which & 1) {
    void* p = s.pinned[(which >> 1) % kSlots];
    if (p != nullptr && count <= 256) return p;  // pinned buffers are 256 bytes
  }
  const size_t off = (which >> 1) * 16u;
  if (off + count > kHostBytes) return g_host[which & 1];
  return g_host[which & 1] + off;
}

aclrtMemcpyKind kind_of(uint8_t b) {
  switch (b % 4) {
    case 0:
      return ACL_MEMCPY_HOST_TO_DEVICE;
    case 1:
      return ACL_MEMCPY_DEVICE_TO_HOST;
    case 2:
      return ACL_MEMCPY_DEVICE_TO_DEVICE;
    default:
      return ACL_MEMCPY_HOST_TO_HOST;
  }
}

void copy(State& s, Input& in, bool async) {
  const aclrtMemcpyKind kind = kind_of(in.u8());
  const size_t count = in.u8() * 4u;
  size_t room_d = 0, room_s = 0;
  void* dst;
  const void* src;
  size_t dst_max;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
      dst = dev_ptr(s, in, &dst_max);
      src = host_ptr(s, in, count);
      break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      src = dev_ptr(s, in, &room_s);
      dst = host_ptr(s, in, count);
      dst_max = count;
      break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      dst = dev_ptr(s, in, &dst_max);
      src = dev_ptr(s, in, &room_s);
      break;
    default:
      // Two distinct harness buffers: overlapping host ranges are the caller's undefined behaviour.
      dst = g_host[0] + (in.u8() % 16) * 16u;
      src = g_host[1] + (in.u8() % 16) * 16u;
      dst_max = count;
      break;
  }
  (void)room_d;
  // Sometimes claim more room than there is: the runtime must check against the allocation.
  if (in.u8() & 1) dst_max += 64;
  if (async) {
    (void)aclrtMemcpyAsync(dst, dst_max, src, count, kind, pick_stream(s, in.u8()));
  } else {
    (void)aclrtMemcpy(dst, dst_max, src, count, kind);
  }
}

void run(State& s, Input& in) {
  for (int step = 0; step < 64 && in.n > 0; ++step) {
    const uint8_t op = in.u8();
    const uint8_t a = in.u8();
    const int slot = a % kSlots;
    switch (op % 20) {
      case 0:
        if (s.streams[slot] == nullptr) (void)aclrtCreateStream(&s.streams[slot]);
        break;
      case 1:
        // Destroying a stream twice (stale handle) is allowed: it must fail cleanly.
        (void)aclrtDestroyStream(s.streams[slot]);
        if (a & 0x80) s.streams[slot] = nullptr;
        break;
      case 2:
        if (s.events[slot] == nullptr) (void)aclrtCreateEvent(&s.events[slot]);
        break;
      case 3:
        (void)aclrtDestroyEvent(s.events[slot]);
        if (a & 0x80) s.events[slot] = nullptr;
        break;
      case 4: {
        if (s.dev[slot] != nullptr) break;
        const size_t size = in.u16() % 4097;  // 0 is an error
        if (aclrtMalloc(&s.dev[slot], size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS) {
          s.dev_size[slot] = size;
        } else {
          s.dev[slot] = nullptr;
        }
        break;
      }
      case 5:
        (void)aclrtFree(s.dev[slot]);
        s.dev[slot] = nullptr;
        s.dev_size[slot] = 0;
        break;
      case 6:
        if (s.pinned[slot] == nullptr && aclrtMallocHost(&s.pinned[slot], 256) != ACL_SUCCESS) s.pinned[slot] = nullptr;
        break;
      case 7:
        // Stream-ordered: queued copies that use it finish first.
        (void)aclrtFreeHost(s.pinned[slot]);
        s.pinned[slot] = nullptr;
        break;
      case 8:
        copy(s, in, false);
        break;
      case 9:
        copy(s, in, true);
        break;
      case 10: {
        size_t room = 0;
        void* p = dev_ptr(s, in, &room);
        const size_t count = in.u8() * 4u;
        const size_t max = (a & 1) ? count : room;
        if (a & 2) {
          (void)aclrtMemsetAsync(p, max, a, count, pick_stream(s, in.u8()));
        } else {
          (void)aclrtMemset(p, max, a, count);
        }
        break;
      }
      case 11:
        (void)aclrtRecordEvent(pick_event(s, a), pick_stream(s, in.u8()));
        break;
      case 12:
        (void)aclrtStreamWaitEvent(pick_stream(s, in.u8()), pick_event(s, a));
        break;
      case 13:
        (void)aclrtSynchronizeStream(pick_stream(s, a));
        break;
      case 14:
        (void)aclrtSynchronizeEvent(pick_event(s, a));
        break;
      case 15: {
        aclrtEventRecordedStatus status;
        (void)aclrtQueryEventStatus(pick_event(s, a), (a & 0x40) ? nullptr : &status);
        break;
      }
      case 16: {
        size_t room = 0;
        auto* args = new KernelArgs{dev_ptr(s, in, &room), 0, a};
        args->bytes = (in.u8() & 1) ? room : room + 16;  // in bounds, or past the end (a fault)
        (void)arunLaunchKernel(pick_stream(s, in.u8()), 1 + a % 4, (a & 0x40) ? nullptr : kernel, args, free_args);
        break;
      }
      case 17:
        (void)aclrtSynchronizeDevice();
        break;
      case 18: {
        const int32_t dev = a % 3;  // 2 is not a device
        if (aclrtSetDevice(dev) == ACL_SUCCESS) s.device_set[dev] = true;
        break;
      }
      case 19: {
        float ms = 0;
        (void)aclrtEventElapsedTime(&ms, pick_event(s, a), pick_event(s, in.u8()));
        break;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Quiet, and no leak report: each input's leftovers are released by aclrtResetDevice on purpose.
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir && dir[0] ? dir : "/tmp") + "/arun-fuzz-api.toml";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs("[runtime]\nlog_level = \"off\"\nleak_report = \"off\"\nfinalize_timeout_ms = 10000\n", f);
    std::fclose(f);
  }
  if (aclInit(path.c_str()) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "fuzz_api: aclInit / aclrtSetDevice(0) failed: %s\n", aclGetRecentErrMsg());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Device 0 stays set across inputs (a reset per input would cost more than the input);
  // everything an input created is released below, through the API.
  if (aclrtSetDevice(0) != ACL_SUCCESS) std::abort();
  State s;
  Input in{data, size};
  run(s, in);
  if (s.device_set[1]) {
    // Device 1's handles go with its context; its copies of device-0 handles are stale now.
    if (aclrtResetDeviceForce(1) != ACL_SUCCESS) {
      std::fprintf(stderr, "fuzz_api: aclrtResetDeviceForce(1) failed: %s\n", aclGetRecentErrMsg());
      std::abort();
    }
    if (aclrtSetDevice(0) != ACL_SUCCESS) std::abort();
  }
  for (aclrtStream st : s.streams) (void)aclrtDestroyStreamForce(st);
  (void)aclrtSynchronizeDevice();
  for (aclrtEvent ev : s.events) (void)aclrtDestroyEvent(ev);
  for (void* p : s.dev) (void)aclrtFree(p);
  for (void* p : s.pinned) (void)aclrtFreeHost(p);
  (void)aclrtSynchronizeDevice();
  return 0;
}
