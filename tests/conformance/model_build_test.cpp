// Spec part 2, 4.12, the rest of the family: explicit build (aclmdlRIBuildBegin / BindStream /
// EndTask / BuildEnd / UnbindStream, aclmdlRIExecute, aclmdlRIAbort, aclrtPersistentTaskClean),
// per-task inspection and update (aclmdlRIGetStreams, aclmdlRIGetTasksByStream, aclmdlRITask*,
// aclmdlRIKernelTaskGetAttribute, aclmdlRIUpdate), task groups and their update, and conditional
// tasks (aclmdlRICondHandle*, aclmdlRIAddCondTask, aclmdlRICaptureToModelRIBegin). Every error rule
// of these entries, and results checked against host references after every change.
#include <cstring>
#include <string>
#include <vector>

#include "arun/kernel.hpp"
#include "conformance.hpp"

#ifndef ARUN_KB_DIR
#error "ARUN_KB_DIR must name the folder of the test kernel binaries"
#endif

namespace conformance {
namespace {

void increment(arun::Block b, int* p) {
  b.at(p) += 1;
}
// One WHILE iteration: counts down the condition word and counts the iteration.
void count_down(arun::Block b, uint64_t* word, int* iterations) {
  b.at(word) -= 1;
  b.at(iterations) += 1;
}

// kb_vadd's packed arguments (x, y, z, n), as aclrtLaunchKernelWithHostArgs takes them.
struct VaddArgs {
  const float* x;
  const float* y;
  float* z;
  uint32_t n;
};

constexpr size_t kN = 64;

class ModelBuildTest : public AclResourceTest {
 protected:
  void SetUp() override {
    AclDeviceTest::SetUp();
    ASSERT_ACL_OK(aclrtBinaryLoadFromFile((std::string(ARUN_KB_DIR) + "/kb_good.so").c_str(), nullptr, &bin_));
    ASSERT_ACL_OK(aclrtBinaryGetFunction(bin_, "kb_vadd", &vadd_));
  }
  void TearDown() override {
    release_resources();
    if (bin_ != nullptr) aclrtBinaryUnLoad(bin_);
    AclDeviceTest::TearDown();
  }
  int value(const int* dev) { return get(dev, 1)[0]; }
  // x[i] = i * a, y[i] = b: z = x + y is checked against i * a + b.
  void fill(float* x, float* y, float a, float b) {
    std::vector<float> hx(kN), hy(kN, b);
    for (size_t i = 0; i < kN; ++i) hx[i] = static_cast<float>(i) * a;
    put(x, hx);
    put(y, hy);
  }
  void expectSum(const float* z, float a, float b) {
    auto hz = get(z, kN);
    for (size_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(hz[i], static_cast<float>(i) * a + b) << i;
  }
  aclError launchVadd(aclrtStream s, float* x, float* y, float* z, aclrtLaunchKernelCfg* cfg = nullptr,
                      uint32_t blocks = 2) {
    VaddArgs a{x, y, z, static_cast<uint32_t>(kN)};
    return aclrtLaunchKernelWithHostArgs(vadd_, blocks, s, cfg, &a, sizeof a, nullptr, 0);
  }
  std::vector<aclmdlRITask> tasksOf(aclrtStream s) {
    uint32_t n = 0;
    EXPECT_ACL_OK(aclmdlRIGetTasksByStream(s, nullptr, &n));
    std::vector<aclmdlRITask> t(n);
    EXPECT_ACL_OK(aclmdlRIGetTasksByStream(s, t.data(), &n));
    return t;
  }
  std::vector<aclrtStream> streamsOf(aclmdlRI g) {
    uint32_t n = 0;
    EXPECT_ACL_OK(aclmdlRIGetStreams(g, nullptr, &n));
    std::vector<aclrtStream> s(n);
    EXPECT_ACL_OK(aclmdlRIGetStreams(g, s.data(), &n));
    return s;
  }
  static aclmdlRITaskType typeOf(aclmdlRITask t) {
    aclmdlRITaskType type = ACL_MODEL_RI_TASK_EVENT_RESET;
    EXPECT_ACL_OK(aclmdlRITaskGetType(t, &type));
    return type;
  }
  void replay(aclmdlRI g, aclrtStream s) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  }

