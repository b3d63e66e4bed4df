// Load-time fusion of what follows a convolution into it (model/src/fuse_conv.cpp). Private to the
// model library.
#pragma once

#include "arun/model/graph.hpp"

namespace arun::model::detail {

// Whether import_onnx runs fuse_convs: ARUN_MODEL_FUSE=0 turns it off (to compare), read per call.
bool conv_fusion_enabled();

// Rewrites Conv -> Relu / LeakyRelu / Clip (constant bounds) and Conv -> Add (same shape) [-> an
// activation] into one FusedConv node (ops/src/conv.cpp): X, W, B, Z = the Add's other operand,
// attributes activation / activation_params. A link fuses only when the convolution's output is
// read by that one node input and is no graph output. The fused node takes the place of the last
// node it replaces, so the order stays topological; the dropped intermediates are left with no
// producer and no consumers (the plan gives them no memory). Also BatchNormalization -> Relu, by
// the same rule, into the normalisation (its fused_relu attribute). Returns how many nodes were
// removed.
int fuse_convs(Graph* g);

}  // namespace arun::model::detail
