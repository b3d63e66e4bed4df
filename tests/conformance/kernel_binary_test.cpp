// Spec part 2, 4.11: kernel binaries (aclrtBinary*), function handles, argument handles
// (aclrtKernelArgs*) and the launch functions, against the test binaries of kernel_binaries/
// (built with arun_add_kernel_binary): results against host references, argument packing with
// mixed sizes and placeholders, unload while a launch is in flight, and every error rule.
#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"
#include "kb_test_types.hpp"

namespace conformance {
namespace {

const std::string kDir = ARUN_KB_DIR;
const std::string kGood = kDir + "/kb_good.so";

std::vector<char> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string recentMessage() {
  const char* m = aclGetRecentErrMsg();
  return m == nullptr ? "" : m;
}

class KernelBinaryTest : public AclDeviceTest {
 protected:
  void SetUp() override {
    AclDeviceTest::SetUp();
    ASSERT_ACL_OK(aclrtBinaryLoadFromFile(kGood.c_str(), nullptr, &bin_));
  }
  void TearDown() override {
    if (bin_ != nullptr) aclrtBinaryUnLoad(bin_);
    AclDeviceTest::TearDown();
  }
  aclrtFuncHandle fn(const char* name) {
    aclrtFuncHandle f = nullptr;
    EXPECT_ACL_OK(aclrtBinaryGetFunction(bin_, name, &f));
    return f;
  }
  void* dmalloc(size_t bytes) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
  }
  template <class T>
  void put(T* dev, const std::vector<T>& v) {
    EXPECT_ACL_OK(aclrtMemcpy(dev, v.size() * sizeof(T), v.data(), v.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE));
  }
  template <class T>
  std::vector<T> get(const T* dev, size_t n) {
    std::vector<T> v(n);
    EXPECT_ACL_OK(aclrtMemcpy(v.data(), n * sizeof(T), dev, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }
  aclrtBinHandle bin_ = nullptr;
};

// ------------------------------------------------------------------ loading

TEST_P(KernelBinaryTest, LoadFromFileFindsEveryKernelByNameAndEntry) {
  aclrtFuncHandle byName = fn("kb_vadd"), again = fn("kb_vadd"), byEntry = nullptr;
  EXPECT_EQ(byName, again);  // the same handle for repeated lookups
  ASSERT_ACL_OK(aclrtBinaryGetFunctionByEntry(bin_, 1, &byEntry));
  EXPECT_EQ(byName, byEntry);
  aclrtBinHandle owner = nullptr;
  ASSERT_ACL_OK(aclrtFunctionGetBinary(byName, &owner));
  EXPECT_EQ(owner, bin_);
  char name[16];
  ASSERT_ACL_OK(aclrtGetFunctionName(byName, sizeof name, name));
  EXPECT_STREQ("kb_vadd", name);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionName(byName, 7, name));  // no room for the NUL
}

TEST_P(KernelBinaryTest, LoadFromDataGoesThroughMemoryAndRunsTheSameKernels) {
  std::vector<char> bytes = readFile(kGood);
  ASSERT_FALSE(bytes.empty());
  aclrtBinHandle mem = nullptr;
  ASSERT_ACL_OK(aclrtBinaryLoadFromData(bytes.data(), bytes.size(), nullptr, &mem));
  bytes.assign(bytes.size(), 0);  // copied during the call
  aclrtFuncHandle f = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetFunction(mem, "kb_vadd", &f));
  EXPECT_NE(f, fn("kb_vadd"));
  const uint32_t n = 1000;
  auto* x = static_cast<float*>(dmalloc(n * 4));
  auto* z = static_cast<float*>(dmalloc(n * 4));
  std::vector<float> hx(n);
  for (uint32_t i = 0; i < n; ++i) hx[i] = float(i) * 0.25f;
  put(x, hx);
  void* args[] = {&x, &x, &z, const_cast<uint32_t*>(&n)};
  ASSERT_ACL_OK(aclrtLaunchKernelWithArgsArray(f, 3, nullptr, nullptr, args));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  std::vector<float> hz = get(z, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(hz[i], 2 * hx[i]) << i;
  EXPECT_ACL_OK(aclrtBinaryUnLoad(mem));
  EXPECT_ACL_OK(aclrtFree(x));
  EXPECT_ACL_OK(aclrtFree(z));
}

TEST_P(KernelBinaryTest, CreateBinaryAndBinaryLoad) {
  std::vector<char> bytes = readFile(kGood);
  EXPECT_EQ(nullptr, aclrtCreateBinary(nullptr, 10));
  EXPECT_EQ(nullptr, aclrtCreateBinary(bytes.data(), 0));
  aclrtBinary desc = aclrtCreateBinary(bytes.data(), bytes.size());
  ASSERT_NE(nullptr, desc);
  aclrtBinHandle h = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(nullptr, &h));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(desc, nullptr));
  ASSERT_ACL_OK(aclrtBinaryLoad(desc, &h));
  aclrtFuncHandle f = nullptr;
  EXPECT_ACL_OK(aclrtBinaryGetFunction(h, "kb_mixed", &f));
  EXPECT_ACL_OK(aclrtDestroyBinary(desc));  // the loaded binary stays
  EXPECT_ACL_OK(aclrtBinaryGetFunction(h, "kb_mixed", &f));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyBinary(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyBinary(desc));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryLoad(desc, &h));
  EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
  // Garbage bytes: a malformed object.
  std::vector<char> junk(4096, 'x');
  aclrtBinary bad = aclrtCreateBinary(junk.data(), junk.size());
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoad(bad, &h));
  EXPECT_ACL_OK(aclrtDestroyBinary(bad));
}