  aclrtBinHandle bin_ = nullptr;
  aclrtFuncHandle vadd_ = nullptr;
};

// ---------------------------------------------------------------- explicit build

TEST_P(ModelBuildTest, BuildChecks) {
  aclmdlRI g = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildBegin(nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildBegin(&g, 1));
  inNewThread([] {
    aclmdlRI none = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclmdlRIBuildBegin(&none, 0));
  });
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  aclrtStream p = stream(ACL_STREAM_PERSISTENT), plain = stream(), p2 = stream(ACL_STREAM_PERSISTENT);
  // BindStream, in the spec's order.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBindStream(nullptr, p, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(g, p, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(g, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(g, plain, 0));  // not persistent
  aclrtStream devOnly = stream(ACL_STREAM_PERSISTENT | ACL_STREAM_DEVICE_USE_ONLY);
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBindStream(g, devOnly, 0));
  aclrtStream fast = stream(ACL_STREAM_PERSISTENT | ACL_STREAM_FAST_LAUNCH);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIBindStream(g, fast, 0));
  aclrtStream stop = stream(ACL_STREAM_PERSISTENT);
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(stop, ACL_STOP_ON_FAILURE));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIBindStream(g, stop, 0));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, p, ACL_MODEL_STREAM_FLAG_HEAD));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIBindStream(g, p, 0));  // already bound
  // A captured instance binds nothing; a bound stream cannot be captured.
  aclrtStream c = stream();
  aclmdlRI captured = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(c, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(c, &captured));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(captured, p2, 0));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRICaptureBegin(p, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  // EndTask.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIEndTask(nullptr, p));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIEndTask(g, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIEndTask(g, p2));  // not bound to g
  // BuildEnd.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildEnd(nullptr, nullptr));
  int reserved = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildEnd(g, &reserved));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(captured, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(g, nullptr));  // p has no EndTask yet
  aclmdlRI empty = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&empty, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(empty, nullptr));  // no stream bound (our choice)
  // Unbind.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIUnbindStream(nullptr, p));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIUnbindStream(g, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(g, p2));
  // Not built yet: no execution.
  EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecuteAsync(g, c));
  EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecute(g, -1));
  ASSERT_ACL_OK(aclmdlRIEndTask(g, p));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(g, nullptr));  // built already
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(g, p));    // a bound (persistent) stream
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(g, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(g, -2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(captured, -1));  // a captured instance
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIAbort(captured));
  EXPECT_ACL_OK(aclmdlRIExecute(g, -1));  // nothing recorded: runs and finishes
  EXPECT_ACL_OK(aclmdlRIUnbindStream(g, p));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(g, p));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclmdlRIDestroy(empty));
  EXPECT_ACL_OK(aclmdlRIDestroy(captured));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBindStream(g, p2, 0));
}

