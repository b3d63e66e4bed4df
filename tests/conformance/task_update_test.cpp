// Spec part 2, 4.9 aclrtTaskUpdateAsync on tasks of built model runtime instances (4.12): a kernel
// swapped for another function and block count, a random-number task given new parameters, each
// checked against host references on the executions after the update; every error rule, at the
// call and when the update task runs. Also: an execution dropped by aclrtStreamAbort before it
// started runs none of its nodes (the launcher path of built instances), and aclrtActiveStream /
// aclrtSwitchStream inside built instances (4.4), results checked after every execution.
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "arun/kernel.hpp"
#include "conformance.hpp"

#ifndef ARUN_KB_DIR
#error "ARUN_KB_DIR must name the folder of the test kernel binaries"
#endif

namespace conformance {
namespace {

constexpr size_t kN = 64;

struct VaddArgs {  // kb_vadd's and kb_vsub_scaled's packed arguments
  const float* x;
  const float* y;
  float* z;
  uint32_t n;
};

void increment(arun::Block b, int* p) {
  b.at(p) += 1;
}

aclrtRandomParaInfo imm(uint64_t value, uint8_t size) {
  aclrtRandomParaInfo p{};
  p.size = size;
  for (int i = 0; i < 8; ++i) p.valueOrAddr[i] = static_cast<uint8_t>(value >> (8 * i));
  return p;
}

class TaskUpdateTest : public AclResourceTest {
 protected:
  void SetUp() override {
    AclDeviceTest::SetUp();
    const std::string dir = ARUN_KB_DIR;
    ASSERT_ACL_OK(aclrtBinaryLoadFromFile((dir + "/kb_good.so").c_str(), nullptr, &good_));
    ASSERT_ACL_OK(aclrtBinaryLoadFromFile((dir + "/kb_update.so").c_str(), nullptr, &upd_));
    ASSERT_ACL_OK(aclrtBinaryGetFunction(good_, "kb_vadd", &vadd_));
    ASSERT_ACL_OK(aclrtBinaryGetFunction(good_, "kb_mixed", &mixed_));
    ASSERT_ACL_OK(aclrtBinaryGetFunction(upd_, "kb_vsub_scaled", &vsub_));
  }
  void TearDown() override {
    for (aclmdlRI g : models_) aclmdlRIDestroy(g);
    release_resources();
    for (aclrtBinHandle b : {good_, upd_})
      if (b != nullptr) aclrtBinaryUnLoad(b);
    AclDeviceTest::TearDown();
  }
  // A built instance whose one HEAD stream holds `record` (returning its task id) between two
  // increments of `count`.
  template <class F>
  aclmdlRI build(aclrtStream bound, int* count, F record, uint32_t* task_id) {
    aclmdlRI g = nullptr;
    EXPECT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
    models_.push_back(g);
    EXPECT_ACL_OK(aclmdlRIBindStream(g, bound, ACL_MODEL_STREAM_FLAG_HEAD));
    EXPECT_ACL_OK(arun::launch(bound, 1, increment, count));
    EXPECT_ACL_OK(record());
    EXPECT_ACL_OK(aclrtGetThreadLastTaskId(task_id));
    EXPECT_ACL_OK(arun::launch(bound, 1, increment, count));
    EXPECT_ACL_OK(aclmdlRIEndTask(g, bound));
    EXPECT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
    return g;
  }
  // kb_vadd's operands as expectZ expects them (x[i] = i, y[i] = 2), its output and the counter
  // that build() increments. Tests copy the fields to locals (clang 14 lambdas cannot capture
  // structured bindings).
  struct Vadd {
    float* x;
    float* y;
    float* z;
    int* count;
  };
  Vadd vaddOperands() {
    Vadd v{dmalloc<float>(kN), dmalloc<float>(kN), dmalloc<float>(kN), dmalloc<int>(1)};
    std::vector<float> hx(kN), hy(kN, 2.0f);
    for (size_t i = 0; i < kN; ++i) hx[i] = static_cast<float>(i);
    put(v.x, hx);
    put(v.y, hy);
    return v;
  }
  aclError launchVadd(aclrtStream s, const float* x, const float* y, float* z, uint32_t blocks) {
    VaddArgs a{x, y, z, static_cast<uint32_t>(kN)};
    return aclrtLaunchKernelWithHostArgs(vadd_, blocks, s, nullptr, &a, sizeof a, nullptr, 0);
  }
  // z[i] == x[i] + y[i] * scale (x[i] = i, y[i] = 2).
  void expectZ(const float* z, float scale) {
    auto hz = get(z, kN);
    for (size_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(hz[i], static_cast<float>(i) + 2.0f * scale) << i;
  }
  aclrtTaskUpdateInfo kernelUpdate(const uint64_t* words) {
    aclrtTaskUpdateInfo info{};
    info.id = ACL_RT_UPDATE_AIC_AIV_TASK;
    info.val.aicAivTaskAttr.binHandle = upd_;
    info.val.aicAivTaskAttr.funcEntryAddr = const_cast<uint64_t*>(words);
    info.val.aicAivTaskAttr.blockDimAddr = const_cast<uint64_t*>(words + 1);
    return info;
  }

  aclrtBinHandle good_ = nullptr, upd_ = nullptr;
  aclrtFuncHandle vadd_ = nullptr, mixed_ = nullptr, vsub_ = nullptr;
  std::vector<aclmdlRI> models_;
};

TEST_P(TaskUpdateTest, KernelTaskGetsANewFunctionAndBlockCount) {
  aclrtStream bound = stream(ACL_STREAM_PERSISTENT), exec = stream();
  const Vadd v = vaddOperands();
  float *x = v.x, *y = v.y, *z = v.z;
  int* count = v.count;
  uint32_t id = 0;
  aclmdlRI g = build(
      bound, count, [&] { return launchVadd(bound, x, y, z, 2); }, &id);
  EXPECT_EQ(id, 2u) << "the second task recorded on its stream";
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
  expectZ(z, 1.0f);  // kb_vadd

  // The update reads entry 7 (kb_vsub_scaled) and 3 blocks from device memory when it runs.
  auto* words = dmalloc<uint64_t>(2);
  put(words, std::vector<uint64_t>{7, 3});
  aclrtTaskUpdateInfo info = kernelUpdate(words);
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &info, exec));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, exec));  // ordered after the update on the same stream
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  expectZ(z, -3.0f);  // x - y * 3
  EXPECT_EQ(get(count, 1)[0], 4);

  // The instance reports the new function and block count.
  uint32_t n = 0;
  ASSERT_ACL_OK(aclmdlRIGetTasksByStream(bound, nullptr, &n));
  std::vector<aclmdlRITask> tasks(n);
  ASSERT_ACL_OK(aclmdlRIGetTasksByStream(bound, tasks.data(), &n));
  ASSERT_EQ(n, 3u);
  aclmdlRITaskParams params{};
  ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[1], &params));
  EXPECT_EQ(params.kernelTaskParams.funcHandle, vsub_);
  EXPECT_EQ(params.kernelTaskParams.numBlocks, 3u);

  // Values written on execStream just before the update task are the ones it reads; executions
  // enqueued before the update keep the old values.
  aclrtStream other = stream();
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, other));
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  expectZ(z, -3.0f);
  ASSERT_ACL_OK(aclrtValueWrite(words + 1, 5, 0, exec));
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &info, exec));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  expectZ(z, -5.0f);
  // Back to kb_vadd of the first binary, 1 block; many executions, each verified.
  aclrtTaskUpdateInfo back = info;
  back.val.aicAivTaskAttr.binHandle = good_;
  put(words, std::vector<uint64_t>{1, 1});
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &back, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));  // aclmdlRIExecute runs on the instance's own stream
  for (int i = 0; i < 20; ++i) {
    ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
    expectZ(z, 1.0f);
  }
  EXPECT_EQ(get(count, 1)[0], 48);
}

