// Tensor descriptions, data buffers, operator attributes and the float16 converters (spec 2.11,
// 2.12): every getter, the NULL and out-of-range cases, and the special shapes (scalar, empty,
// dynamic, unknown rank). These need no device work, but run in the suite's fixture like the rest.
#include <limits>

#include "op_support.hpp"

namespace conformance {
namespace {

class TensorDescTest : public AclTest {};

TEST_P(TensorDescTest, GettersReportWhatWasCreated) {
  const int64_t dims[] = {2, 3, 5};
  aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT16, 3, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(nullptr, d);
  EXPECT_EQ(ACL_FLOAT16, aclGetTensorDescType(d));
  EXPECT_EQ(ACL_FORMAT_NCHW, aclGetTensorDescFormat(d));
  EXPECT_EQ(3u, aclGetTensorDescNumDims(d));
  EXPECT_EQ(30u, aclGetTensorDescElementCount(d));
  EXPECT_EQ(60u, aclGetTensorDescSize(d));
  for (size_t i = 0; i < 3; ++i) {
    int64_t v = -7;
    EXPECT_ACL_OK(aclGetTensorDescDimV2(d, i, &v));
    EXPECT_EQ(dims[i], v);
  }
  int64_t v = 42;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimV2(d, 3, &v));
  EXPECT_EQ(42, v);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimV2(d, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimV2(nullptr, 0, &v));
  aclDestroyTensorDesc(d);
}

TEST_P(TensorDescTest, ScalarEmptyDynamicAndUnknownRank) {
  aclTensorDesc *scalar = aclCreateTensorDesc(ACL_INT64, 0, nullptr, ACL_FORMAT_ND);
  ASSERT_NE(nullptr, scalar);
  EXPECT_EQ(0u, aclGetTensorDescNumDims(scalar));
  EXPECT_EQ(1u, aclGetTensorDescElementCount(scalar));
  EXPECT_EQ(8u, aclGetTensorDescSize(scalar));

  const int64_t empty[] = {4, 0, 3};
  aclTensorDesc *e = aclCreateTensorDesc(ACL_FLOAT, 3, empty, ACL_FORMAT_ND);
  EXPECT_EQ(3u, aclGetTensorDescNumDims(e));
  EXPECT_EQ(0u, aclGetTensorDescElementCount(e));
  EXPECT_EQ(0u, aclGetTensorDescSize(e));

  const int64_t dyn[] = {-1, 8};
  aclTensorDesc *dy = aclCreateTensorDesc(ACL_FLOAT, 2, dyn, ACL_FORMAT_ND);
  int64_t v = 0;
  EXPECT_ACL_OK(aclGetTensorDescDimV2(dy, 0, &v));
  EXPECT_EQ(-1, v);
  EXPECT_EQ(0u, aclGetTensorDescElementCount(dy));
  EXPECT_EQ(0u, aclGetTensorDescSize(dy));

  const int64_t unknown[] = {-2};
  aclTensorDesc *u = aclCreateTensorDesc(ACL_FLOAT, 1, unknown, ACL_FORMAT_ND);
  EXPECT_EQ(static_cast<size_t>(ACL_UNKNOWN_RANK), aclGetTensorDescNumDims(u));
  EXPECT_EQ(0u, aclGetTensorDescSize(u));

  const int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  aclTensorDesc *h = aclCreateTensorDesc(ACL_FLOAT, 2, huge, ACL_FORMAT_ND);
  EXPECT_EQ(0u, aclGetTensorDescElementCount(h)) << "2^80 elements overflow size_t";
  EXPECT_EQ(0u, aclGetTensorDescSize(h));
  for (aclTensorDesc *d : {scalar, e, dy, u, h}) aclDestroyTensorDesc(d);
}

TEST_P(TensorDescTest, InvalidCreationAndNullGetters) {
  const int64_t dims[] = {1};
  EXPECT_EQ(nullptr, aclCreateTensorDesc(ACL_FLOAT, -1, dims, ACL_FORMAT_ND));
  EXPECT_EQ(nullptr, aclCreateTensorDesc(ACL_FLOAT, 2, nullptr, ACL_FORMAT_ND));
  aclTensorDesc *omitted = aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, nullptr, ACL_FORMAT_UNDEFINED);
  EXPECT_NE(nullptr, omitted);
  aclDestroyTensorDesc(omitted);
  aclDestroyTensorDesc(nullptr);  // ignored
  EXPECT_EQ(ACL_DT_UNDEFINED, aclGetTensorDescType(nullptr));
  EXPECT_EQ(ACL_FORMAT_UNDEFINED, aclGetTensorDescFormat(nullptr));
  EXPECT_EQ(0u, aclGetTensorDescSize(nullptr));
  EXPECT_EQ(0u, aclGetTensorDescElementCount(nullptr));
  EXPECT_EQ(0u, aclGetTensorDescNumDims(nullptr));
}