TEST_P(ModelBuildTest, BuiltInstanceRunsItsStreamsAtEveryExecution) {
  aclrtStream a = stream(ACL_STREAM_PERSISTENT), b = stream(ACL_STREAM_PERSISTENT);
  aclrtStream later = stream(ACL_STREAM_PERSISTENT), run = stream();
  int* ca = dmalloc<int>(1);
  int* cb = dmalloc<int>(1);
  int* cl = dmalloc<int>(1);
  float* x = dmalloc<float>(kN);
  float* y = dmalloc<float>(kN);
  float* z = dmalloc<float>(kN);
  float* w = dmalloc<float>(kN);
  fill(x, y, 2.0f, 1.0f);
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, a, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, b, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, later, ACL_MODEL_STREAM_FLAG_DEFAULT));
  // a: z = x + y, then two increments; b waits for z and computes w = z + y; later never runs.
  ASSERT_ACL_OK(launchVadd(a, x, y, z));
  ASSERT_ACL_OK(aclrtRecordEvent(e, a));
  ASSERT_ACL_OK(arun::launch(a, 1, increment, ca));
  ASSERT_ACL_OK(arun::launch(a, 1, increment, ca));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, e));
  ASSERT_ACL_OK(launchVadd(b, z, y, w));
  ASSERT_ACL_OK(arun::launch(b, 1, increment, cb));
  ASSERT_ACL_OK(arun::launch(later, 1, increment, cl));
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));  // nothing is queued: the tasks are the model's
  EXPECT_EQ(value(ca), 0);
  EXPECT_EQ(get(z, 1)[0], 0.0f);
  ASSERT_ACL_OK(aclmdlRIEndTask(g, a));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, arun::launch(a, 1, increment, ca));  // after its end marker
  ASSERT_ACL_OK(aclmdlRIEndTask(g, b));
  ASSERT_ACL_OK(aclmdlRIEndTask(g, later));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, arun::launch(b, 1, increment, cb));  // built: fixed
  // GetStreams of a built instance: its bound streams.
  auto ss = streamsOf(g);
  ASSERT_EQ(ss.size(), 3u);
  EXPECT_EQ(ss[0], a);
  EXPECT_EQ(ss[1], b);
  auto ta = tasksOf(a);
  ASSERT_EQ(ta.size(), 3u);
  EXPECT_EQ(typeOf(ta[0]), ACL_MODEL_RI_TASK_KERNEL);
  for (int i = 1; i <= 5; ++i) {
    ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
    EXPECT_EQ(value(ca), 2 * i);
    EXPECT_EQ(value(cb), i);
  }
  expectSum(z, 2.0f, 1.0f);
  expectSum(w, 2.0f, 2.0f);
  EXPECT_EQ(value(cl), 0);  // a DEFAULT stream runs only when activated
  // Asynchronous execution on an ordinary stream, ordered with that stream's work.
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, run));
  ASSERT_ACL_OK(arun::launch(run, 1, increment, cl));
  ASSERT_ACL_OK(aclrtSynchronizeStream(run));
  EXPECT_EQ(value(ca), 12);
  EXPECT_EQ(value(cl), 1);
  // Per-task updates are for captured instances.
  aclmdlRITaskParams params{};
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskDisable(ta[1]));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(ta[1], &params));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIUpdate(g));
  // Destroy unbinds: the streams run their own work again.
  ASSERT_ACL_OK(aclmdlRIDestroy(g));
  ASSERT_ACL_OK(arun::launch(a, 1, increment, ca));
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_EQ(value(ca), 13);
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(ta[0], &params.type));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(ModelBuildTest, PersistentTaskCleanRefillsAStream) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtPersistentTaskClean(nullptr));
  aclrtStream p = stream(ACL_STREAM_PERSISTENT), plain = stream(), free = stream(ACL_STREAM_PERSISTENT);
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtPersistentTaskClean(plain));  // not persistent
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtPersistentTaskClean(free));   // not bound
  int* c = dmalloc<int>(1);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, p, 0));
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(arun::launch(p, 1, increment, c));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtPersistentTaskClean(p));  // not built yet
  ASSERT_ACL_OK(aclmdlRIEndTask(g, p));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  ASSERT_ACL_OK(aclmdlRIExecute(g, -1));
  EXPECT_EQ(value(c), 3);
  ASSERT_ACL_OK(aclrtPersistentTaskClean(p));
  EXPECT_EQ(tasksOf(p).size(), 0u);
  EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecute(g, -1));  // to be built again
  for (int i = 0; i < 5; ++i) ASSERT_ACL_OK(arun::launch(p, 1, increment, c));
  ASSERT_ACL_OK(aclmdlRIEndTask(g, p));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  EXPECT_EQ(tasksOf(p).size(), 5u);
  ASSERT_ACL_OK(aclmdlRIExecute(g, -1));
  EXPECT_EQ(value(c), 8);
  EXPECT_ACL_OK(aclmdlRIAbort(g));  // nothing running: returns, and the instance runs again
  ASSERT_ACL_OK(aclmdlRIExecute(g, -1));
  EXPECT_EQ(value(c), 13);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIAbort(nullptr));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
}

// ---------------------------------------------------------------- inspection and update

