// Spec part 2, 4.14 (IPC memory keys) and 4.13's shareable handles: device memory shared across
// processes. The other process is ipc_helper (fork + exec): it imports what this process exported
// and checks the bytes, or exports for this process to import. Backends whose memory cannot be
// shared answer ACL_ERROR_RT_FEATURE_NOT_SUPPORT and the cross-process tests skip.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"
#include "ipc_helper_process.hpp"

extern char** environ;

namespace conformance {
namespace {

constexpr size_t k2M = 2u << 20;

class IpcMemoryTest : public AclDeviceTest {
 protected:
  // Device memory holding ipcPattern(size, seed) and an export key for it, or false (test
  // skipped) when the backend cannot share memory.
  bool exported(void** dev, size_t size, uint32_t seed, char* key, uint64_t flags) {
    EXPECT_ACL_OK(aclrtMalloc(dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    const std::vector<uint8_t> data = ipcPattern(size, seed);
    EXPECT_ACL_OK(aclrtMemcpy(*dev, size, data.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
    const aclError e = aclrtIpcMemGetExportKey(*dev, size, key, 65, flags);
    if (e == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
      EXPECT_ACL_OK(aclrtFree(*dev));
      return false;
    }
    EXPECT_ACL_OK(e);
    return e == ACL_SUCCESS;
  }
  std::vector<uint8_t> read(const void* dev, size_t size) {
    std::vector<uint8_t> v(size);
    EXPECT_ACL_OK(aclrtMemcpy(v.data(), size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }
};

#define NEED_EXPORT(dev, size, seed, key, flags)                                                              \
  do {                                                                                                        \
    if (!exported(&(dev), (size), (seed), (key), (flags))) GTEST_SKIP() << "the backend cannot share memory"; \
  } while (0)

TEST_P(IpcMemoryTest, ExportKeyRulesAndImportInOneProcess) {
  void* dev = nullptr;
  char key[65] = {};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(nullptr, 64, key, 65, 0));
  int host = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(&host, 64, nullptr, 65, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(&host, 0, key, 65, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(&host, 64, key, 0, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(&host, 64, key, 64, 0)) << "len below 65";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(&host, 64, key, 65, 2)) << "flags";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(&host, 64, key, 65, 0)) << "host memory";
  NEED_EXPORT(dev, 4096, 1, key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT);
  EXPECT_LT(std::strlen(key), 65u);
  EXPECT_GT(std::strlen(key), 32u) << "128 random bits in it";
  char key2[65] = {};
  ASSERT_ACL_OK(aclrtIpcMemGetExportKey(dev, 4096, key2, 65, 0));
  EXPECT_STRNE(key, key2) << "every export gets its own key";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(static_cast<char*>(dev) + 512, 512, key2, 65, 0))
      << "not the start of an allocation";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(dev, 8192, key2, 65, 0)) << "past its end";

  int32_t pid = getpid();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(nullptr, &pid, 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, &pid, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid("arun-ipc-1-00", &pid, 1)) << "unknown key";

  void* imp = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(nullptr, key, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&imp, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&imp, key, 2)) << "flags";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&imp, "not a key", 0));
  std::string guessed = key;
  guessed.back() = guessed.back() == '0' ? '1' : '0';
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&imp, guessed.c_str(), 0)) << "a guessed key";
  EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtIpcMemImportByKey(&imp, key, 0)) << "not on the allow-list";
  ASSERT_ACL_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
  ASSERT_ACL_OK(aclrtIpcMemImportByKey(&imp, key, 0));
  EXPECT_NE(dev, imp) << "the import is a mapping of its own";
  EXPECT_EQ(ipcPattern(4096, 1), read(imp, 4096));
  const std::vector<uint8_t> next = ipcPattern(4096, 2);
  ASSERT_ACL_OK(aclrtMemcpy(imp, 4096, next.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_EQ(next, read(dev, 4096)) << "the same memory";
  std::vector<uint8_t> scratch(8192);
  EXPECT_NE(ACL_SUCCESS, aclrtMemcpy(scratch.data(), 4096 + 512, imp, 4096 + 512, ACL_MEMCPY_DEVICE_TO_HOST))
      << "no more than the exported bytes";

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(nullptr));
  EXPECT_ACL_OK(aclrtIpcMemClose(key)) << "the import";
  EXPECT_NE(ACL_SUCCESS, aclrtMemcpy(scratch.data(), 64, imp, 64, ACL_MEMCPY_DEVICE_TO_HOST)) << "unmapped";
  EXPECT_ACL_OK(aclrtIpcMemClose(key)) << "the export";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key)) << "closed twice";
  EXPECT_ACL_OK(aclrtIpcMemClose(key2));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(IpcMemoryTest, AnotherProcessImportsByKey) {
  void* dev = nullptr;
  char key[65] = {};
  const size_t size = k2M + 4096;
  NEED_EXPORT(dev, size, 11, key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT);
  Helper h({config(), "key", key, std::to_string(size), "11", "0"});
  ASSERT_GT(h.pid(), 0);
  int32_t pid = h.pid();
  ASSERT_ACL_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
  h.go();
  ASSERT_EQ(0, h.wait()) << "the helper imported, checked and wrote back";
  EXPECT_EQ(ipcPattern(size, 12), read(dev, size)) << "what the other process wrote";
  EXPECT_ACL_OK(aclrtIpcMemClose(key));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(IpcMemoryTest, AProcessNotOnTheAllowListIsRefused) {
  void* dev = nullptr;
  char key[65] = {};
  NEED_EXPORT(dev, 4096, 21, key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT);
  Helper h({config(), "key", key, "4096", "21", std::to_string(ACL_ERROR_RT_NO_PERMISSION)});
  int32_t other = h.pid() + 1;  // somebody else
  ASSERT_ACL_OK(aclrtIpcMemSetImportPid(key, &other, 1));
  h.go();
  EXPECT_EQ(0, h.wait()) << "the helper got ACL_ERROR_RT_NO_PERMISSION";
  EXPECT_EQ(ipcPattern(4096, 21), read(dev, 4096)) << "untouched";
  // Withdrawn exports are unknown to importers.
  EXPECT_ACL_OK(aclrtIpcMemClose(key));
  Helper late({config(), "key", key, "4096", "21", std::to_string(ACL_ERROR_RT_PARAM_INVALID)});
  late.go();
  EXPECT_EQ(0, late.wait()) << "the helper got ACL_ERROR_RT_PARAM_INVALID";
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(IpcMemoryTest, ExporterThatExitsLeavesACleanError) {
  char probe[65] = {};
  void* mine = nullptr;
  NEED_EXPORT(mine, 512, 0, probe, 1);
  EXPECT_ACL_OK(aclrtIpcMemClose(probe));
  EXPECT_ACL_OK(aclrtFree(mine));

  Helper h({config(), "export", "-", "8192", "31", "0"});
  const std::string key = h.line();
  ASSERT_FALSE(key.empty());
  void* imp = nullptr;
  ASSERT_ACL_OK(aclrtIpcMemImportByKey(&imp, key.c_str(), 0)) << "no pid check";
  EXPECT_EQ(ipcPattern(8192, 31), read(imp, 8192));
  h.go();
  ASSERT_EQ(0, h.wait());
  // The memory stays while this process maps it; new imports find nobody to ask.
  EXPECT_EQ(ipcPattern(8192, 31), read(imp, 8192)) << "the mapping outlives the exporter";
  EXPECT_ACL_OK(aclrtIpcMemClose(key.c_str()));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&imp, key.c_str(), 0)) << "exporter gone";
}

