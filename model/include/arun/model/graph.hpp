// A model as the executor sees it: tensors with static shapes, nodes in topological order whose
// op types the operator library (ops/) implements, and the execution plan computed once at load
// time: which stream each node runs on, which events join the streams, and where every
// intermediate tensor lives in one workspace (offsets reused once a tensor is dead).
//
// The graph is imported from ONNX (onnx_import.cpp); the plan (plan.cpp) only depends on the graph,
// so it is testable without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "arun/core/status.hpp"
#include "arun/ops/op.hpp"

namespace arun::model {

enum class TensorKind : uint8_t {
  input,         // a graph input: the caller's buffer
  weight,        // an initializer: copied to the weight area at load
  intermediate,  // produced by a node; lives in the workspace
  output,        // produced by a node and a graph output: the caller's buffer
};

struct TensorInfo {
  std::string name;
  aclDataType dtype = ACL_DT_UNDEFINED;
  ops::Shape shape;
  size_t bytes = 0;
  TensorKind kind = TensorKind::intermediate;
  int producer = -1;           // node index, or -1
  std::vector<int> consumers;  // node indices, ascending, without repeats
  int io_index = -1;           // index among the graph inputs / outputs
  std::vector<uint8_t> data;   // weights: the initializer's bytes (little-endian, row-major)
};

struct Node {
  std::string name;  // the ONNX node name, or "<op>_<index>" when it has none
  std::string op;
  std::vector<int> inputs;  // tensor indices; -1 = an omitted optional input
  std::vector<int> outputs;
  ops::Attrs attrs;
};

struct Graph {
  std::string name;  // the ONNX graph's name (may be empty)
  std::vector<TensorInfo> tensors;
  std::vector<Node> nodes;  // topologically ordered
  std::vector<int> inputs;  // graph inputs (tensor indices), in declaration order
  std::vector<int> outputs;
};

// What a model may declare before it is refused (ACL_ERROR_PARSE_MODEL / ACL_ERROR_READ_MODEL_FAILURE).
struct ImportLimits {
  uint64_t max_tensor_bytes = uint64_t(4) << 30;  // any one tensor: initializers and inferred tensors
  uint64_t max_file_bytes = INT32_MAX;            // a model file (protobuf parses at most 2 GiB - 1)
};
// The limits of this process: the defaults above, or ARUN_MODEL_MAX_TENSOR_BYTES /
// ARUN_MODEL_MAX_FILE_BYTES (positive decimal byte counts; the file limit cannot exceed the default).
ImportLimits import_limits();

// The opsets of the default ONNX domain the importer accepts; each operator follows the semantics
// of the opset the model declares (Softmax / LogSoftmax flatten at `axis` before 13, ...).
constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 17;

// Parses a serialized ONNX ModelProto, validates it (onnx_checks.hpp: initializer sizes against
// their data and the limits, dims, window attributes of convolutions and pooling, Reshape's
// shape, references and cycles) and only then runs ONNX shape inference and builds the graph. Codes:
//   not a parsable ModelProto, malformed graph (cycle, undefined tensor, an initializer whose data
//   does not match its dims, a tensor over the limit, a zero stride ...)  -> ACL_ERROR_PARSE_MODEL
//   a tensor without a static shape                                    -> ACL_ERROR_GE_SHAPE_INVALID
//   a data type the runtime has no aclDataType for                      -> ACL_ERROR_GE_DATATYPE_INVALID
//   an op type (or attribute) the operator library does not implement, a node of another domain,
//   an opset of the default domain outside [kMinOpset, kMaxOpset]      -> ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID
// The message names the node and its op type, or the tensor; unsupported nodes are all listed.
Status import_onnx(const void* data, size_t size, Graph* out);
Status import_onnx(const void* data, size_t size, const ImportLimits& limits, Graph* out);

// Reads a model file into *out: only a regular file of 1..limits.max_file_bytes bytes (a directory,
// a device such as /dev/zero or a FIFO is refused at once, without reading or blocking).
// ACL_ERROR_READ_MODEL_FAILURE with the path and the reason otherwise.
Status read_model_file(const char* path, const ImportLimits& limits, std::string* out);

// Bytes kept between planned tensors: every offset is a multiple of this.
inline constexpr size_t kAlignment = 64;

struct Plan {
  int streams = 1;                      // stream 0 is the caller's; 1.. are the model's own
  std::vector<int> stream_of;           // per node
  std::vector<bool> record;             // per node: record an event after it (other streams wait on it)
  std::vector<std::vector<int>> waits;  // per node: nodes (on other streams) whose events it waits for
  std::vector<int> tails;               // per stream: its last node, or -1 (stream 0 waits for the others' tails)
  std::vector<size_t> offset;           // per tensor: workspace offset (intermediates) or weight-area offset (weights)
  size_t work_size = 0;
  size_t weight_size = 0;
};

// Assigns streams (at most max_streams; independent branches get their own) and memory. Two
// intermediates share bytes only if one is dead before the other is produced in the execution
// order the streams and events guarantee.
Plan make_plan(const Graph& graph, int max_streams);

}  // namespace arun::model