TEST_P(ModelBuildTest, TasksOfACapturedInstanceAreInspectedAndUpdated) {
  aclrtStream s = stream(), run = stream();
  float* x = dmalloc<float>(kN);
  float* y = dmalloc<float>(kN);
  float* z = dmalloc<float>(kN);
  float* x2 = dmalloc<float>(kN);
  float* y2 = dmalloc<float>(kN);
  float* z2 = dmalloc<float>(kN);
  uint64_t* word = dmalloc<uint64_t>(1);
  int* counter = dmalloc<int>(1);
  fill(x, y, 1.0f, 3.0f);
  fill(x2, y2, -1.0f, 10.0f);
  aclrtLaunchKernelAttr attrs[2] = {};
  attrs[0].id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT;
  attrs[0].value.timeout = 77;
  attrs[1].id = ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE;
  attrs[1].value.schemMode = 1;
  aclrtLaunchKernelCfg cfg{attrs, 2};
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(launchVadd(s, x, y, z, &cfg, 2));
  ASSERT_ACL_OK(aclrtValueWrite(word, 5, 0, s));
  ASSERT_ACL_OK(arun::launch(s, 1, increment, counter));
  ASSERT_ACL_OK(aclrtMemsetAsync(z2, kN * sizeof(float), 0, kN * sizeof(float), s));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));

  // GetStreams: the two-call protocol and its errors.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetStreams(nullptr, nullptr, nullptr));
  uint32_t n = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetStreams(g, nullptr, nullptr));
  ASSERT_ACL_OK(aclmdlRIGetStreams(g, nullptr, &n));
  ASSERT_EQ(n, 1u);
  aclrtStream lane = nullptr;
  uint32_t none = 0;
  EXPECT_ACL(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclmdlRIGetStreams(g, &lane, &none));
  ASSERT_ACL_OK(aclmdlRIGetStreams(g, &lane, &n));
  // GetTasksByStream.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(nullptr, nullptr, &n));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(lane, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(run, nullptr, &n));  // not in a model
  aclmdlRITask one = nullptr;
  uint32_t cap = 1;
  EXPECT_ACL(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclmdlRIGetTasksByStream(lane, &one, &cap));
  auto tasks = tasksOf(lane);
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_EQ(typeOf(tasks[0]), ACL_MODEL_RI_TASK_KERNEL);
  EXPECT_EQ(typeOf(tasks[1]), ACL_MODEL_RI_TASK_VALUE_WRITE);
  EXPECT_EQ(typeOf(tasks[2]), ACL_MODEL_RI_TASK_KERNEL);
  EXPECT_EQ(typeOf(tasks[3]), ACL_MODEL_RI_TASK_DEFAULT);  // a memset
  for (uint32_t i = 0; i < 4; ++i) {
    uint32_t id = 99;
    ASSERT_ACL_OK(aclmdlRITaskGetSeqId(tasks[i], &id));
    EXPECT_EQ(id, i);
  }
  aclmdlRITaskType type;
  uint32_t id = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetType(nullptr, &type));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetType(tasks[0], nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetSeqId(nullptr, &id));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetSeqId(tasks[0], nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(reinterpret_cast<aclmdlRITask>(0x1234), &type));

  // GetParams: the kernel as launched, the value write, nothing for DEFAULT.
  aclmdlRITaskParams p{};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(nullptr, &p));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(tasks[0], nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(tasks[3], &p));
  ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[0], &p));
  EXPECT_EQ(p.type, ACL_MODEL_RI_TASK_KERNEL);
  EXPECT_EQ(p.taskGrp, nullptr);
  EXPECT_EQ(p.kernelTaskParams.funcHandle, vadd_);
  EXPECT_EQ(p.kernelTaskParams.numBlocks, 2u);
  EXPECT_EQ(p.kernelTaskParams.isHostArgs, 1u);
  ASSERT_EQ(p.kernelTaskParams.argsSize, sizeof(VaddArgs));
  VaddArgs seen{};
  std::memcpy(&seen, p.kernelTaskParams.args, sizeof seen);
  EXPECT_EQ(seen.x, x);
  EXPECT_EQ(seen.z, z);
  EXPECT_EQ(seen.n, kN);
  ASSERT_NE(p.kernelTaskParams.cfg, nullptr);
  EXPECT_EQ(p.kernelTaskParams.cfg->numAttrs, 2u);
  ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[1], &p));
  EXPECT_EQ(p.valueWriteTaskParams.devAddr, word);
  EXPECT_EQ(p.valueWriteTaskParams.value, 5u);

  // KernelTaskGetAttribute: what the launch set, defaults, and the refused ids.
  aclrtLaunchKernelAttrValue v{};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIKernelTaskGetAttribute(nullptr, ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, &v));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclmdlRIKernelTaskGetAttribute(tasks[0], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, nullptr));
  ASSERT_ACL_OK(aclmdlRIKernelTaskGetAttribute(tasks[0], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, &v));
  EXPECT_EQ(v.timeout, 77);
  ASSERT_ACL_OK(aclmdlRIKernelTaskGetAttribute(tasks[0], ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &v));
  EXPECT_EQ(v.schemMode, 1);
  v.dynUBufSize = 9;
  ASSERT_ACL_OK(aclmdlRIKernelTaskGetAttribute(tasks[0], ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, &v));
  EXPECT_EQ(v.dynUBufSize, 0u);  // not set: the default
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclmdlRIKernelTaskGetAttribute(tasks[0], ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclmdlRIKernelTaskGetAttribute(tasks[0], static_cast<aclrtLaunchKernelAttrId>(42), &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclmdlRIKernelTaskGetAttribute(tasks[1], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, &v));  // not a kernel

  replay(g, run);
  expectSum(z, 1.0f, 3.0f);
  EXPECT_EQ(get(word, 1)[0], 5u);
  EXPECT_EQ(value(counter), 1);

  // SetParams: new arguments for the kernel, a new value, the increment disabled.
  aclmdlRITaskParams np{};
  np.type = ACL_MODEL_RI_TASK_KERNEL;
  VaddArgs na{x2, y2, z2, static_cast<uint32_t>(kN)};
  np.kernelTaskParams.funcHandle = vadd_;
  np.kernelTaskParams.args = &na;
  np.kernelTaskParams.argsSize = sizeof na;
  np.kernelTaskParams.isHostArgs = 1;
  np.kernelTaskParams.numBlocks = 4;
  ASSERT_ACL_OK(aclmdlRITaskSetParams(tasks[0], &np));
  aclmdlRITaskParams vp{};
  vp.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
  vp.valueWriteTaskParams.devAddr = word;
  vp.valueWriteTaskParams.value = 9;
  ASSERT_ACL_OK(aclmdlRITaskSetParams(tasks[1], &vp));
  ASSERT_ACL_OK(aclmdlRITaskDisable(tasks[2]));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskDisable(nullptr));
  replay(g, run);  // staged only: the old parameters still run
  EXPECT_EQ(value(counter), 2);
  EXPECT_EQ(get(z2, 1)[0], 0.0f);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIUpdate(nullptr));
  ASSERT_ACL_OK(aclmdlRIUpdate(g));
  ASSERT_ACL_OK(aclmdlRIUpdate(g));  // nothing pending
  ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[0], &p));
  EXPECT_EQ(p.kernelTaskParams.numBlocks, 4u);
  EXPECT_EQ(p.kernelTaskParams.cfg, nullptr);
  for (int i = 0; i < 3; ++i) replay(g, run);
  // The memset node runs after the kernel and zeroes z2: check the kernel through its own output
  // by disabling the memset too.
  ASSERT_ACL_OK(aclmdlRITaskDisable(tasks[3]));
  ASSERT_ACL_OK(aclmdlRIUpdate(g));
  replay(g, run);
  expectSum(z2, -1.0f, 10.0f);
  EXPECT_EQ(get(word, 1)[0], 9u);
  EXPECT_EQ(value(counter), 2);  // disabled from the update on

  // A refused SetParams puts the instance in the fault state: the next update fails, once.
  aclmdlRITaskParams bad{};
  bad.type = ACL_MODEL_RI_TASK_EVENT_RECORD;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(tasks[0], &bad));
  bad.type = ACL_MODEL_RI_TASK_VALUE_WAIT;  // not the task's type
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(tasks[1], &bad));
  bad.type = ACL_MODEL_RI_TASK_DEFAULT;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(tasks[3], &bad));
  np.kernelTaskParams.argsSize = 8;  // below kb_vadd's argument block
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(tasks[0], &np));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(nullptr, &np));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(tasks[0], nullptr));
  EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(g));
  EXPECT_ACL_OK(aclmdlRIUpdate(g));
  ASSERT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetSeqId(tasks[0], &id));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetTasksByStream(lane, nullptr, &n));
}