TEST_P(KernelBinaryTest, BrokenBinariesNameTheFileAndTheKernel) {
  aclrtBinHandle h = nullptr;
  const std::string magic = kDir + "/kb_bad_magic.so";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(magic.c_str(), nullptr, &h));
  std::string msg = recentMessage();  // reading it clears it
  EXPECT_NE(std::string::npos, msg.find(magic)) << msg;
  EXPECT_NE(std::string::npos, msg.find("bad magic 0x12345678")) << msg;
  const std::string abi = kDir + "/kb_bad_abi.so";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(abi.c_str(), nullptr, &h));
  msg = recentMessage();
  EXPECT_NE(std::string::npos, msg.find(abi)) << msg;
  EXPECT_NE(std::string::npos, msg.find("ABI version 99")) << msg;
  const std::string ghost = kDir + "/kb_missing_symbol.so";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(ghost.c_str(), nullptr, &h));
  msg = recentMessage();
  EXPECT_NE(std::string::npos, msg.find(ghost)) << msg;
  EXPECT_NE(std::string::npos, msg.find("kernel 'kb_ghost'")) << msg;
  // The same checks from memory.
  std::vector<char> bytes = readFile(magic);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromData(bytes.data(), bytes.size(), nullptr, &h));
  msg = recentMessage();
  EXPECT_NE(std::string::npos, msg.find("<memory")) << msg;
  EXPECT_NE(std::string::npos, msg.find("bad magic")) << msg;
}

TEST_P(KernelBinaryTest, LoadFromFileErrors) {
  aclrtBinHandle h = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromFile(nullptr, nullptr, &h));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromFile(kGood.c_str(), nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile("/nonexistent/kb.so", nullptr, &h));
  // Never a search path: a bare name is refused even though dlopen could find one.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile("libc.so.6", nullptr, &h));
  aclrtBinaryLoadOptions opts{nullptr, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(kGood.c_str(), &opts, &h));
  aclrtBinaryLoadOption o{};
  opts.options = &o;
  auto tryOpt = [&](int type, uint32_t value) {
    int32_t t = type;
    std::memcpy(&o.type, &t, sizeof t);
    o.value.rsv[0] = value;
    return aclrtBinaryLoadFromFile(kGood.c_str(), &opts, &h);
  };
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, tryOpt(0, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, tryOpt(4, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, tryOpt(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, tryOpt(ACL_RT_BINARY_LOAD_OPT_MAGIC, ACL_RT_BINARY_MAGIC_ELF_AICORE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, tryOpt(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 2));
  ASSERT_ACL_OK(tryOpt(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1));
  EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
  ASSERT_ACL_OK(tryOpt(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 1));
  EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
}

TEST_P(KernelBinaryTest, LoadFromDataErrors) {
  std::vector<char> bytes = readFile(kGood);
  aclrtBinHandle h = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromData(nullptr, 10, nullptr, &h));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromData(bytes.data(), bytes.size(), nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromData(bytes.data(), 0, nullptr, &h));
  aclrtBinaryLoadOption o{};
  aclrtBinaryLoadOptions opts{&o, 1};
  o.type = ACL_RT_BINARY_LOAD_OPT_MAGIC;
  o.value.magic = 0x1234;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromData(bytes.data(), bytes.size(), &opts, &h));
  o.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE;
  o.value.cpuKernelMode = 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromData(bytes.data(), bytes.size(), &opts, &h));
  o.value.cpuKernelMode = 2;  // AI CPU binaries: not on the simulated NPU
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtBinaryLoadFromData(bytes.data(), bytes.size(), &opts, &h));
  o.type = ACL_RT_BINARY_LOAD_OPT_MAGIC;
  o.value.magic = ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE;
  ASSERT_ACL_OK(aclrtBinaryLoadFromData(bytes.data(), bytes.size(), &opts, &h));
  EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
}