TEST_P(TaskUpdateTest, RandomTaskGetsNewParameters) {
  aclrtStream bound = stream(ACL_STREAM_PERSISTENT), exec = stream();
  constexpr uint64_t kFirst = 16, kSecond = 40;
  auto* r1 = dmalloc<float>(kSecond);
  auto* r2 = dmalloc<float>(kSecond);
  auto* ref = dmalloc<float>(kSecond);
  auto* c1 = dmalloc<uint64_t>(2);
  auto* c2 = dmalloc<uint64_t>(2);
  auto* cref = dmalloc<uint64_t>(2);
  int* count = dmalloc<int>(1);
  auto uniform = [](uint64_t seed, uint64_t n, void* out, void* ctr) {
    aclrtRandomNumTaskInfo t{};
    t.dataType = ACL_FLOAT;
    t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    float lo = 0.0f, hi = 1.0f;
    uint32_t bits = 0;
    std::memcpy(&bits, &lo, 4);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = imm(bits, 4);
    std::memcpy(&bits, &hi, 4);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = imm(bits, 4);
    t.randomResultAddr = out;
    t.randomCounterAddr = ctr;
    t.randomSeed = imm(seed, 8);
    t.randomNum = imm(n, 8);
    return t;
  };
  const aclrtRandomNumTaskInfo first = uniform(11, kFirst, r1, c1);
  uint32_t id = 0;
  aclmdlRI g = build(
      bound, count, [&] { return aclrtRandomNumAsync(&first, bound, nullptr); }, &id);
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
  EXPECT_NE(get(r1, kFirst), std::vector<float>(kFirst, 0.0f));
  EXPECT_EQ(get(r2, kSecond), std::vector<float>(kSecond, 0.0f));

  // The new seed, count, result and counter come from an aclrtRandomNumTaskInfo in device memory;
  // the distribution (and its parameters) stay the task's.
  aclrtRandomNumTaskInfo second = uniform(99, kSecond, r2, c2);
  second.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;  // not applied
  auto* src = dmalloc<aclrtRandomNumTaskInfo>(1);
  put(src, std::vector<aclrtRandomNumTaskInfo>{second});
  aclrtTaskUpdateInfo info{};
  info.id = ACL_RT_UPDATE_RANDOM_TASK;
  info.val.randomTaskAttr.srcAddr = src;
  info.val.randomTaskAttr.size = sizeof(aclrtRandomNumTaskInfo);
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &info, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  put(r1, std::vector<float>(kSecond, 0.0f));
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
  // Reference: the same task on an ordinary stream from a zero counter.
  const aclrtRandomNumTaskInfo expect = uniform(99, kSecond, ref, cref);
  ASSERT_ACL_OK(aclrtRandomNumAsync(&expect, exec, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  EXPECT_EQ(get(r2, kSecond), get(ref, kSecond));
  EXPECT_EQ(get(c2, 2), get(cref, 2)) << "the new counter advanced as the reference's";
  EXPECT_EQ(get(r1, kSecond), std::vector<float>(kSecond, 0.0f)) << "the old result buffer is no longer written";
  EXPECT_EQ(get(count, 1)[0], 4);
}

TEST_P(TaskUpdateTest, Errors) {
  aclrtStream bound = stream(ACL_STREAM_PERSISTENT), exec = stream(), plain = stream();
  const Vadd v = vaddOperands();  // y unused: the kernel adds x to itself
  float *x = v.x, *z = v.z;
  int* count = v.count;
  auto* words = dmalloc<uint64_t>(2);
  put(words, std::vector<uint64_t>{7, 2});
  uint32_t id = 0;
  aclmdlRI g = build(
      bound, count, [&] { return launchVadd(bound, x, x, z, 1); }, &id);
  aclrtTaskUpdateInfo info = kernelUpdate(words);
  // The ACL layer, then the runtime, in the spec's order.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtTaskUpdateAsync(bound, id, nullptr, exec));
  aclrtTaskUpdateInfo bad = info;
  for (int v : {0, 3}) {
    bad.id = static_cast<aclrtUpdateTaskAttrId>(v);
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &bad, exec)) << "id " << v;
  }
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(nullptr, id, &info, exec)) << "taskStream NULL";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &info, nullptr)) << "execStream NULL";
  for (void** field : {&bad.val.aicAivTaskAttr.binHandle, &bad.val.aicAivTaskAttr.funcEntryAddr,
                       &bad.val.aicAivTaskAttr.blockDimAddr}) {
    bad = info;
    *field = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &bad, exec));
  }
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(dead, id, &info, exec));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(bound, id, &info, dead));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(plain, 1, &info, exec)) << "not model-bound";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, 0, &info, exec)) << "unknown taskId";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, 99, &info, exec)) << "unknown taskId";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, 1, &info, exec)) << "a C++ kernel";
  bad = info;
  int fake = 0;
  bad.val.aicAivTaskAttr.binHandle = &fake;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(bound, id, &bad, exec)) << "dead binHandle";
  bad = info;
  uint64_t host_words[2] = {7, 2};
  bad.val.aicAivTaskAttr.blockDimAddr = host_words;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &bad, exec)) << "not device memory";
  // RANDOM: only a random-number task; srcAddr and size.
  aclrtTaskUpdateInfo rnd{};
  rnd.id = ACL_RT_UPDATE_RANDOM_TASK;
  rnd.val.randomTaskAttr.srcAddr = words;
  rnd.val.randomTaskAttr.size = sizeof(aclrtRandomNumTaskInfo);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(nullptr, id, &rnd, exec)) << "taskStream NULL";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &rnd, exec)) << "not a random task";
  rnd.val.randomTaskAttr.size -= 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &rnd, exec)) << "size";
  rnd.val.randomTaskAttr.size += 1;
  rnd.val.randomTaskAttr.srcAddr = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(bound, id, &rnd, exec)) << "srcAddr NULL";
  rnd.val.randomTaskAttr.srcAddr = words;
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(plain, 1, &rnd, exec)) << "not model-bound";
  EXPECT_ACL_OK(aclrtSynchronizeStream(exec)) << "nothing was enqueued";

  // What the update task reads is checked when it runs: the task fails (the stream reports it)
  // and the model keeps its kernel.
  std::vector<float> hx(kN, 1.0f);
  put(x, hx);
  for (std::vector<uint64_t> v : {std::vector<uint64_t>{42, 2}, std::vector<uint64_t>{7, 0},
                                  std::vector<uint64_t>{2, 1}}) {  // no entry 42; 0 blocks; kb_mixed's layout
    put(words, v);
    bad = info;
    if (v[0] == 2) bad.val.aicAivTaskAttr.binHandle = good_;
    ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &bad, exec));
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(exec)) << v[0] << " " << v[1];
  }
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
  auto hz = get(z, kN);
  EXPECT_EQ(hz, std::vector<float>(kN, 2.0f)) << "still kb_vadd";
  // An unloaded binary at run time.
  put(words, std::vector<uint64_t>{7, 2});
  auto* gate = dmalloc<uint64_t>(1);
  ASSERT_ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_EQ, exec));
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &info, exec));
  ASSERT_ACL_OK(aclrtBinaryUnLoad(upd_));
  upd_ = nullptr;
  ASSERT_ACL_OK(aclrtValueWrite(gate, 1, 0, plain));  // releases the wait
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(exec)) << "binHandle unloaded meanwhile";
  // A random update whose source holds a NULL result address.
  aclrtRandomNumTaskInfo none{};
  auto* src = dmalloc<aclrtRandomNumTaskInfo>(1);
  put(src, std::vector<aclrtRandomNumTaskInfo>{none});
  aclrtStream rs = stream(ACL_STREAM_PERSISTENT);
  auto* r = dmalloc<float>(8);
  auto* c = dmalloc<uint64_t>(2);
  aclrtRandomNumTaskInfo t{};
  t.dataType = ACL_FLOAT;
  t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
  t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = imm(0, 4);
  t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = imm(0x3f800000, 4);
  t.randomResultAddr = r;
  t.randomCounterAddr = c;
  t.randomSeed = imm(1, 8);
  t.randomNum = imm(8, 8);
  uint32_t rid = 0;
  aclmdlRI rg = build(
      rs, count, [&] { return aclrtRandomNumAsync(&t, rs, nullptr); }, &rid);
  rnd.val.randomTaskAttr.srcAddr = src;
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(rs, rid, &rnd, exec));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(exec));
  ASSERT_ACL_OK(aclmdlRIExecute(rg, 10000));
  EXPECT_NE(get(r, 8), std::vector<float>(8, 0.0f)) << "the task kept its parameters";
}

