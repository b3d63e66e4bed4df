// libFuzzer target: the ONNX importer behind aclmdlLoadFromMem / aclmdlQuerySize / ascend-run run:
// parse, validate (onnx_checks), shape inference, graph building, then the execution plan of what
// was accepted. Any input must give a Status, never a crash or an allocation over the limit.
#include <cstddef>
#include <cstdint>

#include "arun/model/graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  arun::model::ImportLimits limits;
  limits.max_tensor_bytes = 1u << 20;  // keep the fuzzer's memory small; the checks are the same
  arun::model::Graph graph;
  arun::Status st = arun::model::import_onnx(data, size, limits, &graph);
  if (st.ok()) {
    arun::model::Plan plan = arun::model::make_plan(graph, 4);
    (void)plan;
  }
  return 0;
}