TEST_P(KernelBinaryTest, LookupErrorsAndDeadHandles) {
  aclrtFuncHandle f = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunction(nullptr, "kb_vadd", &f));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunction(bin_, nullptr, &f));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunction(bin_, "kb_vadd", nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunction(bin_, "kb_nope", &f));
  EXPECT_NE(std::string::npos, recentMessage().find("kb_nope")) << recentMessage();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunctionByEntry(nullptr, 1, &f));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunctionByEntry(bin_, 1, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunctionByEntry(bin_, 777, &f));
  aclrtFuncHandle vadd = fn("kb_vadd");
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryUnLoad(nullptr));
  ASSERT_ACL_OK(aclrtBinaryUnLoad(bin_));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryUnLoad(bin_));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(bin_, "kb_vadd", &f));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunctionByEntry(bin_, 1, &f));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetFunctionName(vadd, 16, reinterpret_cast<char*>(&f)));
  aclrtBinHandle b = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFunctionGetBinary(vadd, &b));
  size_t size = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsGetHandleMemSize(vadd, &size));
  int32_t one = 1;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtLaunchKernelWithHostArgs(vadd, 1, nullptr, nullptr, &one, 32, nullptr, 0));
  bin_ = nullptr;
}

TEST_P(KernelBinaryTest, NoContextIsContextNull) {
  inNewThread([&] {
    aclrtBinHandle h = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtBinaryLoadFromFile(kGood.c_str(), nullptr, &h));
    aclrtFuncHandle f = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtBinaryGetFunction(bin_, "kb_vadd", &f));
  });
}

// ------------------------------------------------------------------ function queries

