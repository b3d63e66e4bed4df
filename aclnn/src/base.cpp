// The aclnn base functions (aclnn-api.md section 2): creation, destruction, getters, raw addresses,
// aclnnInit/aclnnFinalize, and the helpers every operator shares (registry, dtypes, status).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#include "acl/acl.h"
#include "aclnn_internal.hpp"
#include "arun/runtime/front_door.hpp"

namespace arun::aclnn {

Status error(int code, const std::string& message) {
  // CANN's messages start with this tag; programs and scripts grep for it.
  const char* tag = code == kNullptr || code == kInvalid ? "AclNN_Parameter_Error(EZ1001): " : "AclNN_Inner_Error: ";
  return Status(static_cast<Errc>(code), tag + message);
}

aclnnStatus finish(const char* function, const Status& st) {
  if (st.ok()) return 0;
  return static_cast<aclnnStatus>(rt::record_failure(function, st));
}

aclnnStatus finish_exception(const char* function) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return finish(function, error(kInner, "out of host memory"));
  } catch (const std::exception& e) {
    return finish(function, error(kInner, std::string("internal error: ") + e.what()));
  } catch (...) {
    return finish(function, error(kInner, "internal error"));
  }
}

// ---- registry: every live object and its kind. A mutex is enough: creation and destruction are
// host calls far from any hot loop, and an executor is looked up once per phase 2.
namespace {
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<const void*, Kind>& registry() {
  static auto* r = new std::unordered_map<const void*, Kind>();  // never destroyed: exit handlers may still ask
  return *r;
}
}  // namespace

void track(const void* object, Kind kind) {
  std::lock_guard lock(registry_mutex());
  registry()[object] = kind;
}
bool untrack(const void* object, Kind kind) {
  std::lock_guard lock(registry_mutex());
  auto it = registry().find(object);
  if (it == registry().end() || it->second != kind) return false;
  registry().erase(it);
  return true;
}
bool live(const void* object, Kind kind) {
  std::lock_guard lock(registry_mutex());
  auto it = registry().find(object);
  return it != registry().end() && it->second == kind;
}

Status check_tensor(const aclTensor* t, const char* what) {
  if (t == nullptr) return null_error(what);
  if (!live(t, Kind::Tensor)) return invalid(std::string(what) + " is not a live aclTensor (destroyed or foreign)");
  return Status::Ok();
}
Status check_scalar(const aclScalar* s, const char* what) {
  if (s == nullptr) return null_error(what);
  if (!live(s, Kind::Scalar)) return invalid(std::string(what) + " is not a live aclScalar (destroyed or foreign)");
  return Status::Ok();
}

Status check_array(const aclIntArray* a, const char* what) {
  if (a == nullptr) return null_error(what);
  if (!live(a, Kind::IntArray)) return invalid(std::string(what) + " is not a live aclIntArray (destroyed or foreign)");
  return Status::Ok();
}

// ---- dtypes
bool is_floating(aclDataType d) {
  return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_DOUBLE || d == ACL_BF16;
}
bool is_integral(aclDataType d) {
  switch (d) {
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_INT64:
    case ACL_UINT64:
      return true;
    default:
      return false;
  }
}
bool is_complex(aclDataType d) {
  return d == ACL_COMPLEX32 || d == ACL_COMPLEX64 || d == ACL_COMPLEX128;
}