TEST_P(ModelBuildTest, TaskGroupUpdateReplacesItsKernels) {
  aclrtStream s = stream(), upd = stream(), run = stream();
  float* x = dmalloc<float>(kN);
  float* y = dmalloc<float>(kN);
  float* z = dmalloc<float>(kN);
  float* x2 = dmalloc<float>(kN);
  float* y2 = dmalloc<float>(kN);
  int* counter = dmalloc<int>(1);
  fill(x, y, 1.0f, 1.0f);
  fill(x2, y2, 3.0f, -2.0f);
  aclrtTaskGrp grp = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpBegin(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpBegin(s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(nullptr, &grp));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(s, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpEnd(s, &grp));
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskGrpEnd(s, &grp));  // none open
  ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(s));
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskGrpBegin(s));  // no nesting
  ASSERT_ACL_OK(launchVadd(s, x, y, z));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclrtMemsetAsync(z, 4, 0, 4, s));  // kernels only
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureEnd(s, &g));        // still open
  ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
  ASSERT_NE(grp, nullptr);
  ASSERT_ACL_OK(arun::launch(s, 1, increment, counter));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  auto tasks = tasksOf(streamsOf(g)[0]);
  ASSERT_EQ(tasks.size(), 2u);
  aclmdlRITaskParams p{};
  ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[0], &p));
  EXPECT_EQ(p.taskGrp, grp);
  replay(g, run);
  expectSum(z, 1.0f, 1.0f);

  // UpdateBegin / End errors.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(nullptr, grp));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(upd, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateEnd(nullptr));
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateEnd(upd));
  aclrtStream capturing = stream();
  ASSERT_ACL_OK(aclmdlRICaptureBegin(capturing, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureTaskUpdateBegin(capturing, grp));
  aclmdlRI other = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(capturing, &other));
  aclrtStream bound = stream(ACL_STREAM_PERSISTENT);
  aclmdlRI built = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&built, 0));
  ASSERT_ACL_OK(aclmdlRIBindStream(built, bound, 0));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRICaptureTaskUpdateBegin(bound, grp));
  ASSERT_ACL_OK(aclmdlRIDestroy(built));

  // A mismatched update (two tasks for a one-task group) is refused; the instance keeps its tasks.
  ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateBegin(upd, grp));
  ASSERT_ACL_OK(launchVadd(upd, x2, y2, z));
  ASSERT_ACL_OK(launchVadd(upd, x2, y2, z));
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_INTR, aclmdlRICaptureTaskUpdateEnd(upd));
  ASSERT_ACL_OK(aclrtSynchronizeStream(upd));
  expectSum(z, 1.0f, 1.0f);  // the update's launches did not run
  replay(g, run);
  expectSum(z, 1.0f, 1.0f);
  // Another kind than the group's: refused too.
  ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
  ASSERT_ACL_OK(aclrtMemsetAsync(z, 4, 0, 4, upd));
  EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_INTR, aclmdlRICaptureTaskUpdateEnd(upd));
  // A matching update: the next replays compute with the new arguments.
  ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
  ASSERT_ACL_OK(launchVadd(upd, x2, y2, z));
  ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(upd));
  replay(g, run);
  expectSum(z, 3.0f, -2.0f);
  EXPECT_EQ(value(counter), 3);
  ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[0], &p));
  VaddArgs seen{};
  std::memcpy(&seen, p.kernelTaskParams.args, sizeof seen);
  EXPECT_EQ(seen.x, x2);
  // The stream runs its own work again after the update.
  ASSERT_ACL_OK(arun::launch(upd, 1, increment, counter));
  ASSERT_ACL_OK(aclrtSynchronizeStream(upd));
  EXPECT_EQ(value(counter), 4);
  ASSERT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(upd, grp));
  ASSERT_ACL_OK(aclmdlRIDestroy(other));
}

