// The other process of the IPC memory tests (ipc_memory_test.cpp): imports memory another process
// exported and checks the bytes it wrote, or exports memory for another process to import.
//
//   ipc_helper CONFIG key    KEY    SIZE SEED EXPECT   import by key
//   ipc_helper CONFIG handle HANDLE SIZE SEED EXPECT   import a shareable handle and map it
//   ipc_helper CONFIG export -      SIZE SEED 0        export by key (no pid check), print the key,
//                                                      exit when stdin says so
//   ipc_helper CONFIG handle2 HANDLE SIZE SEED EXPECT  as `handle`, with aclrtMemImportFromShareableHandleV2
//   ipc_helper CONFIG fabric HEX SIZE SEED EXPECT      as `handle2` with a FABRIC handle (its 128 bytes in hex)
//   ipc_helper CONFIG event  -      SIZE SEED 0        export zeroed memory by key and an IPC event;
//                                                      print the key and the event handle (hex); then
//                                                      behind a 300 ms device task write pattern(SEED)
//                                                      and record the event; exit when stdin says so
//   ipc_helper CONFIG event-exit - 0 0 0               an IPC event recorded behind a 30 s device
//                                                      task; print its handle, then "recorded";
//                                                      exit (_exit) on stdin
//   ipc_helper CONFIG notify - SIZE SEED 0             as `event` with a notify exported by key
//                                                      (only the parent process allowed) instead
//                                                      of the event: print the memory key and the
//                                                      notify key, record it behind the write
//   ipc_helper CONFIG notify-deny - 0 0 0              a notify exported with only this process
//                                                      allowed; print its key; exit on stdin
//   ipc_helper CONFIG notify-exit - 0 0 0              a notify exported to anybody; print its key;
//                                                      exit (_exit) on stdin
//   ipc_helper CONFIG notify-record KEY 0 0 0          on stdin, import the notify KEY and record it
//                                                      behind a 100 ms device task
//   ipc_helper CONFIG notify-import-exit KEY 0 0 0     on stdin, import the notify KEY, print
//                                                      "imported"; exit (_exit) on stdin, unrecorded
//
// An importer waits for one byte on stdin first (the exporter whitelists it meanwhile). EXPECT is
// the aclError the import must return; on success the helper checks pattern(SEED), writes
// pattern(SEED + 1) back through the import and releases it. Exit status 0: all as expected.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace {

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 9)) & 0xff);
  return v;
}

int fail(const char* what, aclError e) {
  std::fprintf(stderr, "ipc_helper: %s: %d (%s)\n", what, static_cast<int>(e), aclGetRecentErrMsg());
  return 1;
}

// Checks pattern(seed) at devPtr and writes pattern(seed + 1) there.
int check_and_write(void* devPtr, size_t size, uint32_t seed) {
  std::vector<uint8_t> got(size);
  aclError e = aclrtMemcpy(got.data(), size, devPtr, size, ACL_MEMCPY_DEVICE_TO_HOST);
  if (e != ACL_SUCCESS) return fail("read the imported memory", e);
  if (got != pattern(size, seed)) {
    std::fprintf(stderr, "ipc_helper: the imported bytes differ from the exporter's\n");
    return 1;
  }
  const std::vector<uint8_t> next = pattern(size, seed + 1);
  e = aclrtMemcpy(devPtr, size, next.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  if (e != ACL_SUCCESS) return fail("write the imported memory", e);
  return 0;
}

void sleep_task(void* ms) {
  usleep(static_cast<useconds_t>(reinterpret_cast<uintptr_t>(ms) * 1000));
}

std::string hex(const void* p, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<const unsigned char*>(p)[i]);
    s += b;
  }
  return s;
}