// Updates racing executions of the instance on another thread: every execution runs one whole
// template (the old one's argument block lives until the executions that cloned it ended).
TEST_P(TaskUpdateTest, UpdatesConcurrentWithExecutionsOfAnotherThread) {
  aclrtStream bound = stream(ACL_STREAM_PERSISTENT), exec = stream(), run = stream();
  const Vadd v = vaddOperands();
  float *x = v.x, *y = v.y, *z = v.z;
  int* count = v.count;
  uint32_t id = 0;
  aclmdlRI g = build(
      bound, count, [&] { return launchVadd(bound, x, y, z, 2); }, &id);
  auto* to_sub = dmalloc<uint64_t>(2);
  auto* to_add = dmalloc<uint64_t>(2);
  put(to_sub, std::vector<uint64_t>{7, 3});
  put(to_add, std::vector<uint64_t>{1, 2});
  aclrtTaskUpdateInfo sub = kernelUpdate(to_sub), add = kernelUpdate(to_add);
  add.val.aicAivTaskAttr.binHandle = good_;
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  constexpr int kRuns = 200;
  std::thread runner([&] {
    EXPECT_ACL_OK(aclrtSetCurrentContext(ctx));
    for (int i = 0; i < kRuns; ++i) {
      EXPECT_ACL_OK(aclmdlRIExecuteAsync(g, run));
      if (i % 16 == 15) {
        EXPECT_ACL_OK(aclrtSynchronizeStream(run));
      }
    }
    EXPECT_ACL_OK(aclrtSynchronizeStream(run));
  });
  for (int i = 0; i < 100; ++i) {
    ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, i % 2 == 0 ? &sub : &add, exec));
    if (i % 8 == 7) {
      ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
    }
  }
  runner.join();
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  EXPECT_EQ(get(count, 1)[0], 2 * kRuns);
  auto hz = get(z, kN);
  const bool added = hz[0] == 2.0f;  // the last execution ran one of the two kernels, whole
  for (size_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(hz[i], static_cast<float>(i) + (added ? 2.0f : -6.0f)) << i;
  ASSERT_ACL_OK(aclrtTaskUpdateAsync(bound, id, &sub, exec));
  ASSERT_ACL_OK(aclrtSynchronizeStream(exec));
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
  expectZ(z, -3.0f);
}