TEST_P(IpcMemoryTest, FreeingWithdrawsTheExport) {
  void* dev = nullptr;
  char key[65] = {};
  NEED_EXPORT(dev, 4096, 70, key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
  ASSERT_ACL_OK(aclrtFree(dev));
  // Whatever reuses the address later is not reachable under the old key.
  void* again = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&again, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  Helper h({config(), "key", key, "4096", "70", std::to_string(ACL_ERROR_RT_PARAM_INVALID)});
  h.go();
  EXPECT_EQ(0, h.wait()) << "the import of a freed export is refused";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key)) << "no longer exported";
  EXPECT_ACL_OK(aclrtFree(again));
}

TEST_P(IpcMemoryTest, ShareableHandleRulesAndAnotherProcess) {
  aclrtDrvMemHandle ph = nullptr;
  uint64_t sh = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(nullptr, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
  int32_t pid = getpid();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(1, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(1, &pid, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(1, &pid, 1)) << "not exported here";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(1, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
             aclrtMemImportFromShareableHandle(1, static_cast<int32_t>(deviceCount()), &ph));

  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_MEM_NORMAL;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  const aclError e = aclrtMallocPhysical(&ph, k2M, &prop, 0);
  if (e == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) GTEST_SKIP() << "the backend has no device physical memory";
  ASSERT_ACL_OK(e);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(ph, ACL_MEM_HANDLE_TYPE_NONE, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(ph, ACL_MEM_HANDLE_TYPE_POSIX, 0, &sh));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(ph, ACL_MEM_HANDLE_TYPE_NONE, 2, &sh));
  ASSERT_ACL_OK(aclrtMemExportToShareableHandle(ph, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh));
  uint64_t again = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(ph, ACL_MEM_HANDLE_TYPE_NONE, 0, &again))
      << "one shareable handle per handle";
  aclrtDrvMemHandle self = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(sh, 0, &self)) << "same process";
  aclrtPhysicalMemProp hp = prop;
  hp.location.type = ACL_MEM_LOCATION_TYPE_HOST;
  aclrtDrvMemHandle hostMem = nullptr;
  ASSERT_ACL_OK(aclrtMallocPhysical(&hostMem, 4096, &hp, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(hostMem, ACL_MEM_HANDLE_TYPE_NONE, 0, &again))
      << "host memory";
  EXPECT_ACL_OK(aclrtFreePhysical(hostMem));

  // Data written here, checked and overwritten by the other process through its own mapping.
  void* va = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&va, k2M, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtMapMem(va, k2M, 0, ph, 0));
  const std::vector<uint8_t> data = ipcPattern(k2M, 41);
  ASSERT_ACL_OK(aclrtMemcpy(va, k2M, data.data(), k2M, ACL_MEMCPY_HOST_TO_DEVICE));
  {
    Helper refused({config(), "handle", std::to_string(sh), std::to_string(k2M), "41",
                    std::to_string(ACL_ERROR_RT_PARAM_INVALID)});
    refused.go();
    EXPECT_EQ(0, refused.wait()) << "not on the allow-list: refused";
  }
  Helper h({config(), "handle", std::to_string(sh), std::to_string(k2M), "41", "0"});
  int32_t child = h.pid();
  ASSERT_ACL_OK(aclrtMemSetPidToShareableHandle(sh, &child, 1));
  h.go();
  ASSERT_EQ(0, h.wait());
  EXPECT_EQ(ipcPattern(k2M, 42), read(va, k2M)) << "what the other process wrote";
  EXPECT_ACL_OK(aclrtUnmapMem(va));
  EXPECT_ACL_OK(aclrtFreePhysical(ph));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(va));
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(IpcMemoryTest);

}  // namespace conformance
