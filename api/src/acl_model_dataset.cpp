// Model datasets (spec 2.13): an ordered list of data-buffer pointers for the inputs or outputs of
// aclmdlExecute. Host-side records only; they work before aclInit, like data buffers.
#include <new>
#include <string>

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

// Per-index tensor descriptions, for models with dynamic shapes. Ours are static, so aclmdlExecute
// only checks that a description set here agrees with the model's tensor.
aclError aclmdlSetDatasetTensorDesc(aclmdlDataset *dataset, aclTensorDesc *tensorDesc, size_t index) {
  return api_call_no_runtime("aclmdlSetDatasetTensorDesc", [&] {
    if (dataset == nullptr) return invalid_param("dataset is NULL");
    if (index >= dataset->buffers.size()) {
      return invalid_param("index " + std::to_string(index) + " is out of range (the dataset holds " +
                           std::to_string(dataset->buffers.size()) + " buffers)");
    }
    if (dataset->descs.size() < dataset->buffers.size()) dataset->descs.resize(dataset->buffers.size(), nullptr);
    dataset->descs[index] = tensorDesc;
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