// Executions queued behind a blocked wait are dropped by aclrtStreamAbort before they start: none
// of their nodes runs, and the instance runs normally afterwards.
TEST_P(TaskUpdateTest, AbortDropsQueuedExecutionsOfABuiltInstance) {
  aclrtStream bound = stream(ACL_STREAM_PERSISTENT), s = stream();
  int* count = dmalloc<int>(1);
  auto* word = dmalloc<uint64_t>(1);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  models_.push_back(g);
  ASSERT_ACL_OK(aclmdlRIBindStream(g, bound, ACL_MODEL_STREAM_FLAG_HEAD));
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(arun::launch(bound, 1, increment, count));
  ASSERT_ACL_OK(aclmdlRIEndTask(g, bound));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  ASSERT_ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
  for (int i = 0; i < 4; ++i) ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  put(word, std::vector<uint64_t>{1});
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));  // behind the dropped ones on the instance's own stream
  EXPECT_EQ(get(count, 1)[0], 3) << "only the execution after the abort ran";
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(get(count, 1)[0], 6);
}

// ---------------------------------------------------------------- aclrtActiveStream / aclrtSwitchStream

TEST_P(TaskUpdateTest, ActiveStreamStartsABoundStreamAtEveryExecution) {
  aclrtStream a = stream(ACL_STREAM_PERSISTENT), b = stream(ACL_STREAM_PERSISTENT);
  aclrtStream never = stream(ACL_STREAM_PERSISTENT), run = stream();
  int* ca = dmalloc<int>(1);
  int* cb = dmalloc<int>(1);
  int* cn = dmalloc<int>(1);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  models_.push_back(g);
  ASSERT_ACL_OK(aclmdlRIBindStream(g, a, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, b, ACL_MODEL_STREAM_FLAG_DEFAULT));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, never, ACL_MODEL_STREAM_FLAG_DEFAULT));
  ASSERT_ACL_OK(arun::launch(a, 1, increment, ca));
  ASSERT_ACL_OK(aclrtActiveStream(b, a));
  ASSERT_ACL_OK(aclrtActiveStream(b, a));  // a stream runs once per execution
  ASSERT_ACL_OK(arun::launch(a, 1, increment, ca));
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(arun::launch(b, 1, increment, cb));
  ASSERT_ACL_OK(arun::launch(never, 1, increment, cn));
  for (aclrtStream s : {a, b, never}) ASSERT_ACL_OK(aclmdlRIEndTask(g, s));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(b, a)) << "built: no task can be added";
  for (int i = 1; i <= 4; ++i) {
    ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
    EXPECT_EQ(get(ca, 1)[0], 2 * i);
    EXPECT_EQ(get(cb, 1)[0], 3 * i) << "the activated stream ran before the execution ended";
    EXPECT_EQ(get(cn, 1)[0], 0) << "a stream nobody activates never runs";
  }
  // Asynchronous executions keep the stream's order, activated streams included.
  for (int i = 0; i < 5; ++i) ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, run));
  ASSERT_ACL_OK(aclrtSynchronizeStream(run));
  EXPECT_EQ(get(cb, 1)[0], 27);
  // aclmdlRIAbort leaves the instance runnable, its activated streams included.
  ASSERT_ACL_OK(aclmdlRIAbort(g));
  ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
  EXPECT_EQ(get(ca, 1)[0], 20);
  EXPECT_EQ(get(cb, 1)[0], 30);
}

