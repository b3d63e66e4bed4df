#include "kernel_common.hpp"

namespace arun::ops {

void register_normalization(std::vector<OpDef>& defs) {}

}  // namespace arun::ops