TEST_P(TensorDescTest, DataBuffersRecordAndUpdate) {
  int storage[4];
  aclDataBuffer *b = aclCreateDataBuffer(storage, sizeof storage);
  ASSERT_NE(nullptr, b);
  EXPECT_EQ(static_cast<void *>(storage), aclGetDataBufferAddr(b));
  EXPECT_EQ(sizeof storage, aclGetDataBufferSizeV2(b));
  EXPECT_ACL_OK(aclUpdateDataBuffer(b, storage + 1, 8));
  EXPECT_EQ(static_cast<void *>(storage + 1), aclGetDataBufferAddr(b));
  EXPECT_EQ(8u, aclGetDataBufferSizeV2(b));
  EXPECT_ACL_OK(aclUpdateDataBuffer(b, nullptr, 0));
  EXPECT_EQ(nullptr, aclGetDataBufferAddr(b));
  EXPECT_ACL_OK(aclDestroyDataBuffer(b));
  aclDataBuffer *empty = aclCreateDataBuffer(nullptr, 0);
  ASSERT_NE(nullptr, empty);
  EXPECT_EQ(0u, aclGetDataBufferSizeV2(empty));
  EXPECT_ACL_OK(aclDestroyDataBuffer(empty));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclUpdateDataBuffer(nullptr, storage, 4));
  EXPECT_EQ(nullptr, aclGetDataBufferAddr(nullptr));
  EXPECT_EQ(0u, aclGetDataBufferSizeV2(nullptr));
}