TEST_P(KernelBinaryTest, ParamSummaryFollowsTheSlotRule) {
  aclrtFuncHandle mixed = fn("kb_mixed");
  size_t count = 0;
  ASSERT_ACL_OK(aclrtFunctionGetParamCount(mixed, &count));
  ASSERT_EQ(6u, count);
  // uint8, uint64, uint16, Pair (12), float, pointer: 8-byte slots, a 12-byte one takes 16.
  const size_t offsets[] = {0, 8, 16, 24, 40, 48}, sizes[] = {1, 8, 2, 12, 4, 8};
  for (size_t i = 0; i < count; ++i) {
    size_t off = 99, sz = 99;
    ASSERT_ACL_OK(aclrtFunctionGetParamInfo(mixed, i, &off, &sz));
    EXPECT_EQ(offsets[i], off) << i;
    EXPECT_EQ(sizes[i], sz) << i;
  }
  size_t off = 0;
  EXPECT_ACL_OK(aclrtFunctionGetParamInfo(mixed, 2, &off, nullptr));
  EXPECT_EQ(16u, off);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFunctionGetParamInfo(mixed, 6, &off, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFunctionGetParamInfo(mixed, 0, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFunctionGetParamInfo(nullptr, 0, &off, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFunctionGetParamCount(nullptr, &count));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFunctionGetParamCount(mixed, nullptr));
}

TEST_P(KernelBinaryTest, AttributesAddressesAndSymbols) {
  aclrtFuncHandle vadd = fn("kb_vadd"), vec = fn("kb_vector_batch");
  int64_t v = -1;
  ASSERT_ACL_OK(aclrtGetFunctionAttribute(vadd, ACL_FUNC_ATTR_KERNEL_TYPE, &v));
  EXPECT_EQ(ACL_KERNEL_TYPE_AICORE, v);
  ASSERT_ACL_OK(aclrtGetFunctionAttribute(vec, ACL_FUNC_ATTR_KERNEL_TYPE, &v));
  EXPECT_EQ(ACL_KERNEL_TYPE_VECTOR, v);
  ASSERT_ACL_OK(aclrtGetFunctionAttribute(vec, ACL_FUNC_ATTR_KERNEL_SCHED_MODE, &v));
  EXPECT_EQ(1, v);
  ASSERT_ACL_OK(aclrtGetFunctionAttribute(vadd, ACL_FUNC_ATTR_KERNEL_SCHED_MODE, &v));
  EXPECT_EQ(0, v);
  ASSERT_ACL_OK(aclrtGetFunctionAttribute(vadd, ACL_FUNC_ATTR_KERNEL_RATIO, &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionAttribute(vadd, static_cast<aclrtFuncAttribute>(4), &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionAttribute(vadd, static_cast<aclrtFuncAttribute>(0), &v));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetFunctionAttribute(nullptr, ACL_FUNC_ATTR_KERNEL_TYPE, &v));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetFunctionAttribute(vadd, ACL_FUNC_ATTR_KERNEL_TYPE, nullptr));

  void *aic = nullptr, *aiv = nullptr;
  ASSERT_ACL_OK(aclrtGetFunctionAddr(vadd, &aic, &aiv));
  EXPECT_NE(nullptr, aic);
  EXPECT_EQ(nullptr, aiv);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetFunctionAddr(vadd, nullptr, &aiv));
  size_t aicSize = 0, aivSize = 9;
  ASSERT_ACL_OK(aclrtGetFunctionSize(vadd, &aicSize, &aivSize));
  EXPECT_GT(aicSize, 0u);
  EXPECT_EQ(0u, aivSize);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionSize(nullptr, &aicSize, &aivSize));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionSize(vadd, nullptr, &aivSize));

  // The entry address is the kernel's "__global__ symbol".
  aclrtFuncHandle bySym = nullptr;
  ASSERT_ACL_OK(aclrtGetFuncBySymbol(aic, &bySym));
  EXPECT_EQ(vadd, bySym);
  size_t count = 0;
  ASSERT_ACL_OK(aclrtFunctionGetParamCount(aic, &count));
  EXPECT_EQ(4u, count);
  static int notAKernel;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICE_FUNCTION, aclrtGetFuncBySymbol(&notAKernel, &bySym));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetFuncBySymbol(nullptr, &bySym));

  size_t ubuf = 9;
  ASSERT_ACL_OK(aclrtFunctionGetAvailDynUbufPerBlock(vadd, 0, &ubuf));
  EXPECT_EQ(0u, ubuf);  // not a SIMT kernel
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFunctionGetAvailDynUbufPerBlock(vadd, 1, &ubuf));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFunctionGetAvailDynUbufPerBlock(vadd, 0, nullptr));

  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFunctionGetBinary(nullptr, &bin_));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFunctionGetBinary(vadd, nullptr));
  aclrtFuncHandle cpu = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRegisterCpuFunc(bin_, "f", "k", &cpu));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRegisterCpuFunc(bin_, nullptr, "k", &cpu));
}

