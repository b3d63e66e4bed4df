// Spec part 2, 4.15: operator-information subscription. Configurations, the subscribe /
// unsubscribe rules, record decoding (on records the test builds itself from the spec's layout,
// and on records a real model execution wrote to a pipe: one per node, names and types as in the
// graph, start <= end, durations consistent) and the once-only operator strings.
#include <fcntl.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "conformance.hpp"
#include "reference_data.hpp"

namespace conformance {
namespace {

constexpr size_t kRecord = 80;

uint32_t crc32(const unsigned char* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

// One record in the spec's layout (little-endian): signature, model, flag, thread, op index,
// duration, start, end, execution time, cube / vector fops, device.
struct Fields {
  uint32_t model = 7, flag = ACL_SUBSCRIBE_OP, thread = 4242;
  uint64_t opIndex = 0xFFFFFFFF00000001ull;  // no string is kept for it
  uint64_t duration = 30, start = 1000, end = 1020;
};
std::array<unsigned char, kRecord> makeRecord(const Fields& f) {
  std::array<unsigned char, kRecord> r{};
  auto put = [&](size_t off, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) r[off + i] = static_cast<unsigned char>(v >> (8 * i));
  };
  put(4, f.model, 4);
  put(8, f.flag, 4);
  put(12, f.thread, 4);
  put(16, f.opIndex, 8);
  put(24, f.duration, 8);
  put(32, f.start, 8);
  put(40, f.end, 8);
  put(0, crc32(r.data() + 4, kRecord - 4), 4);
  return r;
}

// Executed nodes of an ONNX file: Constant nodes become weights and run nothing.
std::multiset<std::pair<std::string, std::string>> executedNodes(const std::string& path) {
  onnx::ModelProto m;
  FILE* f = std::fopen(path.c_str(), "rb");
  std::string bytes;
  if (f != nullptr) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  EXPECT_TRUE(m.ParseFromString(bytes)) << path;
  std::multiset<std::pair<std::string, std::string>> nodes;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "Constant") nodes.insert({n.op_type(), n.name()});
  }
  return nodes;
}

// Reads a pipe until EOF on its own thread.
struct PipeReader {
  int fds[2] = {-1, -1};
  std::string data;
  std::thread thread;
  PipeReader() {
    EXPECT_EQ(0, pipe(fds));
    thread = std::thread([this] {
      char buf[4096];
      for (;;) {
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) break;
        data.append(buf, static_cast<size_t>(n));
      }
    });
  }
  // Waits for EOF: the runtime closed the write end.
  void join() {
    if (thread.joinable()) thread.join();
    fds[1] = -1;
  }
  ~PipeReader() {
    if (thread.joinable()) {  // the test failed before the runtime closed the write end
      close(fds[1]);
      thread.join();
    }
    close(fds[0]);
  }
};

class ProfSubscribeTest : public AclDeviceTest {
 protected:
  uint32_t load(const std::string& stem) {
    uint32_t id = 0;
    EXPECT_ACL(ACL_SUCCESS, aclmdlLoadFromFile(modelFile(stem).c_str(), &id)) << aclGetRecentErrMsg();
    return id;
  }
  // Runs model `id` once on zeroed inputs / outputs it allocates.
  void execute(uint32_t id) {
    aclmdlDesc* desc = aclmdlCreateDesc();
    ASSERT_ACL(ACL_SUCCESS, aclmdlGetDesc(desc, id));
    aclmdlDataset* in = aclmdlCreateDataset();
    aclmdlDataset* out = aclmdlCreateDataset();
    std::vector<void*> mem;
    auto add = [&](aclmdlDataset* set, size_t bytes) {
      void* p = nullptr;
      ASSERT_ACL(ACL_SUCCESS, aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      ASSERT_ACL(ACL_SUCCESS, aclrtMemset(p, bytes, 0, bytes));
      mem.push_back(p);
      ASSERT_ACL(ACL_SUCCESS, aclmdlAddDatasetBuffer(set, aclCreateDataBuffer(p, bytes)));
    };
    for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) add(in, aclmdlGetInputSizeByIndex(desc, i));
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) add(out, aclmdlGetOutputSizeByIndex(desc, i));
    EXPECT_ACL(ACL_SUCCESS, aclmdlExecute(id, in, out)) << aclGetRecentErrMsg();
    for (aclmdlDataset* set : {in, out}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) {
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i));
      }
      aclmdlDestroyDataset(set);
    }
    for (void* p : mem) aclrtFree(p);
    aclmdlDestroyDesc(desc);
  }
};

