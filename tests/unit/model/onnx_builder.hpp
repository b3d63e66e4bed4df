// The importer's tests' helpers: the protobuf builders (onnx_proto.hpp) and import() through the
// importer itself.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

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

// The graph a model imports to; a failed import is a test failure (and an empty graph).
inline Graph load(const onnx::ModelProto& m) {
  Graph g;
  const Result r = import(m, ImportLimits{}, &g);
  EXPECT_EQ(r.code, 0) << r.message;
  return g;
}

// The graph's node ops, in order.
inline std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> v;
  for (const Node& n : g.nodes) v.push_back(n.op);
  return v;
}

}  // namespace arun::model::testing