TEST_P(KernelBinaryTest, GlobalsAndDevAddress) {
  void* addr = nullptr;
  size_t size = 0;
  ASSERT_ACL_OK(aclrtBinaryGetGlobal(bin_, "kb_global_table", &addr, &size));
  EXPECT_EQ(16 * sizeof(int32_t), size);
  EXPECT_EQ(2, static_cast<int32_t*>(addr)[1]);
  EXPECT_ACL_OK(aclrtBinaryGetGlobal(bin_, "kb_global_table", nullptr, &size));
  EXPECT_ACL(ACL_ERROR_RT_SYMBOL_NOT_FOUND, aclrtBinaryGetGlobal(bin_, "kb_no_such", &addr, &size));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetGlobal(bin_, "kb_global_table", nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetGlobal(nullptr, "kb_global_table", &addr, &size));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetGlobal(bin_, nullptr, &addr, &size));
  ASSERT_ACL_OK(aclrtBinaryGetDevAddress(bin_, &addr, &size));
  EXPECT_NE(nullptr, addr);
  EXPECT_EQ(readFile(kGood).size(), size);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetDevAddress(nullptr, &addr, &size));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetDevAddress(bin_, nullptr, &size));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetDevAddress(bin_, &addr, nullptr));
}

// ------------------------------------------------------------------ argument handles and launch

TEST_P(KernelBinaryTest, KernelReceivesExactlyWhatWasPacked) {
  aclrtFuncHandle mixed = fn("kb_mixed");
  auto* out = static_cast<kbtest::Echo*>(dmalloc(sizeof(kbtest::Echo)));
  size_t handleBytes = 0, dataBytes = 0;
  ASSERT_ACL_OK(aclrtKernelArgsGetHandleMemSize(mixed, &handleBytes));
  ASSERT_ACL_OK(aclrtKernelArgsGetMemSize(mixed, 56, &dataBytes));
  EXPECT_EQ(56u + 64 + 8 * 6, dataBytes);  // CANN's formula
  std::vector<uint64_t> handle((handleBytes + 7) / 8), data((dataBytes + 7) / 8);
  ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(mixed, handle.data(), data.data(), dataBytes));
  uint8_t a = 0xA5;
  uint64_t c = 0x0123456789ABCDEFull;
  uint16_t d = 0xBEEF;
  kbtest::Pair p{-7, 8, 1 << 30};
  float e = 3.25f;
  aclrtParamHandle ph[6];
  ASSERT_ACL_OK(aclrtKernelArgsAppend(handle.data(), &a, 1, &ph[0]));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(handle.data(), &c, 8, &ph[1]));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(handle.data(), &c, 8, &ph[2]));  // uint16 expected
  ASSERT_ACL_OK(aclrtKernelArgsAppend(handle.data(), &d, 2, &ph[2]));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(handle.data(), &p, sizeof p, &ph[3]));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(handle.data(), &e, 4, &ph[4]));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(handle.data(), &out, 8, &ph[5]));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(handle.data(), &a, 1, &ph[0]));  // all appended
  ASSERT_ACL_OK(aclrtKernelArgsFinalize(handle.data()));
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(mixed, 1, nullptr, nullptr, handle.data(), nullptr));
  // Updated after the launch: only later launches see it.
  uint64_t c2 = 42;
  ASSERT_ACL_OK(aclrtKernelArgsParaUpdate(handle.data(), ph[1], &c2, 8));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  kbtest::Echo got = get(out, 1)[0];
  EXPECT_EQ(a, got.a);
  EXPECT_EQ(c, got.c);
  EXPECT_EQ(d, got.d);
  EXPECT_EQ(p.x, got.p.x);
  EXPECT_EQ(p.y, got.p.y);
  EXPECT_EQ(p.z, got.p.z);
  EXPECT_EQ(e, got.e);
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(mixed, 1, nullptr, nullptr, handle.data(), nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(42u, get(out, 1)[0].c);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsParaUpdate(handle.data(), ph[1], &c2, 4));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtKernelArgsParaUpdate(handle.data(), reinterpret_cast<aclrtParamHandle>(99), &c2, 8));

  // The same block through host args and through a device-resident block.
  std::vector<unsigned char> block(56, 0);
  std::memcpy(&block[0], &a, 1);
  uint64_t c3 = 7;
  std::memcpy(&block[8], &c3, 8);
  std::memcpy(&block[16], &d, 2);
  std::memcpy(&block[24], &p, sizeof p);
  std::memcpy(&block[40], &e, 4);
  std::memcpy(&block[48], &out, 8);
  ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(mixed, 1, nullptr, nullptr, block.data(), block.size(), nullptr, 0));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(7u, get(out, 1)[0].c);
  void* devBlock = dmalloc(block.size());
  c3 = 9;
  std::memcpy(&block[8], &c3, 8);
  put(static_cast<unsigned char*>(devBlock), block);
  ASSERT_ACL_OK(aclrtLaunchKernel(mixed, 1, devBlock, block.size(), nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(9u, get(out, 1)[0].c);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(mixed, 1, devBlock, 48, nullptr));  // below the layout
  aclrtStream deviceOnly = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&deviceOnly, 0, ACL_STREAM_DEVICE_USE_ONLY));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtLaunchKernel(mixed, 1, devBlock, block.size(), deviceOnly));
  EXPECT_ACL_OK(aclrtDestroyStream(deviceOnly));
  EXPECT_ACL_OK(aclrtFree(devBlock));
  EXPECT_ACL_OK(aclrtFree(out));
}