TEST_P(TaskUpdateTest, SwitchStreamComparesDeviceValuesAtExecution) {
  aclrtStream a = stream(ACL_STREAM_PERSISTENT), t = stream(ACL_STREAM_PERSISTENT);
  int* left = dmalloc<int>(1);
  int* right = dmalloc<int>(1);
  int* taken = dmalloc<int>(1);
  int* rest = dmalloc<int>(1);
  put(right, std::vector<int>{2});
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  models_.push_back(g);
  ASSERT_ACL_OK(aclmdlRIBindStream(g, a, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
  // a: ++left; if (left == 2) run t instead of the rest of a; else ++rest.
  ASSERT_ACL_OK(arun::launch(a, 1, increment, left));
  ASSERT_ACL_OK(aclrtSwitchStream(left, ACL_RT_EQUAL, right, ACL_RT_SWITCH_INT32, t, nullptr, a));
  ASSERT_ACL_OK(arun::launch(a, 1, increment, rest));
  ASSERT_ACL_OK(arun::launch(t, 1, increment, taken));
  for (aclrtStream s : {a, t}) ASSERT_ACL_OK(aclmdlRIEndTask(g, s));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  const int expect_taken[] = {0, 1, 1, 1};
  const int expect_rest[] = {1, 1, 2, 3};
  for (int i = 0; i < 4; ++i) {
    ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
    EXPECT_EQ(get(left, 1)[0], i + 1);
    EXPECT_EQ(get(taken, 1)[0], expect_taken[i]) << "execution " << i;
    EXPECT_EQ(get(rest, 1)[0], expect_rest[i]) << "execution " << i;
  }
}

TEST_P(TaskUpdateTest, SwitchStreamComparesSignedInt64AndChains) {
  aclrtStream a = stream(ACL_STREAM_PERSISTENT), t = stream(ACL_STREAM_PERSISTENT);
  aclrtStream u = stream(ACL_STREAM_PERSISTENT);
  auto* words = dmalloc<int64_t>(3);  // left, right, a second right
  int* ct = dmalloc<int>(1);
  int* cu = dmalloc<int>(1);
  int* rest = dmalloc<int>(1);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  models_.push_back(g);
  ASSERT_ACL_OK(aclmdlRIBindStream(g, a, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, u, ACL_MODEL_STREAM_FLAG_DEFAULT));
  // a: if (left < right) t; else { ++rest; if (left >= right2) u; }   t activates u in turn.
  ASSERT_ACL_OK(aclrtSwitchStream(words, ACL_RT_LESS, words + 1, ACL_RT_SWITCH_INT64, t, nullptr, a));
  ASSERT_ACL_OK(arun::launch(a, 1, increment, rest));
  ASSERT_ACL_OK(aclrtSwitchStream(words, ACL_RT_GREATER_OR_EQUAL, words + 2, ACL_RT_SWITCH_INT64, u, nullptr, a));
  ASSERT_ACL_OK(arun::launch(t, 1, increment, ct));
  ASSERT_ACL_OK(aclrtActiveStream(u, t));
  ASSERT_ACL_OK(arun::launch(u, 1, increment, cu));
  for (aclrtStream s : {a, t, u}) ASSERT_ACL_OK(aclmdlRIEndTask(g, s));
  ASSERT_ACL_OK(aclmdlRIBuildEnd(g, nullptr));
  struct Case {
    int64_t left, right, right2;
    int ct, cu, rest;  // increments of this execution
  };
  // -5 < 3 is true only when compared signed (as 32 bits the values differ too).
  const Case cases[] = {{-5, 3, 0, 1, 1, 0}, {7, 3, 8, 0, 0, 1}, {7, 3, 7, 0, 1, 1}, {int64_t{1} << 33, 1, 0, 0, 1, 1}};
  int sum_t = 0, sum_u = 0, sum_rest = 0;
  for (const Case& c : cases) {
    put(words, std::vector<int64_t>{c.left, c.right, c.right2});
    ASSERT_ACL_OK(aclmdlRIExecute(g, 10000));
    sum_t += c.ct;
    sum_u += c.cu;
    sum_rest += c.rest;
    EXPECT_EQ(get(ct, 1)[0], sum_t) << c.left;
    EXPECT_EQ(get(cu, 1)[0], sum_u) << c.left;
    EXPECT_EQ(get(rest, 1)[0], sum_rest) << c.left;
  }
}

TEST_P(TaskUpdateTest, ControlTaskChecks) {
  aclrtStream a = stream(ACL_STREAM_PERSISTENT), b = stream(ACL_STREAM_PERSISTENT);
  aclrtStream other = stream(ACL_STREAM_PERSISTENT), plain = stream();
  aclrtStream h = stream(ACL_STREAM_PERSISTENT), d = stream(ACL_STREAM_PERSISTENT);
  int* w = dmalloc<int>(2);
  aclmdlRI g = nullptr, g2 = nullptr, g3 = nullptr;
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g, 0));
  models_.push_back(g);
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g2, 0));
  models_.push_back(g2);
  ASSERT_ACL_OK(aclmdlRIBindStream(g, a, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g, b, ACL_MODEL_STREAM_FLAG_DEFAULT));
  ASSERT_ACL_OK(aclmdlRIBindStream(g2, other, ACL_MODEL_STREAM_FLAG_HEAD));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(nullptr, a));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(b, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(plain, a)) << "activeStream not bound";
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(b, plain)) << "stream not bound";
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(other, a)) << "bound to another instance";
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL,
             aclrtSwitchStream(w, ACL_RT_EQUAL, w + 1, ACL_RT_SWITCH_INT32, other, nullptr, a));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(w, ACL_RT_EQUAL, w + 1, ACL_RT_SWITCH_INT32, b, b, a));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtSwitchStream(w, static_cast<aclrtCondition>(6), w + 1, ACL_RT_SWITCH_INT32, b, nullptr, a));
  ASSERT_ACL_OK(aclmdlRIEndTask(g, a));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(b, a)) << "after aclmdlRIEndTask";
  // A dependency between an activated stream and another one has no fixed place: BuildEnd refuses it.
  ASSERT_ACL_OK(aclmdlRIBuildBegin(&g3, 0));
  models_.push_back(g3);
  ASSERT_ACL_OK(aclmdlRIBindStream(g3, h, ACL_MODEL_STREAM_FLAG_HEAD));
  ASSERT_ACL_OK(aclmdlRIBindStream(g3, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtActiveStream(d, h));
  ASSERT_ACL_OK(arun::launch(d, 1, increment, w));
  ASSERT_ACL_OK(aclrtRecordEvent(e, d));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(h, e));
  for (aclrtStream s : {h, d}) ASSERT_ACL_OK(aclmdlRIEndTask(g3, s));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIBuildEnd(g3, nullptr));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(TaskUpdateTest);

}  // namespace conformance
