// Runs serialized ONNX models through the public model API (aclmdlLoadFromMem, aclmdlExecute) on
// device 0 of the default configuration: the suite fixture that starts the runtime once, and one
// call that runs a loaded model on float32 inputs and returns its float32 outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace onnx_test {

// aclInit and device 0 for the whole suite.
class ModelRunTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  static void TearDownTestSuite() {
    aclrtResetDevice(0);
    aclFinalize();
  }
};

// Loads the model; 0 (and a test failure with the runtime's message) if it does not load.
inline uint32_t load_model(const std::string& bytes) {
  uint32_t id = 0;
  const aclError rc = aclmdlLoadFromMem(bytes.data(), bytes.size(), &id);
  EXPECT_EQ(rc, ACL_SUCCESS) << aclGetRecentErrMsg();
  return rc == ACL_SUCCESS ? id : 0;
}

// Runs loaded model `id` once on `inputs`, returns its outputs (of `out_counts` floats each) and
// unloads it.
inline std::vector<std::vector<float>> run_and_unload(uint32_t id, const std::vector<std::vector<float>>& inputs,
                                                      const std::vector<size_t>& out_counts) {
  std::vector<std::vector<float>> host = inputs;
  for (size_t n : out_counts) host.emplace_back(n);
  std::vector<void*> dev(host.size(), nullptr);
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  for (size_t i = 0; i < host.size(); ++i) {
    const size_t bytes = host[i].size() * sizeof(float);
    EXPECT_EQ(aclrtMalloc(&dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const bool is_in = i < inputs.size();
    if (is_in) {
      EXPECT_EQ(aclrtMemcpy(dev[i], bytes, host[i].data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    }
    EXPECT_EQ(aclmdlAddDatasetBuffer(is_in ? in : out, aclCreateDataBuffer(dev[i], bytes)), ACL_SUCCESS);
  }
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<std::vector<float>> got;
  for (size_t i = inputs.size(); i < host.size(); ++i) {
    std::vector<float>& y = host[i];
    EXPECT_EQ(aclrtMemcpy(y.data(), y.size() * 4, dev[i], y.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    got.push_back(std::move(y));
  }
  for (aclmdlDataset* set : {in, out}) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i));
    aclmdlDestroyDataset(set);
  }
  for (void* p : dev) aclrtFree(p);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  return got;
}

}  // namespace onnx_test