TEST_P(KernelBinaryTest, PlaceholderDataTravelsWithTheLaunch) {
  aclrtFuncHandle scaled = fn("kb_scaled");
  const uint32_t n = 64;
  auto* out = static_cast<int32_t*>(dmalloc(n * 4));
  aclrtArgsHandle args = nullptr;
  ASSERT_ACL_OK(aclrtKernelArgsInit(scaled, &args));
  aclrtParamHandle table = nullptr, count = nullptr, factor = nullptr, dst = nullptr;
  ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(args, &table));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, const_cast<uint32_t*>(&n), 4, &count));
  int32_t f = 3;
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &f, 4, &factor));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &out, 8, &dst));
  void* buf = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsGetPlaceHolderBuffer(args, count, 16, &buf));  // not one
  ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(args, table, n * 4, &buf));
  auto* host = static_cast<int32_t*>(buf);
  for (uint32_t i = 0; i < n; ++i) host[i] = int32_t(i) - 10;
  ASSERT_ACL_OK(aclrtKernelArgsFinalize(args));
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(scaled, 4, nullptr, nullptr, args, nullptr));
  for (uint32_t i = 0; i < n; ++i) host[i] = 1000;  // after the launch: copied already
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  std::vector<int32_t> got = get(out, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ((int32_t(i) - 10) * 3, got[i]) << i;
  // Refilled between launches.
  void* again = nullptr;
  ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(args, table, n * 4, &again));
  EXPECT_EQ(buf, again);
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(scaled, 4, nullptr, nullptr, args, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(3000, get(out, n)[5]);
  // No appends once a buffer was taken.
  aclrtParamHandle more = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtKernelArgsAppend(args, &f, 4, &more));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtKernelArgsAppendPlaceHolder(args, &more));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsParaUpdate(args, table, &f, 8));  // a placeholder

  // The same with host args and a placeholder table.
  // Slots: table 0, n 8, factor 16, out 24; the table's data after them, at 32.
  std::vector<unsigned char> block(32 + n * 4, 0);
  std::memcpy(&block[8], &n, 4);
  f = -2;
  std::memcpy(&block[16], &f, 4);
  std::memcpy(&block[24], &out, 8);
  for (uint32_t i = 0; i < n; ++i) std::memcpy(&block[32 + 4 * i], &i, 4);
  aclrtPlaceHolderInfo info{0, 32};
  ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(scaled, 2, nullptr, nullptr, block.data(), block.size(), &info, 1));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  got = get(out, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(-2 * int32_t(i), got[i]) << i;
  aclrtPlaceHolderInfo outside{uint32_t(block.size()), 32};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtLaunchKernelWithHostArgs(scaled, 2, nullptr, nullptr, block.data(), block.size(), &outside, 1));
  outside = {0, uint32_t(block.size())};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtLaunchKernelWithHostArgs(scaled, 2, nullptr, nullptr, block.data(), block.size(), &outside, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtLaunchKernelWithHostArgs(scaled, 2, nullptr, nullptr, block.data(), block.size(), nullptr, 1));
  EXPECT_ACL_OK(aclrtFree(out));
}

