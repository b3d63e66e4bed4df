// The importer's tests' helpers: the protobuf builders (onnx_proto.hpp) and import() through the
// importer itself.
#pragma once

#include <string>

#include "arun/model/graph.hpp"
#include "onnx_proto.hpp"

namespace arun::model::testing {

using namespace onnx_test;  // the protobuf builders

struct Result {
  int code;
  std::string message;
};

inline Result import(const onnx::ModelProto& m, const ImportLimits& limits = ImportLimits{}, Graph* out = nullptr) {
  const std::string bytes = m.SerializeAsString();
  Graph g;
  const Status st = import_onnx(bytes.data(), bytes.size(), limits, out != nullptr ? out : &g);
  return {static_cast<int>(st.value()), st.message()};
}

}  // namespace arun::model::testing
