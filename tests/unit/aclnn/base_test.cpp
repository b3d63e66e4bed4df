// The aclnn base functions (aclnn-api.md section 2) and the executor rules of section 3.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_add.h"

namespace aclnn_test {
namespace {

TEST(AclnnBase, TensorCreateAndGetters) {
  const Dims view{2, 3}, storage{6};
  int dummy = 0;
  aclTensor* t = aclCreateTensor(view.data(), 2, ACL_FLOAT16, nullptr, 1, ACL_FORMAT_NCHW, storage.data(), 1, &dummy);
  ASSERT_NE(t, nullptr);
  int64_t* dims = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &dims, &n), 0);
  EXPECT_EQ(Dims(dims, dims + n), view);
  delete[] dims;
  ASSERT_EQ(aclGetStorageShape(t, &dims, &n), 0);
  EXPECT_EQ(Dims(dims, dims + n), storage);
  delete[] dims;
  ASSERT_EQ(aclGetViewStrides(t, &dims, &n), 0);
  EXPECT_EQ(Dims(dims, dims + n), (Dims{3, 1}));  // NULL strides: row-major
  delete[] dims;
  int64_t off = 0;
  EXPECT_EQ(aclGetViewOffset(t, &off), 0);
  EXPECT_EQ(off, 1);
  aclFormat f = ACL_FORMAT_ND;
  EXPECT_EQ(aclGetFormat(t, &f), 0);
  EXPECT_EQ(f, ACL_FORMAT_NCHW);
  aclDataType d = ACL_FLOAT;
  EXPECT_EQ(aclGetDataType(t, &d), 0);
  EXPECT_EQ(d, ACL_FLOAT16);
  void* addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), 0);
  EXPECT_EQ(addr, &dummy);
  EXPECT_EQ(aclSetRawTensorAddr(t, nullptr), 0);
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), 0);
  EXPECT_EQ(addr, nullptr);
  // aclInitTensor re-describes the same object.
  const Dims v2{4}, st2{1};
  EXPECT_EQ(aclInitTensor(t, v2.data(), 1, ACL_INT32, st2.data(), 0, ACL_FORMAT_ND, v2.data(), 1, &dummy), 0);
  EXPECT_EQ(aclGetDataType(t, &d), 0);
  EXPECT_EQ(d, ACL_INT32);
  EXPECT_EQ(aclInitTensor(nullptr, v2.data(), 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, v2.data(), 1, &dummy),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclInitTensor(t, nullptr, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, v2.data(), 1, &dummy),
            ACLNN_ERR_PARAM_NULLPTR);
  // NULL arguments of the getters.
  EXPECT_EQ(aclGetViewShape(nullptr, &dims, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(t, nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(nullptr, &f), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetRawTensorAddr(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetRawTensorAddr(nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyTensor(t), 0);
  // Destroyed: detected (161002), not dereferenced.
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclGetDataType(t, &d), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("AclNN_Parameter_Error"), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(nullptr), 0);
  // Creation refuses NULL arrays with counts and unknown dtypes.
  EXPECT_EQ(aclCreateTensor(nullptr, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage.data(), 1, &dummy), nullptr);
  EXPECT_EQ(aclCreateTensor(view.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 1, &dummy), nullptr);
  EXPECT_EQ(
      aclCreateTensor(view.data(), 2, static_cast<aclDataType>(60), nullptr, 0, ACL_FORMAT_ND, nullptr, 0, &dummy),
      nullptr);
}

TEST(AclnnBase, ScalarsArraysAndLists) {
  float v = 2.5f;
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_EQ(aclCreateScalar(&v, ACL_STRING), nullptr);
  aclScalar* s = aclCreateScalar(&v, ACL_FLOAT);
  ASSERT_NE(s, nullptr);
  const int64_t ints[] = {1, 2, 3};
  const float floats[] = {1, 2};
  const bool bools[] = {true};
  aclIntArray* ia = aclCreateIntArray(ints, 3);
  aclIntArray* empty = aclCreateIntArray(nullptr, 5);
  aclFloatArray* fa = aclCreateFloatArray(floats, 2);
  aclBoolArray* ba = aclCreateBoolArray(bools, 1);
  uint64_t n = 99;
  EXPECT_EQ(aclGetIntArraySize(ia, &n), 0);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(aclGetIntArraySize(empty, &n), 0);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(aclGetFloatArraySize(fa, &n), 0);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(aclGetBoolArraySize(ba, &n), 0);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(aclGetIntArraySize(nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(fa, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  // Lists own their elements: destroying the list destroys them.
  const Dims d{2};
  aclTensor* a = aclCreateTensor(d.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d.data(), 1, nullptr);
  aclTensor* b = aclCreateTensor(d.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d.data(), 1, nullptr);
  const aclTensor* ts[] = {a, nullptr, b};
  aclTensorList* tl = aclCreateTensorList(ts, 3);
  EXPECT_EQ(aclGetTensorListSize(tl, &n), 0);
  EXPECT_EQ(n, 3u);
  aclScalar* s2 = aclCreateScalar(&v, ACL_FLOAT);
  const aclScalar* ss[] = {s2};
  aclScalarList* sl = aclCreateScalarList(ss, 1);
  EXPECT_EQ(aclGetScalarListSize(sl, &n), 0);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(aclGetScalarListSize(nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyTensorList(tl), 0);
  EXPECT_EQ(aclDestroyTensor(a), ACLNN_ERR_PARAM_INVALID);  // already destroyed with the list
  EXPECT_EQ(aclDestroyScalarList(sl), 0);
  EXPECT_EQ(aclDestroyScalar(s2), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensorList(tl), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyScalar(s), 0);
  EXPECT_EQ(aclDestroyIntArray(ia), 0);
  EXPECT_EQ(aclDestroyIntArray(empty), 0);
  EXPECT_EQ(aclDestroyFloatArray(fa), 0);
  EXPECT_EQ(aclDestroyBoolArray(ba), 0);
  EXPECT_EQ(aclDestroyBoolArray(ba), ACLNN_ERR_PARAM_INVALID);
  // A pointer of another kind is not accepted.
  EXPECT_EQ(aclDestroyIntArray(reinterpret_cast<aclIntArray*>(&v)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyScalarList(nullptr), 0);
  EXPECT_EQ(aclDumpOpTensors(nullptr, "n", nullptr, 0, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnFinalize(), 0);
}

TEST(AclnnBase, InitConfig) {
  EXPECT_EQ(aclnnInit("/nonexistent/aclnn.json"), ACLNN_ERR_PARAM_INVALID);
}

class AclnnExecutor : public AclnnTest {};

TEST_F(AclnnExecutor, SingleUseRepeatableAndRefresh) {
  DevTensor x, y, out, out2;
  make(x, ACL_FLOAT, {4, 5});
  make(y, ACL_FLOAT, {4, 5});
  make(out, ACL_FLOAT, {4, 5});
  make(out2, ACL_FLOAT, {4, 5});
  float one = 1.0f;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  // Phase 2 errors.
  EXPECT_EQ(aclnnAdd(nullptr, 0, nullptr, stream_), ACLNN_ERR_PARAM_NULLPTR);
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x.t, y.t, alpha, out.t, &ws, &ex), 0);
  EXPECT_EQ(ws, 0u);
  run(aclnnAdd, ws, ex, stream_);
  // Single use: the executor is gone.
  EXPECT_EQ(aclnnAdd(nullptr, 0, ex, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclSetAclOpExecutorRepeatable"), std::string::npos);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_ERR_INNER);

  // Repeatable: runs twice, addresses refreshed in between.
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x.t, y.t, alpha, out.t, &ws, &ex), 0);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  run(aclnnAdd, ws, ex, stream_);
  run(aclnnAdd, ws, ex, stream_);
  EXPECT_EQ(aclSetOutputTensorAddr(ex, 0, out2.t, out2.dev), 0);
  EXPECT_EQ(aclSetOutputTensorAddr(ex, 1, out2.t, out2.dev), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetInputTensorAddr(ex, 2, x.t, x.dev), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetInputTensorAddr(ex, 0, nullptr, x.dev), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(AclSetTensorAddr(ex, 0, x.t, x.dev), 0);
  EXPECT_EQ(aclSetTensorAddr(nullptr, 0, x.t, x.dev), ACLNN_ERR_INNER_NULLPTR);
  aclTensorList* empty_list = aclCreateTensorList(nullptr, 0);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(ex, 0, 0, empty_list, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(AclSetDynamicOutputTensorAddr(ex, 0, 0, nullptr, nullptr), ACLNN_ERR_INNER_NULLPTR);
  aclDestroyTensorList(empty_list);
  run(aclnnAdd, ws, ex, stream_);
  const auto xs = x.read_view(), ys = y.read_view(), o1 = out.read_view(), o2 = out2.read_view();
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_FLOAT_EQ(o1[i], static_cast<float>(xs[i] + ys[i]));
    EXPECT_FLOAT_EQ(o2[i], static_cast<float>(xs[i] + ys[i]));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_ERR_INNER);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_ERR_INNER);
  // A never-run executor can be destroyed.
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x.t, y.t, alpha, out.t, &ws, &ex), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyScalar(alpha);
}

TEST_F(AclnnExecutor, WorkspaceRules) {
  // f16 + f32 with a transposed input: staged through a workspace.
  DevTensor x, y, out;
  make_transposed(x, ACL_FLOAT16, {8, 6});
  make(y, ACL_FLOAT, {8, 6});
  make(out, ACL_FLOAT16, {8, 6});
  float two = 2.0f;
  aclScalar* alpha = aclCreateScalar(&two, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x.t, y.t, alpha, out.t, &ws, &ex), 0);
  EXPECT_GT(ws, 0u);
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  EXPECT_EQ(aclnnAdd(w, ws - 1, ex, stream_), ACLNN_ERR_PARAM_INVALID);  // smaller than phase 1 said
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("smaller"), std::string::npos);
  EXPECT_EQ(aclnnAdd(nullptr, ws, ex, stream_), ACLNN_ERR_PARAM_NULLPTR);  // NULL workspace
  EXPECT_EQ(aclnnAdd(w, ws, ex, stream_), 0);  // a repeatable executor survives the failures
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  const auto xs = x.read_view(), ys = y.read_view(), o = out.read_view();
  std::vector<double> want;
  for (size_t i = 0; i < xs.size(); ++i) want.push_back(as_dtype(static_cast<float>(xs[i] + 2.0 * ys[i]), ACL_FLOAT16));
  expect_close(o, want, ACL_FLOAT16, "f16 + 2*f32");
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  // A non-repeatable executor is freed even by a failing phase 2.
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x.t, y.t, alpha, out.t, &ws, &ex), 0);
  EXPECT_EQ(aclnnAdd(w, 0, ex, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnAdd(w, ws, ex, stream_), ACLNN_ERR_PARAM_INVALID);
  aclrtFree(w);
  aclDestroyScalar(alpha);
}

}  // namespace
}  // namespace aclnn_test
