// Model datasets (spec 2.13): an ordered list of data-buffer pointers for the inputs or outputs of
// aclmdlExecute. Host-side records only; they work before aclInit, like data buffers.
#include <new>

#include "acl_descriptors.hpp"
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclmdlDataset *aclmdlCreateDataset() { return new (std::nothrow) aclmdlDataset(); }

aclError aclmdlDestroyDataset(const aclmdlDataset *dataset) {
  return api_call_no_runtime("aclmdlDestroyDataset", [&] {
    if (dataset == nullptr) return invalid_param("dataset is NULL");
    delete dataset;  // the buffers stay: they belong to the caller
    return Status::Ok();
  });
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset, aclDataBuffer *dataBuffer) {
  return api_call_no_runtime("aclmdlAddDatasetBuffer", [&] {
    if (dataset == nullptr) return invalid_param("dataset is NULL");
    if (dataBuffer == nullptr) return invalid_param("dataBuffer is NULL");
    dataset->buffers.push_back(dataBuffer);
    return Status::Ok();
  });
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset) {
  return dataset == nullptr ? 0 : dataset->buffers.size();
}

aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset, size_t index) {
  if (dataset == nullptr || index >= dataset->buffers.size()) return nullptr;
  return dataset->buffers[index];
}

}  // extern "C"