// ---------------------------------------------------------------- conditional tasks

TEST_P(ModelBuildTest, ConditionChecks) {
  aclrtStream s = stream(), s2 = stream();
  aclmdlRICondHandle h = nullptr;
  uint64_t* ptr = nullptr;
  aclmdlRI g = nullptr, g2 = nullptr, built = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&built, 0));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclmdlRICondHandleCreate(built, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, nullptr, &g));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclmdlRICondHandleCreate(nullptr, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(g, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(g, 0, static_cast<aclmdlRICondHandleFlag>(2), &h));
  ASSERT_ACL_OK(aclmdlRICondHandleCreate(g, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(nullptr, &ptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(h, nullptr));
  ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &ptr));
  EXPECT_NE(ptr, nullptr);
  aclmdlRI branches[2] = {};
  aclmdlRICondTaskParams cp{h, ACL_MODEL_RI_COND_TYPE_IF, 2, branches};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(cp, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(cp, s, 1));
  auto bad = cp;
  bad.type = static_cast<aclmdlRICondTaskType>(3);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  bad = cp;
  bad.handle = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  bad = cp;
  bad.modelRIArray = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  bad = cp;
  bad.size = 3;  // IF: 1 or 2
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  bad.type = ACL_MODEL_RI_COND_TYPE_WHILE;
  bad.size = 2;  // WHILE: 1
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  bad.type = ACL_MODEL_RI_COND_TYPE_SWITCH;
  bad.size = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  bad.size = 1u << 20;  // refused before anything is allocated
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(bad, s, 0));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRIAddCondTask(cp, s2, 0));
  // A handle of another instance.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(cp, s2, 0));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s2, &g2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(g2, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
  ASSERT_ACL_OK(aclmdlRIAddCondTask(cp, s, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(cp, s, 0));  // one node per handle
  // Sub-graphs: filled from a capture, never run or destroyed on their own.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclmdlRICaptureToModelRIBegin(nullptr, branches[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureToModelRIBegin(s, nullptr, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclmdlRICaptureToModelRIBegin(s, branches[0], static_cast<aclmdlRICaptureMode>(3)));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureToModelRIBegin(s2, g2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIExecuteAsync(branches[0], s2));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIDestroy(branches[0]));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIAbort(branches[0]));
  uint32_t n = 0;
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIGetStreams(branches[0], nullptr, &n));
  ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(s, branches[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  aclmdlRI root = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, nullptr));  // the branch; s captures g again
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclmdlRICaptureToModelRIBegin(s, branches[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &root));
  EXPECT_EQ(root, g);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclmdlRICaptureToModelRIBegin(s, branches[1], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr(h, &ptr));
  ASSERT_ACL_OK(aclmdlRIDestroy(g2));
  ASSERT_ACL_OK(aclmdlRIDestroy(built));
}