TEST_P(ProfSubscribeTest, CreateAndDestroyConfig) {
  int fd = 1;
  EXPECT_EQ(nullptr, aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, nullptr)) << "NULL fd";
  EXPECT_EQ(nullptr, aclprofCreateSubscribeConfig(2, ACL_AICORE_NONE, &fd)) << "timeInfoSwitch 2";
  EXPECT_EQ(nullptr, aclprofCreateSubscribeConfig(-1, ACL_AICORE_NONE, &fd)) << "timeInfoSwitch -1";
  aclprofSubscribeConfig* a = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd);
  aclprofSubscribeConfig* b = aclprofCreateSubscribeConfig(0, ACL_AICORE_PIPE_UTILIZATION, &fd);
  ASSERT_NE(nullptr, a);
  ASSERT_NE(nullptr, b);
  EXPECT_NE(a, b);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofDestroySubscribeConfig(nullptr));
  EXPECT_ACL(ACL_SUCCESS, aclprofDestroySubscribeConfig(a));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofDestroySubscribeConfig(a)) << "destroyed twice";
  int forged = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclprofDestroySubscribeConfig(reinterpret_cast<const aclprofSubscribeConfig*>(&forged)));
  EXPECT_ACL(ACL_SUCCESS, aclprofDestroySubscribeConfig(b));
}

TEST_P(ProfSubscribeTest, RecordDecodingRules) {
  size_t size = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpDescSize(nullptr));
  ASSERT_ACL(ACL_SUCCESS, aclprofGetOpDescSize(&size));
  EXPECT_EQ(kRecord, size);

  Fields f0;
  Fields f1;
  f1.model = 9;
  f1.flag = ACL_SUBSCRIBE_OP_THREAD;
  f1.thread = 31337;
  f1.start = 5000;
  f1.end = 5007;
  f1.duration = 11;
  std::vector<unsigned char> buf;
  for (const auto& r : {makeRecord(f0), makeRecord(f1)}) buf.insert(buf.end(), r.begin(), r.end());

  uint32_t n = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(nullptr, buf.size(), &n));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf.data(), buf.size(), nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf.data(), 0, &n)) << "empty";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf.data(), kRecord + 1, &n)) << "not a multiple";
  ASSERT_ACL(ACL_SUCCESS, aclprofGetOpNum(buf.data(), buf.size(), &n));
  EXPECT_EQ(2u, n);

  EXPECT_EQ(1000u, aclprofGetOpStart(buf.data(), buf.size(), 0));
  EXPECT_EQ(1020u, aclprofGetOpEnd(buf.data(), buf.size(), 0));
  EXPECT_EQ(30u, aclprofGetOpDuration(buf.data(), buf.size(), 0));
  EXPECT_EQ(7u, aclprofGetModelId(buf.data(), buf.size(), 0));
  EXPECT_EQ(ACL_SUBSCRIBE_OP, aclprofGetOpFlag(buf.data(), buf.size(), 0));
  EXPECT_EQ(nullptr, aclprofGetOpAttriValue(buf.data(), buf.size(), 0, ACL_SUBSCRIBE_ATTRI_THREADID))
      << "only OP_THREAD records carry the thread id";
  EXPECT_EQ(5000u, aclprofGetOpStart(buf.data(), buf.size(), 1));
  EXPECT_EQ(9u, aclprofGetModelId(buf.data(), buf.size(), 1));
  EXPECT_EQ(ACL_SUBSCRIBE_OP_THREAD, aclprofGetOpFlag(buf.data(), buf.size(), 1));
  const char* tid = aclprofGetOpAttriValue(buf.data(), buf.size(), 1, ACL_SUBSCRIBE_ATTRI_THREADID);
  ASSERT_NE(nullptr, tid);
  EXPECT_STREQ("31337", tid);
  EXPECT_EQ(nullptr, aclprofGetOpAttriValue(buf.data(), buf.size(), 1, ACL_SUBSCRIBE_ATTRI_NONE));

  // R5: the value getters' failure values, for a bad index, a NULL buffer and a broken record.
  EXPECT_EQ(0u, aclprofGetOpStart(buf.data(), buf.size(), 2));
  EXPECT_EQ(0u, aclprofGetOpEnd(nullptr, buf.size(), 0));
  EXPECT_EQ(0u, aclprofGetOpDuration(buf.data(), kRecord - 1, 0));
  EXPECT_EQ(static_cast<size_t>(ACL_ERROR_INVALID_PARAM), aclprofGetModelId(buf.data(), buf.size(), 2));
  EXPECT_EQ(ACL_SUBSCRIBE_NONE, aclprofGetOpFlag(nullptr, buf.size(), 0));
  EXPECT_EQ(ACL_SUBSCRIBE_NONE, aclprofGetOpFlag(buf.data(), buf.size(), 5));
  EXPECT_EQ(nullptr, aclprofGetOpAttriValue(buf.data(), buf.size(), 2, ACL_SUBSCRIBE_ATTRI_THREADID));

  std::vector<unsigned char> broken = buf;
  broken[kRecord + 33] ^= 0x01;  // record 1's start: its signature no longer holds
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(broken.data(), broken.size(), &n));
  EXPECT_EQ(0u, aclprofGetOpStart(broken.data(), broken.size(), 0)) << "every record of the buffer is checked";
  EXPECT_EQ(ACL_SUBSCRIBE_NONE, aclprofGetOpFlag(broken.data(), broken.size(), 0));

  // Strings: none is kept for an operator index the runtime never issued.
  size_t len = 0;
  char text[64];
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpTypeLen(nullptr, buf.size(), 0, &len));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpTypeLen(buf.data(), buf.size(), 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpTypeLen(buf.data(), buf.size(), 0, &len));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpNameLen(buf.data(), buf.size(), 3, &len)) << "index";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpType(buf.data(), buf.size(), 0, nullptr, sizeof text));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpName(buf.data(), buf.size(), 0, text, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpName(broken.data(), broken.size(), 0, text, sizeof text));
}

