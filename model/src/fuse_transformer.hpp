// Load-time fusion of the elementwise spellings of LayerNorm and GELU that transformer exports
// contain (model/src/fuse_transformer.cpp). Private to the model library.
#pragma once

#include "arun/model/graph.hpp"

namespace arun::model::detail {

// Rewrites, on a graph with inferred shapes (float32 / float16):
//   ReduceMean(x, last axis) -> Sub(x, mean) -> Pow(c, 2) -> ReduceMean(last axis) -> Add(eps) ->
//   Sqrt -> Div(c, std) [-> Mul(gamma)] [-> Add(beta)]
// into one LayerNormalization node (X, Scale = gamma or a ones weight it adds, B = beta; axis = the
// last axis, epsilon), and x * 0.5 * (1 + erf(x / sqrt(2))) in its usual spellings into one Gelu
// node (approximate "none"; the tanh approximation: "tanh"). Every intermediate must be read only
// inside the pattern and be no graph output; the constants must be scalar weights of the expected
// values. The fused node takes the place of the pattern's last node (order stays topological); the
// dropped intermediates are removed. Returns how many nodes were removed. Runs under
// conv_fusion_enabled() (ARUN_MODEL_FUSE).
int fuse_transformer(Graph* g);

}  // namespace arun::model::detail