// An IPC event of this process, its handle printed in hex on stdout.
int export_event(aclrtEvent* ev) {
  aclError e = aclrtCreateEventExWithFlag(ev, ACL_EVENT_IPC);
  if (e != ACL_SUCCESS) return fail("aclrtCreateEventExWithFlag(ACL_EVENT_IPC)", e);
  aclrtIpcEventHandle h;
  if ((e = aclrtIpcGetEventHandle(*ev, &h)) != ACL_SUCCESS) return fail("aclrtIpcGetEventHandle", e);
  std::printf("%s\n", hex(&h, sizeof h).c_str());
  std::fflush(stdout);
  return 0;
}

// A notify of this process exported by key, the key printed on stdout. `allow`: the one pid
// allowed (0: pid validation off).
int export_notify(aclrtNotify* n, int32_t allow) {
  aclError e = aclrtCreateNotify(n, ACL_NOTIFY_DEFAULT);
  if (e != ACL_SUCCESS) return fail("aclrtCreateNotify", e);
  char key[65] = {};
  const uint64_t flags =
      allow == 0 ? ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION : ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT;
  if ((e = aclrtNotifyGetExportKey(*n, key, sizeof key, flags)) != ACL_SUCCESS)
    return fail("aclrtNotifyGetExportKey", e);
  if (allow != 0 && (e = aclrtNotifySetImportPid(*n, &allow, 1)) != ACL_SUCCESS)
    return fail("aclrtNotifySetImportPid", e);
  std::printf("%s\n", key);
  std::fflush(stdout);
  return 0;
}

// How an ordering test's exporter side makes, records and destroys its sync object (an IPC event or
// an exported notify).
struct SyncObject {
  std::function<int()> make;  // creates and exports it, printing its handle; 0 on success
  std::function<aclError(aclrtStream)> record;
  std::function<aclError()> destroy;
};