TEST_P(ProfSubscribeTest, SubscribeRules) {
  PipeReader pipe1;
  int fd = pipe1.fds[1];
  aclprofSubscribeConfig* cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd);
  aclprofSubscribeConfig* nothing = aclprofCreateSubscribeConfig(0, ACL_AICORE_NONE, &fd);
  aclprofSubscribeConfig* other = aclprofCreateSubscribeConfig(1, ACL_AICORE_PIPE_UTILIZATION, &fd);
  ASSERT_NE(nullptr, cfg);
  const uint32_t a = load("mlp_b1");
  const uint32_t b = load("mlp_b1");
  constexpr uint32_t kNotLoaded = 0xFFFFFF0u;
  EXPECT_ACL(ACL_ERROR_INVALID_MODEL_ID, aclprofModelSubscribe(kNotLoaded, nullptr)) << "the model is checked first";
  EXPECT_ACL(ACL_ERROR_INVALID_MODEL_ID, aclprofModelSubscribe(kNotLoaded, cfg));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofModelSubscribe(a, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofModelSubscribe(a, nothing)) << "collects nothing";
  EXPECT_ACL(ACL_ERROR_INVALID_MODEL_ID, aclprofModelUnSubscribe(a)) << "not subscribed";
  EXPECT_ACL(ACL_ERROR_INVALID_MODEL_ID, aclprofModelUnSubscribe(kNotLoaded));

  // aclprofInit excludes subscriptions.
  char dir[] = "/tmp/arun_prof_subscribe_XXXXXX";
  ASSERT_NE(nullptr, mkdtemp(dir));
  ASSERT_ACL(ACL_SUCCESS, aclprofInit(dir, std::strlen(dir)));
  EXPECT_ACL(ACL_ERROR_PROF_API_CONFLICT, aclprofModelSubscribe(a, cfg));
  ASSERT_ACL(ACL_SUCCESS, aclprofFinalize());

  ASSERT_ACL(ACL_SUCCESS, aclprofModelSubscribe(a, cfg)) << aclGetRecentErrMsg();
  EXPECT_ACL(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, aclprofModelSubscribe(a, cfg));
  EXPECT_ACL(ACL_ERROR_INVALID_PROFILING_CONFIG, aclprofModelSubscribe(b, other)) << "same device, other config";
  EXPECT_ACL(ACL_SUCCESS, aclprofModelSubscribe(b, cfg)) << "same configuration: fine";
  // Two subscriptions share the descriptor: the first unsubscribe leaves it open.
  EXPECT_ACL(ACL_SUCCESS, aclprofModelUnSubscribe(a));
  EXPECT_EQ(-1, fd) << "the runtime stores -1 into the configuration's int";
  EXPECT_NE(-1, fcntl(pipe1.fds[1], F_GETFD)) << "still used by model b";
  fd = pipe1.fds[1];
  EXPECT_ACL(ACL_SUCCESS, aclprofModelUnSubscribe(b));
  pipe1.join();  // EOF: the last subscription closed the write end
  EXPECT_TRUE(pipe1.data.empty()) << "nothing ran: no record";

  EXPECT_ACL(ACL_SUCCESS, aclmdlUnload(a));
  EXPECT_ACL(ACL_SUCCESS, aclmdlUnload(b));
  for (auto* c : {cfg, nothing, other}) EXPECT_ACL(ACL_SUCCESS, aclprofDestroySubscribeConfig(c));
  rmdir(dir);
}