aclDataType promote(aclDataType lhs, aclDataType rhs) {
  // Section 4's TensorTensor table, rows and columns in this order.
  static const aclDataType order[] = {ACL_FLOAT, ACL_FLOAT16,   ACL_DOUBLE,    ACL_BF16,      ACL_INT8,  ACL_UINT8,
                                      ACL_INT16, ACL_UINT16,    ACL_INT32,     ACL_UINT32,    ACL_INT64, ACL_UINT64,
                                      ACL_BOOL,  ACL_COMPLEX32, ACL_COMPLEX64, ACL_COMPLEX128};
  constexpr aclDataType X = ACL_DT_UNDEFINED, f32 = ACL_FLOAT, f16 = ACL_FLOAT16, f64 = ACL_DOUBLE, bf = ACL_BF16,
                        s8 = ACL_INT8, u8 = ACL_UINT8, s16 = ACL_INT16, u16 = ACL_UINT16, s32 = ACL_INT32,
                        u32 = ACL_UINT32, s64 = ACL_INT64, u64 = ACL_UINT64, b = ACL_BOOL, c32 = ACL_COMPLEX32,
                        c64 = ACL_COMPLEX64, c128 = ACL_COMPLEX128;
  static const aclDataType table[16][16] = {
      {f32, f32, f64, f32, f32, f32, f32, X, f32, X, f32, X, f32, c64, c64, c128},
      {f32, f16, f64, f32, f16, f16, f16, X, f16, X, f16, X, f16, c32, c64, c128},
      {f64, f64, f64, f64, f64, f64, f64, X, f64, X, f64, X, f64, c128, c128, c128},
      {f32, f32, f64, bf, bf, bf, bf, X, bf, X, bf, X, bf, c32, c64, c128},
      {f32, f16, f64, bf, s8, s16, s16, X, s32, X, s64, X, s8, c32, c64, c128},
      {f32, f16, f64, bf, s16, u8, s16, X, s32, X, s64, X, u8, c32, c64, c128},
      {f32, f16, f64, bf, s16, s16, s16, X, s32, X, s64, X, s16, c32, c64, c128},
      {X, X, X, X, X, X, X, u16, X, X, X, X, X, X, X, X},
      {f32, f16, f64, bf, s32, s32, s32, X, s32, X, s64, X, s32, c32, c64, c128},
      {X, X, X, X, X, X, X, X, X, u32, X, X, X, X, X, X},
      {f32, f16, f64, bf, s64, s64, s64, X, s64, X, s64, X, s64, c32, c64, c128},
      {X, X, X, X, X, X, X, X, X, X, X, u64, X, X, X, X},
      {f32, f16, f64, bf, s8, u8, s16, X, s32, X, s64, X, b, c32, c64, c128},
      {c64, c32, c128, c32, c32, c32, c32, X, c32, X, c32, X, c32, c32, c64, c128},
      {c64, c64, c128, c64, c64, c64, c64, X, c64, X, c64, X, c64, c64, c64, c128},
      {c128, c128, c128, c128, c128, c128, c128, X, c128, X, c128, X, c128, c128, c128, c128},
  };
  auto index = [&](aclDataType d) {
    const auto* it = std::find(std::begin(order), std::end(order), d);
    return it == std::end(order) ? -1 : static_cast<int>(it - std::begin(order));
  };
  const int i = index(lhs), j = index(rhs);
  if (i < 0 || j < 0) return ACL_DT_UNDEFINED;
  return table[i][j];
}

bool can_cast(aclDataType from, aclDataType to) {
  if (from == to || from == ACL_BOOL) return true;
  if (is_integral(from) || is_floating(from)) return is_integral(to) || is_floating(to) || is_complex(to);
  if (is_complex(from)) return is_complex(to) || is_floating(to);
  return false;
}

bool in_list(aclDataType d, const std::vector<aclDataType>& list) {
  return std::find(list.begin(), list.end(), d) != list.end();
}
std::string dtype_list(const std::vector<aclDataType>& list) {
  std::string s;
  for (aclDataType d : list) s += (s.empty() ? "" : ", ") + std::string(ops::dtype_name(d));
  return s;
}

Value scalar_value(const aclScalar& s) {
  return load_value(s.bytes, s.dtype);
}

// ---- shapes

bool contiguous(const aclTensor& t) {
  int64_t expect = 1;
  for (size_t k = t.view.size(); k-- > 0;) {
    if (t.view[k] != 1 && t.strides[k] != expect) return false;
    expect *= t.view[k];
  }
  return true;
}

