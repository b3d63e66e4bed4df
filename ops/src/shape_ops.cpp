#include "kernel_common.hpp"

namespace arun::ops {

void register_shape_ops(std::vector<OpDef>& defs) {}

}  // namespace arun::ops