// Exports zeroed device memory by key (printed; "-" where the backend cannot share memory), then
// the sync object, and writes a pattern into the memory well after the importer queued its wait,
// recording the sync object behind the write: only that record orders the importer's read.
int write_then_record(size_t size, uint32_t seed, const SyncObject& sync) {
  aclrtStream stream = nullptr;
  aclError e = aclrtCreateStream(&stream);
  if (e != ACL_SUCCESS) return fail("aclrtCreateStream", e);
  void* dev = nullptr;
  if ((e = aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS) return fail("aclrtMalloc", e);
  if ((e = aclrtMemset(dev, size, 0, size)) != ACL_SUCCESS) return fail("aclrtMemset", e);
  char key[65] = {};
  e = aclrtIpcMemGetExportKey(dev, size, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
  if (e == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    std::snprintf(key, sizeof key, "-");  // the importer skips
  else if (e != ACL_SUCCESS)
    return fail("aclrtIpcMemGetExportKey", e);
  std::printf("%s\n", key);
  if (sync.make() != 0) return 1;
  void* host = nullptr;
  if ((e = aclrtMallocHost(&host, size)) != ACL_SUCCESS) return fail("aclrtMallocHost", e);
  const std::vector<uint8_t> data = pattern(size, seed);
  std::memcpy(host, data.data(), size);
  if ((e = arunLaunchDeviceTask(&sleep_task, reinterpret_cast<void*>(uintptr_t{300}), stream)) != ACL_SUCCESS)
    return fail("arunLaunchDeviceTask", e);
  if ((e = aclrtMemcpyAsync(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, stream)) != ACL_SUCCESS)
    return fail("aclrtMemcpyAsync", e);
  if ((e = sync.record(stream)) != ACL_SUCCESS) return fail("record", e);
  std::printf("recorded\n");
  std::fflush(stdout);
  char go = 0;
  (void)!read(0, &go, 1);
  if ((e = aclrtSynchronizeStream(stream)) != ACL_SUCCESS) return fail("aclrtSynchronizeStream", e);
  if ((e = sync.destroy()) != ACL_SUCCESS) return fail("destroy", e);
  if (key[0] != '-' && (e = aclrtIpcMemClose(key)) != ACL_SUCCESS) return fail("aclrtIpcMemClose", e);
  if ((e = aclrtFree(dev)) != ACL_SUCCESS) return fail("aclrtFree", e);
  if ((e = aclrtFreeHost(host)) != ACL_SUCCESS) return fail("aclrtFreeHost", e);
  if ((e = aclrtDestroyStream(stream)) != ACL_SUCCESS) return fail("aclrtDestroyStream", e);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

int notify_mode(const std::string& mode, size_t size, uint32_t seed) {
  aclrtNotify n = nullptr;
  if (mode == "notify-deny" || mode == "notify-exit") {
    const bool deny = mode == "notify-deny";
    if (export_notify(&n, deny ? static_cast<int32_t>(getpid()) : 0) != 0) return 1;
    char go = 0;
    (void)!read(0, &go, 1);
    if (!deny) _exit(0);  // without destroying anything: importers must get a clean error
    aclError e = aclrtDestroyNotify(n);
    if (e != ACL_SUCCESS) return fail("aclrtDestroyNotify", e);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
  }
  return write_then_record(
      size, seed,
      {[&] { return export_notify(&n, static_cast<int32_t>(getppid())); },
       [&](aclrtStream s) { return aclrtRecordNotify(n, s); }, [&] { return aclrtDestroyNotify(n); }});
}

int event_mode(const std::string& mode, size_t size, uint32_t seed) {
  aclrtEvent ev = nullptr;
  if (mode == "event-exit") {
    aclrtStream stream = nullptr;
    aclError e = aclrtCreateStream(&stream);
    if (e != ACL_SUCCESS) return fail("aclrtCreateStream", e);
    if (export_event(&ev) != 0) return 1;
    if ((e = arunLaunchDeviceTask(&sleep_task, reinterpret_cast<void*>(uintptr_t{30000}), stream)) != ACL_SUCCESS)
      return fail("arunLaunchDeviceTask", e);
    if ((e = aclrtRecordEvent(ev, stream)) != ACL_SUCCESS) return fail("aclrtRecordEvent", e);
    std::printf("recorded\n");
    std::fflush(stdout);
    char go = 0;
    (void)!read(0, &go, 1);
    _exit(0);  // with the record pending: importers must get a clean error
  }
  return write_then_record(size, seed,
                           {[&] { return export_event(&ev); }, [&](aclrtStream s) { return aclrtRecordEvent(ev, s); },
                            [&] { return aclrtDestroyEvent(ev); }});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(
        stderr,
        "usage: ipc_helper CONFIG key|handle|handle2|fabric|export|event|event-exit|notify|notify-deny|notify-exit "
        "NAME SIZE SEED EXPECT\n");
    return 2;
  }
  const std::string mode = argv[2];
  const std::string name = argv[3];
  const size_t size = std::strtoull(argv[4], nullptr, 0);
  const auto seed = static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 0));
  const auto expect = static_cast<aclError>(std::strtol(argv[6], nullptr, 0));
  aclError e = aclInit(argv[1]);
  if (e != ACL_SUCCESS) return fail("aclInit", e);
  if ((e = aclrtSetDevice(0)) != ACL_SUCCESS) return fail("aclrtSetDevice", e);
  int rc = 0;

  if (mode == "export") {
    void* dev = nullptr;
    if ((e = aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS) return fail("aclrtMalloc", e);
    const std::vector<uint8_t> data = pattern(size, seed);
    if ((e = aclrtMemcpy(dev, size, data.data(), size, ACL_MEMCPY_HOST_TO_DEVICE)) != ACL_SUCCESS)
      return fail("write", e);
    char key[65] = {};
    e = aclrtIpcMemGetExportKey(dev, size, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
    if (e != ACL_SUCCESS) return fail("aclrtIpcMemGetExportKey", e);
    std::printf("%s\n", key);
    std::fflush(stdout);
    char go = 0;
    (void)!read(0, &go, 1);
    _exit(0);  // gone without closing anything: importers must cope
  }

  if (mode == "event" || mode == "event-exit") return event_mode(mode, size, seed);
  if (mode.rfind("notify", 0) == 0 && mode != "notify-record" && mode != "notify-import-exit")
    return notify_mode(mode, size, seed);

  char go = 0;
  if (read(0, &go, 1) != 1) return 2;
  if (mode == "notify-import-exit") {
    aclrtNotify n = nullptr;
    if ((e = aclrtNotifyImportByKey(&n, name.c_str(), 0)) != ACL_SUCCESS) return fail("aclrtNotifyImportByKey", e);
    std::printf("imported\n");
    std::fflush(stdout);
    (void)!read(0, &go, 1);
    _exit(0);  // never records: the exporter's wait must not hang on it
  }
  if (mode == "notify-record") {
    aclrtNotify n = nullptr;
    aclrtStream stream = nullptr;
    if ((e = aclrtNotifyImportByKey(&n, name.c_str(), 0)) != ACL_SUCCESS) return fail("aclrtNotifyImportByKey", e);
    if ((e = aclrtCreateStream(&stream)) != ACL_SUCCESS) return fail("aclrtCreateStream", e);
    if ((e = arunLaunchDeviceTask(&sleep_task, reinterpret_cast<void*>(uintptr_t{100}), stream)) != ACL_SUCCESS)
      return fail("arunLaunchDeviceTask", e);
    if ((e = aclrtRecordNotify(n, stream)) != ACL_SUCCESS) return fail("aclrtRecordNotify", e);
    if ((e = aclrtSynchronizeStream(stream)) != ACL_SUCCESS) return fail("aclrtSynchronizeStream", e);
    if ((e = aclrtDestroyNotify(n)) != ACL_SUCCESS) return fail("aclrtDestroyNotify", e);
    if ((e = aclrtDestroyStream(stream)) != ACL_SUCCESS) return fail("aclrtDestroyStream", e);
  } else if (mode == "key") {
    void* dev = nullptr;
    e = aclrtIpcMemImportByKey(&dev, name.c_str(), ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT);
    if (e != expect) return fail("aclrtIpcMemImportByKey returned an unexpected code", e);
    if (e == ACL_SUCCESS) {
      rc = check_and_write(dev, size, seed);
      if ((e = aclrtIpcMemClose(name.c_str())) != ACL_SUCCESS) rc = fail("aclrtIpcMemClose", e);
    }
  } else if (mode == "handle" || mode == "handle2" || mode == "fabric") {
    aclrtDrvMemHandle h = nullptr;
    uint64_t sh = std::strtoull(name.c_str(), nullptr, 0);
    aclrtMemFabricHandle fh{};
    if (mode == "fabric") {
      if (name.size() != 2 * sizeof fh.data) return 2;
      for (size_t i = 0; i < sizeof fh.data; ++i)
        fh.data[i] = static_cast<uint8_t>(std::stoul(name.substr(2 * i, 2), nullptr, 16));
    }
    e = mode == "handle"    ? aclrtMemImportFromShareableHandle(sh, 0, &h)
        : mode == "handle2" ? aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h)
                            : aclrtMemImportFromShareableHandleV2(&fh, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h);
    if (e != expect) return fail("aclrtMemImportFromShareableHandle returned an unexpected code", e);
    if (e == ACL_SUCCESS) {
      void* va = nullptr;
      if ((e = aclrtReserveMemAddress(&va, size, 0, nullptr, 0)) != ACL_SUCCESS) return fail("reserve", e);
      if ((e = aclrtMapMem(va, size, 0, h, 0)) != ACL_SUCCESS) return fail("aclrtMapMem", e);
      rc = check_and_write(va, size, seed);
      if ((e = aclrtUnmapMem(va)) != ACL_SUCCESS) rc = fail("aclrtUnmapMem", e);
      if ((e = aclrtFreePhysical(h)) != ACL_SUCCESS) rc = fail("aclrtFreePhysical", e);
      if ((e = aclrtReleaseMemAddress(va)) != ACL_SUCCESS) rc = fail("aclrtReleaseMemAddress", e);
    }
  } else {
    return 2;
  }
  aclrtResetDevice(0);
  aclFinalize();
  return rc;
}