TEST_P(TensorDescTest, AttributeSettersCheckTheirArguments) {
  aclopAttr *a = aclopCreateAttr();
  ASSERT_NE(nullptr, a);
  const int64_t vals[] = {1, 2};
  EXPECT_ACL_OK(aclopSetAttrInt(a, "axis", 1));
  EXPECT_ACL_OK(aclopSetAttrInt(a, "axis", 2));  // overwrite
  EXPECT_ACL_OK(aclopSetAttrFloat(a, "alpha", 0.5f));
  EXPECT_ACL_OK(aclopSetAttrBool(a, "flag", 3));
  EXPECT_ACL_OK(aclopSetAttrString(a, "mode", "tanh"));
  EXPECT_ACL_OK(aclopSetAttrListInt(a, "perm", 2, vals));
  EXPECT_ACL_OK(aclopSetAttrListInt(a, "empty", 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrInt(nullptr, "axis", 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrInt(a, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrFloat(a, nullptr, 1.0f));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrBool(nullptr, "b", 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrString(a, "mode", nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrListInt(a, "perm", -1, vals));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopSetAttrListInt(a, "perm", 2, nullptr));
  aclopDestroyAttr(a);
  aclopDestroyAttr(nullptr);  // ignored
}

TEST_P(TensorDescTest, Float16ConvertersRoundToNearestEven) {
  EXPECT_EQ(0x3c00, aclFloatToFloat16(1.0f));
  EXPECT_EQ(0xc000, aclFloatToFloat16(-2.0f));
  EXPECT_EQ(0x7bff, aclFloatToFloat16(65504.0f));
  EXPECT_EQ(0x7c00, aclFloatToFloat16(65520.0f));  // rounds past the largest finite value
  EXPECT_EQ(0x0001, aclFloatToFloat16(5.9604645e-8f));  // smallest subnormal
  EXPECT_EQ(0x0000, aclFloatToFloat16(2.9802322e-8f));  // exactly half of it: ties to even (0)
  EXPECT_EQ(0x3c00, aclFloatToFloat16(1.0f + 1.0f / 4096));  // tie between 1 and 1+2^-10: even
  EXPECT_EQ(0x3c01, aclFloatToFloat16(1.0f + 3.0f / 4096));
  EXPECT_EQ(1.0f, aclFloat16ToFloat(0x3c00));
  EXPECT_EQ(5.9604645e-8f, aclFloat16ToFloat(0x0001));
  EXPECT_EQ(6.097555e-05f, aclFloat16ToFloat(0x03ff));
  EXPECT_TRUE(std::isinf(aclFloat16ToFloat(0xfc00)));
  EXPECT_TRUE(std::isnan(aclFloat16ToFloat(aclFloatToFloat16(std::numeric_limits<float>::quiet_NaN()))));
  // Every finite half survives the round trip.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(h, aclFloatToFloat16(aclFloat16ToFloat(static_cast<aclFloat16>(h)))) << std::hex << h;
  }
}

TEST_P(TensorDescTest, DatasetsKeepBuffersInOrder) {
  aclmdlDataset *ds = aclmdlCreateDataset();
  ASSERT_NE(nullptr, ds);
  EXPECT_EQ(0u, aclmdlGetDatasetNumBuffers(ds));
  EXPECT_EQ(nullptr, aclmdlGetDatasetBuffer(ds, 0));
  int a = 0, b = 0;
  aclDataBuffer *ba = aclCreateDataBuffer(&a, sizeof a), *bb = aclCreateDataBuffer(&b, sizeof b);
  EXPECT_ACL_OK(aclmdlAddDatasetBuffer(ds, ba));
  EXPECT_ACL_OK(aclmdlAddDatasetBuffer(ds, bb));
  EXPECT_ACL_OK(aclmdlAddDatasetBuffer(ds, ba));  // the same buffer twice is two entries
  EXPECT_EQ(3u, aclmdlGetDatasetNumBuffers(ds));
  EXPECT_EQ(ba, aclmdlGetDatasetBuffer(ds, 0));
  EXPECT_EQ(bb, aclmdlGetDatasetBuffer(ds, 1));
  EXPECT_EQ(ba, aclmdlGetDatasetBuffer(ds, 2));
  EXPECT_EQ(nullptr, aclmdlGetDatasetBuffer(ds, 3));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlAddDatasetBuffer(ds, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlAddDatasetBuffer(nullptr, ba));
  EXPECT_EQ(3u, aclmdlGetDatasetNumBuffers(ds));
  EXPECT_EQ(0u, aclmdlGetDatasetNumBuffers(nullptr));
  EXPECT_EQ(nullptr, aclmdlGetDatasetBuffer(nullptr, 0));
  EXPECT_ACL_OK(aclmdlDestroyDataset(ds));
  // The buffers outlive the dataset.
  EXPECT_EQ(static_cast<void *>(&b), aclGetDataBufferAddr(bb));
  EXPECT_ACL_OK(aclDestroyDataBuffer(ba));
  EXPECT_ACL_OK(aclDestroyDataBuffer(bb));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlDestroyDataset(nullptr));
}

ARUN_CONFORMANCE_INSTANTIATE(TensorDescTest);

}  // namespace
}  // namespace conformance