namespace {
// Byte range [lo, hi) a view can touch (strides are non-negative once check_view passed).
std::pair<uintptr_t, uintptr_t> byte_range(const aclTensor& t) {
  const size_t es = aclDataTypeSize(t.dtype);
  int64_t last = t.offset;
  for (size_t k = 0; k < t.view.size(); ++k) {
    if (t.view[k] == 0) return {0, 0};
    last += (t.view[k] - 1) * t.strides[k];
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(t.data);
  return {base + static_cast<uintptr_t>(t.offset) * es, base + static_cast<uintptr_t>(last + 1) * es};
}
}  // namespace

bool overlaps(const aclTensor& a, const aclTensor& b) {
  const auto [alo, ahi] = byte_range(a);
  const auto [blo, bhi] = byte_range(b);
  return alo < bhi && blo < ahi;
}

bool same_view(const aclTensor& a, const aclTensor& b) {
  return a.data == b.data && a.dtype == b.dtype && a.offset == b.offset && a.view == b.view && a.strides == b.strides;
}

Status check_view(const aclTensor& t, const char* what) {
  if (t.view.size() > static_cast<size_t>(kMaxRank)) {
    return invalid(std::string(what) + " has rank " + std::to_string(t.view.size()) + ", more than 8");
  }
  for (size_t k = 0; k < t.view.size(); ++k) {
    if (t.view[k] < 0) return invalid(std::string(what) + " has a negative dimension " + ops::shape_text(t.view));
    if (t.strides[k] < 0) return invalid(std::string(what) + " has a negative stride");
  }
  if (t.offset < 0) return invalid(std::string(what) + " has a negative view offset");
  if (aclDataTypeSize(t.dtype) == 0) return invalid(std::string(what) + " has dtype " + ops::dtype_name(t.dtype));
  // The element span must be addressable: bounds the kernels' index arithmetic.
  int64_t last = t.offset, n = 1;
  for (size_t k = 0; k < t.view.size(); ++k) {
    if (__builtin_mul_overflow(n, t.view[k], &n)) return invalid(std::string(what) + " is too large");
    int64_t step = 0;
    if (t.view[k] > 0 &&
        (__builtin_mul_overflow(t.view[k] - 1, t.strides[k], &step) || __builtin_add_overflow(last, step, &last))) {
      return invalid(std::string(what) + " is too large");
    }
  }
  if (n > 0 && (last > (int64_t{1} << 46) || n > (int64_t{1} << 46)))
    return invalid(std::string(what) + " is too large");
  if (t.data == nullptr && n > 0) return invalid(std::string(what) + " has no device address");
  return Status::Ok();
}

namespace {

bool known_dtype(aclDataType d) {
  switch (d) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT8:
    case ACL_INT32:
    case ACL_UINT8:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_UINT32:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_BOOL:
    case ACL_STRING:
    case ACL_COMPLEX64:
    case ACL_COMPLEX128:
    case ACL_BF16:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_COMPLEX32:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
      return true;
    default:
      return false;
  }
}

// Fills `t` from aclCreateTensor's arguments (validated by the caller).
void fill_tensor(aclTensor* t, const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                 const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                 uint64_t storageDimsNum, void* data) {
  t->dtype = dataType;
  t->view.assign(viewDims, viewDims + viewDimsNum);
  if (stride != nullptr) {
    t->strides.assign(stride, stride + viewDimsNum);
  } else {
    t->strides = ops::Shape(viewDimsNum, 1);
    for (size_t k = viewDimsNum; k-- > 1;) t->strides[k - 1] = t->strides[k] * std::max<int64_t>(t->view[k], 1);
  }
  t->offset = offset;
  t->format = format;
  t->storage.assign(storageDims, storageDims + storageDimsNum);
  t->data = data;
}

// The dims are copied into vectors: refuse counts no real tensor has before allocating for them.
constexpr uint64_t kMaxDims = 64;

template <class T, class Obj>
Obj* create_array(const T* value, uint64_t size) {
  if (value == nullptr) size = 0;
  if (size > (uint64_t{1} << 32)) return nullptr;
  auto* a = new (std::nothrow) Obj();
  if (a == nullptr) return nullptr;
  try {
    a->values.assign(value, value + size);
    track(a, std::is_same_v<Obj, aclIntArray>     ? Kind::IntArray
             : std::is_same_v<Obj, aclFloatArray> ? Kind::FloatArray
                                                  : Kind::BoolArray);
  } catch (...) {
    delete a;
    return nullptr;
  }
  return a;
}

template <class Obj>
aclnnStatus destroy(const char* function, const Obj* obj, Kind kind) {
  if (obj == nullptr) return 0;
  if (!untrack(obj, kind)) return finish(function, invalid("not a live object (destroyed twice, or foreign)"));
  delete obj;
  return 0;
}

template <class Obj>
aclnnStatus size_of(const char* function, const Obj* obj, Kind kind, uint64_t* size) {
  if (obj == nullptr) return finish(function, null_error("the array or list"));
  if (size == nullptr) return finish(function, null_error("size"));
  if (!live(obj, kind)) return finish(function, invalid("not a live object (destroyed or foreign)"));
  *size = obj->values.size();
  return 0;
}

aclnnStatus copy_dims(const char* function, const aclTensor* tensor, int64_t** dims, uint64_t* num,
                      const std::vector<int64_t> aclTensor::*member) {
  if (tensor == nullptr) return finish(function, null_error("tensor"));
  if (dims == nullptr || num == nullptr) return finish(function, null_error("the output pointer"));
  if (!live(tensor, Kind::Tensor)) return finish(function, invalid("tensor is not a live aclTensor"));
  const auto& v = tensor->*member;
  auto* out = new (std::nothrow) int64_t[v.size()];  // delete[] by the caller, as CANN documents
  if (out == nullptr) return finish(function, error(kInnerNullptr, "out of host memory"));
  std::copy(v.begin(), v.end(), out);
  *dims = out;
  *num = v.size();
  return 0;
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun;
using namespace arun::aclnn;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData) {
  if ((viewDims == nullptr && viewDimsNum > 0) || (storageDims == nullptr && storageDimsNum > 0)) return nullptr;
  if (viewDimsNum > kMaxDims || storageDimsNum > kMaxDims || !known_dtype(dataType)) return nullptr;
  auto* t = new (std::nothrow) aclTensor();
  if (t == nullptr) return nullptr;
  try {
    fill_tensor(t, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum, tensorData);
    track(t, Kind::Tensor);
  } catch (...) {
    delete t;
    return nullptr;
  }
  return t;
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  if (value == nullptr) return nullptr;
  size_t bytes = 0;
  switch (dataType) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
    case ACL_HIFLOAT8:
      bytes = 1;
      break;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      bytes = 2;
      break;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      bytes = 4;
      break;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      bytes = 8;
      break;
    case ACL_COMPLEX128:
      bytes = 16;
      break;
    default:
      return nullptr;
  }
  auto* s = new (std::nothrow) aclScalar();
  if (s == nullptr) return nullptr;
  s->dtype = dataType;
  std::memcpy(s->bytes, value, bytes);
  try {
    track(s, Kind::Scalar);
  } catch (...) {
    delete s;
    return nullptr;
  }
  return s;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return create_array<int64_t, aclIntArray>(value, size);
}
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return create_array<float, aclFloatArray>(value, size);
}
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return create_array<bool, aclBoolArray>(value, size);
}

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  if (value == nullptr) size = 0;
  if (size > (uint64_t{1} << 24)) return nullptr;
  auto* l = new (std::nothrow) aclTensorList();
  if (l == nullptr) return nullptr;
  try {
    for (uint64_t i = 0; i < size; ++i) l->values.push_back(const_cast<aclTensor*>(value[i]));
    track(l, Kind::TensorList);
  } catch (...) {
    delete l;
    return nullptr;
  }
  return l;
}

aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  if (value == nullptr) size = 0;
  if (size > (uint64_t{1} << 24)) return nullptr;
  auto* l = new (std::nothrow) aclScalarList();
  if (l == nullptr) return nullptr;
  try {
    for (uint64_t i = 0; i < size; ++i) l->values.push_back(const_cast<aclScalar*>(value[i]));
    track(l, Kind::ScalarList);
  } catch (...) {
    delete l;
    return nullptr;
  }
  return l;
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                          uint64_t storageDimsNum, void* tensorDataAddr) {
  return guarded("aclInitTensor", [&] {
    if (tensor == nullptr) return null_error("tensor");
    if (viewDims == nullptr && viewDimsNum > 0) return null_error("viewDims");
    if (storageDims == nullptr && storageDimsNum > 0) return null_error("storageDims");
    if (!live(tensor, Kind::Tensor)) return invalid("tensor is not a live aclTensor");
    if (viewDimsNum > kMaxDims || storageDimsNum > kMaxDims) return invalid("too many dimensions");
    if (!known_dtype(dataType)) return invalid("unknown dataType " + std::to_string(static_cast<int>(dataType)));
    fill_tensor(tensor, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                tensorDataAddr);
    return Status::Ok();
  });
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  return destroy("aclDestroyTensor", tensor, Kind::Tensor);
}
aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  return destroy("aclDestroyScalar", scalar, Kind::Scalar);
}
aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return destroy("aclDestroyIntArray", array, Kind::IntArray);
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return destroy("aclDestroyFloatArray", array, Kind::FloatArray);
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return destroy("aclDestroyBoolArray", array, Kind::BoolArray);
}
aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  if (array == nullptr) return 0;
  if (!untrack(array, Kind::TensorList)) {
    return finish("aclDestroyTensorList", invalid("not a live aclTensorList (destroyed twice, or foreign)"));
  }
  // The list owns its tensors; an entry that is not live (NULL, already destroyed) is skipped.
  for (aclTensor* t : array->values) {
    if (t != nullptr && untrack(t, Kind::Tensor)) delete t;
  }
  delete array;
  return 0;
}
aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  if (array == nullptr) return 0;
  if (!untrack(array, Kind::ScalarList)) {
    return finish("aclDestroyScalarList", invalid("not a live aclScalarList (destroyed twice, or foreign)"));
  }
  for (aclScalar* s : array->values) {
    if (s != nullptr && untrack(s, Kind::Scalar)) delete s;
  }
  delete array;
  return 0;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return copy_dims("aclGetViewShape", tensor, viewDims, viewDimsNum, &aclTensor::view);
}
aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  return copy_dims("aclGetStorageShape", tensor, storageDims, storageDimsNum, &aclTensor::storage);
}
aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  return copy_dims("aclGetViewStrides", tensor, stridesValue, stridesNum, &aclTensor::strides);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  return guarded("aclGetViewOffset", [&] {
    if (tensor == nullptr) return null_error("tensor");
    if (offset == nullptr) return null_error("offset");
    ARUN_RETURN_IF_ERROR(check_tensor(tensor, "tensor"));
    *offset = tensor->offset;
    return Status::Ok();
  });
}
aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  return guarded("aclGetFormat", [&] {
    if (tensor == nullptr) return null_error("tensor");
    if (format == nullptr) return null_error("format");
    ARUN_RETURN_IF_ERROR(check_tensor(tensor, "tensor"));
    *format = tensor->format;
    return Status::Ok();
  });
}
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  return guarded("aclGetDataType", [&] {
    if (tensor == nullptr) return null_error("tensor");
    if (dataType == nullptr) return null_error("dataType");
    ARUN_RETURN_IF_ERROR(check_tensor(tensor, "tensor"));
    *dataType = tensor->dtype;
    return Status::Ok();
  });
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return size_of("aclGetIntArraySize", array, Kind::IntArray, size);
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return size_of("aclGetFloatArraySize", array, Kind::FloatArray, size);
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return size_of("aclGetBoolArraySize", array, Kind::BoolArray, size);
}
aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  return size_of("aclGetTensorListSize", tensorList, Kind::TensorList, size);
}
aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  return size_of("aclGetScalarListSize", scalarList, Kind::ScalarList, size);
}

aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  return guarded("aclSetRawTensorAddr", [&] {
    ARUN_RETURN_IF_ERROR(check_tensor(tensor, "tensor"));
    tensor->data = addr;
    return Status::Ok();
  });
}
aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  return guarded("aclGetRawTensorAddr", [&] {
    if (tensor == nullptr) return null_error("tensor");
    if (addr == nullptr) return null_error("addr");
    ARUN_RETURN_IF_ERROR(check_tensor(tensor, "tensor"));
    *addr = tensor->data;
    return Status::Ok();
  });
}

aclnnStatus aclDumpOpTensors(const char* opType, const char* opName, aclTensor** tensors, size_t inputTensorNum,
                             size_t outputTensorNum, aclrtStream stream) {
  return guarded("aclDumpOpTensors", [&] {
    if (opType == nullptr) return null_error("opType");
    if (opName == nullptr) return null_error("opName");
    if (tensors == nullptr) return null_error("tensors");
    if (stream == nullptr) return null_error("stream");
    // Data dump is not implemented in ascend-run: with dump disabled the spec makes this a no-op.
    return Status::Ok();
  });
}

aclnnStatus aclnnInit(const char* configPath) {
  return guarded("aclnnInit", [&]() -> Status {
    if (configPath != nullptr) {
      // Only the config's syntax matters to us (its one documented switch is a debug-kernel mode).
      std::FILE* f = std::fopen(configPath, "rb");
      if (f == nullptr) return invalid(std::string("cannot read config ") + configPath);
      std::string text;
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() < (1u << 20)) text.append(buf, n);
      std::fclose(f);
      const auto first = text.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && text[first] != '{')
        return invalid(std::string("config ") + configPath + " is not a JSON object");
    }
    // aclnn-only programs call this instead of aclInit and then use the runtime (spec 6.4).
    if (rt::initialized()) return Status::Ok();
    const aclError rc = aclInit(nullptr);
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_REPEAT_INITIALIZE) {
      return error(kRuntimeError, "runtime initialisation failed (aclInit: " + std::to_string(rc) + ")");
    }
    return Status::Ok();
  });
}

aclnnStatus aclnnFinalize() {
  // Nothing of aclnn's own outlives a call (executors belong to the program); aclFinalize tears the
  // runtime down.
  return 0;
}

// Declared by CANN only in an internal header (spec Appendix B), so exported explicitly here.
__attribute__((visibility("default"))) aclnnStatus aclnnReselectStaticKernel() {
  return 0;
}

__attribute__((visibility("default"))) aclnnStatus aclnnReselectStaticKernelWithPath(const char* staticKernelPath) {
  return guarded("aclnnReselectStaticKernelWithPath", [&] {
    if (staticKernelPath == nullptr) return null_error("staticKernelPath");
    std::FILE* f = std::fopen(staticKernelPath, "r");
    if (f == nullptr) return invalid(std::string("path does not resolve: ") + staticKernelPath);
    std::fclose(f);
    return Status::Ok();
  });
}

}  // extern "C"
