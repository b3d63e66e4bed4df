// The other process of the IPC memory tests (ipc_memory_test.cpp): imports memory another process
// exported and checks the bytes it wrote, or exports memory for another process to import.
//
//   ipc_helper CONFIG key    KEY    SIZE SEED EXPECT   import by key
//   ipc_helper CONFIG handle HANDLE SIZE SEED EXPECT   import a shareable handle and map it
//   ipc_helper CONFIG export -      SIZE SEED 0        export by key (no pid check), print the key,
//                                                      exit when stdin says so
//
// An importer waits for one byte on stdin first (the exporter whitelists it meanwhile). EXPECT is
// the aclError the import must return; on success the helper checks pattern(SEED), writes
// pattern(SEED + 1) back through the import and releases it. Exit status 0: all as expected.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: ipc_helper CONFIG key|handle|export NAME SIZE SEED EXPECT\n");
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

  char go = 0;
  if (read(0, &go, 1) != 1) return 2;
  if (mode == "key") {
    void* dev = nullptr;
    e = aclrtIpcMemImportByKey(&dev, name.c_str(), ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT);
    if (e != expect) return fail("aclrtIpcMemImportByKey returned an unexpected code", e);
    if (e == ACL_SUCCESS) {
      rc = check_and_write(dev, size, seed);
      if ((e = aclrtIpcMemClose(name.c_str())) != ACL_SUCCESS) rc = fail("aclrtIpcMemClose", e);
    }
  } else if (mode == "handle") {
    aclrtDrvMemHandle h = nullptr;
    e = aclrtMemImportFromShareableHandle(std::strtoull(name.c_str(), nullptr, 0), 0, &h);
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