TEST_P(KernelBinaryTest, ArgsHandleErrors) {
  aclrtFuncHandle scaled = fn("kb_scaled"), vadd = fn("kb_vadd");
  aclrtArgsHandle args = nullptr;
  size_t size = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetHandleMemSize(nullptr, &size));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetHandleMemSize(scaled, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInit(nullptr, &args));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInit(scaled, nullptr));
  ASSERT_ACL_OK(aclrtKernelArgsInit(scaled, &args));
  aclrtParamHandle ph = nullptr;
  int64_t v = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppend(nullptr, &v, 8, &ph));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppend(args, nullptr, 8, &ph));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppend(args, &v, 0, &ph));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppend(args, &v, 8, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppendPlaceHolder(nullptr, &ph));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppendPlaceHolder(args, nullptr));
  void* buf = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(nullptr, ph, 8, &buf));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(args, nullptr, 8, &buf));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(args, &v, 0, &buf));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(args, &v, 8, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsParaUpdate(nullptr, &v, &v, 8));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsParaUpdate(args, nullptr, &v, 8));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsParaUpdate(args, &v, nullptr, 8));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsParaUpdate(args, &v, &v, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsFinalize(nullptr));
  // Not finalized yet (and incomplete): refused.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsFinalize(args));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(scaled, 1, nullptr, nullptr, args, nullptr));
  // A handle of another function.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(vadd, 1, nullptr, nullptr, args, nullptr));
  // Forged argument handles: memory that was never initialised.
  std::vector<uint64_t> junk(64, 0x5a5a5a5a5a5a5a5aull);
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsAppend(junk.data(), &v, 8, &ph));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(junk.data()));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtLaunchKernelWithConfig(scaled, 1, nullptr, nullptr, junk.data(), nullptr));
  // A data buffer too small for the slots.
  size_t hb = 0;
  ASSERT_ACL_OK(aclrtKernelArgsGetHandleMemSize(scaled, &hb));
  std::vector<uint64_t> h((hb + 7) / 8), d(1);
  ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(scaled, h.data(), d.data(), 8));
  ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(h.data(), &ph));
  uint32_t n = 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(h.data(), &n, 4, &ph));                  // buffer full
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsGetPlaceHolderBuffer(h.data(), ph, 64, &buf));  // no room
}