// The CANN sample's flow: subscribe, execute, a reader thread decodes what the pipe carries.
TEST_P(ProfSubscribeTest, RecordsOfARealModel) {
  for (const std::string stem : {"mlp_b1", "cnn_b1"}) {
    SCOPED_TRACE(stem);
    const auto nodes = executedNodes(modelFile(stem));
    ASSERT_FALSE(nodes.empty());
    PipeReader reader;
    int fd = reader.fds[1];
    aclprofSubscribeConfig* cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd);
    // The file's nodes one to one: without the Conv + Relu fusion of the loader (fuse_conv.cpp).
    setenv("ARUN_MODEL_FUSE", "0", 1);
    const uint32_t id = load(stem);
    unsetenv("ARUN_MODEL_FUSE");
    execute(id);  // not subscribed yet: no record
    ASSERT_ACL(ACL_SUCCESS, aclprofModelSubscribe(id, cfg)) << aclGetRecentErrMsg();
    constexpr int kRuns = 2;
    for (int i = 0; i < kRuns; ++i) execute(id);
    ASSERT_ACL(ACL_SUCCESS, aclprofModelUnSubscribe(id)) << aclGetRecentErrMsg();
    execute(id);  // unsubscribed: no record
    reader.join();
    EXPECT_EQ(-1, fd);

    const std::string& data = reader.data;
    uint32_t n = 0;
    ASSERT_ACL(ACL_SUCCESS, aclprofGetOpNum(data.data(), data.size(), &n));
    ASSERT_EQ(nodes.size() * kRuns, n) << "one record per executed node";
    std::multiset<std::pair<std::string, std::string>> seen;
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(id, aclprofGetModelId(data.data(), data.size(), i));
      EXPECT_EQ(ACL_SUBSCRIBE_OP, aclprofGetOpFlag(data.data(), data.size(), i));
      const uint64_t start = aclprofGetOpStart(data.data(), data.size(), i);
      const uint64_t end = aclprofGetOpEnd(data.data(), data.size(), i);
      const uint64_t duration = aclprofGetOpDuration(data.data(), data.size(), i);
      EXPECT_NE(0u, start);
      EXPECT_LE(start, end);
      EXPECT_GE(duration, end - start) << "duration = scheduling + execution";
      size_t typeLen = 0, nameLen = 0;
      ASSERT_ACL(ACL_SUCCESS, aclprofGetOpTypeLen(data.data(), data.size(), i, &typeLen));
      ASSERT_ACL(ACL_SUCCESS, aclprofGetOpNameLen(data.data(), data.size(), i, &nameLen));
      std::string type(typeLen, '\0'), name(nameLen, '\0');
      ASSERT_ACL(ACL_SUCCESS, aclprofGetOpType(data.data(), data.size(), i, type.data(), typeLen));
      if (nameLen > 2) {
        // Too small (shorter than the text) fails and keeps the string.
        EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpName(data.data(), data.size(), i, name.data(), nameLen - 2));
      }
      ASSERT_ACL(ACL_SUCCESS, aclprofGetOpName(data.data(), data.size(), i, name.data(), nameLen));
      type.resize(typeLen - 1);
      name.resize(nameLen - 1);
      seen.insert({type, name});
      // Each string is handed out once.
      EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpTypeLen(data.data(), data.size(), i, &typeLen));
      EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclprofGetOpName(data.data(), data.size(), i, name.data(), 64));
    }
    std::multiset<std::pair<std::string, std::string>> expected;
    for (int r = 0; r < kRuns; ++r) expected.insert(nodes.begin(), nodes.end());
    EXPECT_EQ(expected, seen);
    // Records of one execution lie inside it: the second run's ops start after the first's ended.
    uint64_t firstEnd = 0, secondStart = UINT64_MAX;
    for (uint32_t i = 0; i < n; ++i) {
      if (i < n / 2) firstEnd = std::max(firstEnd, aclprofGetOpEnd(data.data(), data.size(), i));
      if (i >= n / 2) secondStart = std::min(secondStart, aclprofGetOpStart(data.data(), data.size(), i));
    }
    EXPECT_LE(firstEnd, secondStart);
    EXPECT_ACL(ACL_SUCCESS, aclmdlUnload(id));
    EXPECT_ACL(ACL_SUCCESS, aclprofDestroySubscribeConfig(cfg));
  }
}

