#include "kernel_common.hpp"

namespace arun::ops {

void register_pool(std::vector<OpDef>& defs) {}

}  // namespace arun::ops