TEST_P(ModelBuildTest, ParentEndWaitsForItsSubGraphCapture) {
  aclrtStream s = stream(), s2 = stream();
  aclmdlRI g = nullptr;
  aclmdlRICondHandle h = nullptr;
  aclmdlRI branch = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, nullptr, &g));
  ASSERT_ACL_OK(aclmdlRICondHandleCreate(g, 0, static_cast<aclmdlRICondHandleFlag>(0), &h));
  ASSERT_ACL_OK(aclmdlRIAddCondTask({h, ACL_MODEL_RI_COND_TYPE_IF, 1, &branch}, s, 0));
  ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(s2, branch, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING, aclmdlRICaptureEnd(s, &g));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s2, nullptr));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  ASSERT_ACL_OK(aclmdlRIDestroy(g));
}

TEST_P(ModelBuildTest, ConditionsAreEvaluatedAtEveryExecution) {
  aclrtStream s = stream(), run = stream();
  int* a = dmalloc<int>(1);
  int* b = dmalloc<int>(1);
  int* iterations = dmalloc<int>(1);
  int* sw = dmalloc<int>(3);
  int* after = dmalloc<int>(1);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, nullptr, &g));
  // IF on a user-managed word: branch 0 increments a, branch 1 increments b.
  aclmdlRICondHandle hif = nullptr, hwhile = nullptr, hswitch = nullptr, hdef = nullptr;
  uint64_t *wif = nullptr, *wwhile = nullptr, *wswitch = nullptr, *wdef = nullptr;
  const auto user = static_cast<aclmdlRICondHandleFlag>(0);
  ASSERT_ACL_OK(aclmdlRICondHandleCreate(g, 0, user, &hif));
  ASSERT_ACL_OK(aclmdlRICondHandleCreate(g, 0, user, &hwhile));
  ASSERT_ACL_OK(aclmdlRICondHandleCreate(g, 0, user, &hswitch));
  ASSERT_ACL_OK(aclmdlRICondHandleCreate(g, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &hdef));
  ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(hif, &wif));
  ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(hwhile, &wwhile));
  ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(hswitch, &wswitch));
  ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(hdef, &wdef));
  aclmdlRI ifb[2] = {}, wb[1] = {}, swb[3] = {}, defb[1] = {};
  ASSERT_ACL_OK(aclmdlRIAddCondTask({hif, ACL_MODEL_RI_COND_TYPE_IF, 2, ifb}, s, 0));
  ASSERT_ACL_OK(aclmdlRIAddCondTask({hwhile, ACL_MODEL_RI_COND_TYPE_WHILE, 1, wb}, s, 0));
  ASSERT_ACL_OK(aclmdlRIAddCondTask({hswitch, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, swb}, s, 0));
  ASSERT_ACL_OK(aclmdlRIAddCondTask({hdef, ACL_MODEL_RI_COND_TYPE_IF, 1, defb}, s, 0));
  ASSERT_ACL_OK(arun::launch(s, 1, increment, after));  // after every conditional node
  // Fill the branches from the capturing stream itself.
  auto fill_branch = [&](aclmdlRI branch, auto&& body) {
    ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(s, branch, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    body();
    ASSERT_ACL_OK(aclmdlRICaptureEnd(s, nullptr));
  };
  fill_branch(ifb[0], [&] { ASSERT_ACL_OK(arun::launch(s, 1, increment, a)); });
  fill_branch(ifb[1], [&] { ASSERT_ACL_OK(arun::launch(s, 1, increment, b)); });
  fill_branch(wb[0], [&] { ASSERT_ACL_OK(arun::launch(s, 1, count_down, wwhile, iterations)); });
  for (int i = 0; i < 3; ++i) fill_branch(swb[i], [&] { ASSERT_ACL_OK(arun::launch(s, 1, increment, sw + i)); });
  fill_branch(defb[0], [&] { ASSERT_ACL_OK(arun::launch(s, 1, increment, a)); });
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));

  auto set = [&](uint64_t* w, uint64_t v) {
    ASSERT_ACL_OK(aclrtMemcpy(w, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
  };
  // Execution 1: IF true, WHILE 4 times, SWITCH branch 2; the default-assigned IF always runs.
  set(wif, 7);
  set(wwhile, 4);
  set(wswitch, 2);
  set(wdef, 0);  // reset to 1 at the start of the execution
  replay(g, run);
  EXPECT_EQ(value(a), 2);
  EXPECT_EQ(value(b), 0);
  EXPECT_EQ(value(iterations), 4);
  EXPECT_EQ(get(wwhile, 1)[0], 0u);
  EXPECT_EQ(get(sw, 3), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(value(after), 1);
  // Execution 2: IF false (branch 1), WHILE not at all, SWITCH out of range (nothing).
  set(wif, 0);
  set(wswitch, 9);
  replay(g, run);
  EXPECT_EQ(value(a), 3);
  EXPECT_EQ(value(b), 1);
  EXPECT_EQ(value(iterations), 4);
  EXPECT_EQ(get(sw, 3), (std::vector<int>{0, 0, 1}));
  // Execution 3: SWITCH branch 0, WHILE twice.
  set(wswitch, 0);
  set(wwhile, 2);
  replay(g, run);
  EXPECT_EQ(value(iterations), 6);
  EXPECT_EQ(get(sw, 3), (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(value(after), 3);
  ASSERT_ACL_OK(aclmdlRIDestroy(g));
}

ARUN_CONFORMANCE_INSTANTIATE(ModelBuildTest);

}  // namespace
}  // namespace conformance