TEST_P(KernelBinaryTest, LaunchArgumentAndConfigErrors) {
  aclrtFuncHandle vadd = fn("kb_vadd");
  aclrtArgsHandle args = nullptr;
  ASSERT_ACL_OK(aclrtKernelArgsInit(vadd, &args));
  auto* p = static_cast<float*>(dmalloc(64));
  uint32_t n = 4;
  aclrtParamHandle ph;
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &p, 8, &ph));
  ASSERT_ACL_OK(aclrtKernelArgsAppend(args, &n, 4, &ph));
  ASSERT_ACL_OK(aclrtKernelArgsFinalize(args));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(nullptr, 1, nullptr, nullptr, args, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(vadd, 1, nullptr, nullptr, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(vadd, 0, nullptr, nullptr, args, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(vadd, 1, nullptr, nullptr, args, &n));

  aclrtLaunchKernelAttr attrs[2] = {};
  aclrtLaunchKernelCfg cfg{nullptr, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(vadd, 1, nullptr, &cfg, args, nullptr));
  cfg.attrs = attrs;
  ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(vadd, 1, nullptr, &cfg, args, nullptr));  // no attributes
  cfg.numAttrs = 1;
  auto setId = [&](int i, int32_t id) { std::memcpy(&attrs[i].id, &id, sizeof id); };
  auto launch = [&] { return aclrtLaunchKernelWithConfig(vadd, 1, nullptr, &cfg, args, nullptr); };
  setId(0, 0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, launch());
  setId(0, 10);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, launch());
  setId(0, ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE);
  attrs[0].value.schemMode = 2;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, launch());
  attrs[0].value.schemMode = 1;
  EXPECT_ACL_OK(launch());
  for (int32_t id : {ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH, ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP,
                     ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING}) {
    setId(0, id);
    attrs[0].value.rsv[0] = 2;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, launch()) << id;
    attrs[0].value.rsv[0] = 1;
    EXPECT_ACL_OK(launch()) << id;
  }
  cfg.numAttrs = 2;
  setId(0, ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT);
  attrs[0].value.timeout = 5;
  setId(1, ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US);
  attrs[1].value.timeoutUs = {1000, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, launch());
  setId(1, ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET);
  EXPECT_ACL_OK(launch());
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));  // p + p -> p, in bounds

  // aclrtLaunchKernel / V2 (device-resident block).
  void* dev = dmalloc(64);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernel(nullptr, 1, dev, 32, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernel(vadd, 1, nullptr, 32, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(vadd, 0, dev, 32, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(vadd, 1, dev, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelV2(nullptr, 1, dev, 32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelV2(vadd, 0, dev, 32, nullptr, nullptr));
  cfg.numAttrs = 1;
  setId(0, 0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelV2(vadd, 1, dev, 32, &cfg, nullptr));
  // A host pointer as the device block: the launch faults, reported by the synchronize.
  std::vector<unsigned char> hostBlock(32, 0);
  ASSERT_ACL_OK(aclrtLaunchKernelV2(vadd, 1, hostBlock.data(), 32, nullptr, nullptr));
  EXPECT_NE(ACL_SUCCESS, aclrtSynchronizeStream(nullptr));
  EXPECT_ACL_OK(aclrtFree(dev));

  // Host args.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithHostArgs(nullptr, 1, nullptr, nullptr, &n, 32, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtLaunchKernelWithHostArgs(vadd, 1, nullptr, nullptr, nullptr, 32, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(vadd, 1, nullptr, nullptr, &n, 0, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(vadd, 0, nullptr, nullptr, &n, 32, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(vadd, 1, nullptr, nullptr, &n, 4, nullptr, 0));

  // Args arrays.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithArgsArray(nullptr, 1, nullptr, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithArgsArray(vadd, 0, nullptr, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithArgsArray(vadd, 1, nullptr, nullptr, nullptr));

  // SIMT: this SoC has none.
  dim3 one(1, 1, 1), zero(0, 1, 1);
  void* arr[4] = {&p, &p, &p, &n};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchSIMTKernelWithArgsArray(nullptr, one, one, 0, nullptr, nullptr, arr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchSIMTKernelWithArgsArray(vadd, zero, one, 0, nullptr, nullptr, arr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtLaunchSIMTKernelWithArgsArray(vadd, one, one, 0, nullptr, nullptr, arr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtLaunchSIMTKernelWithHostArgs(vadd, one, one, 0, nullptr, nullptr, nullptr, 32, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtLaunchSIMTKernelWithHostArgs(vadd, one, one, 0, nullptr, nullptr, &n, 0, nullptr, 0));
  aclrtPlaceHolderInfo far{64, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtLaunchSIMTKernelWithHostArgs(vadd, one, one, 0, nullptr, nullptr, &n, 32, &far, 1));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtLaunchSIMTKernelWithHostArgs(vadd, one, one, 0, nullptr, nullptr, &n, 32, nullptr, 0));
  EXPECT_ACL_OK(aclrtFree(p));
}

TEST_P(KernelBinaryTest, UnloadWhileInFlightDefersUntilTheLaunchCompletes) {
  // A second load of the same file, so the fixture's handle is unaffected.
  aclrtBinHandle h = nullptr;
  ASSERT_ACL_OK(aclrtBinaryLoadFromData(readFile(kGood).data(), readFile(kGood).size(), nullptr, &h));
  void* gateAddr = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetGlobal(h, "kb_gate", &gateAddr, nullptr));
  auto* gate = static_cast<std::atomic<int>*>(gateAddr);
  aclrtFuncHandle gated = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "kb_gated", &gated));
  auto* out = static_cast<int32_t*>(dmalloc(4));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  void* args[] = {&out};
  ASSERT_ACL_OK(aclrtLaunchKernelWithArgsArray(gated, 1, s, nullptr, args));
  // The kernel is queued or running: unload returns at once, the handles die, the code stays.
  ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
  aclrtFuncHandle f = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(h, "kb_gated", &f));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchKernelWithArgsArray(gated, 1, s, nullptr, args));
  gate->store(1);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(42, get(out, 1)[0]);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(out));
}

ARUN_CONFORMANCE_INSTANTIATE(KernelBinaryTest);

}  // namespace
}  // namespace conformance
