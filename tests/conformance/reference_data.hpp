// The test models' inputs and references (.npy, float32 or float64) as doubles, read through
// the command line's .npy library (tools/ascend-run/npy.hpp).
#ifndef ARUN_TESTS_CONFORMANCE_REFERENCE_DATA_HPP_
#define ARUN_TESTS_CONFORMANCE_REFERENCE_DATA_HPP_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "npy.hpp"

namespace conformance {

#ifdef ARUN_TEST_MODELS_DIR
// A generated test model (tests/models) by its stem: "mlp_b1" -> <models dir>/mlp_b1.onnx.
inline std::string modelFile(const std::string& stem) {
  return std::string(ARUN_TEST_MODELS_DIR) + "/" + stem + ".onnx";
}
#endif

struct NpyArray {
  std::vector<int64_t> shape;  // () for a scalar
  std::vector<double> values;

  // The values as float32 bytes (what a float model input holds).
  std::vector<uint8_t> f32Bytes() const {
    std::vector<uint8_t> out(values.size() * sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = static_cast<float>(values[i]);
      std::memcpy(out.data() + i * sizeof f, &f, sizeof f);
    }
    return out;
  }
};

// Throws std::runtime_error naming the file and the problem.
inline NpyArray readNpy(const std::string &path) {
  npy::Array raw;
  std::string error;
  if (!npy::read(path, &raw, &error)) throw std::runtime_error(error);
  if (raw.descr != "f4" && raw.descr != "f8") throw std::runtime_error(path + ": float32 or float64 data expected");
  NpyArray a;
  a.shape = raw.shape;
  a.values.resize(raw.elements());
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (raw.descr == "f4") {
      float f;
      std::memcpy(&f, raw.data.data() + i * 4, 4);
      a.values[i] = f;
    } else {
      std::memcpy(&a.values[i], raw.data.data() + i * 8, 8);
    }
  }
  return a;
}

}  // namespace conformance

#endif  // ARUN_TESTS_CONFORMANCE_REFERENCE_DATA_HPP_
