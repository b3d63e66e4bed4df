// Data buffers, tensor descriptions and the float16 converters (spec 2.11, 2.12; Appendix A).
// These are plain host-side records: they never touch the runtime, so they work before aclInit.
#include <cstring>
#include <limits>
#include <new>

#include "acl_descriptors.hpp"
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

// Element count, or 0 for a dynamic / unknown shape or on overflow (what the getters report).
size_t element_count(const aclTensorDesc& d) {
  if (d.unknown_rank) return 0;
  size_t n = 1;
  for (int64_t dim : d.dims) {
    if (dim < 0) return 0;
    const auto u = static_cast<size_t>(dim);
    if (u != 0 && n > std::numeric_limits<size_t>::max() / u) return 0;
    n *= u;
  }
  return n;
}

}  // namespace

extern "C" {

aclDataBuffer *aclCreateDataBuffer(void *data, size_t size) {
  auto *b = new (std::nothrow) aclDataBuffer();
  if (b == nullptr) return nullptr;
  b->data = data;
  b->size = size;
  return b;
}

aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer) {
  return api_call_no_runtime("aclDestroyDataBuffer", [&] {
    if (dataBuffer == nullptr) return invalid_param("dataBuffer is NULL");
    delete dataBuffer;
    return Status::Ok();
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size) {
  return api_call_no_runtime("aclUpdateDataBuffer", [&] {
    if (dataBuffer == nullptr) return invalid_param("dataBuffer is NULL");
    dataBuffer->data = data;
    dataBuffer->size = size;
    return Status::Ok();
  });
}

void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer) { return dataBuffer == nullptr ? nullptr : dataBuffer->data; }

uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer) {
  return dataBuffer == nullptr ? 0 : static_cast<uint32_t>(dataBuffer->size);
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer) { return dataBuffer == nullptr ? 0 : dataBuffer->size; }

aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims, aclFormat format) {
  if (numDims < 0 || (numDims > 0 && dims == nullptr)) return nullptr;
  auto *d = new (std::nothrow) aclTensorDesc();
  if (d == nullptr) return nullptr;
  d->dtype = dataType;
  d->format = format;
  if (numDims == 1 && dims[0] == -2) {
    d->unknown_rank = true;
  } else {
    try {
      d->dims.assign(dims, dims + numDims);
    } catch (const std::bad_alloc &) {
      delete d;
      return nullptr;
    }
  }
  return d;
}

void aclDestroyTensorDesc(const aclTensorDesc *desc) { delete desc; }

aclDataType aclGetTensorDescType(const aclTensorDesc *desc) { return desc == nullptr ? ACL_DT_UNDEFINED : desc->dtype; }

aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc) {
  return desc == nullptr ? ACL_FORMAT_UNDEFINED : desc->format;
}

size_t aclGetTensorDescElementCount(const aclTensorDesc *desc) { return desc == nullptr ? 0 : element_count(*desc); }

size_t aclGetTensorDescSize(const aclTensorDesc *desc) {
  if (desc == nullptr) return 0;
  const size_t n = element_count(*desc);
  const size_t elem = aclDataTypeSize(desc->dtype);
  if (elem != 0 && n > std::numeric_limits<size_t>::max() / elem) return 0;
  return n * elem;
}

size_t aclGetTensorDescNumDims(const aclTensorDesc *desc) {
  if (desc == nullptr) return 0;
  return desc->unknown_rank ? static_cast<size_t>(ACL_UNKNOWN_RANK) : desc->dims.size();
}

aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize) {
  return api_call_no_runtime("aclGetTensorDescDimV2", [&] {
    if (desc == nullptr) return invalid_param("desc is NULL");
    if (dimSize == nullptr) return invalid_param("dimSize is NULL");
    if (desc->unknown_rank) return invalid_param("the description's rank is unknown");
    if (index >= desc->dims.size()) {
      return invalid_param("index " + std::to_string(index) + " is out of range for rank " +
                           std::to_string(desc->dims.size()));
    }
    *dimSize = desc->dims[index];
    return Status::Ok();
  });
}

int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index) {
  if (desc == nullptr || desc->unknown_rank || index >= desc->dims.size()) return -1;
  return desc->dims[index];
}

float aclFloat16ToFloat(aclFloat16 value) { return arun::ops::half_to_float(value); }

aclFloat16 aclFloatToFloat16(float value) { return arun::ops::float_to_half(value); }

}  // extern "C"