// A string fetched with a buffer exactly its length loses its last character to the terminator.
TEST_P(ProfSubscribeTest, ExactLengthBufferTruncates) {
  PipeReader reader;
  int fd = reader.fds[1];
  aclprofSubscribeConfig* cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd);
  const uint32_t id = load("mlp_b1");
  ASSERT_ACL(ACL_SUCCESS, aclprofModelSubscribe(id, cfg));
  execute(id);
  ASSERT_ACL(ACL_SUCCESS, aclprofModelUnSubscribe(id));
  reader.join();
  const std::string& data = reader.data;
  ASSERT_GE(data.size(), kRecord);
  size_t typeLen = 0;
  ASSERT_ACL(ACL_SUCCESS, aclprofGetOpTypeLen(data.data(), data.size(), 0, &typeLen));
  ASSERT_GE(typeLen, 3u);
  std::string type(typeLen, 'x');
  ASSERT_ACL(ACL_SUCCESS, aclprofGetOpType(data.data(), data.size(), 0, type.data(), typeLen - 1));
  EXPECT_EQ(typeLen - 2, std::strlen(type.c_str()));
  EXPECT_ACL(ACL_SUCCESS, aclmdlUnload(id));
  EXPECT_ACL(ACL_SUCCESS, aclprofDestroySubscribeConfig(cfg));
}

// aclFinalize ends a subscription the program left: the reader sees EOF.
TEST_P(ProfSubscribeTest, FinalizeEndsSubscriptions) {
  PipeReader reader;
  int fd = reader.fds[1];
  aclprofSubscribeConfig* cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd);
  const uint32_t id = load("mlp_b1");
  ASSERT_ACL(ACL_SUCCESS, aclprofModelSubscribe(id, cfg));
  execute(id);
  finalize();
  reader.join();
  uint32_t n = 0;
  EXPECT_ACL(ACL_SUCCESS, aclprofGetOpNum(reader.data.data(), reader.data.size(), &n));
  EXPECT_EQ(executedNodes(modelFile("mlp_b1")).size(), n);
  EXPECT_ACL(ACL_SUCCESS, aclprofDestroySubscribeConfig(cfg)) << "configurations outlive the runtime";
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(ProfSubscribeTest);

}  // namespace conformance
